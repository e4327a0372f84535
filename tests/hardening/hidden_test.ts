/**
 * Hidden files and folders are not indexed by default, and status says so (skipped,
 * `hidden`); a library with `"index_hidden": true` indexes them.
 */
import { join } from "node:path";
import { assertEquals } from "../assert.ts";
import { openTestShelf } from "../shelf_helper.ts";
import { Shelf } from "../../shelf/shelf.ts";
import { partsOf } from "../../shelf/_parts.ts";

Deno.test("index lists hidden entries as skipped, and indexes them with index_hidden", async () => {
  const base = await Deno.makeTempDir({ prefix: "shelfmark-hidden-" });
  const lib = join(base, "lib");
  await Deno.mkdir(join(lib, ".notes"), { recursive: true });
  await Deno.writeTextFile(join(lib, "a.md"), "# A\n\nSeen.\n");
  await Deno.writeTextFile(join(lib, ".draft.md"), "# Draft\n\nHidden.\n");
  await Deno.writeTextFile(join(lib, ".notes", "n.md"), "# N\n\nHidden too.\n");
  const data = join(base, "data");
  await Deno.mkdir(data);
  const config = (hidden?: boolean) =>
    Deno.writeTextFile(
      join(data, "shelfmark.json"),
      JSON.stringify({ libraries: [{ name: "lib", path: lib, index_hidden: hidden }] }),
    );
  await config();
  await using t = await openTestShelf({ base, data });
  await t.shelf.index();
  assertEquals(partsOf(t.shelf).catalog.paths(), ["lib/a.md"]);
  assertEquals(partsOf(t.shelf).catalog.skipped().map((s) => [s.path, s.reason]).sort(), [
    ["lib/.draft.md", "hidden"],
    ["lib/.notes", "hidden"],
  ]);
  await config(true);
  await t.reopen();
  await t.shelf.index();
  assertEquals(partsOf(t.shelf).catalog.paths().sort(), [
    "lib/.draft.md",
    "lib/.notes/n.md",
    "lib/a.md",
  ]);
  assertEquals(partsOf(t.shelf).catalog.skipped(), []);
  await Deno.writeTextFile(
    join(data, "shelfmark.json"),
    JSON.stringify({ libraries: [{ name: "lib", path: lib, index_hidden: "yes" }] }),
  );
  const bad = await Shelf.open({ data, embedder: "none", workers: 0 }).then(
    async (s) => (await s.close(), ""),
    (e: Error) => e.message,
  );
  assertEquals(bad.endsWith("libraries[0].index_hidden must be true or false"), true, bad);
});
