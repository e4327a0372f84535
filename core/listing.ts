/**
 * Document listings for `browse`, `find_documents` and `recent`: a compact in-memory table
 * of every document (id, library, path, type, title, lines, size, modified), sorted by path,
 * read from the catalog once and again only after the catalog changed; and the most
 * recently modified documents under the search filters.
 *
 * The table costs about 530 bytes of heap a document (526 MiB at a million). It is rebuilt when SQLite says the database
 * changed: `PRAGMA data_version` (a commit by another connection) or `total_changes()`
 * (a row written through this one). A rebuild reads the catalog's narrow `documents_list`
 * index alone, titles and line counts included (an index on the card's fields), not the
 * rows: cards and outlines make them kilobytes each, a million row lookups took 119 s.
 *
 * @module
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { filterSql } from "./catalog_sql.ts";
import type { SearchFilters } from "./types.ts";

/** One document as listings show it. */
export interface DocEntry {
  /** Its id. */
  doc_id: string;
  /** Its library. */
  library: string;
  /** Display path `<library>/<path inside it>`. */
  path: string;
  /** Extractor name. */
  doc_type: string;
  /** Card title. */
  title: string;
  /** Lines `read` can return. */
  total_lines: number;
  /** File size in bytes. */
  size: number;
  /** File modification time, RFC 3339 UTC. */
  modified_at: string;
}

/** The table of documents, sorted by path (binary order), and an index by id. */
export interface DocTable {
  /** Every document, by path. */
  entries: DocEntry[];
  /** The same documents by id. */
  byId: Map<string, DocEntry>;
}

interface Cached {
  version: string;
  table: DocTable;
  stmts: Map<string, StatementSync>;
}

const cache = new WeakMap<DatabaseSync, Cached>();

function stmt(db: DatabaseSync, c: Cached, sql: string): StatementSync {
  let s = c.stmts.get(sql);
  if (!s) c.stmts.set(sql, s = db.prepare(sql));
  return s;
}

function holder(db: DatabaseSync): Cached {
  let c = cache.get(db);
  if (!c) {
    c = {
      version: "",
      table: { entries: [], byId: new Map() },
      stmts: new Map(),
    };
    cache.set(db, c);
  }
  return c;
}

/**
 * The table of every document of the catalog behind `db`, rebuilt only when the
 * database changed since the last call.
 *
 * @param db the catalog's database (`Catalog.db`)
 * @returns the documents by path, and by id
 */
export function docTable(db: DatabaseSync): DocTable {
  const c = holder(db);
  const v = stmt(db, c, "PRAGMA data_version").get()?.data_version;
  const t = stmt(db, c, "SELECT total_changes() AS n").get()?.n;
  const version = `${v}:${t}`;
  if (version === c.version) return c.table;
  const entries: DocEntry[] = [];
  const rows = stmt(
    db,
    c,
    `SELECT doc_id, library, path, doc_type, size, modified_at,
       json_extract(card, '$.title') AS title, json_extract(card, '$.total_lines') AS lines
     FROM documents INDEXED BY documents_list ORDER BY path`,
  ).iterate();
  for (const r of rows) {
    entries.push({
      doc_id: r.doc_id as string,
      library: r.library as string,
      path: r.path as string,
      doc_type: r.doc_type as string,
      title: (r.title as string | null) ?? "",
      total_lines: (r.lines as number | null) ?? 0,
      size: r.size as number,
      modified_at: r.modified_at as string,
    });
  }
  // SQLite's UTF-8 byte order and JavaScript's UTF-16 order (which the binary search uses)
  // differ between astral characters and U+E000-U+FFFF: sorted again when they do.
  if (entries.some((e, i) => i > 0 && entries[i - 1]!.path > e.path)) {
    entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }
  c.table = { entries, byId: new Map(entries.map((e) => [e.doc_id, e])) };
  c.version = version;
  return c.table;
}

/** First index in `entries` (sorted by path) whose path is not below `key`. */
function lowerBound(entries: DocEntry[], key: string): number {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (entries[mid]!.path < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The documents whose path lies under the folder `folder` (a display path without a
 * trailing `/`), at any depth, in path order (`entries` sorted as {@link docTable} sorts).
 *
 * @example
 * ```ts
 * import { under, type DocEntry } from "./listing.ts";
 * import assert from "node:assert/strict";
 * const e = (path: string) => ({ path } as DocEntry);
 * const inA = under([e("A/a.md"), e("A/b/c.md"), e("AB/d.md")], "A").map((d) => d.path);
 * assert.deepEqual(inA, ["A/a.md", "A/b/c.md"]);
 * ```
 */
export function under(entries: DocEntry[], folder: string): DocEntry[] {
  const prefix = `${folder}/`;
  const out: DocEntry[] = [];
  for (let i = lowerBound(entries, prefix); entries[i]?.path.startsWith(prefix); i++) {
    out.push(entries[i]!);
  }
  return out;
}

/**
 * The most recently modified documents the filters allow, newest first (ties by path).
 *
 * @param db the catalog's database
 * @param filters search filters (library, path_glob, doc_types, dates normalised)
 * @param limit documents at most
 * @returns their ids, newest first
 */
export function recentIds(db: DatabaseSync, filters: SearchFilters, limit: number): string[] {
  const f = filterSql(filters, "d");
  return stmt(
    db,
    holder(db),
    `SELECT d.doc_id FROM documents d WHERE ${f.where}
     ORDER BY d.modified_at DESC, d.path LIMIT ?`,
  ).all(...f.params, limit).map((r) => r.doc_id as string);
}
