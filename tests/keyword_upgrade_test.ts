/**
 * A keyword index of an older layout (catalog format 7: passage rows without their
 * document's column) is dropped when a writer opens it and written again from the
 * catalog's stored texts by the next run: nothing is extracted again, and searches answer
 * as an index built afresh does. Documents missing from the index (a run stopped halfway, a
 * crash between the catalog's write and the index's) are written again, only those.
 */
import { join } from "node:path";
import type { DatabaseSync } from "node:sqlite";
import { assert, assertEquals } from "./assert.ts";
import { smallCorpus } from "./corpus.ts";
import { openTestShelf } from "./shelf_helper.ts";
import { partsOf } from "../shelf/_parts.ts";
import { prepareQuery } from "../search/query.ts";
import type { Shelf } from "../shelf/shelf.ts";
import { KEYWORD_FORMAT } from "../stores/fts5.ts";

const QUERIES = ["bash history expansion", "configure printer", "regular expression syntax"];

/** Each query's hits (ids, scores, passages) straight from the keyword index. */
async function answers(shelf: Shelf): Promise<string> {
  const out = [];
  for (const q of QUERIES) {
    const hits = await partsOf(shelf).keyword.search(prepareQuery(q, 5));
    out.push(hits.map((h) => ({ id: h.doc_id, raw: h.raw, passages: h.passages })));
  }
  return JSON.stringify(out);
}

/** Make the data folder's keyword index look like one written by catalog format 7. */
function toFormat7(db: DatabaseSync): void {
  db.exec("DROP TABLE passages_fts");
  db.exec(`CREATE VIRTUAL TABLE passages_fts USING fts5(title, body, content = '',
    contentless_delete = 1, tokenize = 'porter unicode61 remove_diacritics 2')`);
  db.exec("DELETE FROM meta WHERE key = 'keyword_format'");
  db.exec("UPDATE meta SET value = '7' WHERE key = 'format'");
}

function meta(db: DatabaseSync, key: string): string | undefined {
  return db.prepare("SELECT value FROM meta WHERE key = ?").get(key)?.value as string | undefined;
}

Deno.test("keyword upgrade: an older layout is written again from stored texts, not extracted", async () => {
  const corpus = await smallCorpus();
  await using t = await openTestShelf({
    folders: [join(corpus, "markdown"), join(corpus, "pdf-manuals")],
  });
  const first = await t.shelf.index();
  assert(first.indexed > 20, `indexed ${first.indexed}`);
  const before = await answers(t.shelf);
  assert(before.includes('"passages"'), "the queries find passages");
  toFormat7(partsOf(t.shelf).catalog.db);

  await t.reopen();
  const db = partsOf(t.shelf).catalog.db;
  assertEquals(meta(db, "format"), "8", "the catalog is kept, as format 8");
  assertEquals(meta(db, "keyword_format"), KEYWORD_FORMAT);
  assertEquals(partsOf(t.shelf).catalog.count(), first.indexed, "no document was dropped");
  assertEquals(partsOf(t.shelf).keyword.ready().documents, 0, "the old layout was dropped");
  const sql = db.prepare("SELECT sql FROM sqlite_master WHERE name = 'passages_fts'").get()?.sql;
  assert(/\bdoc\s*,/.test(sql as string), `new passage table: ${sql}`);

  const run = await t.shelf.index();
  assertEquals(run.indexed, 0, "nothing extracted again");
  assertEquals(run.restored, first.indexed);
  assertEquals(partsOf(t.shelf).keyword.ready().documents, first.indexed);
  assertEquals(await answers(t.shelf), before, "the same hits, scores and passages");

  const again = await t.shelf.index();
  assertEquals(again.restored, undefined, "an index in step with the catalog is left alone");
});

Deno.test("keyword upgrade: documents missing from the keyword index are written again, only those", async () => {
  const corpus = await smallCorpus();
  await using t = await openTestShelf({ folders: [join(corpus, "text"), join(corpus, "html")] });
  const first = await t.shelf.index();
  const { keyword, catalog } = partsOf(t.shelf);
  const passages = () =>
    catalog.db.prepare("SELECT sum(passages) AS n FROM fts_map").get()?.n as number;
  const before = passages();
  // lose the keyword rows of half the documents, as a crash between the two writes would
  const ids = catalog.ids();
  const lost = ids.filter((_, i) => i % 2 === 0);
  await keyword.remove(lost);
  assertEquals(keyword.ready().documents, ids.length - lost.length);
  assertEquals((await keyword.indexed(ids)).size, ids.length - lost.length);

  const run = await t.shelf.index();
  assertEquals(run.indexed, 0);
  assertEquals(run.restored, lost.length);
  assertEquals(keyword.ready().documents, first.indexed);
  assertEquals((await keyword.indexed(ids)).size, ids.length);
  assertEquals(passages(), before, "every passage row is back");
  // Hits are not compared: FTS5's BM25 statistics (row count, average length) of a
  // contentless_delete table keep counting deleted rows, so scores differ from before.
});
