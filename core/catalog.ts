/**
 * The catalog: one SQLite database (built-in `node:sqlite`, WAL mode) holding every
 * document's card, outline, text, links and file state, the files that were skipped, the
 * corpus's document frequencies, which documents have an up-to-date vector, and a small
 * key-value `meta` table. This module is the only owner of the database driver and of
 * every statement on these tables; a retriever receives the handle only to keep its own
 * tables in the same file (FTS5 keeps `docs_fts` and `fts_map`), and joins `documents`
 * only through {@link filterSql}.
 *
 * @module
 */
import { DatabaseSync, type SQLInputValue, type StatementSync } from "node:sqlite";
import { FIELDS_SCHEMA, writeFields } from "./fields.ts";
import { type Fingerprint, fingerprint } from "./fingerprint.ts";
import { MARKUP_TYPES } from "./readable.ts";
import { decodeText, encodeText } from "./text_codec.ts";
import { escapeLike, filterSql, statements } from "./catalog_sql.ts";
import { VectorRecords } from "./vector_records.ts";

export { type VectorTodo } from "./vector_records.ts";
export {
  type DocTitles,
  escapeLike,
  filterSql,
  openReadOnly,
  statements,
  textReader,
  titleReader,
} from "./catalog_sql.ts";
import type { Card, Link, OutlineNode, SearchFilters, Skipped, TermCounts } from "./types.ts";

/** What the catalog remembers of a file to decide whether it changed. */
export interface FileState {
  doc_id: string;
  path: string;
  size: number;
  mtime_ms: number;
  hash: string;
}

/** A stored document. */
export interface StoredDoc {
  card: Card;
  outline: OutlineNode[];
  pages?: number[];
  terms: TermCounts;
  hash: string;
  mtime_ms: number;
  /** Values of the library's indexed front-matter fields (see `core/fields.ts`). */
  fields?: Record<string, string[]>;
}

