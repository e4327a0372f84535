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
 * `(doc_id, seq)`: the text is stored once, there.
 *
 * @module
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import type { IndexedDoc, ParsedQuery, PassageHit, TermStats } from "../core/types.ts";
import { passageReader, type StoredPassage } from "../core/catalog_sql.ts";
import { segmentCJK } from "../core/tokenize.ts";
import { MARKUP_TYPES } from "../core/readable.ts";
import { docPassages, passageHit } from "../search/passages.ts";
import { matchWords } from "../search/snippet.ts";
import { positiveTerms } from "../search/query.ts";
import { toFtsMatch } from "./fts5_match.ts";

/** Passage rowids per document: a document's passages beyond it are not indexed. */
export const PASSAGE_SPAN = 2 ** 20;
const SPAN_BITS = 20;

/** The passage table (created with the keyword index's tables). */
export const PASSAGE_SCHEMA = `
CREATE VIRTUAL TABLE IF NOT EXISTS passages_fts USING fts5(
  title, body,
  content = '', contentless_delete = 1,
  tokenize = 'porter unicode61 remove_diacritics 2'
);`;

/** BM25 weights of a passage's columns: its section title, its text. */
const TITLE_WEIGHT = 2;
const BODY_WEIGHT = 1;

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

/** The passage rows of a keyword index's database. */
export class PassageRows {
  readonly #q: (sql: string) => StatementSync;
  readonly #db: DatabaseSync;
  #read?: (docId: string, seq: number) => StoredPassage | undefined;

  /**
   * @param db the catalog's database (with the `passages` table and `passages_fts`)
   * @param q its prepared statements
   */
  constructor(db: DatabaseSync, q: (sql: string) => StatementSync) {
    this.#db = db;
    this.#q = q;
  }

  /**
   * Write a document's passage rows under its document row; returns how many were written.
   *
   * @param docRowid the document's `docs_fts` rowid
   * @param doc the document
   */
  write(docRowid: bigint, doc: IndexedDoc): number {
    const { card, outline, lines, pages } = doc;
    const total = lines.length === 1 && lines[0] === "" ? 0 : lines.length;
    const passages = docPassages(card, outline, pages, total).slice(0, PASSAGE_SPAN);
    const ins = this.#q("INSERT INTO passages_fts (rowid, title, body) VALUES (?, ?, ?)");
    const base = docRowid * BigInt(PASSAGE_SPAN);
    passages.forEach((p, seq) => {
      // A window's or a page's title ("Lines 1-40", "Page 3") is not the author's words.
      const title = p.node_id === undefined ? "" : segmentCJK(p.title);
      const body = segmentCJK(lines.slice(p.start_line - 1, p.end_line).join("\n"));
      ins.run(base + BigInt(seq), title, body);
    });
    return passages.length;
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
   * would pay that count again for each.
   *
   * @param match the expression
   * @param docRowids the documents' `docs_fts` rowids
   * @param limit passages wanted per document
   * @returns each document's passages, by rowid
   */
  best(match: string, docRowids: number[], limit: number): Map<number, PassageRank[]> {
    const out = new Map<number, PassageRank[]>();
    if (!docRowids.length) return out;
    const rows = this.#q(`
      SELECT rowid, bm25(passages_fts, ${TITLE_WEIGHT}, ${BODY_WEIGHT}) AS raw FROM passages_fts
      WHERE passages_fts MATCH ? AND (rowid >> ${SPAN_BITS}) IN (SELECT value FROM json_each(?))
      ORDER BY raw`).all(match, JSON.stringify(docRowids));
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
   * Passages as hits show them, snippets cut from each passage's stored text alone.
   *
   * @param docId the document
   * @param ranks its passages found for the query ({@link best})
   * @param parsed the query
   * @param stats corpus statistics: rarer words weigh more in choosing the sentence
   */
  hits(
    docId: string,
    ranks: PassageRank[],
    parsed: ParsedQuery,
    stats?: TermStats,
  ): PassageHit[] {
    this.#read ??= passageReader(this.#db);
    const terms = positiveTerms(parsed);
    const idf = stats ? wordWeights(terms, stats) : undefined;
    const out: PassageHit[] = [];
    for (const r of ranks) {
      const stored = this.#read(docId, r.seq);
      if (!stored) continue;
      const { text, pages, docType, ...ps } = stored;
      const markup = MARKUP_TYPES.has(docType);
      const hit = passageHit(ps, text.split("\n"), Math.abs(r.raw), { terms, idf, markup, pages });
      if (hit.snippet) out.push(hit);
    }
    return out;
  }
}

/** Inverse document frequency of each query word (by its search prefix, `matchWords`). */
function wordWeights(terms: string[], stats: TermStats): (word: string) => number {
  const n = Math.max(1, stats.docCount());
  const out = new Map<string, number>();
  for (const t of terms) {
    for (const w of t.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? []) {
      const key = matchWords([w])[0];
      if (key === undefined) continue;
      const df = stats.df(w);
      out.set(key, Math.max(out.get(key) ?? 0, Math.log(1 + (n - df + 0.5) / (df + 0.5))));
    }
  }
  return (word) => out.get(word) ?? 1;
}
