/**
 * The catalog: one SQLite database (built-in `node:sqlite`, WAL mode) holding every
 * document's card, outline, text, links and file state, the files that were skipped, the
 * corpus's document frequencies, which documents have an up-to-date vector, and a small
 * key-value `meta` table. This module and its siblings are the only owners of the database
 * driver and of every statement on these tables: `catalog_schema.ts` (the tables, opening),
 * `catalog_docs.ts` (a document's rows), `catalog_copies.ts` (text fingerprints),
 * `corpus_stats.ts` (document frequencies and count), `vector_records.ts` and
 * `catalog_sql.ts` (SQL other handles share). The keyword index receives the handle only to
 * keep its own tables in the same file (FTS5 keeps `docs_fts` and `fts_map`), and joins
 * `documents` only through `filterJoin` (`catalog_sql.ts`).
 *
 * @module
 */
import type { DatabaseSync, SQLInputValue, StatementSync } from "node:sqlite";
import type { Fingerprint } from "./fingerprint.ts";
import { joinTexts } from "./text_codec.ts";
import { textTerms } from "./card.ts";
import { escapeLike, filterSql, statements, storedText, TEXT_SQL } from "./catalog_sql.ts";
import { openCatalogDb } from "./catalog_schema.ts";
import { fingerprints, refingerprint, sameText } from "./catalog_copies.ts";
import {
  type DocHead,
  type DocSections,
  readDoc,
  readHead,
  readSections,
  removeDoc,
  type StoredDoc,
  storeDoc,
  touchDoc,
} from "./catalog_docs.ts";
import { CorpusStats } from "./corpus_stats.ts";
import { VectorRecords } from "./vector_records.ts";
import { OcrRecords } from "./ocr_records.ts";

import type { Card, SearchFilters, Skipped } from "./types.ts";
import type { Link } from "./extractor.ts";
import type { DocEntry } from "./listing.ts";
import type { GraphDoc, LinkRow } from "./graph.ts";

/** A document extracted only in part: its path, why, and the extractor's warnings. */
export interface PartialDoc {
  /** Display path. */
  path: string;
  /** Why only part was extracted (`time limit`). */
  partial: string;
  /** The extractor's warnings (where it stopped). */
  warnings: string[];
  /** Whether the next index run extracts it again (false: given up until the file changes). */
  retry: boolean;
  /**
   * Why its last extraction, a retry with more time, was stopped by the hard time limit
   * (the part of the run before is kept); absent when the last one cut it.
   */
  stopped?: string;
}

/** What the catalog remembers of a skipped file: its size, mtime, reason and attempts. */
export interface SkippedState {
  size: number;
  mtime_ms: number;
  reason: string;
  /** Extractions of the file that were stopped (reason `timeout`), counted for retries. */
  attempts: number;
}

/** What the catalog remembers of a file to decide whether it changed. */
export interface FileState {
  doc_id: string;
  path: string;
  size: number;
  mtime_ms: number;
  hash: string;
}

/**
 * The catalog's format: a catalog of another format is emptied and indexed again. 2: doc
 * ids as 15 decimal digits, text fingerprints. 3: lines without link targets, links kept apart.
 * 4: front-matter fields (the `fields` table). 5: text stored once (contentless FTS5),
 * compressed (`core/text_codec.ts`). 6 (never on main): text stored as compressed
 * passages. 7: text stored in compressed blocks of lines, passages apart (where each is),
 * each passage a row of the keyword index's passage table too. 8: a passage row names its
 * document in a column of its own (`docToken` in `stores/fts5_passages.ts`).
 */
const FORMAT = "8";
/**
 * Older formats whose catalog tables are this one's: 7 -> 8 changed the keyword index's
 * passage table alone, which is now told apart by its own layout (`KEYWORD_FORMAT` in
 * `stores/fts5.ts`) and written again from the stored texts, so a format-7 catalog is kept.
 */
const SAME_TABLES = ["7"];

/**
 * A kind of cache of a view of the catalog (the document listing, texts split into lines):
 * each catalog makes its own with `make` on first use ({@link Catalog.cache}) and drops it
 * on close, so nothing outlives the catalog it describes and two catalogs never share one.
 *
 * @example
 * ```ts
 * import { Catalog, CatalogCache } from "./catalog.ts";
 * const SEEN = new CatalogCache("seen", () => new Set<string>());
 * const a = new Catalog(":memory:");
 * const b = new Catalog(":memory:");
 * a.cache(SEEN).add("x");
 * a.cache(SEEN).has("x"); // true
 * b.cache(SEEN).has("x"); // false
 * ```
 */
