/**
 * Running the real `shelfmark` CLI in a child process, for tests.
 *
 * @module
 */

const CLI = new URL("../server/cli.ts", import.meta.url).pathname;

/** Run `shelfmark ARGS...`; resolves to the exit code and the decoded output. */
export async function runCli(
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", CLI, ...args],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}
