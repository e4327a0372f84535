/**
 * Tokens for the PostgreSQL keyword index, cut by SQLite FTS5 itself: an in-memory FTS5
 * table with the FTS5 index's tokenizer (`porter unicode61 remove_diacritics 2`) and its
 * `fts5vocab` instance view give each column's terms and positions, so both backends see
 * exactly the same words (stemming, case and diacritics folding, CJK split beforehand by
 * `segmentCJK` in both).
 *
 * @module
 */
import { DatabaseSync, type StatementSync } from "node:sqlite";
import { PASSAGE_OFFSETS, passagePosition } from "./postgres_sql.ts";

/** The indexed columns, in the FTS5 table's order (their number is the postings' `col`). */
export const COLUMNS = ["title", "path", "keywords", "headings", "body"] as const;

/**
 * A document's postings as the PostgreSQL tables take them: one entry per term and column,
 * positions as comma-separated text (cast to an array by the server).
 */
export interface DocPostings {
  /** Each posting's term. */
  terms: string[];
  /** Each posting's column number. */
  cols: number[];
  /** Each posting's token count. */
  tfs: number[];
  /** Each posting's positions, ascending, comma-separated. */
  positions: string[];
  /** Tokens in each column. */
  lengths: number[];
}

/**
 * A document's passage index: per term, the passages holding it and its positions
 * (passage, column and offset in one number, as `passagePosition` makes them).
 */
export interface PassagePostings {
  /** Tokens of each passage (title and text). */
  lengths: number[];
  /** The terms. */
  terms: string[];
  /** Passages holding each term. */
  passages: number[];
  /** Each term's positions, ascending, comma-separated. */
  positions: string[];
}

/** Phrases whose tokens a tokenizer keeps (beyond, it starts again): a few MB at most. */
const PHRASES_KEPT = 10_000;

/**
 * Cuts texts into FTS5's tokens (one in-memory SQLite database per instance).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Tokenizer } from "./postgres_tokens.ts";
 * const t = new Tokenizer();
 * assert.deepEqual(t.phrase("Running Cafés"), ["run", "cafe"]);
 * assert.deepEqual(t.phrase("Running Cafés"), ["run", "cafe"]); // kept
 * t.close();
 * ```
 */
export class Tokenizer {
  #db = new DatabaseSync(":memory:");
  #insert: StatementSync;
  #postings: StatementSync;
  #passages: StatementSync;
  #passageLengths: StatementSync;
  #phrase: StatementSync;
  #clear: StatementSync;
  /** Phrases' tokens, by text ({@link phrase}). */
  #phrases = new Map<string, readonly string[]>();

  constructor() {
    // contentless, emptied whole by `delete-all`: a content table's deletes leave
    // tombstones that every later read of the vocabulary walks over
    this.#db.exec(`
      CREATE VIRTUAL TABLE tok USING fts5(${COLUMNS.join(", ")}, content = '',
        tokenize = 'porter unicode61 remove_diacritics 2');
      CREATE VIRTUAL TABLE tok_v USING fts5vocab(tok, 'instance');`);
    this.#insert = this.#db.prepare(
      `INSERT INTO tok (rowid, ${COLUMNS.join(", ")}) VALUES (?, ?, ?, ?, ?, ?)`,
    );
    // Aggregated by SQLite: a row per term and column rather than per token (a PDF manual
    // has hundreds of thousands of tokens; a row each cost ~7 µs in JavaScript).
    this.#postings = this.#db.prepare(
      `SELECT term, col, count(*) AS tf, group_concat(offset, ',' ORDER BY offset) AS pos
       FROM tok_v GROUP BY term, col`,
    );
    const [seq, col] = [passagePosition(1, 0, 0), passagePosition(0, 1, 0)];
    this.#passages = this.#db.prepare(
      `SELECT term, count(DISTINCT doc) AS n,
         coalesce(group_concat(doc * ${seq} + (col = 'body') * ${col} + offset, ','
           ORDER BY doc, col = 'body', offset) FILTER (WHERE offset < ${PASSAGE_OFFSETS}), '')
           AS pos
       FROM tok_v GROUP BY term`,
    );
    this.#passageLengths = this.#db.prepare(
      "SELECT doc, count(*) AS n FROM tok_v GROUP BY doc",
    );
    this.#phrase = this.#db.prepare("SELECT term, offset FROM tok_v WHERE col = 'body'");
    this.#clear = this.#db.prepare("INSERT INTO tok (tok) VALUES ('delete-all')");
  }

  /** Run `read` over the texts put in the table (`rows`: rowid and five columns), then empty it. */
  #with<T>(rows: [number, ...string[]][], read: () => T): T {
    try {
      this.#db.exec("BEGIN");
      for (const row of rows) this.#insert.run(...row);
      this.#db.exec("COMMIT");
      return read();
    } finally {
      if (this.#db.isTransaction) this.#db.exec("ROLLBACK");
      this.#clear.run();
    }
  }

  /**
   * The postings of a document's five columns (texts as the FTS5 index receives them).
   *
   * @param columns title, path, keywords, headings, body
   */
  document(columns: readonly string[]): DocPostings {
    return this.#with([[1, ...columns]], () => {
      const out: DocPostings = { terms: [], cols: [], tfs: [], positions: [], lengths: [] };
      out.lengths = COLUMNS.map(() => 0);
      for (const r of this.#postings.iterate()) {
        const col = COLUMNS.indexOf(r.col as (typeof COLUMNS)[number]);
        out.terms.push(r.term as string);
        out.cols.push(col);
        out.tfs.push(r.tf as number);
        out.positions.push(r.pos as string);
        out.lengths[col]! += r.tf as number;
      }
      return out;
    });
  }

  /**
   * The passage index of a document's passages (each a title and a text, as the FTS5
   * passage table receives them): tokens past {@link PASSAGE_OFFSETS} in a column count
   * but get no position.
   *
   * @param passages the passages, in order
   */
  passages(passages: readonly { title: string; body: string }[]): PassagePostings {
    const rows = passages.map((
      { title, body },
      seq,
    ): [number, ...string[]] => [seq, title, "", "", "", body]);
    return this.#with(rows, () => {
      const out: PassagePostings = {
        lengths: passages.map(() => 0),
        terms: [],
        passages: [],
        positions: [],
      };
      for (const r of this.#passageLengths.iterate()) out.lengths[r.doc as number] = r.n as number;
      for (const r of this.#passages.iterate()) {
        out.terms.push(r.term as string);
        out.passages.push(r.n as number);
        out.positions.push(r.pos as string);
      }
      return out;
    });
  }

  /**
   * The tokens of a query's phrase, in order: kept by text (a search cuts each of its
   * phrases several times, and questions repeat; a cut through the FTS5 table costs ~0.1 ms).
   */
  phrase(text: string): string[] {
    const kept = this.#phrases.get(text);
    if (kept) return [...kept];
    const out = this.#with([[1, "", "", "", "", text]], () => {
      const out: string[] = [];
      for (const r of this.#phrase.iterate()) out[r.offset as number] = r.term as string;
      return out.filter((t) => t !== undefined);
    });
    if (this.#phrases.size >= PHRASES_KEPT) this.#phrases.clear();
    this.#phrases.set(text, out);
    return [...out];
  }

  /** Close the in-memory database. */
  close(): void {
    this.#db.close();
  }
}
