import assert from "node:assert/strict";
import { fixMmapThreshold, MMAP_THRESHOLD, mmapThresholdEnv } from "./malloc.ts";

const HERE = new URL("./malloc.ts", import.meta.url).href;

/** What `fixMmapThreshold` says in a fresh process with these flags and environment. */
async function inChild(flags: string[], env: Record<string, string> = {}): Promise<string> {
  // `deno eval` would grant every permission: a script file, run with exactly these flags
  const script = await Deno.makeTempFile({ suffix: ".ts" });
  await Deno.writeTextFile(
    script,
    `import { fixMmapThreshold } from "${HERE}"; console.log(fixMmapThreshold());`,
  );
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-lock", ...flags, script],
    env, // added to this process's environment (DENO_DIR and the rest are inherited)
    stdout: "piped",
    stderr: "piped",
  }).output().finally(() => Deno.remove(script));
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  return new TextDecoder().decode(out.stdout).trim();
}

Deno.test({
  name: "fixMmapThreshold sets glibc's threshold with FFI allowed, and leaves a user's own value",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    // this test process runs with -A, on glibc (Debian)
    assert.equal(fixMmapThreshold(), true);
    assert.equal(await inChild(["-A"]), "true");
    // without permission to load libraries nothing is tried
    assert.equal(await inChild(["--allow-env", "--allow-read"]), "false");
    // a value the user set is glibc's already, and children get the user's value
    assert.equal(await inChild(["-A"], { MALLOC_MMAP_THRESHOLD_: "65536" }), "false");
  },
});

Deno.test("mmapThresholdEnv gives children the user's value, else the fixed threshold", () => {
  const own = Deno.env.get("MALLOC_MMAP_THRESHOLD_");
  try {
    Deno.env.delete("MALLOC_MMAP_THRESHOLD_");
    assert.deepEqual(mmapThresholdEnv(), { MALLOC_MMAP_THRESHOLD_: String(MMAP_THRESHOLD) });
    Deno.env.set("MALLOC_MMAP_THRESHOLD_", "65536");
    assert.deepEqual(mmapThresholdEnv(), { MALLOC_MMAP_THRESHOLD_: "65536" });
  } finally {
    if (own === undefined) Deno.env.delete("MALLOC_MMAP_THRESHOLD_");
    else Deno.env.set("MALLOC_MMAP_THRESHOLD_", own);
  }
});
