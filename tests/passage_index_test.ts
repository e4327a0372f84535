/**
 * The passage index on real documents of the small corpus: passage rows and text blocks are
 * written, replaced and removed with their document; a question about a long PDF gets its
 * page from the keyword index's passage rows alone; a sentence planted in the middle of a
 * 10,000-line document is the answer of its hit; a quoted phrase that spans two passages
 * still finds its document, in order only; a scanned page's text read by OCR becomes
 * passage rows.
 */
import { join } from "node:path";
import { assert, assertEquals } from "./assert.ts";
import { smallCorpus } from "./corpus.ts";
import { openTestShelf, type TestShelf } from "./shelf_helper.ts";
import { partsOf } from "../shelf/_parts.ts";
import { prepareQuery } from "../search/query.ts";
import { pageOf } from "../search/passages.ts";
import { BLOCK_CHARS } from "../core/text_codec.ts";
import { callTool } from "../server/dispatch.ts";
import { closeImageWorkers } from "../extractors/image.ts";

/** A shelf over copies of small-corpus files (`[source, name]`) in one library `Lib`. */
async function shelfOf(files: [string, string][]): Promise<{ t: TestShelf; lib: string }> {
  const corpus = await smallCorpus();
  const base = await Deno.makeTempDir({ prefix: "shelfmark-passages-" });
  const lib = join(base, "Lib");
  await Deno.mkdir(lib);
  for (const [src, name] of files) await Deno.copyFile(join(corpus, src), join(lib, name));
  const t = await openTestShelf({ base, folders: [lib] });
  await t.shelf.index();
  return { t, lib };
}

/** Rows of the passage FTS table that match a word, and the catalog's passages of a doc. */
function rows(t: TestShelf, word: string, docId: string) {
  const db = partsOf(t.shelf).catalog.db;
  const fts = db.prepare("SELECT count(*) AS n FROM passages_fts WHERE passages_fts MATCH ?")
    .get(word)!.n as number;
  const stored = db.prepare("SELECT count(*) AS n FROM passages WHERE doc_id = ?").get(docId)!
    .n as number;
  const mapped = db.prepare("SELECT passages FROM fts_map WHERE doc_id = ?").get(docId)
    ?.passages as number | undefined;
  const blocks = db.prepare("SELECT count(*) AS n FROM text_blocks WHERE doc_id = ?").get(docId)!
    .n as number;
  return { fts, stored, mapped, blocks };
}

Deno.test({
  name: "passage rows are written, replaced and removed with their document",
  sanitizeResources: false,
  async fn() {
    const { t, lib } = await shelfOf([["markdown/zstd/zstd/CONTRIBUTING.md", "c.md"]]);
    await using _ = t;
    const file = join(lib, "c.md");
    const id = partsOf(t.shelf).catalog.idByPath("Lib/c.md")!;
    assert(id, "indexed");
    const before = rows(t, "zorblax", id);
    assertEquals(before.fts, 0);
    assert(before.stored > 3, `${before.stored} passages`);
    assertEquals(before.mapped, before.stored);
    assertEquals(before.blocks, 1);

    // plant a word in the middle of the document: one passage holds it
    const lines = (await Deno.readTextFile(file)).split("\n");
    const mid = Math.floor(lines.length / 2);
    lines[mid] = `${lines[mid]} zorblax`;
    await Deno.writeTextFile(file, lines.join("\n"));
    await t.shelf.index();
    assertEquals(rows(t, "zorblax", id).fts, 1);
    const [hit] = await partsOf(t.shelf).keyword.search(prepareQuery("zorblax", 5));
    assertEquals(hit?.doc_id, id);
    const p = hit!.passages![0]!;
    assert(p.start_line <= mid + 1 && mid + 1 <= p.end_line, JSON.stringify(p));
    // the line of the snippet's sentence (which may start on a line before)
    assert(p.line! >= p.start_line && p.line! <= mid + 1, `line ${p.line}`);
    assert(p.snippet.includes("**zorblax**"), p.snippet);

    // edited: the old passage rows are gone, the new ones found
    lines[mid] = lines[mid]!.replace("zorblax", "quillfeather");
    await Deno.writeTextFile(file, lines.join("\n"));
    await t.shelf.index();
    assertEquals(rows(t, "zorblax", id).fts, 0);
    assertEquals(rows(t, "quillfeather", id).fts, 1);
    assertEquals(await partsOf(t.shelf).keyword.search(prepareQuery("zorblax", 5)), []);
    assertEquals(rows(t, "quillfeather", id).stored, rows(t, "quillfeather", id).mapped);

    // deleted: none left
    await Deno.remove(file);
    await t.shelf.index();
    assertEquals(rows(t, "quillfeather", id), {
      fts: 0,
      stored: 0,
      mapped: undefined,
      blocks: 0,
    });
    assertEquals(
      partsOf(t.shelf).catalog.db.prepare("SELECT count(*) AS n FROM passages_fts").get()!.n,
      0,
    );
  },
});

