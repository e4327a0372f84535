// The keyword index's BM25 statistics (row count, total column sizes) after documents are
// rewritten and removed: the same as a fresh index of the final documents, on real text
// (the small corpus's Markdown files).
import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { Catalog } from "../core/catalog.ts";
import type { IndexedDoc } from "../core/types.ts";
import { smallCorpus } from "../tests/corpus.ts";
import { Fts5Index } from "./fts5.ts";
import { PASSAGE_SPAN } from "./fts5_passages.ts";
import { makeDoc, put } from "./_keyword_contract.ts";
import { prepareQuery } from "../search/query.ts";

/** One document per Markdown file of the small corpus. */
async function corpusDocs(): Promise<IndexedDoc[]> {
  const root = await smallCorpus();
  const files = readdirSync(root, { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".md")).map((f) => join(root, f));
  return files.sort().map((file, i) => {
    const body = Deno.readTextFileSync(file);
    const title = body.match(/^#\s+(.+)$/m)?.[1] ?? relative(root, file);
    return makeDoc({ id: `d${i}`, path: `L/${relative(root, file)}`, title, body });
  });
}

/** A document edited: lines dropped at the start, others added at the end. */
function edited(doc: IndexedDoc, i: number): IndexedDoc {
  const lines = [...doc.lines.slice(3 + (i % 5)), "", `Edited ${i}: git lock walrus compression`];
  return { ...doc, lines };
}

/** A new catalog and keyword index over it. */
function open(): { catalog: Catalog; fts: Fts5Index } {
  const catalog = new Catalog(":memory:");
  return { catalog, fts: new Fts5Index(catalog.db) };
}

/** Every document's BM25 for a word, and every passage's, by document id (and sequence). */
function bm25Values(catalog: Catalog, word: string): string[] {
  const docs = catalog.db.prepare(`
    SELECT m.doc_id AS id, bm25(docs_fts, 0, 10, 6, 5, 4, 0.2) AS raw FROM docs_fts
    JOIN fts_map m ON m.rowid = docs_fts.rowid WHERE docs_fts MATCH ?`).all(word);
  const passages = catalog.db.prepare(`
    SELECT m.doc_id || '#' || (p.rowid - m.rowid * ${PASSAGE_SPAN}) AS id,
      bm25(passages_fts, 2, 1, 0) AS raw
    FROM passages_fts p JOIN fts_map m ON m.rowid = p.rowid / ${PASSAGE_SPAN}
    WHERE passages_fts MATCH ?`).all(`{title body} : ${word}`);
  return [...docs, ...passages].map((r) => `${r.id} ${r.raw}`).sort();
}

const WORDS = ["git", "lock", "compression", "walrus", "file", "the"];

Deno.test("Fts5Index BM25 after edits and removals equals a fresh index's", async () => {
  const docs = await corpusDocs();
  assert(docs.length >= 16, "the small corpus's Markdown files");
  const a = open();
  put(a.catalog, docs);
  for (let i = 0; i < docs.length; i += 5) await a.fts.upsert(docs.slice(i, i + 5));
  // half the documents edited (one of them twice), a quarter removed, one written unchanged
  const final = new Map(docs.map((d) => [d.card.doc_id, d]));
  for (const [i, doc] of docs.entries()) {
    if (i % 2) final.set(doc.card.doc_id, edited(doc, i));
  }
  const changed = [...final.values()].filter((_, i) => i % 2);
  // in one transaction, as the indexer writes a batch
  a.catalog.begin();
  put(a.catalog, changed);
  await a.fts.upsert([edited(docs[1]!, 7)]);
  await a.fts.upsert(changed.slice(0, 4));
  await a.fts.upsert(changed.slice(4));
  await a.fts.upsert([docs[0]!]);
  const gone = docs.filter((_, i) => i % 4 === 2).map((d) => d.card.doc_id);
  await a.fts.remove(gone);
  a.catalog.commit();
  for (const id of gone) final.delete(id);
  a.fts.optimize();

  const b = open();
  put(b.catalog, [...final.values()]);
  await b.fts.upsert([...final.values()]);

  assertEquals(a.fts.count(), b.fts.count());
  for (const word of WORDS) {
    const values = bm25Values(b.catalog, word);
    assert(values.length > 0, word);
    assertEquals(bm25Values(a.catalog, word), values, word);
  }
  for (const q of ["git lock", "compression level of a file", "walrus"]) {
    const hits = async (fts: Fts5Index) =>
      (await fts.search(prepareQuery(q, 10))).map((h) => [h.doc_id, h.raw, h.snippet]);
    assertEquals(await hits(a.fts), await hits(b.fts), q);
  }
  a.catalog.close();
  b.catalog.close();
});

Deno.test("Fts5Index counts the statistics again of an index written before they were exact", async () => {
  const docs = await corpusDocs();
  const a = open();
  put(a.catalog, docs);
  await a.fts.upsert(docs);
  // documents removed as the index did before it kept its statistics exact
  const gone = docs.filter((_, i) => i % 3 === 0).map((d) => d.card.doc_id);
  const db = a.catalog.db;
  for (const id of gone) {
    const row = db.prepare("SELECT rowid, passages FROM fts_map WHERE doc_id = ?").get(id)!;
    const rowid = BigInt(row.rowid as number);
    for (let seq = 0; seq < (row.passages as number); seq++) {
      db.prepare("DELETE FROM passages_fts WHERE rowid = ?").run(
        rowid * BigInt(PASSAGE_SPAN) + BigInt(seq),
      );
    }
    db.prepare("DELETE FROM docs_fts WHERE rowid = ?").run(rowid);
    db.prepare("DELETE FROM fts_map WHERE doc_id = ?").run(id);
  }
  const b = open();
  const left = docs.filter((d) => !gone.includes(d.card.doc_id));
  put(b.catalog, left);
  await b.fts.upsert(left);
  assert(WORDS.some((w) => bm25Values(a.catalog, w).join() !== bm25Values(b.catalog, w).join()));

  new Fts5Index(db); // a writer opens it
  for (const word of WORDS) {
    assertEquals(bm25Values(a.catalog, word), bm25Values(b.catalog, word), word);
  }
  a.catalog.close();
  b.catalog.close();
});
