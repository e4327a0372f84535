/**
 * How many documents hold a query's words, for the FTS5 keyword index's two choices: which
 * words are too common to be worth matching, and (in a large library) which rare words pick
 * the candidates of a two-phase ranking. Words are counted as the catalog counts them
 * where it can (its `df` table), else in the FTS5 index, up to a bound, and remembered
 * until the document count changes.
 *
 * @module
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import type { QueryUnit, TermStats } from "../core/types.ts";
import { bareWord, hasCJK, segmentCJK, words } from "../core/tokenize.ts";

/** Tokens counted in the FTS5 index that are remembered at most. */
const REMEMBERED = 4096;

/** Document counts of words, from the catalog's statistics and the FTS5 index. */
export class WordDocs {
  #stats: TermStats;
  #share: number;
  #db: DatabaseSync;
  #count?: StatementSync;
  #known = new Map<string, { n: number; exact: boolean }>();
  #knownDocs = 0;

  /**
   * @param db the catalog's database (with the `docs_fts` table)
   * @param stats the catalog's term statistics
   * @param commonShare a word in more than this share of the documents is common
   */
  constructor(db: DatabaseSync, stats: TermStats, commonShare: number) {
    this.#stats = stats;
    this.#share = commonShare;
    this.#db = db;
  }

  /**
   * Whether a word is in more than `commonShare` of the documents; undefined in a library
   * of fewer than 50 documents (too few to tell).
   */
  isCommon(): ((word: string) => boolean) | undefined {
    const stats = this.#stats;
    const n = stats.docCount();
    if (n < 50) return undefined;
    const limit = n * this.#share;
    if (this.#known.size > REMEMBERED || this.#knownDocs !== n) this.#known.clear();
    this.#knownDocs = n;
    // Counted as the catalog counts words: `pages?` is `pages`, `Node.js` stays one word.
    // The catalog does not count numbers and single letters (`2`, `C`); FTS5 does.
    return (word) => {
      const ws = words(word, true);
      if (ws.length === 1) return stats.df(ws[0]!) > limit;
      const token = bareWord(word);
      return /^[\p{L}\p{N}]+$/u.test(token) && this.tokenDocs(token, limit + 1) > limit;
    };
  }

  /**
   * Documents holding one token, from the FTS5 index, counted up to `atMost` (remembered
   * until the document count changes).
   */
  tokenDocs(token: string, atMost: number): number {
    const known = this.#known.get(token);
    if (known && (known.exact || known.n >= atMost)) return known.n;
    const limit = Number.isFinite(atMost) ? Math.ceil(atMost) : -1;
    this.#count ??= this.#db.prepare(
      "SELECT count(*) AS n FROM (SELECT 1 FROM docs_fts WHERE docs_fts MATCH ? LIMIT ?)",
    );
    const n = this.#count.get(`"${token}"`, limit)?.n as number;
    this.#known.set(token, { n, exact: n < atMost });
    return n;
  }

  /**
   * Documents an optional unit of a query matches, about: a word's count in the index, a
   * phrase's rarest word's, a CJK run's words' together.
   */
  unitDocs(unit: QueryUnit, atMost: number): number {
    let n = 0;
    for (const item of unit.alternatives) {
      const tokens = segmentCJK(item.text).toLowerCase().split(/[^\p{L}\p{N}]+/u)
        .filter(Boolean);
      const dfs = tokens.map((t) => this.tokenDocs(t, atMost));
      if (!dfs.length) continue;
      n += hasCJK(item.text) ? dfs.reduce((x, y) => x + y) : Math.min(...dfs);
    }
    return n;
  }
}