export class CatalogCache<T> {
  /**
   * @param name what it holds (for debugging)
   * @param make makes the cache of one catalog
   */
  constructor(readonly name: string, readonly make: (catalog: Catalog) => T) {}
}

/**
 * The stored links of one document as the link graph reads them: their targets and their
 * rows (ids of the stored links, for `linkRows`), in the same order.
 */
export interface LinkTargets {
  /** The document. */
  doc_id: string;
  /** Its links' targets, in document order. */
  targets: string[];
  /** The row of each. */
  rows: number[];
}

/** A document as the link graph keeps it, with what tells whether its links changed. */
export interface GraphDocRow extends GraphDoc {
  /** Its extractor. */
  doc_type: string;
  /** When it was stored (its links were written again). */
  indexed_at: string;
}

/** The catalog database. */
export class Catalog {
  /** The SQLite handle, shared with the FTS5 keyword index. */
  readonly db: DatabaseSync;
  /** Which documents have an up-to-date vector. */
  readonly vectors: VectorRecords;
  /** Which scanned PDF pages wait for OCR, and the text of those read. */
  readonly ocr: OcrRecords;
  readonly #q: (sql: string) => StatementSync;
  readonly #stats: CorpusStats;
  readonly #caches = new Map<CatalogCache<unknown>, unknown>();
  #depth = 0;

