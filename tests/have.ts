/**
 * What the machine has, for `Deno.test({ ignore })`: compute it with a top-level await so
 * a test that cannot run is reported as ignored, never as passed.
 *
 * @module
 */

/** Whether `name` can be started (found on `PATH`); runs `name -v` and ignores its result. */
export async function hasCommand(name: string): Promise<boolean> {
  try {
    await new Deno.Command(name, { args: ["-v"], stdin: "null", stdout: "null", stderr: "null" })
      .output();
    return true;
  } catch {
    return false;
  }
}

/** Log why a test is ignored (once, at module load) when `missing` is true. */
export function noteMissing(missing: boolean, why: string): boolean {
  if (missing) console.warn(`ignored: ${why}`);
  return missing;
}
