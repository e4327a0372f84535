/**
 * Running the real `shelfmark` CLI in a child process, for tests.
 *
 * @module
 */

const CLI = new URL("../server/cli.ts", import.meta.url).pathname;

/**
 * Run `shelfmark ARGS...`; resolves to the exit code and the decoded output. Without an
 * embedder (`SHELFMARK_EMBEDDER=none`: keyword search, no model to load) unless `env`
 * names one.
 */
export async function runCli(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", CLI, ...args],
    env: { SHELFMARK_EMBEDDER: "none", ...env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/**
 * Start `shelfmark serve --http --port 0 ARGS...`; resolves once it printed its URL. Its
 * stderr keeps being drained so the server never blocks on a full pipe.
 */
export async function startHttpServer(
  args: string[],
  env?: Record<string, string>,
): Promise<{ child: Deno.ChildProcess; url: string }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", CLI, "serve", "--http", "--port", "0", ...args],
    env,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  let url: string | undefined;
  while (!url) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`server exited: ${seen}`);
    seen += value;
    url = seen.match(/Streamable HTTP at (\S+)/)?.[1];
  }
  (async () => {
    while (!(await reader.read()).done) { /* drain */ }
  })().catch(() => {});
  return { child, url };
}

/** Wait until an HTTP server's first index run is over (bounded: a stuck server fails). */
export async function ready(base: string): Promise<void> {
  for (let i = 0; i < 1200; i++) {
    const r = await fetch(`${base}/health`).then((r) => r.json()).catch(() => null);
    if (r?.state === "ready") return;
    await new Promise((res) => setTimeout(res, 250));
  }
  throw new Error("the server never finished indexing");
}
