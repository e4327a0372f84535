/**
 * A new extractor output version re-extracts that format's documents, in every library,
 * once; other formats and unchanged versions are left alone.
 */
import { join } from "node:path";
import { assertEquals } from "../tests/assert.ts";
import { openTestShelf } from "../tests/shelf_helper.ts";
import { EXTRACTION_VERSIONS } from "../extractors/versions.ts";
import { partsOf } from "./_parts.ts";

Deno.test("extraction versions: a raised version extracts that format again, once", async () => {
  const base = await Deno.makeTempDir({ prefix: "shelfmark-versions-" });
  const [a, b] = [join(base, "a"), join(base, "b")];
  await Deno.mkdir(a);
  await Deno.mkdir(b);
  await Deno.writeTextFile(join(a, "one.md"), "# One\n\nfirst note\n");
  await Deno.writeTextFile(join(b, "two.md"), "# Two\n\nsecond note\n");
  await Deno.writeTextFile(join(b, "three.txt"), "a plain text file\n");
  await using t = await openTestShelf({ base, folders: [a, b] });
  const run = async () => {
    const p = await partsOf(t.shelf).indexer.run(t.shelf.libraries);
    return [p.indexed, p.unchanged];
  };
  assertEquals(await run(), [3, 0]);
  assertEquals(await run(), [0, 3], "nothing changed");
  partsOf(t.shelf).indexer.versions = { ...EXTRACTION_VERSIONS, markdown: 2 };
  assertEquals(await run(), [2, 1], "both Markdown files, in both libraries; not the text file");
  assertEquals(await run(), [0, 3], "once");
  partsOf(t.shelf).indexer.versions = { ...EXTRACTION_VERSIONS };
  assertEquals(await run(), [2, 1], "back to version 1 is a change too");
});