/** How long a handle that never writes reuses its document count (see `docCount`). */
const DOC_COUNT_TTL_MS = 2000;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS documents (
  doc_id TEXT PRIMARY KEY,
  rowid_fts INTEGER,
  library TEXT NOT NULL,
  path TEXT NOT NULL UNIQUE,
  doc_type TEXT NOT NULL,
  modified_at TEXT NOT NULL,
  size INTEGER NOT NULL,
  mtime_ms REAL NOT NULL,
  hash TEXT NOT NULL,
  word_count INTEGER NOT NULL,
  card TEXT NOT NULL,
  outline TEXT NOT NULL,
  pages TEXT,
  terms TEXT NOT NULL,
  indexed_at TEXT NOT NULL,
  text_key TEXT,
  minhash BLOB
);
CREATE INDEX IF NOT EXISTS documents_library ON documents(library);
CREATE TABLE IF NOT EXISTS texts (doc_id TEXT PRIMARY KEY, text TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS skipped (
  path TEXT PRIMARY KEY, library TEXT NOT NULL, reason TEXT NOT NULL, message TEXT NOT NULL,
  size INTEGER NOT NULL, mtime_ms REAL NOT NULL, at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS df (term TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS vectors (doc_id TEXT PRIMARY KEY, hash TEXT NOT NULL) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS documents_doc_hash ON documents(doc_id, hash);
CREATE TABLE IF NOT EXISTS links (
  doc_id TEXT NOT NULL, line INTEGER NOT NULL, target TEXT NOT NULL, text TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS links_doc ON links(doc_id);
-- Links are resolved in memory from a scan (core/graph.ts); nothing looks a target up.
DROP INDEX IF EXISTS links_target;
CREATE INDEX IF NOT EXISTS documents_modified ON documents(modified_at);
CREATE INDEX IF NOT EXISTS documents_listing
  ON documents(path, doc_id, library, doc_type, size, modified_at, indexed_at);
${FIELDS_SCHEMA}`;

/**
 * The catalog's format: a catalog of another format is emptied and indexed again. 2: doc
 * ids as 15 decimal digits, text fingerprints. 3: lines without link targets, links kept apart.
 * 4: front-matter fields (the `fields` table). 5: text stored once (contentless FTS5),
 * compressed (`core/text_codec.ts`).
 */
const FORMAT = "5";

/** The catalog database. */
export class Catalog {
  /** The SQLite handle, shared with the retrievers. */
  readonly db: DatabaseSync;
  /** Which documents have an up-to-date vector. */
  readonly vectors: VectorRecords;
  readonly #q: (sql: string) => StatementSync;
  #df = new Map<string, number>();
  #dfDirty = new Set<string>();
  #dfLoaded = false;
  #depth = 0;
  /** Documents written (stored or removed) through this handle. */
  #writes = 0;
  /** The last counted number of documents (see `docCount`). */
  #docCount?: { n: number; at: number; writes: number };

  /**
   * Open (or create) the catalog at `file` (`":memory:"` for a throwaway one).
   * @param file database file path
   */
  constructor(file: string) {
    this.db = new DatabaseSync(file);
    this.#q = statements(this.db);
    this.db.exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA busy_timeout=5000;");
    this.db.exec(SCHEMA);
    this.#migrate();
    this.db.exec("CREATE INDEX IF NOT EXISTS documents_text_key ON documents(text_key)");
    this.vectors = new VectorRecords(this.db);
  }

  /**
   * A catalog written by another format (document ids, stored fields) is emptied, every
   * table of the file included (the retrievers' too), so the next run indexes afresh.
   */
  #migrate(): void {
    const format = this.getMeta("format");
    if (format === FORMAT) return;
    const stored = format !== undefined ||
      (this.db.prepare("SELECT count(*) AS n FROM documents").get()?.n as number) > 0;
    if (stored) {
      const tables = (virtual: boolean) =>
        this.db.prepare(
          `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
           AND sql ${virtual ? "" : "NOT "}LIKE 'CREATE VIRTUAL TABLE%'`,
        ).all().map((r) => `"${(r.name as string).replaceAll('"', '""')}"`);
      // Virtual tables first: dropping one drops its shadow tables.
      for (const t of tables(true)) this.db.exec(`DROP TABLE IF EXISTS ${t}`);
      for (const t of tables(false)) this.db.exec(`DROP TABLE IF EXISTS ${t}`);
      this.db.exec(SCHEMA);
    }
    this.setMeta("format", FORMAT);
  }

  /** Document frequencies, loaded on first use (they can run to a million terms). */
  #terms(): Map<string, number> {
    if (!this.#dfLoaded) {
      this.#dfLoaded = true;
      for (const row of this.db.prepare("SELECT term, n FROM df").iterate()) {
        this.#df.set(row.term as string, row.n as number);
      }
    }
    return this.#df;
  }

  /** Run `fn` in a transaction (nested calls join the outer one). */
  transaction<T>(fn: () => T): T {
    if (this.#depth > 0) return fn();
    this.db.exec("BEGIN IMMEDIATE");
    this.#depth++;
    try {
      const out = fn();
      this.db.exec("COMMIT");
      return out;
    } catch (e) {
      this.db.exec("ROLLBACK");
      throw e;
    } finally {
      this.#depth--;
    }
  }

  /** Open a long transaction (a batch of the indexer); nested `transaction` calls join it. */
  begin(): void {
    if (this.#depth++ === 0) this.db.exec("BEGIN IMMEDIATE");
  }

  /** Commit the transaction opened by `begin`. */
  commit(): void {
    if (--this.#depth === 0) this.db.exec("COMMIT");
  }

  /** File states of every document of a library, by path. */
  fileStates(library: string): Map<string, FileState> {
    const out = new Map<string, FileState>();
    const rows = this.#q(
      "SELECT doc_id, path, size, mtime_ms, hash FROM documents WHERE library = ?",
    ).all(library);
    for (const r of rows) out.set(r.path as string, r as unknown as FileState);
    return out;
  }

  /** Skipped files of a library with their size and mtime, by path. */
  skippedStates(library: string): Map<string, { size: number; mtime_ms: number }> {
    const out = new Map<string, { size: number; mtime_ms: number }>();
    const rows = this.#q("SELECT path, size, mtime_ms FROM skipped WHERE library = ?").all(library);
    for (const r of rows) {
      out.set(r.path as string, { size: r.size as number, mtime_ms: r.mtime_ms as number });
    }
    return out;
  }

  /** Store (insert or replace) a document with its text and links (they replace its old ones). */
  put(doc: StoredDoc, text: string, links: Link[] = []): void {
    this.#writes++;
    const c = doc.card;
    this.#q(
      `INSERT INTO documents (doc_id, library, path, doc_type, modified_at, size, mtime_ms, hash,
         word_count, card, outline, pages, terms, indexed_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT(doc_id) DO UPDATE SET library=excluded.library, path=excluded.path,
         doc_type=excluded.doc_type, modified_at=excluded.modified_at, size=excluded.size,
         mtime_ms=excluded.mtime_ms, hash=excluded.hash, word_count=excluded.word_count,
         card=excluded.card, outline=excluded.outline, pages=excluded.pages,
         terms=excluded.terms, indexed_at=excluded.indexed_at`,
    ).run(
      c.doc_id,
      c.library,
      c.path,
      c.doc_type,
      c.modified_at,
      c.size,
      doc.mtime_ms,
      doc.hash,
      c.word_count,
      JSON.stringify(c),
      JSON.stringify(doc.outline),
      doc.pages ? JSON.stringify(doc.pages) : null,
      JSON.stringify(doc.terms),
      new Date().toISOString(),
    );
    // SQLite returns text only up to a NUL byte: never store one.
    const safe = text.includes("\0") ? text.replaceAll("\0", "\uFFFD") : text;
    this.#setFingerprint(c.doc_id, safe, c.doc_type);
    this.#q("INSERT OR REPLACE INTO texts (doc_id, text) VALUES (?, ?)").run(
      c.doc_id,
      encodeText(safe),
    );
    this.#q("DELETE FROM skipped WHERE path = ?").run(c.path);
    this.#q("DELETE FROM links WHERE doc_id = ?").run(c.doc_id);
    const link = this.#q("INSERT INTO links (doc_id, line, target, text) VALUES (?, ?, ?, ?)");
    for (const l of links) {
      // plugins' links are not trusted to be well formed
      if (typeof l?.target !== "string" || !l.target || !Number.isInteger(l.line)) continue;
      link.run(c.doc_id, l.line, l.target, typeof l.text === "string" ? l.text : "");
    }
    writeFields(this.db, c.doc_id, doc.fields);
  }

  #setFingerprint(docId: string, text: string, docType: string): void {
    const fp = fingerprint(text, MARKUP_TYPES.has(docType));
    this.#q("UPDATE documents SET text_key = ?, minhash = ? WHERE doc_id = ?").run(
      fp.key,
      fp.minhash ? new Uint8Array(fp.minhash.buffer) : null,
      docId,
    );
  }

  /**
   * Compute documents' fingerprints again from their stored text (after the rule changed,
   * see `FINGERPRINT_VERSION`).
   */
  refingerprint(ids: string[]): void {
    const q = this.#q(
      "SELECT d.doc_type, t.text FROM documents d JOIN texts t USING (doc_id) WHERE d.doc_id = ?",
    );
    for (const id of ids) {
      const r = q.get(id);
      const text = r ? decodeText(r.text) : undefined;
      if (r && text !== undefined) this.#setFingerprint(id, text, r.doc_type as string);
    }
  }

  /** The links of a document, in document order. */
  links(docId: string): Link[] {
    return this.#q("SELECT line, target, text FROM links WHERE doc_id = ? ORDER BY rowid")
      .all(docId).map((r) => ({
        target: r.target as string,
        text: r.text as string,
        line: r.line as number,
      }));
  }

  /**
   * Mark every document of a library as needing extraction (its file state forgotten), so
   * the next runs extract each again once — a run stopped halfway resumes where it stopped.
   */
  invalidate(library: string): void {
    this.#q("UPDATE documents SET mtime_ms = -1, hash = '' WHERE library = ?").run(library);
  }

  /** Mark every document of a type, in every library, as changed (extracted again next run). */
  invalidateType(docType: string): void {
    this.#q("UPDATE documents SET mtime_ms = -1, hash = '' WHERE doc_type = ?").run(docType);
  }

  /** Record that an unchanged file was touched (new mtime, same content). */
  touch(docId: string, mtimeMs: number, modifiedAt: string): void {
    const row = this.#q("SELECT card FROM documents WHERE doc_id = ?").get(docId);
    if (!row) return;
    const card = JSON.parse(row.card as string) as Card;
    card.modified_at = modifiedAt;
    this.#q("UPDATE documents SET mtime_ms = ?, modified_at = ?, card = ? WHERE doc_id = ?")
      .run(mtimeMs, modifiedAt, JSON.stringify(card), docId);
  }

  /** Remove documents (and their text) by id. */
  remove(ids: string[]): void {
    this.#writes += ids.length;
    for (const id of ids) {
      this.#q("DELETE FROM documents WHERE doc_id = ?").run(id);
      this.#q("DELETE FROM texts WHERE doc_id = ?").run(id);
      this.#q("DELETE FROM links WHERE doc_id = ?").run(id);
      writeFields(this.db, id);
    }
  }

  /** Record a skipped file. */
  skip(library: string, s: Skipped, size: number, mtimeMs: number): void {
    this.#q(
      "INSERT OR REPLACE INTO skipped (path, library, reason, message, size, mtime_ms, at) VALUES (?, ?, ?, ?, ?, ?, ?)",
    ).run(s.path, library, s.reason, s.message, size, mtimeMs, new Date().toISOString());
  }

  /** Forget skipped files by path. */
  unskip(paths: string[]): void {
    for (const p of paths) this.#q("DELETE FROM skipped WHERE path = ?").run(p);
  }

  /** Skipped files (all libraries, or one). */
  skipped(library?: string): Skipped[] {
    const rows = library
      ? this.#q("SELECT path, reason, message FROM skipped WHERE library = ? ORDER BY path").all(
        library,
      )
      : this.#q("SELECT path, reason, message FROM skipped ORDER BY path").all();
    return rows as unknown as Skipped[];
  }

  /** A document by id, or undefined. */
  get(docId: string): StoredDoc | undefined {
    const r = this.#q(
      "SELECT card, outline, pages, terms, hash, mtime_ms FROM documents WHERE doc_id = ?",
    ).get(docId);
    return r ? parseRow(r) : undefined;
  }

  /**
   * What a document's sections are cut from: its outline, outline quality, type, pages and
   * content hash (without parsing its card's other fields or its term counts).
   */
  sections(docId: string):
    | {
      outline: OutlineNode[];
      quality: Card["outline_quality"];
      docType: string;
      pages?: number[];
      hash: string;
    }
    | undefined {
    const r = this.#q(
      "SELECT outline, pages, hash, doc_type, json_extract(card, '$.outline_quality') AS quality FROM documents WHERE doc_id = ?",
    ).get(docId);
    if (!r) return undefined;
    return {
      outline: JSON.parse(r.outline as string),
      quality: r.quality as Card["outline_quality"],
      docType: r.doc_type as string,
      pages: r.pages ? JSON.parse(r.pages as string) : undefined,
      hash: r.hash as string,
    };
  }

  /** Whether a document is stored (without reading its card or outline). */
  has(docId: string): boolean {
    return this.#q("SELECT 1 AS x FROM documents WHERE doc_id = ?").get(docId) !== undefined;
  }

  /** The id of the document at a display path. */
  idByPath(path: string): string | undefined {
    return this.#q("SELECT doc_id FROM documents WHERE path = ?").get(path)?.doc_id as
      | string
      | undefined;
  }

  /** Cards of many documents, in the order asked (missing ids are left out). */
  cards(ids: string[]): Map<string, Card> {
    const out = new Map<string, Card>();
    for (const id of ids) {
      const r = this.#q("SELECT card FROM documents WHERE doc_id = ?").get(id);
      if (r) out.set(id, JSON.parse(r.card as string) as Card);
    }
    return out;
  }

  /** The text of a document. */
  text(docId: string): string | undefined {
    return decodeText(this.#q("SELECT text FROM texts WHERE doc_id = ?").get(docId)?.text);
  }

  /** Number of documents (all libraries, or one). */
  count(library?: string): number {
    const r = library
      ? this.#q("SELECT count(*) AS n FROM documents WHERE library = ?").get(library)
      : this.#q("SELECT count(*) AS n FROM documents").get();
    return (r?.n as number) ?? 0;
  }

  /** Every card of a library (for `explore`). */
  *iterCards(library?: string): Generator<Card> {
    const it = library
      ? this.#q("SELECT card FROM documents WHERE library = ?").iterate(library)
      : this.#q("SELECT card FROM documents").iterate();
    for (const r of it) yield JSON.parse(r.card as string) as Card;
  }

  /** Document frequency of a term in the corpus. */
  df(term: string): number {
    return this.#terms().get(term) ?? 0;
  }

  /**
   * Number of documents, for TF-IDF and the common-word cut. `count()` scans an index of
   * every document; called for every stored document and every search, it made indexing
   * quadratic (`bench:catalog`: 5.7 of the 7 projected hours of a 1,000,000-document
   * catalog). So the count is reused until this handle has written more than 1 % of it
   * (below 100 documents every write counts again: exact, as small libraries need); a
   * handle that never writes (a search worker) counts again after 2 s, for other handles'
   * writes. An idf barely moves with 1 % more documents, and a writer's counts do not
   * depend on timing.
   */
  docCount(): number {
    const c = this.#docCount;
    if (c) {
      const fresh = this.#writes === 0
        ? performance.now() - c.at < DOC_COUNT_TTL_MS
        : this.#writes - c.writes <= Math.floor(c.n / 100);
      if (fresh) return c.n;
    }
    const n = this.count();
    this.#docCount = { n, at: performance.now(), writes: this.#writes };
    return n;
  }

  /** Add (or with `sign = -1` take away) one document's distinct terms. */
  countTerms(terms: Iterable<string>, sign: 1 | -1 = 1): void {
    const df = this.#terms();
    for (const t of terms) {
      const n = (df.get(t) ?? 0) + sign;
      if (n > 0) df.set(t, n);
      else df.delete(t);
      this.#dfDirty.add(t);
    }
  }

  /** Write changed document frequencies to disk. */
  saveTermCounts(): void {
    if (this.#dfDirty.size === 0) return;
    this.transaction(() => {
      const up = this.#q("INSERT OR REPLACE INTO df (term, n) VALUES (?, ?)");
      const del = this.#q("DELETE FROM df WHERE term = ?");
      for (const t of this.#dfDirty) {
        const n = this.#df.get(t);
        if (n) up.run(t, n);
        else del.run(t);
      }
    });
    this.#dfDirty.clear();
  }

  /** The fingerprints of documents, by id (documents without one are left out). */
  fingerprints(ids: string[]): Map<string, Fingerprint> {
    const out = new Map<string, Fingerprint>();
    const q = this.#q("SELECT text_key, minhash FROM documents WHERE doc_id = ?");
    for (const id of ids) {
      const r = q.get(id);
      if (!r?.text_key) continue;
      const blob = r.minhash as Uint8Array | null;
      out.set(id, {
        key: r.text_key as string,
        minhash: blob ? new Uint32Array(blob.slice().buffer) : undefined,
      });
    }
    return out;
  }

  /**
   * Documents with exactly the same text as each key, among those the filters allow.
   *
   * @param keys text keys (see `fingerprint`)
   * @param filters the search filters (dates normalised)
   * @returns the documents of each key, by path
   */
  sameText(
    keys: string[],
    filters: SearchFilters,
  ): Map<string, { doc_id: string; path: string }[]> {
    const out = new Map<string, { doc_id: string; path: string }[]>();
    if (!keys.length) return out;
    const f = filterSql(filters, "d");
    const rows = this.db.prepare(
      `SELECT d.text_key, d.doc_id, d.path FROM documents d
       WHERE d.text_key IN (${keys.map(() => "?").join(", ")}) AND ${f.where} ORDER BY d.path`,
    ).all(...keys, ...f.params);
    for (const r of rows) {
      const key = r.text_key as string;
      const list = out.get(key) ?? [];
      list.push({ doc_id: r.doc_id as string, path: r.path as string });
      out.set(key, list);
    }
    return out;
  }

  /** Every document's id and text, one at a time (for benchmarks and exports). */
  *iterTexts(): Generator<{ doc_id: string; text: string }> {
    for (const r of this.#q("SELECT doc_id, text FROM texts").iterate()) {
      yield { doc_id: r.doc_id as string, text: decodeText(r.text)! };
    }
  }

  /** Every document id. */
  ids(): string[] {
    return this.#q("SELECT doc_id FROM documents").all().map((r) => r.doc_id as string);
  }

  /** Libraries that have documents or skipped files stored. */
  storedLibraries(): string[] {
    return this.#q("SELECT library FROM documents UNION SELECT library FROM skipped").all()
      .map((r) => r.library as string);
  }

  /** Ids of every document of a library. */
  idsOf(library: string): string[] {
    return this.#q("SELECT doc_id FROM documents WHERE library = ?").all(library)
      .map((r) => r.doc_id as string);
  }

  /** Forget the skipped files of a library (it left the configuration). */
  forgetSkipped(library: string): void {
    this.#q("DELETE FROM skipped WHERE library = ?").run(library);
  }

  /**
   * Ids of the documents the filters allow, or `undefined` when there is no filter (all).
   *
   * @param filters the search filters (dates normalised)
   */
  idsMatching(filters: SearchFilters): string[] | undefined {
    const f = filterSql(filters, "d");
    if (!f.params.length) return undefined;
    return this.#q(`SELECT doc_id FROM documents d WHERE ${f.where}`).all(...f.params)
      .map((r) => r.doc_id as string);
  }

  /**
   * Display paths of documents, in one library or all, narrowed by SQLite `LIKE` to those
   * containing any of `contains` (ASCII case folded; pass none to get every path).
   */
  paths(library?: string, contains: string[] = []): string[] {
    const conds: string[] = [];
    const params: SQLInputValue[] = [];
    if (library !== undefined) {
      conds.push("library = ?");
      params.push(library);
    }
    if (contains.length) {
      conds.push(`(${contains.map(() => "path LIKE ? ESCAPE '\\'").join(" OR ")})`);
      params.push(...contains.map((p) => `%${escapeLike(p)}%`));
    }
    const where = conds.length ? ` WHERE ${conds.join(" AND ")}` : "";
    return this.#q(`SELECT path FROM documents${where}`).all(...params).map((r) =>
      r.path as string
    );
  }

  /** A value of the meta table. */
  getMeta(key: string): string | undefined {
    return this.#q("SELECT value FROM meta WHERE key = ?").get(key)?.value as string | undefined;
  }

  /** Set a value of the meta table. */
  setMeta(key: string, value: string): void {
    this.#q("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)").run(key, value);
  }

  /** Close the database. */
  close(): void {
    this.db.close();
  }
}

function parseRow(r: Record<string, unknown>): StoredDoc {
  return {
    card: JSON.parse(r.card as string),
    outline: JSON.parse(r.outline as string),
    pages: r.pages ? JSON.parse(r.pages as string) : undefined,
    terms: JSON.parse(r.terms as string),
    hash: r.hash as string,
    mtime_ms: r.mtime_ms as number,
  };
}
