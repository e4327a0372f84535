/**
 * SQL shared by the catalog and the handles other threads open on its file (search and
 * grep workers): the search filters as conditions, a read-only handle with term
 * statistics, and readers of texts and titles.
 *
 * @module
 */
import { DatabaseSync, type SQLInputValue, type StatementSync } from "node:sqlite";
import { fieldFilterSql } from "./fields.ts";
import { decodeText, joinTexts } from "./text_codec.ts";
import { pageOf } from "../search/passages.ts";
import type { OutlineNode, Passage, SearchFilters, TermStats } from "./types.ts";

/**
 * A handle's prepared statements, each prepared on first use and kept (indexing and search
 * run the same statements per document and per query).
 *
 * @param db the database handle
 * @returns the statement of an SQL text
 * @example
 * ```ts
 * import { DatabaseSync } from "node:sqlite";
 * import { statements } from "./catalog_sql.ts";
 * import assert from "node:assert/strict";
 * const q = statements(new DatabaseSync(":memory:"));
 * assert.equal(q("SELECT 1 AS x"), q("SELECT 1 AS x"));
 * ```
 */
export function statements(db: DatabaseSync): (sql: string) => StatementSync {
  const kept = new Map<string, StatementSync>();
  return (sql) => {
    let s = kept.get(sql);
    if (!s) kept.set(sql, s = db.prepare(sql));
    return s;
  };
}

/**
 * SQL conditions for the search filters, against the `documents` table under `alias`.
 * Values are always bound, never interpolated; dates are expected normalised (the search
 * path does that once, see `normalizeTime` in `search/query.ts`).
 *
 * @param filters the search filters
 * @param alias the alias of `documents` in the query
 * @returns a `WHERE`-ready condition (`"1"` when there is none) and its parameters
 * @example
 * ```ts
 * import { filterSql } from "./catalog_sql.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(filterSql({ library: "Papers" }, "d"), { where: "d.library = ?", params: ["Papers"] });
 * ```
 */
export function filterSql(
  filters: SearchFilters,
  alias = "d",
): { where: string; params: SQLInputValue[] } {
  const conds: string[] = [];
  const params: SQLInputValue[] = [];
  if (filters.doc_types?.length) {
    conds.push(`${alias}.doc_type IN (${filters.doc_types.map(() => "?").join(", ")})`);
    params.push(...filters.doc_types);
  }
  if (filters.library !== undefined) {
    conds.push(`${alias}.library = ?`);
    params.push(filters.library);
  }
  if (filters.path_glob) {
    conds.push(`${alias}.path GLOB ?`);
    params.push(filters.path_glob);
  }
  if (filters.modified_after) {
    conds.push(`${alias}.modified_at >= ?`);
    params.push(filters.modified_after);
  }
  if (filters.modified_before) {
    conds.push(`${alias}.modified_at <= ?`);
    params.push(filters.modified_before);
  }
  if (filters.fields) {
    const f = fieldFilterSql(filters.fields, alias);
    conds.push(...f.conds);
    params.push(...f.params);
  }
  return { where: conds.length ? conds.join(" AND ") : "1", params };
}

/**
 * The search filters as a join from an index's own rows to their `documents` rows: the
 * `CROSS JOIN` (which keeps SQLite's join order: from the index's rows to their
 * documents, never the library first) and the condition on them, for an index that keeps
 * its tables in the catalog's file (FTS5) and ranks there.
 *
 * @param filters the search filters (dates normalised)
 * @param docId the expression of the index's rows that holds their `doc_id`
 * @returns the join, a `WHERE`-ready condition (`"1"` when there is none) and its parameters
 * @example
 * ```ts
 * import { filterJoin } from "./catalog_sql.ts";
 * filterJoin({ library: "Papers" }, "m.doc_id").join; // "CROSS JOIN documents d ON d.doc_id = m.doc_id"
 * ```
 */
export function filterJoin(
  filters: SearchFilters,
  docId: string,
): { join: string; where: string; params: SQLInputValue[] } {
  return { join: `CROSS JOIN documents d ON d.doc_id = ${docId}`, ...filterSql(filters, "d") };
}

/** Escape `%`, `_` and `\\` for a `LIKE ... ESCAPE '\\'` pattern. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * Read-only term statistics of a catalog file, for search workers (their own connection;
 * WAL lets them read beside the indexer's writes). The document count is reused for 2 s.
 *
 * @param file the catalog database file
 * @returns the open handle (for the FTS5 keyword index's own tables) and the statistics
 */
export function openReadOnly(file: string): { db: DatabaseSync; stats: TermStats } {
  const db = new DatabaseSync(file, { readOnly: true });
  db.exec("PRAGMA busy_timeout=5000;");
  const df = db.prepare("SELECT n FROM df WHERE term = ?");
  const count = db.prepare("SELECT count(*) AS n FROM documents");
  let docs = { n: 0, at: 0 };
  const stats: TermStats = {
    df: (term: string) => (df.get(term)?.n as number) ?? 0,
    docCount: () => {
      const now = Date.now();
      if (now - docs.at > 2000) docs = { n: count.get()?.n as number, at: now };
      return docs.n;
    },
  };
  return { db, stats };
}

