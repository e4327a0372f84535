/**
 * The keyword index's passage rows: every passage of every document (`docPassages` in
 * `search/passages.ts`: outline sections, pages, windows, the ones hits show) is a row of
 * its own in a contentless FTS5 table, written with its document. A query ranks a
 * document's passages by BM25 with the statistics of all passages of the library (a word
 * found in every section of every manual tells little), and a hit's snippet is cut from
 * its passage's stored text alone.
 *
 * A passage row's rowid is its document's `docs_fts` rowid times {@link PASSAGE_SPAN} plus
 * its sequence number, so a document's passages are one rowid range (FTS5 reads a range
 * of a doclist without walking the rest) and point into the catalog's `passages` table by
 * `(doc_id, seq)`: the text is stored once, there. A row's `doc` column holds one token
 * naming its document ({@link docToken}, BM25 weight 0): a query for some documents'
 * passages ANDs the query's words with their tokens, and FTS5 then seeks through the
 * words' doclists to those documents' passages instead of walking every passage holding
 * a word (80 dev questions, full corpus: 14 -> 5 ms CPU per query, the same passages and
 * BM25 values).
 *
 * @module
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import type { Hit, IndexedDoc, ParsedQuery, PassageHit, QueryItem } from "../core/types.ts";
import { passageReader, type StoredPassages } from "../core/catalog_sql.ts";
import { segmentCJK } from "../core/tokenize.ts";
import { MARKUP_TYPES } from "../core/readable.ts";
import { chosenPassages, docPassages, pageOf } from "../search/passages.ts";
import { positiveTerms } from "../search/query.ts";
import { toFtsMatch } from "./fts5_match.ts";

/** Passage rowids per document: a document's passages beyond it are not indexed. */
export const PASSAGE_SPAN = 2 ** 20;

/** The passage table (created with the keyword index's tables). */
export const PASSAGE_SCHEMA = `
CREATE VIRTUAL TABLE IF NOT EXISTS passages_fts USING fts5(
  title, body, doc,
  content = '', contentless_delete = 1,
  tokenize = 'porter unicode61 remove_diacritics 2'
);`;

/**
 * Passages of a hit ranked best across the library that are read to choose the ones it
 * shows (`PassageRows.hits`).
 */
export const CANDIDATES = 8;

/** Weight of a document's best passage beside the document's own score. */
const PASSAGE_WEIGHT = 0.5;
/** A passage's BM25 magnitude that maps to 0.5. */
const PASSAGE_HALF_SCORE = 5;

/** BM25 weights of a passage's columns: its section title, its text. */
const TITLE_WEIGHT = 2;
const BODY_WEIGHT = 1;
/** The passage columns' weights, title then text (for another backend's BM25). */
export const PASSAGE_WEIGHTS: readonly number[] = [TITLE_WEIGHT, BODY_WEIGHT];

/** A passage as the passage index receives it: its section's title and its text. */
export interface PassageText {
  /** The section's title, CJK segmented ("" for a window or a page). */
  title: string;
  /** The passage's lines, CJK segmented. */
  body: string;
}

/**
 * A document's passages as the passage index receives them, by sequence number: the
 * section's title (none for a window or a page: "Lines 1-40", "Page 3" are not the
 * author's words) and the text, CJK segmented.
 *
 * @param doc the document
 * @param segmented its lines, each CJK segmented already (`segmentCJK`; a CJK run never
 *   crosses a line, so the passages are the same), when the caller has them
 * @example
 * ```ts
 * import { passageTexts } from "./fts5_passages.ts";
 * import { segmentCJK } from "../core/tokenize.ts";
 * import assert from "node:assert/strict";
 * const card = { outline_quality: "none", doc_type: "text" } as const;
 * const lines = ["全文検索エンジン", "one line"];
 * const doc = { card, outline: [], lines } as unknown as Parameters<typeof passageTexts>[0];
 * assert.deepEqual(passageTexts(doc), [{ title: "", body: " 全文 検索 エンジン \none line" }]);
 * assert.deepEqual(passageTexts(doc, lines.map(segmentCJK)), passageTexts(doc));
 * ```
 */
export function passageTexts(doc: IndexedDoc, segmented?: string[]): PassageText[] {
  const { card, outline, lines, pages } = doc;
  const total = lines.length === 1 && lines[0] === "" ? 0 : lines.length;
  const body = segmented
    ? (from: number, to: number) => segmented.slice(from, to).join("\n")
    : (from: number, to: number) => segmentCJK(lines.slice(from, to).join("\n"));
  return docPassages(card, outline, pages, total).slice(0, PASSAGE_SPAN).map((p) => ({
    title: p.node_id === undefined ? "" : segmentCJK(p.title),
    body: body(p.start_line - 1, p.end_line),
  }));
}

