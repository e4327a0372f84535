/**
 * Path matching: the `find_paths` aggregator, which folders hold files whose path
 * contains a keyword.
 *
 * @module
 */
import { ToolError } from "../core/types.ts";

/** Where the display paths come from (the catalog). */
export interface PathSource {
  /** Paths in one library or all, narrowed to those containing any of `contains` (ASCII case folded). */
  paths(library?: string, contains?: string[]): string[];
}

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
 * import assert from "node:assert/strict";
 * assert.deepEqual(aggregatePaths(["Notes/Notion/a.md", "Notes/notion.md"], ["notion"], 10), {
 *   total_files: 1,
 *   truncated: false,
 *   directories: [{ path: "Notes/Notion", file_count: 1 }],
 * });
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
 * @param catalog where the paths come from (the catalog)
 * @param options patterns, library and limit
 * @returns the folder aggregate
 * @throws {ToolError} `INVALID_ARGUMENT` when every pattern is blank
 */
export function findPaths(catalog: PathSource, options: FindPathsOptions): PathAggregate {
  const pats = options.patterns.map((p) => p.trim()).filter((p) => p.length > 0);
  if (!pats.length) {
    throw new ToolError(
      "INVALID_ARGUMENT",
      `patterns ${JSON.stringify(options.patterns)} are all empty`,
      'Give at least one keyword, e.g. ["notion"].',
    );
  }
  // LIKE folds ASCII case only; with non-ASCII patterns the JS side does all the matching.
  const paths = catalog.paths(options.library, pats.every(isAscii) ? pats : []);
  return aggregatePaths(paths, pats, options.limit);
}
