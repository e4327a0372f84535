import { createHash } from "node:crypto";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { assert, assertEquals } from "../tests/assert.ts";
import { smallCorpus } from "../tests/corpus.ts";
import { openTestShelf } from "../tests/shelf_helper.ts";
import { callTool } from "../server/dispatch.ts";
import { Catalog } from "../core/catalog.ts";
import type { ExtractFn } from "../core/types.ts";
import type { ExtractInput } from "../core/extractor.ts";
import { PAGES_WALL_MS, pagesIndexer, pools } from "../tests/partial_docs.ts";
import { Indexer } from "./indexer.ts";

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

Deno.test("a PDF cut again gets twice the time each run, up to 8x, then waits for a change", async () => {
  const { base, lib } = await manuals();
  // 50 ms of CPU (soft cut at 40 ms): bashref.pdf (190 pages) is cut even at 8x (320 ms).
  await using t = await openTestShelf({ base, folders: [lib], workers: 1, fileTimeoutMs: 50 });
  const pages: number[] = [];
  for (let run = 1; run <= 4; run++) {
    const p = await t.shelf.index();
    assertEquals([p.indexed, p.unchanged], [1, 0], `run ${run}`);
    const id = t.shelf.findDocument(DOC)!;
    const card = t.shelf.cards([id]).get(id)!;
    assertEquals([card.partial, card.attempts], ["time limit", run]);
    pages.push(card.page_count ?? 0);
    const listed = await callTool(t.shelf, "status", { output_format: "json" });
    assertEquals((listed.json.partial as { retry: boolean }[])[0]?.retry, run < 4);
  }
  // Eight times the time keeps more pages than once the time.
  assert(pages[3]! > pages[0]!, `pages kept per run: ${pages}`);
  // Cut at 8x: not extracted again (it stays partial, and status says so)...
  assertEquals((await t.shelf.index()).unchanged, 1);
  const status = (await callTool(t.shelf, "status", {})).text;
  assert(status.includes("(cut at 8x the time: not again until the file changes)"), status);
  // ...and read says so, not that the next run extracts it again.
  const read = (await callTool(t.shelf, "read", { doc_id: DOC, limit: 1 })).text;
  assert(read.includes("cut at 8x the time limit, not tried again until the file changes"), read);
  assert(!read.includes("extracts it again"), read);
  // ...until the file changes; then it starts again at once the time.
  const file = join(lib, "bashref.pdf");
  await Deno.utime(file, new Date(), new Date(Date.now() + 5_000));
  await Deno.writeFile(file, new Uint8Array([0x0a]), { append: true });
  assertEquals((await t.shelf.index()).indexed, 1);
  const id = t.shelf.findDocument(DOC)!;
  assertEquals(t.shelf.cards([id]).get(id)!.attempts, 1);
});