/**
 * The token of the passage table's `doc` column that names a document's passages.
 *
 * @param docRowid the document's `docs_fts` rowid
 * @example
 * ```ts
 * import { docToken } from "./fts5_passages.ts";
 * import assert from "node:assert/strict";
 * assert.equal(docToken(42), "d42");
 * ```
 */
export function docToken(docRowid: bigint | number): string {
  return `d${docRowid}`;
}

/**
 * A word of a MATCH expression that the tokenizer could fold into a document's token
 * ({@link docToken}: `d` and digits; to be safe, any letter, with diacritics, and digits).
 */
const DOC_TOKEN_LIKE = /(?<![\p{L}\p{N}])\p{L}\p{M}*\p{N}+(?![\p{L}\p{N}])/u;

/** A document's passage found for a query: its sequence number and BM25 value. */
export interface PassageRank {
  seq: number;
  raw: number;
}

/**
 * The MATCH expression passages are ranked by: every positive unit of the query, any of
 * them (a quoted phrase is enforced on the document, across passage boundaries, by the
 * document's row; a passage need only hold some of the words). Undefined when nothing
 * remains to match.
 *
 * @param parsed the query
 * @param isCommon words too common to be worth matching, when rarer ones remain
 */
export function passageMatch(
  parsed: ParsedQuery,
  isCommon?: (word: string) => boolean,
): string | undefined {
  return toFtsMatch(
    { optional: [...parsed.required, ...parsed.optional], required: [], excluded: [] },
    isCommon,
  );
}

/**
 * The MATCH expression of a query's positive units with its quoted phrases taken word by
 * word: what a document's passages are ranked by when none of them holds a whole phrase of
 * the query (the phrase runs across two passages). Undefined when the query has no quoted
 * phrase of several words.
 *
 * @param parsed the query
 * @example
 * ```ts
 * import { parseQuery } from "../search/query.ts";
 * import { wordsMatch } from "./fts5_passages.ts";
 * import assert from "node:assert/strict";
 * assert.equal(wordsMatch(parseQuery('"apache license" grant')), '"apache" OR "license" OR "grant"');
 * assert.equal(wordsMatch(parseQuery("apache license")), undefined);
 * ```
 */
export function wordsMatch(parsed: ParsedQuery): string | undefined {
  const units = [...parsed.required, ...parsed.optional];
  const split = (item: QueryItem): QueryItem[] =>
    item.kind === "phrase"
      ? item.text.split(/\s+/).filter(Boolean).map((text) => ({ kind: "term", text }))
      : [item];
  if (!units.some((u) => u.alternatives.some((a) => split(a).length > 1))) return undefined;
  const words = units.flatMap((u) => u.alternatives.flatMap(split)).map((a) => ({
    alternatives: [a],
  }));
  return toFtsMatch({ optional: words, required: [], excluded: [] });
}

/**
 * Documents ranked by their own score (BM25 of the whole document, its title, path and
 * headings weighing most) and their best passage's (BM25 among all passages of the
 * library), mapped to 0..1 like the document's: of two documents that match alike, the one
 * with a passage that holds the words together comes first. Measured on the 80 dev
 * questions (full corpus, keyword): Recall@1 0.60 -> 0.66, MRR 0.72 -> 0.76.
 *
 * @param docs hits with their passages found ({@link PassageRows.best}), best first
 * @returns them re-ranked (ties keep their order)
 * @example
 * ```ts
 * import { byBestPassage } from "./fts5_passages.ts";
 * import assert from "node:assert/strict";
 * const hit = (doc_id: string, score: number) => ({ doc_id, score, raw: 0, retriever: "fts5" });
 * const ranked = byBestPassage([
 *   { hit: hit("spread", 0.6), ranks: [{ seq: 0, raw: -2 }] },
 *   { hit: hit("together", 0.55), ranks: [{ seq: 3, raw: -12 }] },
 * ]);
 * assert.deepEqual(ranked.map((d) => d.hit.doc_id), ["together", "spread"]);
 * ```
 */
export function byBestPassage<T extends { hit: Hit; ranks: PassageRank[] }>(docs: T[]): T[] {
  const passage = (ranks: PassageRank[]) => {
    const x = Math.abs(ranks[0]?.raw ?? 0);
    return x / (x + PASSAGE_HALF_SCORE);
  };
  return docs.map((d, i) => ({ d, i, s: d.hit.score + PASSAGE_WEIGHT * passage(d.ranks) }))
    .sort((a, b) => b.s - a.s || a.i - b.i).map((x) => x.d);
}