  /**
   * Open (or create) the catalog at `file` (`":memory:"` for a throwaway one).
   * @param file database file path
   */
  constructor(file: string) {
    this.db = openCatalogDb(file, FORMAT, SAME_TABLES);
    this.#q = statements(this.db);
    this.#stats = new CorpusStats(this.#q, () => this.count());
    this.vectors = new VectorRecords(this.db);
    this.ocr = new OcrRecords(this.db);
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

  /**
   * Undo the transaction opened by `begin` (SQLite may have rolled it back itself, as on
   * "database or disk is full"); counts held in memory are read from disk again.
   */
  rollback(): void {
    this.#depth = 0;
    if (this.db.isTransaction) this.db.exec("ROLLBACK");
    this.#stats.forget();
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

  /** Skipped files of a library with their size, mtime, reason and attempts, by path. */
  skippedStates(library: string): Map<string, SkippedState> {
    const out = new Map<string, SkippedState>();
    const rows = this.#q(
      "SELECT path, size, mtime_ms, reason, attempts FROM skipped WHERE library = ?",
    ).all(library);
    for (const r of rows) out.set(r.path as string, r as unknown as SkippedState);
    return out;
  }

  /** Store (insert or replace) a document with its text and links (they replace its old ones). */
  put(doc: StoredDoc, text: string, links: Link[] = []): void {
    this.#stats.wrote(1);
    storeDoc(this.#q, doc, text, links);
  }

  /**
   * Compute documents' fingerprints again from their stored text (after the rule changed,
   * see `FINGERPRINT_VERSION`).
   */
  refingerprint(ids: string[]): void {
    refingerprint(this.#q, ids);
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
    touchDoc(this.#q, docId, mtimeMs, modifiedAt);
  }

  /** Remove documents (and their text) by id. */
  remove(ids: string[]): void {
    this.#stats.wrote(ids.length);
    for (const id of ids) removeDoc(this.#q, id);
  }

  /** Record a skipped file, with the extractions of it that were stopped (`attempts`). */
  skip(library: string, s: Skipped, size: number, mtimeMs: number, attempts = 0): void {
    this.#q(
      "INSERT OR REPLACE INTO skipped (path, library, reason, message, size, mtime_ms, at, attempts) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    ).run(s.path, library, s.reason, s.message, size, mtimeMs, new Date().toISOString(), attempts);
  }

  /** Forget skipped files by path. */
  unskip(paths: string[]): void {
    for (const p of paths) this.#q("DELETE FROM skipped WHERE path = ?").run(p);
  }

  /**
   * Skipped files (all libraries, or one). A partial document whose retry the hard time
   * limit stopped keeps its skipped row (the stop, which the next retry counts) but is
   * listed as a partial document, with the stop ({@link Catalog.partialDocuments}), not
   * here: each file is listed once.
   */
  skipped(library?: string): Skipped[] {
    const stored = "NOT EXISTS (SELECT 1 FROM documents d WHERE d.path = s.path)";
    const rows = library
      ? this.#q(
        `SELECT path, reason, message FROM skipped s WHERE library = ? AND ${stored} ORDER BY path`,
      ).all(library)
      : this.#q(`SELECT path, reason, message FROM skipped s WHERE ${stored} ORDER BY path`).all();
    return rows as unknown as Skipped[];
  }

  /**
   * Documents extracted only in part (cut short by the time limit, see `Card.partial`): how
   * many, and the first `limit` by path with their warnings and whether the next run
   * extracts them again: those that wait are marked as `invalidate` marks one (`mtime_ms`
   * -1, hash kept); those given up on keep their file's mtime. A retry the hard time limit
   * stopped left a skipped row: its message is the document's `stopped`.
   *
   * @param limit documents listed at most (-1: all)
   * @param library only this library's
   */
  partialDocuments(limit: number, library?: string): { count: number; first: PartialDoc[] } {
    const where = "FROM documents WHERE json_extract(card, '$.partial') IS NOT NULL" +
      (library === undefined ? "" : " AND library = ?");
    const params = library === undefined ? [] : [library];
    const count = this.#q(`SELECT count(*) AS n ${where}`).get(...params)!.n as number;
    const first = this.#q(
      `SELECT p.path, p.mtime_ms, p.partial, p.warnings, s.message AS stopped
       FROM (SELECT path, mtime_ms, json_extract(card, '$.partial') AS partial,
         json_extract(card, '$.warnings') AS warnings ${where} ORDER BY path LIMIT ?) p
       LEFT JOIN skipped s ON s.path = p.path ORDER BY p.path`,
    ).all(...params, limit).map((r) => ({
      path: r.path as string,
      partial: r.partial as string,
      warnings: r.warnings ? JSON.parse(r.warnings as string) as string[] : [],
      retry: r.mtime_ms === -1,
      ...(r.stopped ? { stopped: r.stopped as string } : {}),
    }));
    return { count, first };
  }

  /** A document by id, or undefined. */
  get(docId: string): StoredDoc | undefined {
    return readDoc(this.#q, docId);
  }

  /**
   * A document's card, pages and content hash, without parsing its outline (up to a few
   * hundred KB for a manual) or its term counts: what reading its lines needs.
   */
  head(docId: string): DocHead | undefined {
    return readHead(this.#q, docId);
  }

  /**
   * What a document's sections are cut from: its outline, outline quality, type, pages and
   * content hash (without parsing its card's other fields or its term counts).
   */
  sections(docId: string): DocSections | undefined {
    return readSections(this.#q, docId);
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
    return storedText(this.#q(TEXT_SQL), docId);
  }

  /** Number of documents (all libraries, or one). */
  count(library?: string): number {
    const r = library
      ? this.#q("SELECT count(*) AS n FROM documents WHERE library = ?").get(library)
      : this.#q("SELECT count(*) AS n FROM documents").get();
    return (r?.n as number) ?? 0;
  }

  /** The document types the catalog holds. */
  docTypes(): string[] {
    return this.#q("SELECT DISTINCT doc_type AS t FROM documents").all().map((r) => r.t as string);
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
    return this.#stats.df(term);
  }

  /**
   * Number of documents, for TF-IDF and the common-word cut: reused until this handle has
   * written more than 1 % of it (see `CorpusStats.docCount`); `count()` stays exact.
   */
  docCount(): number {
    return this.#stats.docCount();
  }

  /** Add (or with `sign = -1` take away) one document's distinct terms. */
  countTerms(terms: Iterable<string>, sign: 1 | -1 = 1): void {
    this.#stats.countTerms(terms, sign);
  }

  /**
   * Take stored documents' distinct terms (as `textTerms` counts their stored text) out of
   * the document frequencies: before a document is stored again or removed.
   */
  uncountTerms(ids: string[]): void {
    for (const id of ids) {
      const old = this.text(id);
      if (old !== undefined) this.#stats.countTerms(textTerms(old), -1);
    }
  }

  /** Write changed document frequencies to disk. */
  saveTermCounts(): void {
    this.#stats.save((fn) => this.transaction(fn));
  }

  /** The fingerprints of documents, by id (documents without one are left out). */
  fingerprints(ids: string[]): Map<string, Fingerprint> {
    return fingerprints(this.#q, ids);
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
    return sameText(this.db, keys, filters);
  }

  /** Every document's id and text, one at a time (for benchmarks and exports). */
  *iterTexts(): Generator<{ doc_id: string; text: string }> {
    let id: string | undefined;
    let parts: unknown[] = [];
    for (
      const r of this.#q("SELECT doc_id, text FROM text_blocks ORDER BY doc_id, first_line")
        .iterate()
    ) {
      if (r.doc_id !== id) {
        if (id !== undefined) yield { doc_id: id, text: joinTexts(parts) };
        id = r.doc_id as string;
        parts = [];
      }
      parts.push(r.text);
    }
    if (id !== undefined) yield { doc_id: id, text: joinTexts(parts) };
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

  /**
   * This catalog's cache of a kind, made on first use and dropped on close.
   *
   * @param kind the kind of cache
   * @returns this catalog's instance
   */
  cache<T>(kind: CatalogCache<T>): T {
    if (!this.#caches.has(kind)) this.#caches.set(kind, kind.make(this));
    return this.#caches.get(kind) as T;
  }

  /**
   * Drop this catalog's caches: a document was stored again with its content hash unchanged
   * (the text of scanned pages put in place), and caches keyed by that hash would be stale.
   */
  dropCaches(): void {
    this.#caches.clear();
  }

  /**
   * Give memory back (an idle server): drop this catalog's caches and the page cache of its
   * connection (SQLite's `shrink_memory`); both fill again on demand.
   */
  releaseMemory(): void {
    this.#caches.clear();
    this.db.exec("PRAGMA shrink_memory");
  }

  /**
   * A token that changes whenever the database changes: SQLite's `PRAGMA data_version` (a
   * commit by another connection) and `total_changes()` (a row written through this one).
   */
  changeToken(): string {
    const v = this.#q("PRAGMA data_version").get()?.data_version;
    const t = this.#q("SELECT total_changes() AS n").get()?.n;
    return `${v}:${t}`;
  }

  /**
   * Every document as listings show it, by path (SQLite's binary order), read from the
   * narrow `documents_list` index alone: cards and outlines make rows kilobytes each.
   */
  *listEntries(): Generator<DocEntry> {
    const rows = this.#q(
      `SELECT doc_id, library, path, doc_type, size, modified_at,
         json_extract(card, '$.title') AS title, json_extract(card, '$.total_lines') AS lines
       FROM documents INDEXED BY documents_list ORDER BY path`,
    ).iterate();
    for (const r of rows) {
      yield {
        doc_id: r.doc_id as string,
        library: r.library as string,
        path: r.path as string,
        doc_type: r.doc_type as string,
        title: (r.title as string | null) ?? "",
        total_lines: (r.lines as number | null) ?? 0,
        size: r.size as number,
        modified_at: r.modified_at as string,
      };
    }
  }

  /**
   * The most recently modified documents the filters allow, newest first (ties by path).
   *
   * @param filters search filters (library, path_glob, doc_types, dates normalised)
   * @param limit documents at most
   * @returns their ids, newest first
   */
  recentIds(filters: SearchFilters, limit: number): string[] {
    const f = filterSql(filters, "d");
    return this.#q(
      `SELECT d.doc_id FROM documents d WHERE ${f.where}
       ORDER BY d.modified_at DESC, d.path LIMIT ?`,
    ).all(...f.params, limit).map((r) => r.doc_id as string);
  }

  /** Every document with what the link graph needs of it, by path. */
  graphDocs(): GraphDocRow[] {
    return this.#q(
      "SELECT doc_id, path, library, doc_type, indexed_at FROM documents ORDER BY path",
    ).all() as unknown as GraphDocRow[];
  }

  /**
   * The stored links of the documents that have some, a page of documents at a time by id
   * (keyset: those after `after`): each one's targets and rows in document order
   * (`#fragment` targets, inside the document, left out). Read on the `links_doc` index.
   *
   * @param after the last document id of the page before (`""` for the first page)
   * @param limit documents at most
   */
  linkTargets(after: string, limit: number): LinkTargets[] {
    // Two arrays aggregated over the same rows line up; the index gives them in row order.
    return this.#q(
      `SELECT doc_id, json_group_array(target) AS t, json_group_array(rowid) AS r
       FROM links INDEXED BY links_doc WHERE doc_id > ? AND substr(target, 1, 1) <> '#'
       GROUP BY doc_id ORDER BY doc_id LIMIT ?`,
    ).all(after, limit).map((r) => ({
      doc_id: r.doc_id as string,
      targets: JSON.parse(r.t as string) as string[],
      rows: JSON.parse(r.r as string) as number[],
    }));
  }

  /** Stored links by their rows (see {@link linkTargets}); unknown rows left out. */
  linkRows(rows: number[]): Map<number, LinkRow> {
    const out = new Map<number, LinkRow>();
    const found = this.#q(
      "SELECT rowid AS id, line, target, text FROM links WHERE rowid IN (SELECT value FROM json_each(?))",
    ).all(JSON.stringify(rows));
    for (const r of found) {
      out.set(r.id as number, {
        line: r.line as number,
        text: r.text as string,
        target: r.target as string,
      });
    }
    return out;
  }

  /** Close the database. */
  close(): void {
    this.#caches.clear();
    this.db.close();
  }
}
