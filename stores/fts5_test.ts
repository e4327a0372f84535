import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import type { DatabaseSync } from "node:sqlite";
import { Catalog } from "../core/catalog.ts";
import { filterSql, statements } from "../core/catalog_sql.ts";
import { bm25Score, Fts5Index } from "./fts5.ts";
import { HalfWrittenError } from "./roles.ts";
import { docToken, PASSAGE_SPAN, PASSAGE_WEIGHTS, PassageRows } from "./fts5_passages.ts";
import { normalizeTime, parseQuery, prepareQuery } from "../search/query.ts";
import {
  CORPUS,
  type DocSpec,
  ids,
  KEYWORD_CONTRACT,
  type KeywordBackend,
  makeDoc,
  put,
} from "./_keyword_contract.ts";

/** SQLite FTS5 in the catalog's database. */
const FTS5: KeywordBackend = {
  name: "fts5",
  open: (catalog, options) => Promise.resolve(new Fts5Index(catalog.db, options)),
};

for (const c of KEYWORD_CONTRACT) Deno.test(`Fts5Index ${c.name}`, () => c.fn(FTS5));

/** A catalog with its own schema (in memory), the documents in it and in the index. */
async function setup(specs: DocSpec[]): Promise<{ db: DatabaseSync; fts: Fts5Index }> {
  const catalog = new Catalog(":memory:");
  const fts = new Fts5Index(catalog.db);
  const docs = specs.map(makeDoc);
  put(catalog, docs);
  await fts.upsert(docs);
  return { db: catalog.db, fts };
}

Deno.test("Fts5Index.count() follows upserts and removes; optimize() keeps the index", async () => {
  const { db, fts } = await setup(CORPUS);
  await fts.upsert([
    makeDoc({ id: "a", path: "Docs/guides/docker-setup.md", title: "Kubernetes" }),
  ]);
  assertEquals(fts.count(), 5);
  await fts.remove(["a", "b", "unknown"]);
  assertEquals(fts.count(), 3);
  fts.optimize();
  assertEquals(await ids(fts, "dictionary"), ["c"]);
  db.close();
});

/** Index segments of a table of the keyword index (a merge leaves one). */
function segments(db: DatabaseSync, table: "docs_fts" | "passages_fts"): number {
  return db.prepare(`SELECT count(DISTINCT segid) AS n FROM ${table}_idx`).get()?.n as number;
}

Deno.test("Fts5Index.afterRun() merges the segments after a large run only", async () => {
  const { db, fts } = await setup([]);
  // each write commits on its own: a segment of its own, until FTS5 merges some
  const docs = Array.from(
    { length: 12 },
    (_, i) =>
      makeDoc({ id: `d${i}`, path: `L/d${i}.md`, title: `Doc ${i}`, body: `walrus ${i}\nmore` }),
  );
  for (const d of docs) await fts.upsert([d]);
  assert(segments(db, "passages_fts") > 1 && segments(db, "docs_fts") > 1);
  await fts.afterRun();
  assertEquals([segments(db, "docs_fts"), segments(db, "passages_fts")], [1, 1]);
  assertEquals((await ids(fts, "walrus")).length, 12);
  // one document rewritten of twelve: below the share, the new segment is left to FTS5
  await fts.upsert([docs[0]!]);
  await fts.afterRun();
  assertEquals(segments(db, "passages_fts"), 2);
  // two more make three writes since the merge, a quarter of the documents: merged again
  await fts.upsert([docs[1]!]);
  await fts.remove(["d2"]);
  await fts.afterRun();
  assertEquals([segments(db, "docs_fts"), segments(db, "passages_fts")], [1, 1]);
  assertEquals((await ids(fts, "walrus")).length, 11);
  db.close();
});

