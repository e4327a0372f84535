import { createHash } from "node:crypto";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { assert, assertEquals } from "../tests/assert.ts";
import { smallCorpus } from "../tests/corpus.ts";
import { openTestShelf } from "../tests/shelf_helper.ts";
import { callTool } from "../server/dispatch.ts";

const DOC = "Manuals/bashref.pdf";

/** A library holding one real PDF of the small corpus (bashref.pdf, 190 pages). */
async function manuals(): Promise<{ base: string; lib: string }> {
  const base = await Deno.makeTempDir({ prefix: "shelfmark-partial-" });
  const lib = join(base, "Manuals");
  await Deno.mkdir(lib);
  await Deno.copyFile(
    join(await smallCorpus(), "pdf-manuals", "bash-doc", "bashref.pdf"),
    join(lib, "bashref.pdf"),
  );
  return { base, lib };
}

Deno.test("a PDF cut by the time limit keeps its warning, says so, and is whole after a run with time", async () => {
  const { base, lib } = await manuals();
  // 300 ms of CPU for the file (its soft limit is 240 ms): the extractor stops after a few
  // pages. The wall limit is 30 s more, so the cut is the soft deadline's, not a kill.
  await using t = await openTestShelf({ base, folders: [lib], workers: 1, fileTimeoutMs: 300 });
  assertEquals((await t.shelf.index()).indexed, 1);
  const id = t.shelf.findDocument(DOC)!;
  const cut = t.shelf.cards([id]).get(id)!;
  assertEquals(cut.partial, "time limit");
  const m = /^extraction stopped at page (\d+) of (\d+) \(time limit\)$/.exec(
    cut.warnings?.[0] ?? "",
  );
  assert(m, `warnings: ${JSON.stringify(cut.warnings)}`);
  const [stop, total] = [Number(m[1]), Number(m[2])];
  assert(stop <= total, `stopped at ${stop} of ${total}`);
  // The pages before the cut are kept.
  assertEquals(cut.page_count ?? 0, stop - 1);

  // status counts it and names it; read and outline say what is missing and why.
  const status = await callTool(t.shelf, "status", { output_format: "json" });
  assertEquals(status.json.partial_count, 1);
  assertEquals((status.json.partial as { path: string }[]).map((d) => d.path), [DOC]);
  const statusText = (await callTool(t.shelf, "status", {})).text;
  assert(statusText.includes("Extracted in part (time limit) 1 document"), statusText);
  assert(
    statusText.includes(`- ${DOC}: extraction stopped at page ${stop} of ${total}`),
    statusText,
  );
  const note = `Partial (time limit): extraction stopped at page ${stop} of ${total} (time limit)`;
  const read = await callTool(t.shelf, "read", { doc_id: id });
  assert(read.text.includes(note), read.text);
  const readJson = await callTool(t.shelf, "read", { doc_id: id, output_format: "json" });
  assertEquals(readJson.json.partial, "time limit");
  assertEquals(readJson.json.warnings, cut.warnings);
  const outline = await callTool(t.shelf, "outline", { doc_ids: [id] });
  assert(outline.text.includes(note), outline.text);

  // Not taken as done: the next run extracts it again; cut again, it keeps its warning.
  const again = await t.shelf.index();
  assertEquals([again.indexed, again.unchanged], [1, 0]);
  assertEquals(t.shelf.cards([id]).get(id)!.partial, "time limit");

  // Say a vector was made from the part (no embedder here: its record is written as
  // VectorSync writes one, with the file's content hash).
  const hash = createHash("sha256").update(await Deno.readFile(join(lib, "bashref.pdf")))
    .digest("hex");
  const db = new DatabaseSync(join(t.data, "catalog.db"));
  db.prepare("INSERT INTO vectors (doc_id, hash) VALUES (?, ?)").run(id, hash);

  // A run with time enough reads every page, and the warning goes; the vector is made again.
  await t.reopen({ fileTimeoutMs: 120_000 });
  const whole = await t.shelf.index();
  assertEquals([whole.indexed, whole.unchanged], [1, 0]);
  const card = t.shelf.cards([id]).get(id)!;
  assertEquals([card.partial, card.warnings, card.page_count], [undefined, undefined, total]);
  assertEquals(
    (await callTool(t.shelf, "status", { output_format: "json" })).json.partial_count,
    0,
  );
  assertEquals(db.prepare("SELECT hash FROM vectors WHERE doc_id = ?").get(id)?.hash, "");
  db.close();
  const readWhole = await callTool(t.shelf, "read", { doc_id: id });
  assert(!readWhole.text.includes("Partial"), readWhole.text);
  // Whole now: the run after that finds it unchanged.
  assertEquals((await t.shelf.index()).unchanged, 1);
});