/**
 * Hits ranked by their best passage ({@link byBestPassage}), and those of the first
 * `snippets` none of whose passages holds a whole phrase of the query (it runs across two
 * of them), with the expression of the query's words ({@link wordsMatch}) that finds their
 * passages instead: each backend looks those up with its own ranking of passages.
 *
 * @param docs hits with their passages found, best first
 * @param parsed the query
 * @param snippets how many of the first hits show passages
 */
export function passageOrder<T extends { hit: Hit; ranks: PassageRank[] }>(
  docs: T[],
  parsed: ParsedQuery,
  snippets: number,
): { order: T[]; across: T[]; words?: string } {
  const order = byBestPassage(docs);
  const words = snippets > 0 ? wordsMatch(parsed) : undefined;
  const across = words ? order.slice(0, snippets).filter((d) => !d.ranks.length) : [];
  return { order, across, words };
}

/** The passage rows of a keyword index's database. */
export class PassageRows {
  readonly #q: (sql: string) => StatementSync;
  readonly #db: DatabaseSync;
  #read?: (docId: string, seqs: number[]) => StoredPassages | undefined;

  /**
   * @param db the catalog's database (with the `passages` table and `passages_fts`)
   * @param q its prepared statements
   */
  constructor(db: DatabaseSync, q: (sql: string) => StatementSync) {
    this.#db = db;
    this.#q = q;
  }

