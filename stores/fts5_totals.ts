/**
 * Exact BM25 statistics for the keyword index's contentless FTS5 tables.
 *
 * FTS5's `bm25()` takes the row count and the total size of each column from one record of
 * a table's `%_data` (the "averages" record, rowid 1: the row count then each column's
 * total, as SQLite varints). In a `contentless_delete=1` table a `DELETE` removes the row
 * from the index and its sizes from `%_docsize` but leaves that record as it was, so every
 * rewritten or removed document would count forever in N and the average length (the
 * `'delete'` command, which lowers them, is refused on such tables and would need the
 * original text again). {@link Fts5Totals} reads a row's sizes from `%_docsize` before it is
 * deleted and subtracts them from the record, so the statistics are those of a fresh index
 * of the rows left (tested in `fts5_stats_test.ts`). An edited document's rewrite costs no
 * more CPU than before (9 ms either way for 516 documents of the full corpus, where the
 * `'delete'` command with the original values would add about 5 ms: the stored text read
 * back, the values rebuilt and tokenized again).
 *
 * The record's layout is part of FTS5's file format (kept by every SQLite since 3.9). The
 * shadow table is written with SQLite's defensive mode off for that one statement.
 *
 * @module
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";

/** The contentless FTS5 tables whose statistics are kept. */
export type Fts5Table = "docs_fts" | "passages_fts";

/** The rowid of FTS5's averages record in `%_data`. */
const AVERAGES_ROWID = 1;

/**
 * SQLite varints (as FTS5 writes them: big-endian groups of 7 bits, the high bit set on
 * all but the last) read from a blob.
 *
 * @param blob the bytes
 * @returns the numbers
 * @example
 * ```ts
 * import { readVarints } from "./fts5_totals.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(readVarints(new Uint8Array([3, 0x81, 0x00, 7])), [3, 128, 7]);
 * ```
 */
export function readVarints(blob: Uint8Array): number[] {
  const out: number[] = [];
  let value = 0;
  let bytes = 0;
  for (const b of blob) {
    bytes++;
    if (bytes === 9) {
      // a 9-byte varint's last byte holds 8 bits
      out.push(value * 256 + b);
      value = bytes = 0;
    } else if (b & 0x80) {
      value = value * 128 + (b & 0x7f);
    } else {
      out.push(value * 128 + b);
      value = bytes = 0;
    }
  }
  return out;
}

/**
 * Numbers as SQLite varints (below 2^56: groups of 7 bits).
 *
 * @param values non-negative integers
 * @returns the bytes
 * @throws {RangeError} for a negative, fractional or too large value
 * @example
 * ```ts
 * import { readVarints, writeVarints } from "./fts5_totals.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual([...writeVarints([3, 128, 7])], [3, 0x81, 0x00, 7]);
 * assert.deepEqual(readVarints(writeVarints([0, 300_000_000_000])), [0, 300_000_000_000]);
 * ```
 */
export function writeVarints(values: number[]): Uint8Array {
  const out: number[] = [];
  for (const v of values) {
    if (!Number.isSafeInteger(v) || v < 0) throw new RangeError(`not a varint: ${v}`);
    const groups: number[] = [];
    let x = v;
    do {
      groups.unshift(x % 128);
      x = Math.floor(x / 128);
    } while (x > 0);
    groups.forEach((g, i) => out.push(i < groups.length - 1 ? g | 0x80 : g));
  }
  return new Uint8Array(out);
}

/**
 * Keeps the row count and column totals of contentless FTS5 tables exact across deletes:
 * {@link noteDelete} for the rows about to be deleted, then {@link apply}, then the `DELETE`s.
 *
 * @example
 * ```ts
 * import { DatabaseSync } from "node:sqlite";
 * import { Fts5Totals } from "./fts5_totals.ts";
 * import assert from "node:assert/strict";
 * const db = new DatabaseSync(":memory:");
 * db.exec(`CREATE VIRTUAL TABLE docs_fts USING fts5(a, content='', contentless_delete=1)`);
 * const totals = new Fts5Totals(db, (sql) => db.prepare(sql));
 * db.exec("INSERT INTO docs_fts (rowid, a) VALUES (1, 'one two'), (2, 'three')");
 * totals.noteDelete("docs_fts", 1n, 1n);
 * totals.apply();
 * db.exec("DELETE FROM docs_fts WHERE rowid = 1");
 * assert.deepEqual(totals.read("docs_fts"), [1, 1]);
 * assert.deepEqual(totals.recount("docs_fts"), [1, 1]);
 * ```
 */
