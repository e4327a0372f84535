/**
 * Document listings for `browse`, `find_documents` and `recent`: a compact in-memory table
 * of every document (id, library, path, type, title, lines, size, modified), sorted by path,
 * read from the catalog once and again only after the catalog changed, kept by the catalog.
 *
 * The table costs about 530 bytes of heap a document (526 MiB at a million). It is rebuilt when SQLite says the database
 * changed (`Catalog.changeToken`: a commit by another connection or a row written through
 * this one). A rebuild reads the catalog's narrow `documents_list` index alone
 * (`Catalog.listEntries`), titles and line counts included (an index on the card's fields),
 * not the rows: cards and outlines make them kilobytes each, a million row lookups took 119 s.
 *
 * @module
 */
import { type Catalog, CatalogCache } from "./catalog.ts";

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

/** The table of a catalog and the change token it was read at. */
class Listing {
  version = "";
  table: DocTable = { entries: [], byId: new Map() };
}

/** Each catalog's listing. */
const LISTING = new CatalogCache("document listing", () => new Listing());

/**
 * The table of every document of a catalog, rebuilt only when the catalog changed since
 * the last call (the catalog keeps it until it closes).
 *
 * @param catalog the catalog
 * @returns the documents by path, and by id
 */
export function docTable(catalog: Catalog): DocTable {
  const c = catalog.cache(LISTING);
  const version = catalog.changeToken();
  if (version === c.version) return c.table;
  c.table = tableOf([...catalog.listEntries()]);
  c.version = version;
  return c.table;
}

/**
 * The table of documents listed in a store's byte order of paths (SQLite's, PostgreSQL's
 * `COLLATE "C"`), sorted again where JavaScript's order differs (`entries` is sorted in
 * place).
 *
 * @example
 * ```ts
 * import { tableOf, type DocEntry } from "./listing.ts";
 * import assert from "node:assert/strict";
 * const e = (doc_id: string, path: string) => ({ doc_id, path } as DocEntry);
 * // UTF-8 puts U+FF21 before an astral character; UTF-16 puts it after
 * const t = tableOf([e("a", "L/\uFF21"), e("b", "L/\u{1F600}")]);
 * assert.deepEqual(t.entries.map((d) => d.doc_id), ["b", "a"]);
 * assert.equal(t.byId.get("a")?.path, "L/\uFF21");
 * ```
 */
export function tableOf(entries: DocEntry[]): DocTable {
  // UTF-8 byte order and JavaScript's UTF-16 order (which the binary search uses) differ
  // between astral characters and U+E000-U+FFFF: sorted again when they do.
  if (entries.some((e, i) => i > 0 && entries[i - 1]!.path > e.path)) {
    entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }
  return { entries, byId: new Map(entries.map((e) => [e.doc_id, e])) };
}

/**
 * A store's table of documents ({@link tableOf} of its listing), kept and read again only
 * when the store's change token moved: one token query per call while nothing changed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { KeptTable } from "./listing.ts";
 * let [token, reads] = ["1", 0];
 * const kept = new KeptTable(async () => token, async () => (reads++, []));
 * await kept.get();
 * await kept.get();
 * assert.equal(reads, 1);
 * token = "2";
 * await kept.get();
 * assert.equal(reads, 2);
 * ```
 */
export class KeptTable {
  readonly #token: () => Promise<string>;
  readonly #list: () => Promise<DocEntry[]>;
  #kept?: { version: string; table: DocTable };

  /**
   * @param token the store's change token
   * @param list the store's listing, by path
   */
  constructor(token: () => Promise<string>, list: () => Promise<DocEntry[]>) {
    this.#token = token;
    this.#list = list;
  }

  /** The table, read again when the token moved since the last call. */
  async get(): Promise<DocTable> {
    // the token first: a write landing during the read makes the next call read again
    const version = await this.#token();
    if (this.#kept?.version === version) return this.#kept.table;
    const table = tableOf(await this.#list());
    this.#kept = { version, table };
    return table;
  }
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