/** The words of a line, lowercased: at least four letters, in order. */
const wordsOf = (line: string) => line.toLowerCase().match(/\p{L}{4,}/gu) ?? [];

Deno.test({
  name: "a question about a long PDF gets its page from the passage index alone",
  sanitizeResources: false,
  async fn() {
    const { t } = await shelfOf([["pdf-manuals/r-doc-pdf/R-intro.pdf", "R-intro.pdf"]]);
    await using _ = t;
    const { catalog, keyword } = partsOf(t.shelf);
    const id = catalog.idByPath("Lib/R-intro.pdf")!;
    const pages = catalog.sections(id)!.pages!;
    assert(pages.length > 50, `${pages.length} pages`);
    const text = catalog.text(id)!.split("\n");
    // a line of the middle pages with the most words found on no other line
    const count = new Map<string, number>();
    for (const l of text) {
      for (const w of new Set(wordsOf(l))) count.set(w, (count.get(w) ?? 0) + 1);
    }
    let best = -1;
    let bestWords: string[] = [];
    for (let i = pages[40]! - 1; i < pages[60]! - 1; i++) {
      const own = [...new Set(wordsOf(text[i]!))].filter((w) => count.get(w) === 1);
      if (own.length > bestWords.length) {
        best = i + 1;
        bestWords = own;
      }
    }
    assert(bestWords.length >= 2, `line ${best}: ${bestWords}`);
    // the question: the line's rare words among two of its common ones
    const common = wordsOf(text[best - 1]!).filter((w) => count.get(w)! > 1).slice(0, 2);
    const [hit] = await keyword.search(prepareQuery([...common, ...bestWords].join(" "), 3));
    assertEquals(hit?.doc_id, id);
    const p = hit!.passages![0]!;
    assert(p.start_line <= best && best <= p.end_line, JSON.stringify(p));
    assert(p.line! <= best && p.line! >= p.start_line, `line ${p.line}`);
    assertEquals(p.page, pageOf(pages, best));
    // the lines read for its snippet go on to the search answer: numbered, with their pages,
    // as reading the passage gives them
    const span = p.end_line - p.start_line + 1;
    assertEquals(p.lines?.length, span);
    const read = (await t.shelf.readLines(id, { offset: p.start_line, limit: span })).lines;
    assert(read[0]!.page !== undefined, "the lines carry their pages");
    assertEquals(p.lines!.slice(0, read.length), read);
  },
});

