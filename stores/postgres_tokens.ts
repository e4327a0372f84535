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

/** The indexed columns, in the FTS5 table's order (their number is the postings' `col`). */
export const COLUMNS = ["title", "path", "keywords", "headings", "body"] as const;

/** The terms of a document: per term, per column, its positions; and the columns' sizes. */
export interface DocTokens {
  /** term -> column number -> positions (ascending). */
  terms: Map<string, Map<number, number[]>>;
  /** Tokens in each column. */
  lengths: number[];
}

/**
 * Cuts texts into FTS5's tokens (one in-memory SQLite database per instance).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Tokenizer } from "./postgres_tokens.ts";
 * const t = new Tokenizer();
 * assert.deepEqual(t.phrase("Running Cafés"), ["run", "cafe"]);
 * t.close();
 * ```
 */
export class Tokenizer {
  #db = new DatabaseSync(":memory:");
  #insert: StatementSync;
  #read: StatementSync;
  #clear: StatementSync;

  constructor() {
    this.#db.exec(`
      CREATE VIRTUAL TABLE tok USING fts5(${COLUMNS.join(", ")},
        tokenize = 'porter unicode61 remove_diacritics 2');
      CREATE VIRTUAL TABLE tok_v USING fts5vocab(tok, 'instance');`);
    this.#insert = this.#db.prepare(
      `INSERT INTO tok (rowid, ${COLUMNS.join(", ")}) VALUES (1, ?, ?, ?, ?, ?)`,
    );
    this.#read = this.#db.prepare("SELECT term, col, offset FROM tok_v ORDER BY col, offset");
    this.#clear = this.#db.prepare("DELETE FROM tok");
  }

  /**
   * The tokens of a document's five columns (texts as the FTS5 index receives them).
   *
   * @param columns title, path, keywords, headings, body
   */
  document(columns: readonly string[]): DocTokens {
    this.#insert.run(...columns);
    const terms = new Map<string, Map<number, number[]>>();
    const lengths = COLUMNS.map(() => 0);
    try {
      for (const r of this.#read.iterate()) {
        const col = COLUMNS.indexOf(r.col as (typeof COLUMNS)[number]);
        const term = r.term as string;
        let cols = terms.get(term);
        if (!cols) terms.set(term, cols = new Map());
        let pos = cols.get(col);
        if (!pos) cols.set(col, pos = []);
        pos.push(r.offset as number);
        lengths[col]!++;
      }
    } finally {
      this.#clear.run();
    }
    return { terms, lengths };
  }

  /** The tokens of a query's phrase, in order. */
  phrase(text: string): string[] {
    const { terms } = this.document(["", "", "", "", text]);
    const out: string[] = [];
    for (const [term, cols] of terms) for (const p of cols.get(4) ?? []) out[p] = term;
    return out.filter((t) => t !== undefined);
  }

  /** Close the in-memory database. */
  close(): void {
    this.#db.close();
  }
}