/**
 * A reader of document texts through another handle on a catalog file (a worker's own
 * read-only connection, see {@link openReadOnly}): the text of an id, or undefined.
 */
export function textReader(db: DatabaseSync): (docId: string) => string | undefined {
  const q = db.prepare(TEXT_SQL);
  return (docId) => storedText(q, docId);
}

/** A document's stored text: its blocks in line order (see {@link storedText}). */
export const TEXT_SQL = "SELECT text FROM text_blocks WHERE doc_id = ? ORDER BY first_line";

/**
 * A document's text, joined from its stored blocks, or undefined when it has none.
 *
 * @param q the statement of {@link TEXT_SQL} on a catalog's database
 * @param docId the document
 */
export function storedText(q: StatementSync, docId: string): string | undefined {
  const rows = q.all(docId);
  return rows.length ? joinTexts(rows.map((r) => r.text)) : undefined;
}

/** A stored passage: where it is in its document, and its lines. */
export interface StoredPassage extends Passage {
  /** Its sequence number among its document's passages. */
  seq: number;
  /** Its lines. */
  lines: string[];
}

/** Some passages of a document, read together, with what cutting snippets needs. */
export interface StoredPassages {
  /** The passages found, in the order asked. */
  passages: StoredPassage[];
  /** First line of each page of the document, for paged formats. */
  pages?: number[];
  /** The document's type. */
  docType: string;
}

/** Reads a document's stored text block by block (blocks of whole lines, `textBlocks`). */
export interface BlockReader {
  /** The first line of each of a document's blocks, in order (empty when it has no text). */
  firsts(docId: string): number[];
  /** The lines of a document's block that starts at `first`. */
  lines(docId: string, first: number): string[];
}

/**
 * A reader of documents' text blocks through any handle on a catalog file.
 *
 * @example
 * ```ts
 * import { openCatalogDb } from "./catalog_schema.ts";
 * import { blockReader } from "./catalog_sql.ts";
 * import { encodeText, textBlocks } from "./text_codec.ts";
 * import assert from "node:assert/strict";
 * const db = openCatalogDb(":memory:", "1");
 * const lines = Array.from({ length: 3000 }, (_, i) => `line ${i + 1} of a long text`);
 * const ins = db.prepare("INSERT INTO text_blocks (doc_id, first_line, text) VALUES (?, ?, ?)");
 * for (const b of textBlocks(lines)) ins.run("d", b.first_line, encodeText(b.text));
 * const blocks = blockReader(db);
 * const firsts = blocks.firsts("d");
 * assert.ok(firsts.length > 1);
 * assert.equal(blocks.lines("d", firsts[1]!)[0], `line ${firsts[1]} of a long text`);
 * assert.deepEqual(blocks.firsts("missing"), []);
 * ```
 */
export function blockReader(db: DatabaseSync): BlockReader {
  const starts = db.prepare(
    "SELECT first_line FROM text_blocks WHERE doc_id = ? ORDER BY first_line",
  );
  const block = db.prepare("SELECT text FROM text_blocks WHERE doc_id = ? AND first_line = ?");
  return {
    firsts: (docId) => starts.all(docId).map((r) => r.first_line as number),
    lines: (docId, first) => (decodeText(block.get(docId, first)?.text) ?? "").split("\n"),
  };
}

/** The blocks of one document version read so far: where each starts, and those decoded. */
export interface DocBlocks {
  /** The first line of each block (`BlockReader.firsts`). */
  firsts: number[];
  /** The blocks decoded, by first line. */
  lines: Map<number, string[]>;
}

/**
 * Lines `from`..`to` (1-based, inclusive) of a document from its blocks, each block decoded
 * at most once (kept in `doc.lines`).
 *
 * @param read the blocks' reader
 * @param docId the document
 * @param doc its blocks read so far
 * @param from first line
 * @param to last line
 * @returns the lines that exist in that range
 */
export function blockLines(
  read: BlockReader,
  docId: string,
  doc: DocBlocks,
  from: number,
  to: number,
): string[] {
  const out: string[] = [];
  const { firsts } = doc;
  // (the block holding a line is found like the page holding it)
  for (let i = (pageOf(firsts, from) ?? 1) - 1; i < firsts.length && firsts[i]! <= to; i++) {
    const first = firsts[i]!;
    let lines = doc.lines.get(first);
    if (!lines) {
      lines = read.lines(docId, first);
      doc.lines.set(first, lines);
    }
    out.push(...lines.slice(Math.max(0, from - first), Math.max(0, to - first + 1)));
  }
  return out;
}

/** Characters of passages' lines a passage reader keeps for the next searches. */
const READER_CACHE_CHARS = 16 * 1024 * 1024;

