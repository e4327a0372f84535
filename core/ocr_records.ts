/**
 * The catalog's record of the OCR of scanned PDF pages and image files (an image is its
 * page 1): which pages of which content (the file's hash) wait for OCR, were read (with their text) or were passed over, and which
 * stored version of each PDF was looked at for blank pages. `shelf/ocr.ts` does the work;
 * the indexer puts the text of read pages back in place whenever it extracts the file, so
 * a page is read once per content, across restarts and full re-indexing.
 *
 * @module
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { statements } from "./catalog_sql.ts";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS ocr_pages (
  doc_id TEXT NOT NULL, hash TEXT NOT NULL, page INTEGER NOT NULL,
  state TEXT NOT NULL, text TEXT, PRIMARY KEY (doc_id, hash, page)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS ocr_pages_state ON ocr_pages(state, doc_id);
-- The stored version of each PDF whose blank pages were noted; unapplied: pages were read
-- since, and the document was not yet extracted again to put them in place.
CREATE TABLE IF NOT EXISTS ocr_docs (
  doc_id TEXT PRIMARY KEY, indexed_at TEXT NOT NULL, unapplied INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS ocr_docs_unapplied ON ocr_docs(unapplied);`;

/** The document types whose blank pages are read by OCR. */
export const OCR_TYPES: readonly string[] = ["pdf", "image"];

/** What became of a page: waiting, read (`done`), passed over or failed. */
export type OcrPageState = "waiting" | "done" | "skipped" | "failed";

/** Page counts of the documents as stored now. */
export interface OcrCounts {
  /** Pages read. */
  done: number;
  /** Pages waiting. */
  waiting: number;
  /** Blank pages that are no scan (no image over most of the page, or too large). */
  skipped: number;
  /** Pages that failed or ran out of time. */
  failed: number;
}

/** A stored PDF not yet looked at for blank pages, in the version stored now. */
export interface OcrUnchecked {
  /** The document. */
  doc_id: string;
  /** Its file's hash. */
  hash: string;
  /** When this version was stored. */
  indexed_at: string;
  /** First line of each page. */
  pages: number[];
}

/** Pages of one document that wait for OCR. */
export interface OcrTodo {
  /** The document. */
  doc_id: string;
  /** The content they belong to. */
  hash: string;
  /** Display path (`<library>/<path inside>`). */
  path: string;
  /** Its type: `pdf` or `image`. */
  doc_type: string;
  /** Its library. */
  library: string;
  /** The pages, in order. */
  pages: number[];
}

/** Which PDF pages wait for OCR, and the text of those read. */
export class OcrRecords {
  readonly #q: (sql: string) => StatementSync;

  /** @param db the catalog's database (with its `documents` table) */
  constructor(db: DatabaseSync) {
    db.exec(SCHEMA);
    this.#q = statements(db);
  }