export class Fts5Totals {
  readonly #db: DatabaseSync;
  readonly #q: (sql: string) => StatementSync;
  /** Per table: rows deleted since the last {@link apply}, then their column sizes. */
  #pending = new Map<Fts5Table, number[]>();

  /**
   * @param db the database holding the tables
   * @param q its prepared (cached) statements
   */
  constructor(db: DatabaseSync, q: (sql: string) => StatementSync) {
    this.#db = db;
    this.#q = q;
  }

  /**
   * Note rows about to be deleted, by rowid range (their sizes, read from `%_docsize`;
   * rowids the table does not hold are ignored).
   *
   * @param table the table
   * @param from the first rowid
   * @param to the last rowid (inclusive)
   */
  noteDelete(table: Fts5Table, from: bigint, to: bigint): void {
    const sum = this.#pending.get(table) ?? [];
    for (
      const row of this.#q(`SELECT sz FROM ${table}_docsize WHERE id BETWEEN ? AND ?`).iterate(
        from,
        to,
      )
    ) {
      [1, ...readVarints(row.sz as Uint8Array)].forEach((n, i) => sum[i] = (sum[i] ?? 0) + n);
    }
    if (sum.length) this.#pending.set(table, sum);
  }

  /**
   * Subtract the rows noted since the last call from their tables' statistics, before they
   * are deleted. FTS5 holds a table's statistics in memory from its first write in a
   * transaction until the next savepoint opens or the transaction commits (then it saves
   * them): call this at the start of a savepoint, before that savepoint's writes.
   */
  apply(): void {
    const pending = this.#pending;
    this.#pending = new Map();
    for (const [table, sum] of pending) {
      const now = this.read(table);
      if (now.length) this.#write(table, now.map((n, i) => Math.max(0, n - (sum[i] ?? 0))));
    }
  }

  /** A table's statistics: its row count, then each column's total size. */
  read(table: Fts5Table): number[] {
    const row = this.#q(`SELECT block FROM ${table}_data WHERE id = ${AVERAGES_ROWID}`).get();
    return row ? readVarints(row.block as Uint8Array) : [];
  }

  /**
   * Count a table's statistics again ({@link recount}) when its row count is not the
   * number of rows it holds (an index written before they were kept exact, or since by
   * such a version).
   *
   * @returns whether they were counted again
   */
  keepExact(table: Fts5Table): boolean {
    const stored = this.read(table)[0];
    if (stored === undefined) return false;
    const rows = this.#q(`SELECT count(*) AS n FROM ${table}_docsize`).get()?.n as number;
    if (rows === stored) return false;
    this.#db.exec("SAVEPOINT fts5_recount");
    try {
      this.recount(table);
      this.#db.exec("RELEASE fts5_recount");
    } catch (e) {
      this.#db.exec("ROLLBACK TO fts5_recount; RELEASE fts5_recount");
      throw e;
    }
    return true;
  }

  /**
   * Set a table's statistics to those of the rows it holds (counted from `%_docsize`): for
   * an index whose statistics drifted before they were kept exact.
   *
   * @returns the statistics written
   */
  recount(table: Fts5Table): number[] {
    const sum = [0];
    for (const r of this.#q(`SELECT sz FROM ${table}_docsize`).iterate()) {
      sum[0]!++;
      readVarints(r.sz as Uint8Array).forEach((n, i) => sum[i + 1] = (sum[i + 1] ?? 0) + n);
    }
    const width = this.read(table).length;
    if (!width) return [];
    const exact = Array.from({ length: width }, (_, i) => sum[i] ?? 0);
    this.#write(table, exact);
    return exact;
  }

  #write(table: Fts5Table, values: number[]): void {
    // FTS5's shadow tables are read-only to SQL in defensive mode (node:sqlite's default;
    // `enableDefensive` is missing from Deno's type declarations of node:sqlite). A runtime
    // without it keeps FTS5's own statistics, as before.
    const db = this.#db as DatabaseSync & { enableDefensive?(active: boolean): void };
    if (typeof db.enableDefensive !== "function") return;
    db.enableDefensive(false);
    try {
      this.#q(`UPDATE ${table}_data SET block = ? WHERE id = ${AVERAGES_ROWID}`)
        .run(writeVarints(values));
    } finally {
      db.enableDefensive(true);
    }
  }
}
