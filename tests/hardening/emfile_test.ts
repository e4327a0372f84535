/**
 * Running out of file descriptors is the machine's fault, not the file's: a run hit by
 * EMFILE fails without recording files as skipped or removing documents, and the next
 * run indexes what it missed.
 */
import { join } from "node:path";
import { assertEquals, assertMatch } from "../assert.ts";
import { openTestShelf } from "../shelf_helper.ts";
import { Indexer, isEnvironmentError } from "../../shelf/indexer.ts";
import { inProcess } from "../../extraction/pool.ts";
import type { ExtractFn } from "../../core/types.ts";
import { partsOf } from "../../shelf/_parts.ts";

Deno.test("Indexer.run() fails on EMFILE, skips nothing, keeps documents, retries", async () => {
  const base = await Deno.makeTempDir({ prefix: "shelfmark-emfile-" });
  const lib = join(base, "lib");
  await Deno.mkdir(lib);
  for (const n of ["a", "b", "c"]) await Deno.writeTextFile(join(lib, `${n}.md`), `# ${n}\n\nx\n`);
  await using t = await openTestShelf({ base, folders: [lib] });
  await t.shelf.index();
  assertEquals(partsOf(t.shelf).catalog.count(), 3);
  for (const n of ["a", "b", "c", "d"]) {
    await Deno.writeTextFile(join(lib, `${n}.md`), `# ${n}\n\nchanged ${n}\n`);
  }
  const real = inProcess(partsOf(t.shelf).registry);
  let failing = true;
  const extract: ExtractFn = (input) => {
    if (failing && input.path.endsWith("c.md")) {
      const e = Object.assign(new Error("Too many open files (os error 24)"), { code: "EMFILE" });
      return Promise.reject(e);
    }
    return real(input);
  };
  const indexer = new Indexer(partsOf(t.shelf).catalog, extract, {
    keyword: partsOf(t.shelf).keyword,
  });
  const err = await indexer.run(t.shelf.libraries).catch((e: Error) => e);
  assertEquals(err instanceof Error, true);
  assertMatch((err as Error).message, /Too many open files/);
  assertEquals(partsOf(t.shelf).catalog.skipped(), []);
  assertEquals(partsOf(t.shelf).catalog.count(), 3);
  failing = false;
  const p = await indexer.run(t.shelf.libraries);
  assertEquals(p.skipped, 0);
  assertEquals(partsOf(t.shelf).catalog.count(), 4);
  assertEquals(partsOf(t.shelf).catalog.paths().sort(), [
    "lib/a.md",
    "lib/b.md",
    "lib/c.md",
    "lib/d.md",
  ]);
});

Deno.test("isEnvironmentError() tells storage and descriptor errors from file errors", () => {
  const coded = (code: string) => Object.assign(new Error("x"), { code });
  assertEquals(isEnvironmentError(coded("EMFILE")), true);
  assertEquals(isEnvironmentError(coded("ENOSPC")), true);
  assertEquals(isEnvironmentError(Object.assign(new Error("x"), { errcode: 13 })), true);
  assertEquals(isEnvironmentError(new Error("database or disk is full")), true);
  assertEquals(isEnvironmentError(coded("EACCES")), false);
  assertEquals(isEnvironmentError(new Error("corrupt PDF")), false);
  assertEquals(isEnvironmentError("EMFILE"), false);
});