  /**
   * Write a document's passage rows under its document row.
   *
   * @param docRowid the document's `docs_fts` rowid
   * @param passages its passages ({@link passageTexts})
   */
  write(docRowid: bigint, passages: PassageText[]): void {
    const ins = this.#q(
      "INSERT INTO passages_fts (rowid, title, body, doc) VALUES (?, ?, ?, ?)",
    );
    const base = docRowid * BigInt(PASSAGE_SPAN);
    const token = docToken(docRowid);
    passages.forEach(({ title, body }, seq) => ins.run(base + BigInt(seq), title, body, token));
  }

  /**
   * Delete a document's passage rows.
   *
   * @param docRowid the document's `docs_fts` rowid
   * @param count how many it has
   */
  delete(docRowid: bigint, count: number): void {
    const del = this.#q("DELETE FROM passages_fts WHERE rowid = ?");
    const base = docRowid * BigInt(PASSAGE_SPAN);
    for (let seq = 0; seq < count; seq++) del.run(base + BigInt(seq));
  }

  /**
   * The best passages of some documents for a MATCH expression ({@link passageMatch}),
   * best first, by document. One query for all of them: FTS5 counts each word's rows
   * (its BM25 weight) over the whole table once per query, so a query per document
   * would pay that count again for each. The expression is matched in the title and text
   * and ANDed with the documents' tokens ({@link docToken}): only their passages are read.
   *
   * @param match the expression
   * @param docRowids the documents' `docs_fts` rowids
   * @param limit passages wanted per document
   * @returns each document's passages, by rowid
   */
  best(match: string, docRowids: number[], limit: number): Map<number, PassageRank[]> {
    const out = new Map<number, PassageRank[]>();
    if (!docRowids.length) return out;
    const docs = docRowids.map((r) => `"${docToken(r)}"`).join(" OR ");
    // The words need no column filter unless one could be a document's token: FTS5 then
    // checks no word's columns, here nor where `bm25()` counts a word's passages over the
    // whole table (80 dev questions, full corpus: 6.5 -> 5.5 ms CPU mean, the same rows).
    const words = DOC_TOKEN_LIKE.test(match) ? `{title body} : (${match})` : `(${match})`;
    const rows = this.#q(`
      SELECT rowid, bm25(passages_fts, ${TITLE_WEIGHT}, ${BODY_WEIGHT}, 0) AS raw
      FROM passages_fts WHERE passages_fts MATCH ? ORDER BY raw`)
      .all(`${words} AND doc : (${docs})`);
    for (const r of rows) {
      const rowid = r.rowid as number;
      const doc = Math.floor(rowid / PASSAGE_SPAN);
      const list = out.get(doc) ?? [];
      if (list.length < limit) list.push({ seq: rowid - doc * PASSAGE_SPAN, raw: r.raw as number });
      out.set(doc, list);
    }
    return out;
  }

  /**
   * Hits in passage order, the first ones with their passages ({@link rankedHits}), read
   * from the catalog's stored text.
   *
   * @param order the hits with their candidate passages ({@link best}), in passage order
   * @param parsed the query
   * @param show which hits show passages, and how they are found
   */
  ranked<T extends { hit: Hit; ranks: PassageRank[] }>(
    order: T[],
    parsed: ParsedQuery,
    show: ShowPassages<T>,
  ): Hit[] {
    return rankedHits(order, parsed, show, this.#reader());
  }

  /**
   * The passages a hit shows ({@link passageHits}), read from the catalog's stored text.
   *
   * @param docId the document
   * @param ranks its candidate passages, best first ({@link best})
   * @param parsed the query
   * @param limit passages wanted
   */
  hits(docId: string, ranks: PassageRank[], parsed: ParsedQuery, limit: number): PassageHit[] {
    return passageHits(this.#reader(), docId, ranks, parsed, limit);
  }

  #reader(): PassageReader {
    return this.#read ??= passageReader(this.#db);
  }
}

/** Reads some passages of a document by sequence number (`CatalogStore.passages`). */
export type PassageReader = (docId: string, seqs: number[]) => StoredPassages | undefined;

/** Which hits of {@link rankedHits} show passages, and how they are found. */
export interface ShowPassages<T> {
  /** Passages wanted per hit. */
  passages: number;
  /** How many of the first hits get them. */
  snippets: number;
  /** How many of those are read now (default: all; the others carry their candidates). */
  read?: number;
  /** The snippet of a hit without passages. */
  otherwise: (docId: string) => string;
  /** The candidates of a hit none of whose passages holds a whole phrase. */
  loose?: (doc: T) => PassageRank[] | undefined;
}

/**
 * Hits in passage order ({@link passageOrder}); the first `snippets` of them get their
 * passages ({@link passageHits}) — an empty list when none holds a word of the query, so
 * the search path does not look again — and the first one's snippet, or, without passages
 * (a match in the title, path or headings only), the snippet `otherwise` gives. Passages
 * are read for those hits only; the others (when `snippets` > 0) carry their candidates'
 * sequence numbers (`Hit.candidates`), to be read if they are shown.
 *
 * @param order the hits with their candidate passages, in passage order
 * @param parsed the query
 * @param show passages wanted per hit, hits that get them, how many of those are read now,
 *   the snippet without passages, and the candidates of a hit none of whose passages holds
 *   a whole phrase ({@link passageOrder}'s `across`)
 * @param read where the passages' text is read
 */
export function rankedHits<T extends { hit: Hit; ranks: PassageRank[] }>(
  order: T[],
  parsed: ParsedQuery,
  show: ShowPassages<T>,
  read: PassageReader,
): Hit[] {
  return order.map((doc, i) => {
    const { hit, ranks } = doc;
    if (i >= (show.read ?? show.snippets)) {
      // read later if shown (`readPassages`): copies collapsed bring up hits past the cut
      if (show.snippets > 0) hit.candidates = ranks.map((r) => r.seq);
      return hit;
    }
    const candidates = ranks.length ? ranks : show.loose?.(doc) ?? [];
    const passages = passageHits(read, hit.doc_id, candidates, parsed, show.passages);
    hit.passages = passages;
    if (passages.length) {
      hit.snippet = passages[0]!.snippet;
      return hit;
    }
    const snippet = show.otherwise(hit.doc_id);
    if (snippet) hit.snippet = snippet;
    return hit;
  });
}

/**
 * The passages a hit shows: its candidates (the document's passages that match best across
 * the library, `PassageRows.best`) read from the stored text (only the blocks holding them) and
 * the best `limit` of them chosen with the document's own word statistics
 * (`chosenPassages`), each with its snippet.
 *
 * @param read where the passages' text is read
 * @param docId the document
 * @param ranks its candidate passages, best first
 * @param parsed the query
 * @param limit passages wanted
 */
export function passageHits(
  read: PassageReader,
  docId: string,
  ranks: PassageRank[],
  parsed: ParsedQuery,
  limit: number,
): PassageHit[] {
  if (!ranks.length) return [];
  const stored = read(docId, ranks.map((r) => r.seq));
  if (!stored) return [];
  const candidates = stored.passages.map(({ seq: _, lines, ...passage }) => ({ passage, lines }));
  const linesAt = new Map(candidates.map((c) => [c.passage.start_line, c.lines]));
  const pages = stored.pages?.length ? stored.pages : undefined;
  return chosenPassages(candidates, positiveTerms(parsed), limit, {
    pages: stored.pages,
    markup: MARKUP_TYPES.has(stored.docType),
  }).filter((h) => h.snippet).map((h) => {
    // numbered as `read` numbers them, for the search answer
    h.lines = (linesAt.get(h.start_line) ?? []).map((text, k) => {
      const line: NonNullable<PassageHit["lines"]>[number] = { n: h.start_line + k, text };
      if (pages) line.page = pageOf(pages, line.n);
      return line;
    });
    return h;
  });
}