Deno.test("Fts5Index.search() marks the hits it looked for passages in", async () => {
  const { db, fts } = await setup([
    { id: "t", path: "L/t.md", title: "Zebra handbook", body: "Nothing about the animal." },
    { id: "z", path: "L/z.md", title: "Plains", body: "Grass.\nThe zebra runs fast." },
  ]);
  const hits = async (snippets: number) =>
    new Map(
      (await fts.search({ ...prepareQuery("zebra", 5), snippets })).map((h) => [h.doc_id, h]),
    );
  const all = await hits(5);
  // a title match alone: no passage holds the word, the snippet is the title's
  assertEquals(all.get("t")?.passages, []);
  assertEquals(all.get("t")?.snippet, "**Zebra** handbook");
  assertEquals(all.get("z")?.passages?.map((p) => p.snippet), ["The **zebra** runs fast."]);
  // a hit past the snippets is not read: it carries its candidates for the search path
  const first = await hits(1);
  const unread = [...first.values()].filter((h) => h.passages === undefined);
  assertEquals(unread.length, 1);
  assert(unread[0]!.candidates, JSON.stringify(unread));
  db.close();
});

Deno.test("Fts5Index.upsert() joins the caller's transaction", async () => {
  const { db, fts } = await setup([]);
  db.exec("BEGIN IMMEDIATE");
  await fts.upsert([makeDoc({ id: "t", path: "L/t.md", title: "temporary" })]);
  db.exec("ROLLBACK");
  assertEquals(fts.count(), 0);
  db.close();
});

Deno.test("Fts5Index.upsert() failing halfway inside a transaction says so; alone, it leaves nothing", async () => {
  const { db, fts } = await setup([]);
  const rows = () =>
    db.prepare(
      "SELECT (SELECT count(*) FROM docs_fts_docsize) + (SELECT count(*) FROM passages_fts_docsize) AS n",
    ).get()!.n as number;
  // The document row's map entry is written last: failing it leaves the FTS rows written.
  db.exec(
    "CREATE TEMP TRIGGER fail BEFORE INSERT ON fts_map BEGIN SELECT RAISE(ABORT, 'no room'); END",
  );
  const doc = makeDoc({ id: "h", path: "L/h.md", title: "halfway", body: "one\ntwo" });
  db.exec("BEGIN IMMEDIATE");
  const e = await fts.upsert([doc]).then(() => undefined, (e) => e);
  assert(e instanceof HalfWrittenError, String(e));
  assert(/no room/.test(e.message), e.message);
  assert(rows() > 0, "the new document's rows are in the transaction, without a savepoint");
  db.exec("ROLLBACK");
  assertEquals(rows(), 0);
  // Outside a transaction the write is atomic on its own: a plain error, nothing written.
  const alone = await fts.upsert([doc]).then(() => undefined, (e) => e);
  assert(alone instanceof Error && !(alone instanceof HalfWrittenError), String(alone));
  assertEquals(rows(), 0);
  db.close();
});

Deno.test("normalizeTime() and filterSql() bind normalised bounds", () => {
  assertEquals(normalizeTime("2026-01-05"), "2026-01-05T00:00:00.000Z");
  assertEquals(normalizeTime("2026-01-05", true), "2026-01-05T23:59:59.999Z");
  assertEquals(normalizeTime("2026-01-05T10:00:00+02:00"), "2026-01-05T08:00:00.000Z");
  assertEquals(normalizeTime("2026-01-05T10:00"), "2026-01-05T10:00:00.000Z");
  assertEquals(filterSql({}), { where: "1", params: [] });
  assertEquals(filterSql({ doc_types: ["pdf", "docx"], library: "P" }), {
    where: "d.doc_type IN (?, ?) AND d.library = ?",
    params: ["pdf", "docx", "P"],
  });
});

Deno.test("bm25Score() maps BM25 monotonically into 0..1", () => {
  assertEquals(bm25Score(0), 0);
  assertEquals(bm25Score(-5), 0.5);
  assert(bm25Score(-40) > bm25Score(-20));
  assert(bm25Score(-1e9) <= 1);
});

