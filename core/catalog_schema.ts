/**
 * The catalog's tables, and opening its database file: a catalog written by another format
 * is emptied (see `FORMAT` in `core/catalog.ts`) so the next run indexes afresh.
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { FIELDS_SCHEMA } from "./fields.ts";

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
-- What an indexing run compares each file with, read from this index alone: looking rows
-- up instead cost 86 s at a million documents (each row is a page of card and outline).
DROP INDEX IF EXISTS documents_library;
CREATE INDEX IF NOT EXISTS documents_states
  ON documents(library, path, doc_id, size, mtime_ms, hash);
-- A document's text, stored once, in blocks of whole lines (core/text_codec.ts
-- textBlocks), each compressed on its own: a search hit decompresses only the blocks
-- holding its passages' lines, read and grep join them.
CREATE TABLE IF NOT EXISTS text_blocks (
  doc_id TEXT NOT NULL, first_line INTEGER NOT NULL, text NOT NULL,
  PRIMARY KEY (doc_id, first_line)
) WITHOUT ROWID;
-- A document's passages (search/passages.ts: outline sections, pages, windows; in line
-- order, covering every line once): where each is, not its text. The keyword index's
-- passage rows (stores/fts5_passages.ts) point here by (doc_id, seq).
CREATE TABLE IF NOT EXISTS passages (
  doc_id TEXT NOT NULL, seq INTEGER NOT NULL, start_line INTEGER NOT NULL,
  end_line INTEGER NOT NULL, page INTEGER, node_id TEXT, title TEXT NOT NULL,
  PRIMARY KEY (doc_id, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS skipped (
  path TEXT PRIMARY KEY, library TEXT NOT NULL, reason TEXT NOT NULL, message TEXT NOT NULL,
  size INTEGER NOT NULL, mtime_ms REAL NOT NULL, at TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS df (term TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS vectors (doc_id TEXT PRIMARY KEY, hash TEXT NOT NULL) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS documents_doc_hash ON documents(doc_id, hash);
-- No query looks documents up by mtime_ms -1 (partial ones are found by documents_partial).
DROP INDEX IF EXISTS documents_unfinished;
-- Documents extracted only in part, those given up on included (status lists them).
CREATE INDEX IF NOT EXISTS documents_partial ON documents(path)
  WHERE json_extract(card, '$.partial') IS NOT NULL;
CREATE TABLE IF NOT EXISTS links (
  doc_id TEXT NOT NULL, line INTEGER NOT NULL, target TEXT NOT NULL, text TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS links_doc ON links(doc_id);
-- Links are resolved in memory from a scan (core/graph.ts); nothing looks a target up.
DROP INDEX IF EXISTS links_target;
CREATE INDEX IF NOT EXISTS documents_modified ON documents(modified_at);
-- Listings (browse, find_documents, recent) read this index alone, titles and line counts
-- included: looking each card up took 119 s at a million documents.
DROP INDEX IF EXISTS documents_listing;
CREATE INDEX IF NOT EXISTS documents_list ON documents(path, doc_id, library, doc_type, size,
  modified_at, json_extract(card, '$.title'), json_extract(card, '$.total_lines'));
${FIELDS_SCHEMA}`;

/**
 * Open (or create) a catalog database with every table of the catalog (WAL mode).
 *
 * @param file database file path (`":memory:"` for a throwaway one)
 * @param format the catalog's format: a catalog stored with another one is emptied
 * @param same older formats whose catalog tables are this format's (they differ in the
 *   keyword index's tables alone, which rebuild themselves): taken as they are
 * @returns the open handle
 * @example
 * ```ts
 * import { openCatalogDb } from "./catalog_schema.ts";
 * import assert from "node:assert/strict";
 * const db = openCatalogDb(":memory:", "1");
 * assert.equal(db.prepare("SELECT value FROM meta WHERE key = ?").get("format")?.value, "1");
 * ```
 */
export function openCatalogDb(
  file: string,
  format: string,
  same: readonly string[] = [],
): DatabaseSync {
  const db = new DatabaseSync(file);
  db.exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA busy_timeout=5000;");
  // A catalog from before the skipped files' attempts were counted.
  const skippedCols = db.prepare("SELECT name FROM pragma_table_info('skipped')").all();
  if (skippedCols.length && !skippedCols.some((c) => c.name === "attempts")) {
    db.exec("ALTER TABLE skipped ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0");
  }
  db.exec(SCHEMA);
  migrate(db, format, same);
  db.exec("CREATE INDEX IF NOT EXISTS documents_text_key ON documents(text_key)");
  return db;
}

/**
 * A catalog written by another format (document ids, stored fields) is emptied, every
 * table of the file included (the keyword index's too), so the next run indexes afresh;
 * one of the formats in `same` is only marked as this one.
 */
function migrate(db: DatabaseSync, format: string, same: readonly string[]): void {
  const stored = db.prepare("SELECT value FROM meta WHERE key = ?").get("format")?.value;
  if (stored === format) return;
  const kept = stored !== undefined && same.includes(stored as string);
  const written = !kept && (stored !== undefined ||
    (db.prepare("SELECT count(*) AS n FROM documents").get()?.n as number) > 0);
  if (written) {
    const tables = (virtual: boolean) =>
      db.prepare(
        `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
         AND sql ${virtual ? "" : "NOT "}LIKE 'CREATE VIRTUAL TABLE%'`,
      ).all().map((r) => `"${(r.name as string).replaceAll('"', '""')}"`);
    // Virtual tables first: dropping one drops its shadow tables.
    for (const t of tables(true)) db.exec(`DROP TABLE IF EXISTS ${t}`);
    for (const t of tables(false)) db.exec(`DROP TABLE IF EXISTS ${t}`);
    db.exec(SCHEMA);
  }
  db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)").run("format", format);
}