Deno.test({
  name: "a quoted phrase across two passages finds its document, in order only",
  sanitizeResources: false,
  async fn() {
    const { t } = await shelfOf([["text/licenses/Apache-2.0.txt", "apache.txt"]]);
    await using _ = t;
    const { catalog } = partsOf(t.shelf);
    const id = catalog.idByPath("Lib/apache.txt")!;
    const text = catalog.text(id)!;
    const ps = catalog.db.prepare(
      "SELECT start_line, end_line FROM passages WHERE doc_id = ? ORDER BY seq",
    ).all(id).map((r) => [r.start_line as number, r.end_line as number] as const);
    assert(ps.length > 2, `${ps.length} passages`);
    const lines = text.split("\n");
    // the last word of a passage and the first word of the next
    let phrase: [string, string] | undefined;
    for (let i = 0; i + 1 < ps.length && !phrase; i++) {
      const last = lines[ps[i]![1] - 1]!.match(/(\p{L}{3,})\W*$/u)?.[1];
      const first = lines[ps[i + 1]![0] - 1]!.match(/^\W*(\p{L}{3,})/u)?.[1];
      const reversed = new RegExp(`\\b${first}\\W+${last}\\b`, "i");
      // found once: across the two passages only, so no passage holds the whole phrase
      const once = text.match(new RegExp(`\\b${last}\\W+${first}\\b`, "gi"))?.length === 1;
      if (last && first && !reversed.test(text) && once) phrase = [last, first];
    }
    assert(phrase, "two passages that meet between two words");
    const search = async (q: string) =>
      (await t.shelf.search({ query: q, limit: 5, mode: "keyword" })).hits;
    const found = await search(`"${phrase[0]} ${phrase[1]}"`);
    assertEquals(found.map((h) => h.doc_id), [id]);
    assert(found[0]!.snippet, "a snippet");
    // its passages hold the phrase's words (the passage rows of its words)
    assert(found[0]!.passages?.length, "passages");
    assertEquals(await search(`"${phrase[1]} ${phrase[0]}"`), []);
  },
});

Deno.test({
  name: "a sentence planted in the middle of a 10,000-line document is its hit's answer",
  sanitizeResources: false,
  async fn() {
    const { t, lib } = await shelfOf([["text/sphinx-text/debian-policy/policy.txt", "p.txt"]]);
    await using _ = t;
    const file = join(lib, "p.txt");
    const lines = (await Deno.readTextFile(file)).split("\n").slice(0, 10_000);
    assertEquals(lines.length, 10_000);
    const planted = "The quartermaster's ledger says the brass telescope was sold in Lisbon " +
      "for forty guilders.";
    lines[5000] = planted;
    await Deno.writeTextFile(file, lines.join("\n"));
    await t.shelf.index();
    const { catalog } = partsOf(t.shelf);
    const id = catalog.idByPath("Lib/p.txt")!;
    assertEquals(catalog.text(id), lines.join("\n"));
    const blocks = rows(t, "telescope", id).blocks;
    assert(blocks >= Math.floor(lines.join("\n").length / BLOCK_CHARS), `${blocks} blocks`);
    const r = await callTool(t.shelf, "search", {
      query: "where was the brass telescope sold",
      output_format: "json",
    });
    const [hit] = r.json.results as {
      path: string;
      answer?: { text: string; line: number };
      passages?: { start_line: number; end_line: number }[];
    }[];
    assertEquals(hit?.path, "Lib/p.txt");
    assert(hit!.answer?.text.includes("brass telescope was sold in Lisbon"), hit!.answer?.text);
    assertEquals(hit!.answer!.line, 5001);
    const p = hit!.passages![0]!;
    assert(p.start_line <= 5001 && 5001 <= p.end_line, JSON.stringify(p));
  },
});

Deno.test({
  name: "a scanned page's text read by OCR becomes passage rows",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const scan = new URL("../extractors/testdata/scans/r-faq-p6-scan.pdf", import.meta.url);
    const base = await Deno.makeTempDir({ prefix: "shelfmark-passages-" });
    const lib = join(base, "Scans");
    await Deno.mkdir(lib);
    await Deno.copyFile(scan.pathname, join(lib, "faq.pdf"));
    await using t = await openTestShelf({ base, folders: [lib] });
    try {
      await t.shelf.index();
      const id = partsOf(t.shelf).catalog.idByPath("Scans/faq.pdf")!;
      assertEquals(rows(t, "macos", id).fts, 0);
      await t.shelf.ocrDone();
      // the page's words are in the passage rows, and a hit's passage is cut from its text
      assertEquals(rows(t, "macos", id).fts, 1);
      const [hit] = await partsOf(t.shelf).keyword.search(
        prepareQuery("Windows macOS ports described", 3),
      );
      assertEquals(hit?.doc_id, id);
      assertEquals(hit!.passages![0]!.page, 1);
      assert(/\*\*macOS[^*]*\*\*/.test(hit!.passages![0]!.snippet), hit!.passages![0]!.snippet);
    } finally {
      await closeImageWorkers();
    }
  },
});
