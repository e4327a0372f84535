/**
 * The FTS5 keyword index's ranking: BM25 with column weights over the matches of a query,
 * joined to the filters' documents; in a large library, a question of many words is ranked
 * in two phases, over the documents holding its rarer words (see `tieredMatch` in
 * `fts5_match.ts`).
 *
 * @module
 */
import type { SQLInputValue, SQLOutputValue, StatementSync } from "node:sqlite";
import type { ParsedQuery, QueryUnit, TermStats } from "../core/types.ts";
import { type TieredMatch, tieredMatch } from "./fts5_match.ts";
import type { WordDocs } from "./fts5_words.ts";

/** BM25 weight of each indexed column. */
export interface Fts5Weights {
  /** Document title. */
  title: number;
  /** Display path, split into words. */
  path: number;
  /** Card keywords. */
  keywords: number;
  /** Every outline heading. */
  headings: number;
  /** The full text. */
  body: number;
}

/** Default column weights: the card and the outline weigh more than the body. */
export const DEFAULT_WEIGHTS: Fts5Weights = {
  title: 10,
  path: 6,
  keywords: 5,
  headings: 4,
  body: 0.2,
};

/** Default of `wholeDocs`: ranking every match takes ~25 ms below. */
const WHOLE_DOCS = 20_000;
/** Default of `rareDocs`: this share of the documents, at least `RARE_DOCS`. */
const RARE_SHARE = 0.1;
const RARE_DOCS = 10_000;

/** The SQL of a query's filters: a join to `documents d` (from `filterJoin`). */
export interface FilterSql {
  /** The join from `m.doc_id` to the documents. */
  join: string;
  /** The condition. */
  where: string;
  /** Its parameters. */
  params: SQLInputValue[];
}

/** A ranked document: its FTS rowid `rid`, its `doc_id` and its `raw` BM25 value. */
export type RankedRow = Record<string, SQLOutputValue>;

/** Options of {@link Fts5Ranking}. */
export interface RankOptions {
  /** Column weights. */
  weights: Fts5Weights;
  /** Corpus statistics (the document count); with `words`, two-phase ranking is possible. */
  stats?: TermStats;
  /** Document counts of words. */
  words?: WordDocs;
  /** Past this many documents of a question's words, rank in two phases (default 20,000). */
  wholeDocs?: number;
  /** Documents the rarer words may match together (default 10 %, at least 10,000). */
  rareDocs?: number;
}

/** Ranks the matches of a query in the FTS5 index (`docs_fts`, `fts_map`). */
export class Fts5Ranking {
  readonly #q: (sql: string) => StatementSync;
  #weights: Fts5Weights;
  #stats?: TermStats;
  #words?: WordDocs;
  #wholeDocs: number;
  #rareDocs?: number;

  /**
   * @param q prepared (cached) statements of the catalog's database
   * @param options column weights, statistics and two-phase limits
   */
  constructor(q: (sql: string) => StatementSync, options: RankOptions) {
    this.#q = q;
    this.#weights = options.weights;
    this.#stats = options.stats;
    this.#words = options.words;
    this.#wholeDocs = options.wholeDocs ?? WHOLE_DOCS;
    this.#rareDocs = options.rareDocs;
  }

