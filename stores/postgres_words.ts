/**
 * The catalog's word counts in PostgreSQL: how many documents hold each word, counted as
 * the SQLite catalog's term statistics count them (its `df` table, `core/corpus_stats.ts`:
 * each document's distinct words, `textTerms`), so that a search on any machine tells
 * common words as a SQLite server on the same documents would.
 *
 * Kept by the catalog store's own writes, in the document's transaction: a document's
 * words are read from the text it stores (the new one put, the old one deleted), so the
 * counts are those of the documents the store holds, whoever wrote them. Each transaction
 * changes the counts in one statement, netted per word and in word order, after every
 * other row it writes: two writers (of two libraries: one library's writers take turns)
 * never take the same word rows in opposite orders. A word no document holds any more has
 * no row, as in SQLite.
 *
 * @module
 */
// @ts-types="@types/pg"
import type pg from "pg";
import { textTerms } from "../core/card.ts";
import { joinTexts } from "../core/text_codec.ts";

/** The table (in the machine's schema, beside the catalog's other tables). */
export const WORDS_SCHEMA = `
CREATE TABLE IF NOT EXISTS df (term text PRIMARY KEY, n int NOT NULL);
`;

/** Documents read at a time when the counts are made from the stored texts. */
const FILL_BATCH = 200;

/**
 * Add the distinct words of some texts to counts (or, with `sign` -1, take them away).
 *
 * @param changes the counts' changes so far, by word; changed in place
 * @param texts the documents' whole texts
 * @param sign 1 for documents stored, -1 for documents gone
 * @returns `changes`
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { countTexts } from "./postgres_words.ts";
 * const changes = countTexts(new Map(), ["Cache the proxy.\nThe proxy cache."], 1);
 * countTexts(changes, ["An old proxy."], -1);
 * assert.deepEqual([...changes], [["cache", 1], ["proxy", 0], ["old", -1]]);
 * ```
 */
export function countTexts(
  changes: Map<string, number>,
  texts: Iterable<string>,
  sign: 1 | -1,
): Map<string, number> {
  for (const text of texts) {
    for (const w of textTerms(text)) {
      changes.set(w, (changes.get(w) ?? 0) + sign);
    }
  }
  return changes;
}

/**
 * The whole texts of documents from their `text_blocks` rows (`doc_id`, `first_line`,
 * `plain`, `packed`), in any order: what a `DELETE ... RETURNING` gives back.
 *
 * @param rows the blocks of some documents
 * @returns each document's text
 */
export function blockTexts(rows: pg.QueryResultRow[]): string[] {
  const docs = new Map<string, pg.QueryResultRow[]>();
  for (const r of rows) {
    const list = docs.get(r.doc_id) ?? [];
    list.push(r);
    docs.set(r.doc_id, list);
  }
  return [...docs.values()].map((blocks) =>
    joinTexts(
      blocks.sort((a, b) => a.first_line - b.first_line).map((b) => b.packed ?? b.plain),
    )
  );
}

/**
 * Write changes to the counts, inside the caller's transaction: one statement in word
 * order (a word whose count does not change is not touched), then the rows of words no
 * document holds any more deleted (rows this transaction already holds: no new lock).
 *
 * @param tx a connection inside a write transaction, on the machine's schema
 * @param changes the change of each word's count
 */
export async function writeWordCounts(
  tx: pg.ClientBase,
  changes: Map<string, number>,
): Promise<void> {
  const changed = [...changes].filter(([, n]) => n !== 0);
  if (!changed.length) return;
  await tx.query(
    `INSERT INTO df (term, n)
     SELECT t, n FROM unnest($1::text[], $2::int[]) AS u(t, n) ORDER BY t
     ON CONFLICT (term) DO UPDATE SET n = greatest(df.n + excluded.n, 0)`,
    [changed.map((c) => c[0]), changed.map((c) => c[1])],
  );
  const fewer = changed.filter(([, n]) => n < 0).map((c) => c[0]);
  // (a word counted below nothing, never counted in: none here either, as in SQLite)
  if (fewer.length) await tx.query("DELETE FROM df WHERE term = ANY($1) AND n <= 0", [fewer]);
}

/**
 * Make the counts from every stored document's text: for a store whose catalog was
 * written before the counts were kept (the table is new, the documents are not). Run
 * inside the transaction that makes the table, so it is made whole or not at all.
 *
 * @param tx a connection inside that transaction, on the machine's schema
 * @returns the documents counted
 */
export async function fillWordCounts(tx: pg.ClientBase): Promise<number> {
  const ids = (await tx.query("SELECT doc_id FROM documents ORDER BY doc_id")).rows
    .map((r) => r.doc_id as string);
  const changes = new Map<string, number>();
  for (let i = 0; i < ids.length; i += FILL_BATCH) {
    const rows = (await tx.query(
      "SELECT doc_id, first_line, plain, packed FROM text_blocks WHERE doc_id = ANY($1)",
      [ids.slice(i, i + FILL_BATCH)],
    )).rows;
    countTexts(changes, blockTexts(rows), 1);
  }
  await writeWordCounts(tx, changes);
  return ids.length;
}
