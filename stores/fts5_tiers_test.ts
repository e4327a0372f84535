// Two-phase ranking of long questions (`tieredMatch` + `Fts5Index`), on a catalog of
// real text: the sections of the small corpus's Markdown files, one document each.
import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join, relative } from "node:path";
import { Catalog } from "../core/catalog.ts";
import type { Card, IndexedDoc, QueryUnit, SearchFilters } from "../core/types.ts";
import { smallCorpus } from "../tests/corpus.ts";
import { Fts5Index } from "./fts5.ts";
import { parseQuery, prepareQuery } from "../search/query.ts";
import { type TieredMatch, tieredMatch, toFtsMatch } from "./fts5_match.ts";

/** Markdown files of a folder, recursively. */
function* markdownFiles(dir: string): Generator<string> {
  for (const e of Deno.readDirSync(dir)) {
    const p = join(dir, e.name);
    if (e.isDirectory) yield* markdownFiles(p);
    else if (e.name.endsWith(".md")) yield p;
  }
}

/** One document per `#`/`##` section of the corpus's Markdown files (two libraries). */
async function sectionDocs(): Promise<IndexedDoc[]> {
  const root = await smallCorpus();
  const docs: IndexedDoc[] = [];
  for (const file of [...markdownFiles(root)].sort()) {
    const rel = relative(root, file);
    const parts = Deno.readTextFileSync(file).split(/\n(?=##? )/);
    parts.forEach((text, i) => {
      const lines = text.split("\n");
      if (lines.length < 3) return;
      const library = docs.length % 2 ? "beta" : "alpha";
      const card: Card = {
        doc_id: `d${docs.length}`,
        path: `${library}/${rel}#${i}`,
        library,
        doc_type: "markdown",
        title: lines[0]!.replace(/^#+\s*/, ""),
        language: "en",
        word_count: text.split(/\s+/).length,
        total_lines: lines.length,
        abstract: "",
        keywords: [],
        brief: true,
        outline_quality: "high",
        has_outline: false,
        modified_at: "2026-01-01T00:00:00.000Z",
        size: text.length,
      };
      docs.push({ card, outline: [], lines });
    });
  }
  return docs;
}

const QUESTIONS = [
  "how do I compress a file with zstd at the highest level and keep the original",
  "which sqlite pragma makes the database write ahead log faster and is it safe",
  "how can I track large binary files in git without storing them in the repository",
  "what happens to the lock when a process that holds it is killed",
];
/** Documents the rare words may match together: small, so most questions are split. */
const RARE_DOCS = 40;

let shared: Promise<{ catalog: Catalog; docs: number }> | undefined;
/** The catalog with the documents stored and indexed (built once for this file). */
function corpusCatalog(): Promise<{ catalog: Catalog; docs: number }> {
  shared ??= (async () => {
    const catalog = new Catalog(":memory:");
    const fts = new Fts5Index(catalog.db);
    const docs = await sectionDocs();
    for (const { card, outline, lines } of docs) {
      catalog.put({ card, outline, terms: {}, hash: card.doc_id, mtime_ms: 0 }, lines.join("\n"));
    }
    await fts.upsert(docs);
    return { catalog, docs: docs.length };
  })();
  return shared;
}

/** Documents matching an FTS5 expression. */
function matching(catalog: Catalog, match: string): Set<string> {
  return new Set(
    catalog.db.prepare(
      "SELECT m.doc_id FROM docs_fts JOIN fts_map m ON m.rowid = docs_fts.rowid WHERE docs_fts MATCH ?",
    ).all(match).map((r) => r.doc_id as string),
  );
}

/**
 * The split the retriever makes, its documents counted the same way (plain words): one
 * more rare word while the rare words' documents (among `allowed`) are fewer than `limit`.
 */
function tiersOf(
  catalog: Catalog,
  question: string,
  limit: number,
  allowed?: Set<string>,
): { tiers: TieredMatch; holders: Set<string> } | undefined {
  const docs = (unit: QueryUnit) =>
    matching(catalog, toFtsMatch({ optional: [unit], required: [], excluded: [] })!).size;
  const drop = Math.floor(catalog.docCount() / 2);
  let tiers = tieredMatch(parseQuery(question), docs, { whole: 0, rare: RARE_DOCS, drop });
  while (tiers) {
    const holders = [...matching(catalog, tiers.rare)].filter((id) => !allowed || allowed.has(id));
    if (holders.length >= limit) return { tiers, holders: new Set(holders) };
    const minRare = tiers.rareUnits + 1;
    tiers = tieredMatch(parseQuery(question), docs, { whole: 0, rare: RARE_DOCS, drop, minRare });
  }
  return undefined;
}

/** A retriever ranking in two phases whenever it can, and one ranking every match. */
function retrievers(catalog: Catalog): { split: Fts5Index; whole: Fts5Index } {
  // commonShare 1: no word is left out as common, so both see the same words
  const base = { stats: catalog, commonShare: 1, readOnly: true };
  return {
    split: new Fts5Index(catalog.db, { ...base, wholeDocs: 0, rareDocs: RARE_DOCS }),
    whole: new Fts5Index(catalog.db, { ...base, wholeDocs: Infinity }),
  };
}

async function hits(fts: Fts5Index, q: string, limit: number, filters: SearchFilters = {}) {
  return (await fts.search(prepareQuery(q, limit, filters, 0))).map((h) => ({
    id: h.doc_id,
    // words in half the documents or more are left out of the second phase: their IDF is
    // 1e-6 (see tieredMatch), which leaves the scores equal to 5 decimals
    raw: Number(h.raw!.toFixed(5)),
  }));
}

Deno.test("two-phase ranking returns the whole ranking's best documents among those holding a rare word, with the same scores", async () => {
  const { catalog, docs } = await corpusCatalog();
  assert(docs >= 100, `${docs} documents`);
  const { split, whole } = retrievers(catalog);
  let splitQuestions = 0;
  for (const q of QUESTIONS) {
    const split10 = tiersOf(catalog, q, 10);
    const got = await hits(split, q, 10);
    const all = await hits(whole, q, docs);
    if (!split10) {
      assertEquals(got, all.slice(0, 10), q);
      continue;
    }
    assertEquals(got, all.filter((h) => split10.holders.has(h.id)).slice(0, 10), q);
    splitQuestions++;
  }
  assert(splitQuestions >= 2, `${splitQuestions} questions ranked in two phases`);
});

Deno.test("two-phase ranking applies the filters", async () => {
  const { catalog, docs } = await corpusCatalog();
  const { split, whole } = retrievers(catalog);
  const alpha = new Set(
    catalog.db.prepare("SELECT doc_id FROM documents WHERE library = 'alpha'").all()
      .map((r) => r.doc_id as string),
  );
  for (const q of QUESTIONS) {
    const split5 = tiersOf(catalog, q, 5, alpha);
    const got = await hits(split, q, 5, { library: "alpha" });
    assert(got.length > 0, q);
    assert(got.every((h) => alpha.has(h.id)), q);
    const all = (await hits(whole, q, docs)).filter((h) => alpha.has(h.id));
    const expected = split5 ? all.filter((h) => split5.holders.has(h.id)) : all;
    assertEquals(got, expected.slice(0, 5), q);
  }
});

Deno.test("a filtered search ranks as the whole ranking does, the other libraries left out", async () => {
  const { catalog, docs } = await corpusCatalog();
  const { whole } = retrievers(catalog);
  for (const q of QUESTIONS) {
    const beta = await hits(whole, q, 7, { library: "beta" });
    const all = await hits(whole, q, docs);
    const inBeta = new Set(
      catalog.db.prepare("SELECT doc_id FROM documents WHERE library = 'beta'").all()
        .map((r) => r.doc_id as string),
    );
    assertEquals(beta, all.filter((h) => inBeta.has(h.id)).slice(0, 7), q);
  }
});

Deno.test("a question of common words only still answers in two phases", async () => {
  const { catalog } = await corpusCatalog();
  const { split, whole } = retrievers(catalog);
  // words found in many sections: the rarest alone is the candidates
  const q = "file use command option";
  const got = await hits(split, q, 5);
  assertEquals(got.length, 5);
  const scores = new Map((await hits(whole, q, 1000)).map((h) => [h.id, h.raw]));
  for (const h of got) assertEquals(scores.get(h.id), h.raw, h.id);
});

Deno.test("a question with a quoted phrase or a + word is ranked over every match", async () => {
  const { catalog } = await corpusCatalog();
  const { split, whole } = retrievers(catalog);
  for (
    const q of ['"write ahead" log database faster safe', "+zstd compress file level original"]
  ) {
    assertEquals(await hits(split, q, 10), await hits(whole, q, 10), q);
  }
});

Deno.test("candidates() keeps the documents of the filtered library that hold every word", async () => {
  const { catalog } = await corpusCatalog();
  const { whole } = retrievers(catalog);
  const inAlpha = new Set(
    catalog.db.prepare("SELECT doc_id FROM documents WHERE library = 'alpha'").all()
      .map((r) => r.doc_id as string),
  );
  const both = matching(catalog, 'body : ("file" AND "compression")');
  assert(both.size > 1);
  assertEquals(
    (await whole.candidates(["file", "compression"], { library: "alpha" })).sort(),
    [...both].filter((id) => inAlpha.has(id)).sort(),
  );
  assertEquals((await whole.candidates(["file", "compression"], {})).sort(), [...both].sort());
});