  /**
   * The best `limit` documents for a query, by BM25 (then rowid).
   *
   * @param parsed the query's parsed form
   * @param match its MATCH expression (`matchExpression`)
   * @param isCommon words too common to be worth matching (undefined: no statistics)
   * @param f the filters' SQL
   * @param limit documents wanted
   */
  rows(
    parsed: ParsedQuery,
    match: string,
    isCommon: ((word: string) => boolean) | undefined,
    f: FilterSql,
    limit: number,
  ): RankedRow[] {
    // A question of many words matches most of a large library, and BM25 is computed for
    // every match: past `wholeDocs`, rank the documents that hold its rarer words.
    let tiers: TieredMatch | undefined;
    let rows: RankedRow[] | undefined;
    const n = isCommon ? this.#stats!.docCount() : 0;
    // (no word is counted when its documents cannot add up to `wholeDocs`)
    if (isCommon && limit > 0 && n * parsed.optional.length > this.#wholeDocs) {
      const limits = {
        whole: this.#wholeDocs,
        rare: this.#rareDocs ?? Math.max(RARE_DOCS, Math.round(n * RARE_SHARE)),
      };
      // counted on to half the documents, to leave out the common words past it
      const half = Math.floor(n / 2);
      const atMost = Math.max(limits.whole, limits.rare, half) + 1;
      const docs = (u: QueryUnit) => this.#words!.unitDocs(u, atMost);
      tiers = tieredMatch(parsed, docs, { ...limits, drop: half }, isCommon);
      // too few documents hold the rarest words: take one more word among them
      while (tiers) {
        rows = this.#twoPhase(tiers, f, limit);
        if (rows) break;
        const minRare = tiers.rareUnits + 1;
        tiers = tieredMatch(parsed, docs, { ...limits, drop: half, minRare }, isCommon);
      }
    }
    return rows ?? this.#ranked(match, f, limit);
  }

  /**
   * The best `limit` documents for a MATCH expression, by BM25 (then rowid). Without
   * filters, ranked straight from the FTS index (a top-N sort); with filters, every match
   * is ranked first and the documents are then checked in that order until `limit` pass
   * (a plan that starts from the library instead walks every document of it).
   */
  #ranked(match: string, f: FilterSql, limit: number) {
    const w = this.#weights;
    const weights = [w.title, w.path, w.keywords, w.headings, w.body];
    // The doc_id comes from fts_map (the contentless table keeps no column values).
    if (f.params.length === 0) {
      return this.#q(`
      SELECT h.rid, m.doc_id, h.raw FROM (
        SELECT rowid AS rid, bm25(docs_fts, 0, ?, ?, ?, ?, ?) AS raw
        FROM docs_fts WHERE docs_fts MATCH ? ORDER BY raw, rowid LIMIT ?
      ) h JOIN fts_map m ON m.rowid = h.rid ORDER BY h.raw, h.rid`).all(
        ...weights,
        match,
        limit,
      );
    }
    // `LIMIT -1` keeps the ranked subquery whole (not flattened into the join), and CROSS
    // JOIN keeps the join order: the outer ORDER BY is then the subquery's, read in order.
    return this.#q(`
      SELECT h.rid, m.doc_id, h.raw FROM (
        SELECT rowid AS rid, bm25(docs_fts, 0, ?, ?, ?, ?, ?) AS raw
        FROM docs_fts WHERE docs_fts MATCH ? ORDER BY raw, rowid LIMIT -1
      ) h CROSS JOIN fts_map m ON m.rowid = h.rid ${f.join}
      WHERE ${f.where} ORDER BY h.raw, h.rid LIMIT ?`).all(...weights, match, ...f.params, limit);
  }

  /**
   * The best `limit` documents among those holding a rare word, scored as by the whole
   * query. BM25 is a sum over the query's phrases, so \`rare AND common\` scores a document
   * holding words of both exactly as the whole OR does; `rare` alone scores the others (and
   * under-scores the former, which then rank below `limit` documents of the first list, so
   * the merged top is exact). Documents holding common words only are left out;
   * `undefined` when fewer than `limit` documents hold a rare word.
   */
  #twoPhase(t: TieredMatch, f: FilterSql, limit: number): RankedRow[] | undefined {
    const not = t.excluded ? ` NOT (${t.excluded})` : "";
    const both = t.common ? this.#ranked(`((${t.rare}) AND (${t.common}))${not}`, f, limit) : [];
    const seen = new Set(both.map((r) => r.rid));
    const rows = [
      ...both,
      ...this.#ranked(`(${t.rare})${not}`, f, limit).filter((r) => !seen.has(r.rid)),
    ];
    if (rows.length < limit) return undefined;
    rows.sort((a, b) => (a.raw as number) - (b.raw as number) || Number(a.rid) - Number(b.rid));
    return rows.slice(0, limit);
  }
}
