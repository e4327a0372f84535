/** `outline` asked for one document many times (or by id and path) outlines it once. */
import { join } from "node:path";
import { assertEquals } from "../assert.ts";
import { openTestShelf } from "../shelf_helper.ts";
import { callTool } from "../../server/dispatch.ts";
import { partsOf } from "../../shelf/_parts.ts";

Deno.test("outline dedupes repeated doc_ids and the same document by id and path", async () => {
  const base = await Deno.makeTempDir({ prefix: "shelfmark-outline-dedupe-" });
  const lib = join(base, "lib");
  await Deno.mkdir(lib);
  await Deno.writeTextFile(join(lib, "a.md"), "# A\n\n## One\n\nText.\n\n## Two\n\nMore.\n");
  await using t = await openTestShelf({ base, folders: [lib] });
  await t.shelf.index();
  const id = partsOf(t.shelf).catalog.ids()[0]!;
  const path = partsOf(t.shelf).catalog.get(id)!.card.path;
  const r = await callTool(t.shelf, "outline", {
    doc_ids: [...Array(19).fill(id), path],
    output_format: "json",
  });
  const json = r.json as { documents: { doc_id: string }[]; missing?: string[] };
  assertEquals(json.documents.map((d) => d.doc_id), [id]);
  assertEquals(json.missing, undefined);
  const twice = await callTool(t.shelf, "outline", {
    doc_ids: ["nope", "nope"],
    output_format: "json",
  }).catch((e: Error) => e.message);
  assertEquals(twice, 'No document "nope"');
});