Deno.test("a file stopped by the hard time limit is tried again with twice the time, up to 8x", async () => {
  const base = await Deno.makeTempDir({ prefix: "shelfmark-stopped-" });
  const root = join(base, "Lib");
  await Deno.mkdir(root);
  // No real file ignores the soft deadline for long (pdf.js stops between pages), so a
  // plugin stands for one that does. Whether it fits its time must not depend on this
  // machine's speed, so the plugin goes by the time it is given (`input.allowance`): `.slow`
  // never ends with less than 8x the time and ends at once with 8x; `.stuck` never ends.
  // Neither uses CPU while it waits.
  const plugin = join(base, "ignores.ts");
  await Deno.writeTextFile(
    plugin,
    `export default { name: "ignores", extensions: [".slow", ".stuck"], extract(input) {
      if (input.extension === ".slow" && input.allowance >= 8) return { lines: ["done at last"] };
      return new Promise(() => {});
    } };`,
  );
  await Deno.writeTextFile(join(root, "a.slow"), "x");
  await Deno.writeTextFile(join(root, "b.stuck"), "x");
  // The hard (wall) limit: 300 ms, scaled by each file's allowance. The one extraction meant
  // to fit (the slow file at 8x) runs where no hard limit is within reach.
  const { tight, roomy, close } = pools(plugin, 300, 300);
  const fits = (input: ExtractInput) => input.extension === ".slow" && input.allowance === 8;
  const catalog = new Catalog(join(base, "catalog.db"));
  const asked: string[] = [];
  const extract: ExtractFn = (input) => {
    asked.push(`${input.path} ${input.allowance}x`);
    return (fits(input) ? roomy : tight).extract(input);
  };
  try {
    const indexer = new Indexer(catalog, extract, {});
    const lib = { name: "Lib", root };
    const run = async () => {
      asked.length = 0;
      const p = await indexer.run([lib]);
      return [p.indexed, p.skipped, p.unchanged];
    };
    for (const allowance of [1, 2, 4]) {
      assertEquals(await run(), [0, 2, 0], JSON.stringify(catalog.skipped()));
      assertEquals(asked, [`Lib/a.slow ${allowance}x`, `Lib/b.stuck ${allowance}x`]);
      assertEquals(catalog.skipped().map((s) => s.message), [
        `extraction ran longer than ${300 * allowance} ms${
          allowance > 1 ? ` (${allowance}x the time limit)` : ""
        }; tried again by the next index run with ${2 * allowance}x the time`,
        `extraction ran longer than ${300 * allowance} ms${
          allowance > 1 ? ` (${allowance}x the time limit)` : ""
        }; tried again by the next index run with ${2 * allowance}x the time`,
      ]);
    }
    // 8x is time enough for the slow file; the stuck one is stopped at 2,400 ms, given up on.
    assertEquals(await run(), [1, 1, 0], JSON.stringify(catalog.skipped()));
    assertEquals(asked, ["Lib/a.slow 8x", "Lib/b.stuck 8x"]);
    assertEquals(catalog.skipped().map((s) => ({ ...s })), [{
      path: "Lib/b.stuck",
      reason: "timeout",
      message: "extraction ran longer than 2400 ms (8x the time limit); not tried again " +
        "until the file changes",
    }]);
    // The next run extracts neither; a change to the stuck file makes it tried again at 1x.
    assertEquals(await run(), [0, 1, 1]);
    assertEquals(asked, []);
    await Deno.writeTextFile(join(root, "b.stuck"), "changed");
    assertEquals(await run(), [0, 1, 1]);
    assertEquals(asked, ["Lib/b.stuck 1x"]);
  } finally {
    close();
    catalog.close();
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("a partial document stopped by the hard limit on its retry keeps its part, listed once", async () => {
  const base = await Deno.makeTempDir({ prefix: "shelfmark-kept-" });
  const root = join(base, "Lib");
  const data = join(base, "data");
  await Deno.mkdir(root);
  await Deno.mkdir(data);
  // A plugin stands for a format whose extractor checks the soft deadline between pages but
  // can hang inside a page that only a run with more time reaches (see
  // `tests/partial_docs.ts`): cut short at 1x, stopped by the hard limit at 2x and more.
  await Deno.writeTextFile(join(root, "a.pages"), "x");
  const stop = `extraction ran longer than ${2 * PAGES_WALL_MS} ms (2x the time limit); ` +
    "tried again by the next index run with 4x the time";
  try {
    const catalog = new Catalog(join(data, "catalog.db"));
    const { indexer, close } = await pagesIndexer(base, catalog);
    try {
      const lib = { name: "Lib", root };
      assertEquals((await indexer.run([lib])).indexed, 1, JSON.stringify(catalog.skipped()));
      const id = catalog.idByPath("Lib/a.pages")!;
      assertEquals(catalog.text(id), "page 1 about quokkas");
      assertEquals(catalog.cards([id]).get(id)?.attempts, 1);

      const p = await indexer.run([lib]);
      assertEquals([p.indexed, p.skipped], [0, 1]);
      // The part is kept, still marked for another try; the stop is counted.
      assertEquals(catalog.text(id), "page 1 about quokkas");
      const card = catalog.cards([id]).get(id);
      assertEquals([card?.partial, card?.warnings], ["time limit", ["stopped at page 2 of 20"]]);
      assertEquals(catalog.skippedStates("Lib").get("Lib/a.pages")?.attempts, 2);
    } finally {
      close();
      catalog.close();
    }

    // status lists the file once, as what it is: a partial document (its part is searchable)
    // whose retry was stopped, not also a skipped file.
    await using t = await openTestShelf({ base, data, folders: [root] });
    const json = (await callTool(t.shelf, "status", { output_format: "json" })).json;
    assertEquals([json.skipped_count, json.skipped], [0, []]);
    assertEquals([json.documents_indexed, json.documents_total], [1, 1]);
    assertEquals(json.partial_count, 1);
    assertEquals(json.partial, [{
      path: "Lib/a.pages",
      partial: "time limit",
      warnings: ["stopped at page 2 of 20"],
      retry: true,
      stopped: stop,
    }]);
    const text = (await callTool(t.shelf, "status", {})).text;
    assert(!text.includes("Skipped"), text);
    assert(
      text.includes(
        `- Lib/a.pages: stopped at page 2 of 20; its retry with more time was stopped: ${stop}`,
      ),
      text,
    );
    const g = await callTool(t.shelf, "grep", { pattern: "quokkas", output_format: "json" });
    assert(JSON.stringify(g.json).includes("Lib/a.pages"), JSON.stringify(g.json));
  } finally {
    await Deno.remove(base, { recursive: true }).catch(() => {});
  }
});

Deno.test("a partial document given up after its retries were stopped counts as a document, not skipped", async () => {
  const base = await Deno.makeTempDir({ prefix: "shelfmark-given-up-" });
  const root = join(base, "Lib");
  await Deno.mkdir(root);
  await Deno.writeTextFile(join(root, "a.pages"), "x");
  const catalog = new Catalog(join(base, "catalog.db"));
  const { indexer, close } = await pagesIndexer(base, catalog);
  try {
    const lib = { name: "Lib", root };
    const run = async () => {
      const p = await indexer.run([lib]);
      return [p.indexed, p.unchanged, p.skipped];
    };
    assertEquals(await run(), [1, 0, 0], "cut short at 1x");
    // Stopped at 2x, 4x and 8x the time: the last stop gives it up, its part kept.
    for (const attempts of [2, 3, 4]) {
      assertEquals(await run(), [0, 0, 1], `stopped, attempt ${attempts}`);
      assertEquals(catalog.skippedStates("Lib").get("Lib/a.pages")?.attempts, attempts);
    }
    const { first } = catalog.partialDocuments(5);
    assertEquals(first.map((d) => [d.path, d.retry]), [["Lib/a.pages", false]]);
    // Later runs leave it as it is and count it as what status lists: a document.
    assertEquals(await run(), [0, 1, 0]);
    assertEquals(catalog.skipped(), []);
    assertEquals(catalog.text(catalog.idByPath("Lib/a.pages")!), "page 1 about quokkas");
  } finally {
    close();
    catalog.close();
    await Deno.remove(base, { recursive: true });
  }
});