/**
 * A reader of some passages of a document, by sequence number, through any handle on a
 * catalog file: what a search hit's passages and snippet are cut from. Only the text blocks
 * holding their lines are decompressed, not the document, each at most once per call; the
 * passages read last are kept (by document version: a changed document is read afresh) for
 * the next searches. Passages, not blocks, are kept: a passage is a few lines of a 32 KB
 * block, so the same memory holds the passages of many more searches (on the 80 dev
 * questions, full corpus: their candidates fit, their blocks did not).
 *
 * @example
 * ```ts
 * import { DatabaseSync } from "node:sqlite";
 * import { passageReader } from "./catalog_sql.ts";
 * import { encodeText } from "./text_codec.ts";
 * import assert from "node:assert/strict";
 * const db = new DatabaseSync(":memory:");
 * db.exec(`CREATE TABLE documents (doc_id TEXT, doc_type TEXT, pages TEXT, hash TEXT);
 *   CREATE TABLE passages (doc_id TEXT, seq INT, start_line INT, end_line INT, page INT,
 *     node_id TEXT, title TEXT);
 *   CREATE TABLE text_blocks (doc_id TEXT, first_line INT, text BLOB);`);
 * db.prepare("INSERT INTO documents VALUES ('d', 'txt', NULL, 'h1')").run();
 * db.prepare("INSERT INTO passages VALUES ('d', 0, 2, 3, NULL, NULL, 'Lines 2-3')").run();
 * const block = db.prepare("INSERT INTO text_blocks VALUES ('d', 1, ?)");
 * block.run(encodeText("one\ntwo\nthree"));
 * const read = passageReader(db);
 * assert.deepEqual(read("d", [0, 5])?.passages.map((p) => p.lines), [["two", "three"]]);
 * // a changed document (another hash) is read afresh, not served from what was kept
 * db.exec("UPDATE documents SET hash = 'h2'; DELETE FROM text_blocks");
 * block.run(encodeText("uno\ndos\ntres"));
 * assert.deepEqual(read("d", [0])?.passages[0]?.lines, ["dos", "tres"]);
 * assert.equal(read("missing", [0]), undefined);
 * ```
 */
export function passageReader(
  db: DatabaseSync,
): (docId: string, seqs: number[]) => StoredPassages | undefined {
  const doc = db.prepare("SELECT doc_type, pages, hash FROM documents WHERE doc_id = ?");
  const one = db.prepare(
    `SELECT start_line, end_line, page, node_id, title FROM passages
     WHERE doc_id = ? AND seq = ?`,
  );
  const blocks = blockReader(db);
  /** Passages read, by document version and sequence number, least recently used first. */
  const kept = new Map<string, { passage: StoredPassage; chars: number }>();
  let chars = 0;
  const keep = (key: string, passage: StoredPassage) => {
    let n = 0;
    for (const l of passage.lines) n += l.length + 1;
    kept.set(key, { passage, chars: n });
    chars += n;
    while (kept.size > 1 && chars > READER_CACHE_CHARS) {
      const [oldest, old] = kept.entries().next().value!;
      kept.delete(oldest);
      chars -= old.chars;
    }
  };
  return (docId, seqs) => {
    const d = doc.get(docId);
    if (!d) return undefined;
    // the blocks this call decodes (each at most once), read when a passage is not kept
    let read: DocBlocks | undefined;
    const passages: StoredPassage[] = [];
    for (const seq of seqs) {
      const key = `${docId}:${d.hash}:${seq}`;
      const known = kept.get(key);
      if (known) {
        kept.delete(key);
        kept.set(key, known);
        passages.push(known.passage);
        continue;
      }
      const r = one.get(docId, seq);
      if (!r) continue;
      const [from, to] = [r.start_line as number, r.end_line as number];
      read ??= { firsts: blocks.firsts(docId), lines: new Map<number, string[]>() };
      const p: StoredPassage = {
        seq,
        title: r.title as string,
        start_line: from,
        end_line: to,
        lines: blockLines(blocks, docId, read, from, to),
      };
      if (r.node_id !== null) p.node_id = r.node_id as string;
      if (r.page !== null) p.page = r.page as number;
      keep(key, p);
      passages.push(p);
    }
    const out: StoredPassages = { passages, docType: d.doc_type as string };
    if (d.pages !== null) out.pages = JSON.parse(d.pages as string);
    return out;
  };
}

/**
 * A reader of a document's title and heading titles (outline order) through any handle
 * on a catalog file, or undefined: what a snippet falls back to when the body does not
 * hold the query's words (the FTS5 index keeps no copy of its columns).
 */
export function titleReader(db: DatabaseSync): (docId: string) => DocTitles | undefined {
  const q = db.prepare(
    "SELECT json_extract(card, '$.title') AS title, outline FROM documents WHERE doc_id = ?",
  );
  const walk = (nodes: OutlineNode[], out: string[]): string[] => {
    for (const n of nodes) {
      out.push(n.title);
      walk(n.children, out);
    }
    return out;
  };
  return (docId) => {
    const r = q.get(docId);
    if (!r) return undefined;
    const outline = JSON.parse(r.outline as string) as OutlineNode[];
    return { title: String(r.title ?? ""), headings: walk(outline, []) };
  };
}

/** A document's title and heading titles (see {@link titleReader}). */
export interface DocTitles {
  /** The card's title. */
  title: string;
  /** Every outline heading's title, in outline order. */
  headings: string[];
}