  /**
   * Stored PDFs whose present version was not looked at, by id after `after` (those stored
   * before the indexer noted blank pages itself: it reads every document, so it runs once).
   */
  unchecked(limit: number, after = ""): OcrUnchecked[] {
    return this.#q(
      `SELECT d.doc_id, d.hash, d.indexed_at, d.pages FROM documents d
       WHERE d.doc_type = 'pdf' AND d.doc_id > ? AND NOT EXISTS
         (SELECT 1 FROM ocr_docs o WHERE o.doc_id = d.doc_id AND o.indexed_at = d.indexed_at)
       ORDER BY d.doc_id LIMIT ?`,
    ).all(after, limit).map((r) => ({
      doc_id: r.doc_id as string,
      hash: r.hash as string,
      indexed_at: r.indexed_at as string,
      pages: r.pages ? JSON.parse(r.pages as string) as number[] : [],
    }));
  }

  /**
   * Note the blank pages of a document just stored (the indexer calls it after `put`): they
   * wait for OCR unless known already; the pages read before were put in place by the store.
   */
  noteBlank(docId: string, hash: string, pages: number[]): void {
    this.#waiting(docId, hash, pages);
    this.#q(
      `INSERT OR REPLACE INTO ocr_docs (doc_id, indexed_at, unapplied)
       SELECT doc_id, indexed_at, 0 FROM documents WHERE doc_id = ?`,
    ).run(docId);
  }

  /**
   * Note a stored version found by {@link unchecked} as looked at, its blank `pages` waiting
   * unless known already (`unapplied`: some were read and are not in its text).
   */
  checked(doc: OcrUnchecked, pages: number[], unapplied: boolean): void {
    this.#waiting(doc.doc_id, doc.hash, pages);
    this.#q("INSERT OR REPLACE INTO ocr_docs (doc_id, indexed_at, unapplied) VALUES (?, ?, ?)")
      .run(doc.doc_id, doc.indexed_at, unapplied ? 1 : 0);
  }

  #waiting(docId: string, hash: string, pages: number[]): void {
    const add = this.#q(
      "INSERT OR IGNORE INTO ocr_pages (doc_id, hash, page, state) VALUES (?, ?, ?, 'waiting')",
    );
    for (const p of pages) add.run(docId, hash, p);
  }

  /** Documents with pages read that are not yet in their stored text. */
  unapplied(): string[] {
    return this.#q("SELECT doc_id FROM ocr_docs WHERE unapplied = 1").all()
      .map((r) => r.doc_id as string);
  }

  /** Page counts of the documents of `types` (`pdf`, `image`) as stored now. */
  counts(types: readonly string[] = OCR_TYPES): OcrCounts {
    const out: OcrCounts = { done: 0, waiting: 0, skipped: 0, failed: 0 };
    const rows = this.#q(
      `SELECT p.state, count(*) AS n FROM ocr_pages p
       JOIN documents d ON d.doc_id = p.doc_id AND d.hash = p.hash
       WHERE d.doc_type IN (SELECT value FROM json_each(?)) GROUP BY p.state`,
    ).all(JSON.stringify(types));
    for (const r of rows) out[r.state as OcrPageState] = r.n as number;
    return out;
  }

  /**
   * The next document of `types` (`pdf`, `image`) with pages waiting (its present content
   * only), or undefined.
   */
  next(types: readonly string[] = OCR_TYPES): OcrTodo | undefined {
    const r = this.#q(
      `SELECT p.doc_id, p.hash, d.path, d.library, d.doc_type FROM ocr_pages p
       JOIN documents d ON d.doc_id = p.doc_id AND d.hash = p.hash
       WHERE p.state = 'waiting' AND d.doc_type IN (SELECT value FROM json_each(?))
       ORDER BY p.doc_id LIMIT 1`,
    ).get(JSON.stringify(types));
    if (!r) return undefined;
    const pages = this.#q(
      `SELECT page FROM ocr_pages WHERE doc_id = ? AND hash = ? AND state = 'waiting'
       ORDER BY page`,
    ).all(r.doc_id as string, r.hash as string).map((x) => x.page as number);
    return {
      doc_id: r.doc_id as string,
      hash: r.hash as string,
      path: r.path as string,
      doc_type: r.doc_type as string,
      library: r.library as string,
      pages,
    };
  }

  /** Pages of a content no longer waiting (read, skipped or failed). */
  handled(docId: string, hash: string): number {
    const r = this.#q(
      `SELECT count(*) AS n FROM ocr_pages WHERE doc_id = ? AND hash = ? AND state != 'waiting'`,
    ).get(docId, hash);
    return (r?.n as number) ?? 0;
  }

  /** Record what became of a page (`text`: its lines joined by newlines, when read). */
  record(docId: string, hash: string, page: number, state: OcrPageState, text?: string): void {
    this.#q(
      `INSERT OR REPLACE INTO ocr_pages (doc_id, hash, page, state, text)
       VALUES (?, ?, ?, ?, ?)`,
    ).run(docId, hash, page, state, text ?? null);
    if (state === "done") {
      this.#q("UPDATE ocr_docs SET unapplied = 1 WHERE doc_id = ?").run(docId);
    }
  }

  /** The lines read from each page of a content, by page. */
  texts(docId: string, hash: string): Map<number, string[]> {
    const rows = this.#q(
      `SELECT page, text FROM ocr_pages WHERE doc_id = ? AND hash = ? AND state = 'done'
       ORDER BY page`,
    ).all(docId, hash);
    return new Map(rows.map((r) => [r.page as number, (r.text as string).split("\n")]));
  }

  /** Forget the pages of contents no longer stored. */
  prune(): void {
    this.#q(
      `DELETE FROM ocr_pages WHERE NOT EXISTS
         (SELECT 1 FROM documents d WHERE d.doc_id = ocr_pages.doc_id AND d.hash = ocr_pages.hash)`,
    ).run();
    this.#q("DELETE FROM ocr_docs WHERE doc_id NOT IN (SELECT doc_id FROM documents)").run();
  }
}
