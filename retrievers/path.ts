/**
 * Path matching: the `find_paths` aggregator (which folders hold files whose path
 * contains a keyword) and a small retriever that finds documents by words of their path.
 *
 * @module
 */
import type { DatabaseSync, SQLInputValue } from "node:sqlite";
import {
  type Hit,
  type IndexedDoc,
  type Query,
  type Retriever,
  type RetrieverState,
  ToolError,
} from "../core/types.ts";
import { parseQuery, positiveTerms } from "./query.ts";
import { filterSql } from "./fts5.ts";

/** Answer of `find_paths`. */
export interface PathAggregate {
  /** Files kept (a pattern matched one of their folders), over all folders. */
  total_files: number;
  /** True when more folders matched than `limit`. */
  truncated: boolean;
  /** Folders by file count (descending), then path. */
  directories: { path: string; file_count: number }[];
}

/** True when the text is ASCII only (SQLite's LIKE folds the case of ASCII letters only). */
function isAscii(text: string): boolean {
  return !/[^\p{ASCII}]/u.test(text);
}

/** Options of {@link findPaths}. */
export interface FindPathsOptions {
  /** Keywords, OR-ed, each matched case-insensitively anywhere in the path. */
  patterns: string[];
  /** Only this library. */
  library?: string;
  /** Maximum number of folders returned. */
  limit: number;
}

/**
 * Escape a text for `LIKE ? ESCAPE '\'`: `%`, `_` and `\` lose their meaning.
 *
 * @param text the literal text
 * @returns the escaped text
 * @example
 * ```ts
 * escapeLike("100%_done"); // "100\\%\\_done"
 * ```
 */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * Bucket paths by the shallowest folder whose path contains one of the patterns
 * (case-insensitive). Paths whose folders match no pattern (a match only in the file
 * name, or none) are dropped.
 *
 * @param paths display paths (`<library>/<folders>/<file>`)
 * @param patterns keywords, OR-ed; blank ones are ignored
 * @param limit maximum number of folders returned
 * @returns folders by file count, the number of files kept, and whether folders were cut
 * @example
 * ```ts
 * aggregatePaths(["Notes/Notion/a.md", "Notes/notion.md"], ["notion"], 10);
 * // { total_files: 1, truncated: false, directories: [{ path: "Notes/Notion", file_count: 1 }] }
 * ```
 */
export function aggregatePaths(paths: string[], patterns: string[], limit: number): PathAggregate {
  const pats = patterns.map((p) => p.trim().toLowerCase()).filter((p) => p.length > 0);
  const buckets = new Map<string, number>();
  let total = 0;
  for (const path of paths) {
    const lower = path.toLowerCase();
    // Folder prefixes end at each "/" but the last one: "A", "A/b", "A/b/c" for "A/b/c/f.md".
    let end = lower.indexOf("/");
    while (end >= 0) {
      const prefix = lower.slice(0, end);
      if (pats.some((p) => prefix.includes(p))) {
        const folder = path.slice(0, end);
        buckets.set(folder, (buckets.get(folder) ?? 0) + 1);
        total++;
        break;
      }
      end = lower.indexOf("/", end + 1);
    }
  }
  const directories = [...buckets]
    .map(([path, file_count]) => ({ path, file_count }))
    .sort((a, b) =>
      b.file_count - a.file_count || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)
    );
  return {
    total_files: total,
    truncated: directories.length > limit,
    directories: directories.slice(0, Math.max(0, limit)),
  };
}

/**
 * The `find_paths` tool: folders holding files whose path contains any of the patterns,
 * each file counted at the shallowest matching folder; matches only in the file name are
 * dropped.
 *
 * @param db the catalog database (`documents` table)
 * @param options patterns, library and limit
 * @returns the folder aggregate
 * @throws {ToolError} `INVALID_ARGUMENT` when every pattern is blank
 */
export function findPaths(db: DatabaseSync, options: FindPathsOptions): PathAggregate {
  const pats = options.patterns.map((p) => p.trim()).filter((p) => p.length > 0);
  if (!pats.length) {
    throw new ToolError(
      "INVALID_ARGUMENT",
      `patterns ${JSON.stringify(options.patterns)} are all empty`,
      'Give at least one keyword, e.g. ["notion"].',
    );
  }
  const conds: string[] = [];
  const params: SQLInputValue[] = [];
  if (options.library !== undefined) {
    conds.push("library = ?");
    params.push(options.library);
  }
  // LIKE folds ASCII case only; with non-ASCII patterns the JS side does all the matching.
  if (pats.every(isAscii)) {
    conds.push(`(${pats.map(() => "path LIKE ? ESCAPE '\\'").join(" OR ")})`);
    params.push(...pats.map((p) => `%${escapeLike(p)}%`));
  }
  const sql = `SELECT path FROM documents${conds.length ? ` WHERE ${conds.join(" AND ")}` : ""}`;
  const paths = db.prepare(sql).all(...params).map((r) => r.path as string);
  return aggregatePaths(paths, pats, options.limit);
}

/**
 * A minor retriever: documents whose path contains every positive term of the query
 * (case-insensitive), with the search filters. Score 0.5-1: higher the more terms match in
 * the file name rather than only in the folders; `raw` is the number of file-name matches.
 * It reads the catalog's `documents` table, so `upsert` and `remove` do nothing.
 */
export class PathRetriever implements Retriever {
  /** Retriever name, used to tag hits. */
  readonly name = "path";
  #db: DatabaseSync;

  /**
   * Create the retriever; it has no tables of its own.
   *
   * @param db the catalog database (`documents` table)
   */
  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  /** Nothing to do: paths live in the catalog. */
  upsert(_docs: IndexedDoc[]): Promise<void> {
    return Promise.resolve();
  }

  /** Nothing to do: paths live in the catalog. */
  remove(_ids: string[]): Promise<void> {
    return Promise.resolve();
  }

  /** Documents whose path contains all positive terms, file-name matches first. */
  search(q: Query): Promise<Hit[]> {
    const terms = positiveTerms(parseQuery(q.text)).map((t) => t.toLowerCase());
    if (!terms.length) return Promise.resolve([]);
    const f = filterSql(q.filters, "d");
    const ascii = terms.filter(isAscii);
    const like = ascii.map(() => "d.path LIKE ? ESCAPE '\\'");
    const rows = this.#db.prepare(
      `SELECT d.doc_id, d.path FROM documents d WHERE ${[f.where, ...like].join(" AND ")}`,
    ).all(...f.params, ...ascii.map((t) => `%${escapeLike(t)}%`));
    const hits: (Hit & { path: string })[] = [];
    for (const row of rows) {
      const path = row.path as string;
      const lower = path.toLowerCase();
      if (!terms.every((t) => lower.includes(t))) continue;
      const file = lower.slice(lower.lastIndexOf("/") + 1);
      const inName = terms.filter((t) => file.includes(t)).length;
      hits.push({
        doc_id: row.doc_id as string,
        score: 0.5 + 0.5 * inName / terms.length,
        raw: inName,
        retriever: this.name,
        path,
      });
    }
    hits.sort((a, b) =>
      b.score - a.score || a.path.length - b.path.length || (a.path < b.path ? -1 : 1)
    );
    return Promise.resolve(
      hits.slice(0, Math.max(0, q.limit)).map(({ path: _p, ...hit }) => hit),
    );
  }

  /** Always ready: it reads the catalog directly. */
  ready(): RetrieverState {
    const n = this.#db.prepare("SELECT count(*) AS n FROM documents").get()?.n as number;
    return { state: n > 0 ? "ready" : "empty", documents: n };
  }
}