Deno.test("Fts5Index keeps no copy of the text: contentless table, snippets from the catalog", async () => {
  const body = Array.from({ length: 400 }, (_, i) => `line ${i} about storage`).join("\n") +
    "\nthe wombat digs here";
  const { db, fts } = await setup([
    { id: "w", path: "lib/w.md", title: "Burrows", body, headings: ["Digging"] },
  ]);
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE name LIKE 'docs_fts%'").all()
    .map((r) => r.name as string).sort();
  assertEquals(tables, [
    "docs_fts",
    "docs_fts_config",
    "docs_fts_data",
    "docs_fts_docsize",
    "docs_fts_idx",
  ]);
  const sql = db.prepare("SELECT sql FROM sqlite_master WHERE name = 'docs_fts'").get()!.sql;
  assert(/content = ''/.test(sql as string) && /contentless_delete = 1/.test(sql as string));
  // The index holds no column value; the body is stored once, in `text_blocks`, compressed.
  assertEquals({ ...db.prepare("SELECT body, title FROM docs_fts").get() }, {
    body: null,
    title: null,
  });
  assertEquals({ ...db.prepare("SELECT body, title FROM passages_fts").get() }, {
    body: null,
    title: null,
  });
  const stored = db.prepare("SELECT text FROM text_blocks WHERE doc_id = 'w'").all()
    .map((r) => r.text);
  // (one block of lines: the body is shorter than a block)
  assertEquals(stored.length, 1);
  assert(stored[0] instanceof Uint8Array, "compressed");
  assert(stored[0].length < body.length / 4, `${stored[0].length} bytes of ${body.length}`);
  // Snippets still come from the body, the headings and the title.
  const [hit] = await fts.search(prepareQuery("wombat", 1));
  assert(hit?.snippet?.endsWith("**wombat** digs here"), hit?.snippet);
  assertEquals((await fts.snippets(["w"], parseQuery("digging"))).get("w"), "**Digging**");
  assertEquals((await fts.snippets(["w"], parseQuery("burrows"))).get("w"), "**Burrows**");
  // Rows are replaced and deleted (contentless_delete) and the index stays sound.
  await fts.upsert([makeDoc({ id: "w", path: "lib/w.md", title: "Burrows", body: "moved" })]);
  assertEquals(await ids(fts, "wombat"), []);
  await fts.remove(["w"]);
  assertEquals(fts.count(), 0);
  db.exec("INSERT INTO docs_fts(docs_fts, rank) VALUES('integrity-check', 1)");
  db.close();
});

Deno.test("PassageRows.best() reads the asked documents' passages, scored library-wide", async () => {
  // a long text without an outline is passages of windows of lines
  const lines = (word: string, n: number) =>
    Array.from({ length: n }, (_, i) => (i % 50 === 7 ? word : `filler line ${i}`)).join("\n");
  const { db } = await setup([
    { id: "a", path: "L/a.md", body: lines("zebra", 300) },
    { id: "b", path: "L/b.md", body: lines("zebra zebra", 200) },
    { id: "c", path: "L/c.md", body: "zebra crossing\nzebra stripes" },
  ]);
  const rowid = (id: string) =>
    db.prepare("SELECT rowid FROM fts_map WHERE doc_id = ?").get(id)!.rowid as number;
  const [a, b, c] = [rowid("a"), rowid("b"), rowid("c")];
  const rows = new PassageRows(db, statements(db));
  const best = rows.best('"zebra"', [a, c], 8);
  assertEquals([...best.keys()].sort(), [a, c].sort());
  // the same passages and BM25 values as ranking every passage and keeping those documents'
  const all = db.prepare(
    `SELECT rowid, bm25(passages_fts, ${PASSAGE_WEIGHTS.join(", ")}, 0) AS raw
     FROM passages_fts WHERE passages_fts MATCH '{title body} : zebra' ORDER BY raw`,
  ).all().map((r) => {
    const id = Number(r.rowid);
    return { doc: Math.floor(id / PASSAGE_SPAN), rowid: id, raw: r.raw as number };
  })
    .filter((r) => r.doc === a || r.doc === c);
  assertEquals(
    [a, c].flatMap((d) => best.get(d)!.map((p) => [d * PASSAGE_SPAN + p.seq, p.raw])),
    [a, c].flatMap((d) => all.filter((r) => r.doc === d).map((r) => [r.rowid, r.raw])),
  );
  assert(best.get(a)!.length >= 3, "several passages of a hold the word");
  // a word that spells a document's token finds nothing: the token is no text of it
  assertEquals(rows.best(`"${docToken(b)}"`, [a, b, c], 8).size, 0);
  db.close();
});
