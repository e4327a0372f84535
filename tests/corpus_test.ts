/**
 * The corpus is built once even when several processes ask for it together, and a
 * half-built corpus is never visible (`buildOnce` in `corpus.ts`), checked with fake
 * builders: the real corpus is not needed.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { assert, assertEquals, assertRejects } from "./assert.ts";
import { buildOnce, runBuilder } from "./corpus.ts";

const MARK = "GROUND_TRUTH.jsonl";

/** Names in `dir`, sorted. */
function names(dir: string): string[] {
  return [...Deno.readDirSync(dir)].map((e) => e.name).sort();
}

/** A builder that counts its runs, checks `target` is absent while it works, then fills `into`. */
function fakeBuilder(target: string, runs: string[]) {
  return async (into: string) => {
    runs.push(into);
    assert(into !== target, "built in place");
    // Let the other callers run while the build is under way.
    for (let i = 0; i < 5; i++) {
      await new Promise((r) => setTimeout(r, 10));
      assert(!existsSync(join(target, MARK)), "target visible before the build ended");
    }
    await Deno.mkdir(join(into, "text"));
    await Deno.writeTextFile(join(into, "text", "a.txt"), "a\n");
    await Deno.writeTextFile(join(into, MARK), "{}\n");
  };
}

Deno.test("buildOnce: two concurrent callers, one build, both get the complete folder", async () => {
  const root = await Deno.makeTempDir({ prefix: "shelfmark-corpus-" });
  try {
    const dir = join(root, "corpus-small");
    const runs: string[] = [];
    const build = fakeBuilder(dir, runs);
    const got = await Promise.all([
      buildOnce({ dir, marker: MARK, build, log: () => {} }),
      buildOnce({ dir, marker: MARK, build, log: () => {} }),
    ]);
    assertEquals(got, [dir, dir]);
    assertEquals(runs.length, 1);
    assertEquals(names(dir), [MARK, "text"]);
    // No temporary folder left beside it; the lock file stays (it is never deleted).
    assertEquals(names(root), ["corpus-small", "corpus-small.lock"]);
    // Complete: a third call does not build.
    await buildOnce({ dir, marker: MARK, build, log: () => {} });
    assertEquals(runs.length, 1);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("buildOnce: two processes at once run the builder command once", async () => {
  const root = await Deno.makeTempDir({ prefix: "shelfmark-corpus-" });
  try {
    const dir = join(root, "corpus-small");
    const count = join(root, "runs.txt");
    // The fake build.sh: counts its runs, fails if the target is already visible, takes a
    // moment (so the processes overlap), writes a file and the marker last.
    const script = join(root, "fake-build.sh");
    await Deno.writeTextFile(
      script,
      [
        "set -eu",
        `echo "$1" >> '${count}'`,
        `[ ! -e '${join(dir, MARK)}' ] || exit 3`,
        "sleep 0.5",
        'mkdir -p "$1/text" && echo a > "$1/text/a.txt"',
        `echo '{}' > "$1/${MARK}"`,
      ].join("\n"),
    );
    const main = join(root, "main.ts");
    const corpus = new URL("./corpus.ts", import.meta.url).href;
    await Deno.writeTextFile(
      main,
      `import { buildOnce, runBuilder } from ${JSON.stringify(corpus)};\n` +
        `console.log(await buildOnce({ dir: ${JSON.stringify(dir)}, marker: ${
          JSON.stringify(MARK)
        }, build: runBuilder("bash", [${JSON.stringify(script)}]) }));\n`,
    );
    const run = () =>
      new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", "--no-check", main],
        stdout: "piped",
        stderr: "piped",
      }).output();
    const outs = await Promise.all([run(), run()]);
    const dec = new TextDecoder();
    for (const o of outs) {
      assert(o.success, dec.decode(o.stderr));
      assertEquals(dec.decode(o.stdout).trim(), dir);
    }
    const runs = (await Deno.readTextFile(count)).trim().split("\n");
    assertEquals(runs.length, 1, `builder ran ${runs.length} times: ${runs}`);
    assert(runs[0] !== dir, "built in place");
    assertEquals(names(dir), [MARK, "text"]);
    assertEquals(names(root).filter((n) => n.startsWith("corpus-small")), [
      "corpus-small",
      "corpus-small.lock",
    ]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("buildOnce: a failed build leaves nothing behind and releases the lock", async () => {
  const root = await Deno.makeTempDir({ prefix: "shelfmark-corpus-" });
  try {
    const dir = join(root, "corpus-small");
    const err = await assertRejects(() =>
      buildOnce({ dir, marker: MARK, build: runBuilder("bash", ["-c", "exit 7", "x"]) })
    );
    assert(/code 7/.test(err.message), err.message);
    // A builder that succeeds without the marker is a failure too.
    const err2 = await assertRejects(() => buildOnce({ dir, marker: MARK, build: async () => {} }));
    assert(err2.message.includes(MARK), err2.message);
    assertEquals(names(root), ["corpus-small.lock"]);
    // The lock was released: the next call builds.
    const runs: string[] = [];
    await buildOnce({ dir, marker: MARK, build: fakeBuilder(dir, runs), log: () => {} });
    assertEquals(runs.length, 1);
    assert(existsSync(join(dir, MARK)));
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("buildOnce: a lock file left by a dead process and an incomplete folder are recovered", async () => {
  const root = await Deno.makeTempDir({ prefix: "shelfmark-corpus-" });
  try {
    const dir = join(root, "corpus-small");
    // What a killed older build leaves: a lock file naming a gone pid, a folder without the
    // marker, with downloaded packages in .cache.
    await Deno.writeTextFile(`${dir}.lock`, "999999999\n");
    await Deno.mkdir(join(dir, ".cache", "debs"), { recursive: true });
    await Deno.writeTextFile(join(dir, ".cache", "debs", "pkg_1.deb"), "deb");
    await Deno.writeTextFile(join(dir, "half-written.txt"), "x");
    const seen: string[][] = [];
    await buildOnce({
      dir,
      marker: MARK,
      build: async (into) => {
        seen.push(names(into));
        await Deno.writeTextFile(join(into, MARK), "{}\n");
      },
      log: () => {},
    });
    assertEquals(seen, [[".cache"]]); // the package cache was carried over, nothing else
    assertEquals(names(dir), [".cache", MARK]);
    assert(existsSync(join(dir, ".cache", "debs", "pkg_1.deb")));
    assertEquals(names(root), ["corpus-small", "corpus-small.lock"]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
