/**
 * The corpus's term statistics for TF-IDF, kept by a catalog handle: document frequencies
 * (the `df` table, looked up a term at a time, or a counted document's terms at once, held
 * until the next `save`, changes written back by `save`) and the number of documents,
 * reused between writes.
 *
 * @module
 */
import type { StatementSync } from "node:sqlite";
import type { TermStats } from "./types.ts";

/** How long a handle that never writes reuses its document count (see `docCount`). */
const DOC_COUNT_TTL_MS = 2000;

/** Document frequencies and the document count of a catalog (see `Catalog`). */
export class CorpusStats implements TermStats {
  readonly #q: (sql: string) => StatementSync;
  readonly #count: () => number;
  /** Frequencies looked up or changed since the last `save` (0: none, or gone). */
  #df = new Map<string, number>();
  #dirty = new Set<string>();
  /** Documents written (stored or removed) through this handle. */
  #writes = 0;
  /** The last counted number of documents (see `docCount`). */
  #docCount?: { n: number; at: number; writes: number };

  /**
   * @param q the catalog's statements (see `statements` in `core/catalog_sql.ts`)
   * @param count counts the catalog's documents
   */
  constructor(q: (sql: string) => StatementSync, count: () => number) {
    this.#q = q;
    this.#count = count;
  }

  /** Drop what is held in memory (after a rollback): it is read from disk again. */
  forget(): void {
    this.#df = new Map();
    this.#dirty = new Set();
    this.#docCount = undefined;
  }

  /** Record that `n` documents were written (stored or removed) through this handle. */
  wrote(n: number): void {
    this.#writes += n;
  }

  /**
   * Document frequency of a term in the corpus. Looked up in the `df` table by itself: a
   * search needs the few terms of its query, and loading the whole table (599,119 terms
   * for /usr/share/doc) took 1.2 s of every CLI search's 1.6 s.
   */
  df(term: string): number {
    let n = this.#df.get(term);
    if (n === undefined) {
      n = (this.#q("SELECT n FROM df WHERE term = ?").get(term)?.n as number | undefined) ?? 0;
      this.#df.set(term, n);
    }
    return n;
  }

  /**
   * Number of documents, for TF-IDF and the common-word cut. `count()` scans an index of
   * every document; called for every stored document and every search, it made indexing
   * quadratic (`bench:catalog`: 5.7 of the 7 projected hours of a 1,000,000-document
   * catalog). So the count is reused until this handle has written more than 1 % of it
   * (below 100 documents every write counts again: exact, as small libraries need); a
   * handle that never writes (a search worker) counts again after 2 s, for other handles'
   * writes. An idf barely moves with 1 % more documents, and a writer's counts do not
   * depend on timing.
   */
  docCount(): number {
    const c = this.#docCount;
    if (c) {
      const fresh = this.#writes === 0
        ? performance.now() - c.at < DOC_COUNT_TTL_MS
        : this.#writes - c.writes <= Math.floor(c.n / 100);
      if (fresh) return c.n;
    }
    const n = this.#count();
    this.#docCount = { n, at: performance.now(), writes: this.#writes };
    return n;
  }

  /** Add (or with `sign = -1` take away) one document's distinct terms. */
  countTerms(terms: Iterable<string>, sign: 1 | -1 = 1): void {
    const list = [...terms];
    this.#load(list.filter((t) => !this.#df.has(t)));
    for (const t of list) {
      this.#df.set(t, Math.max(0, this.df(t) + sign));
      this.#dirty.add(t);
    }
  }

  /**
   * Read the frequencies of terms not held yet, one statement for all of them: a document
   * brings thousands of terms, and a statement per term cost more than the lookup itself.
   */
  #load(terms: string[]): void {
    if (!terms.length) return;
    for (const t of terms) this.#df.set(t, 0);
    const rows = this.#q(
      "SELECT term, n FROM df WHERE term IN (SELECT value FROM json_each(?))",
    ).all(JSON.stringify(terms));
    for (const r of rows) this.#df.set(r.term as string, r.n as number);
  }

  /**
   * Write changed document frequencies to disk, and forget the ones held: the next
   * lookups read them again (so memory holds one batch's terms, not the vocabulary, and
   * sees other handles' writes).
   * @param transaction runs its function in one transaction of the catalog
   */
  save(transaction: (fn: () => void) => void): void {
    if (this.#dirty.size === 0) {
      this.#df.clear();
      return;
    }
    transaction(() => {
      const up = this.#q("INSERT OR REPLACE INTO df (term, n) VALUES (?, ?)");
      const del = this.#q("DELETE FROM df WHERE term = ?");
      for (const t of this.#dirty) {
        const n = this.#df.get(t);
        if (n) up.run(t, n);
        else del.run(t);
      }
    });
    this.#dirty.clear();
    this.#df.clear();
  }
}
