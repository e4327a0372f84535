/**
 * The corpus's term statistics for TF-IDF, kept by a catalog handle: document frequencies
 * (the `df` table, looked up a term at a time and held until the next `save`; the changes
 * counted since, held as differences and added to the table by `save`) and the number of
 * documents, reused between writes.
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
  /** Stored frequencies looked up since the last `save` (0: none). */
  #df = new Map<string, number>();
  /**
   * Documents counted (+1) or taken away (-1) per term since the last `save`: a counted
   * document's terms (thousands) need not be read first, `save` adds them in one statement.
   */
  #changes = new Map<string, number>();
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
    this.#changes = new Map();
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
    const change = this.#changes.get(term);
    return change === undefined ? n : Math.max(0, n + change);
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
    const changes = this.#changes;
    for (const t of terms) changes.set(t, (changes.get(t) ?? 0) + sign);
  }

  /**
   * Add the changes counted since the last save to the stored frequencies (a term that
   * reaches 0 is deleted), and forget the frequencies held: the next lookups read them
   * again (so memory holds one batch's terms, not the vocabulary, and sees other handles'
   * writes). One statement per kind of change, the terms crossing as one JSON object: a
   * batch of documents changes tens of thousands of terms, and a statement run per term
   * cost more than SQLite's work.
   * @param transaction runs its function in one transaction of the catalog
   */
  save(transaction: (fn: () => void) => void): void {
    const changes = this.#changes;
    this.#df.clear();
    if (changes.size === 0) return;
    // Without a prototype, a term such as `__proto__` is a key like any other.
    const up: Record<string, number> = Object.create(null);
    const down: Record<string, number> = Object.create(null);
    for (const [t, n] of changes) {
      if (n > 0) up[t] = n;
      else if (n < 0) down[t] = n;
    }
    transaction(() => {
      this.#q(
        `INSERT INTO df (term, n) SELECT key, value FROM json_each(?) WHERE true
         ON CONFLICT (term) DO UPDATE SET n = n + excluded.n`,
      ).run(JSON.stringify(up));
      const lowered = JSON.stringify(down);
      this.#q(
        `UPDATE df SET n = n + c.value FROM json_each(?) c WHERE df.term = c.key`,
      ).run(lowered);
      this.#q(
        "DELETE FROM df WHERE term IN (SELECT key FROM json_each(?)) AND n <= 0",
      ).run(lowered);
    });
    this.#changes = new Map();
  }
}
