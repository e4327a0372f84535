/**
 * The keyword index (see `roles.ts`) in PostgreSQL: BM25 computed by PostgreSQL from a
 * postings table, for a store that several servers share (`"store"` in `shelfmark.json`).
 *
 * It ranks as the FTS5 index does (`fts5.ts`): the same columns and weights, the same
 * tokens (cut by FTS5's own tokenizer, `postgres_tokens.ts`), the same MATCH expression
 * (`toFtsMatch`, read back by `postgres_match.ts`), the same BM25 formula
 * (`postgres_sql.ts`), and the same passage index: every passage of a document
 * (`docPassages`) ranked by BM25 among all passages of the store, documents re-ranked by
 * their best one (`byBestPassage`) and each hit's passages chosen among its best
 * candidates (`passageHits`). Snippets and passages are cut from the stored text of the
 * catalog store it is given (`CatalogStore`: PostgreSQL's for a shelf with a PostgreSQL
 * store) as the FTS5 index cuts them, all hits' passages in one read (`passagesOf`);
 * search filters are evaluated by that store, and common words are told by its word counts
 * (`CatalogStore.df`, the SQLite catalog's counts in PostgreSQL), which every server of the
 * store shares.
 *
 * Client: `npm:pg` (node-postgres): a pool that replaces a dropped connection on the
 * next query, and it reads the password from `PGPASSWORD` or `~/.pgpass` itself.
 *
 * @module
 */
// @ts-types="@types/pg"
import type pg from "pg";
import type { Catalog } from "../core/catalog.ts";
import { bareWord, segmentCJK, words } from "../core/tokenize.ts";
import type { Hit, IndexedDoc, ParsedQuery, SearchFilters, TermStats } from "../core/types.ts";
import { positiveTerms } from "../search/query.ts";
import { snippetMatcher, snippetOfText } from "../search/snippet.ts";
import { SqliteCatalogStore } from "./catalog_sqlite.ts";
import { bm25Score, headingTitles, matchExpression, pathWords } from "./fts5.ts";
import { toFtsMatch } from "./fts5_match.ts";
import {
  CANDIDATES,
  PASSAGE_WEIGHTS,
  passageMatch,
  passageOrder,
  type PassageRank,
  passageTexts,
  rankedHits,
  type ShowPassages,
  wordsMatch,
} from "./fts5_passages.ts";
import { DEFAULT_WEIGHTS, type Fts5Weights } from "./fts5_rank.ts";
import { matches, type MatchNode, parseMatch } from "./postgres_match.ts";
import {
  acrossMachines,
  hitRows,
  holdsSql,
  indexedSql,
  keyIndexSql,
  type MachineTables,
  Params,
  passageRankSql,
  phraseCountSql,
  type PhraseRows,
  phraseRowsSql,
  rankSql,
  SCHEMA,
  type TopCut,
  topRankSql,
} from "./postgres_sql.ts";
import { COLUMNS, type DocPostings, type PassagePostings, Tokenizer } from "./postgres_tokens.ts";
import {
  claimMachine,
  guarded,
  type Machine,
  MACHINES_KEPT_MS,
  openPool,
  QUALIFIED,
  retriedTransaction,
} from "./postgres_pool.ts";
import type { CatalogStore, IndexState, KeywordIndex, Query } from "./roles.ts";

/** A document to write: its card and its postings, for the document and for its passages. */
interface PreparedDoc {
  card: IndexedDoc["card"];
  tokens: DocPostings;
  passages: PassagePostings;
}

/** Options of {@link PgKeywordIndex}. */
export interface PgOptions {
  /** Column weights, merged over the FTS5 index's defaults. */
  weights?: Partial<Fts5Weights>;
  /** Connections at most, per server (default 10). */
  connections?: number;
  /**
   * Where searches read (`"store_read"`): a read-only streaming replica of the store's
   * primary. Default: the store's URL. Writes always go to the store's URL.
   */
  readUrl?: string;
  /**
   * The data folder's machine in a shared store: its tables are in a schema of that name,
   * claimed for the data folder (see `postgres_pool.ts`). Default: the `public` schema.
   */
  machine?: Machine;
  /**
   * Search every machine's keyword tables of the store as one index (another machine's
   * documents under qualified ids, `laptop:…`; `store` must then read every machine's
   * catalog, as `MachinesCatalogStore` does); writes stay the own machine's. Needs
   * `machine`. Default: the own machine's tables only.
   */
  everyMachine?: boolean;
  /** Share of documents above which a word is common (default 0.25, as FTS5's). */
  commonShare?: number;
  /**
   * Term statistics for telling common words (default: the catalog store's word counts,
   * `CatalogStore.df`, among this index's documents, so that every server of a shared store
   * decides alike, and as a SQLite server on the same documents).
   */
  stats?: TermStats;
  /**
   * Where hits' passages and snippets are read (default: the SQLite adapter over the
   * catalog): the shelf's `CatalogStore`.
   */
  store?: CatalogStore;
  /**
   * Rows of a phrase of several words sent with a search, at most (default 20,000): a
   * phrase in more documents is found by each search itself.
   */
  phraseRowsSent?: number;
}

/** A parsed MATCH expression with its phrases' terms, repeated phrases merged. */
interface Plan {
  root: MatchNode;
  /** The distinct phrases' terms. */
  phrases: string[][];
  /** Distinct phrase of each phrase of the expression. */
  of: number[];
  /** How many times each distinct phrase appears. */
  mult: number[];
}

/** The store's documents, all libraries. */
const COUNT_SQL = "SELECT coalesce(sum(docs), 0)::int AS n FROM kw_totals";

/**
 * The machines' keyword tables a search across machines reads (the own first), with their
 * documents in all; none when the own machine is the only one.
 */
interface Across {
  machines: MachineTables[];
  /** Documents of every machine. */
  documents: number;
}

/** Documents the filters allow are looked for among this many ranked matches first. */
const FILTER_FIRST = 200;

/** Phrase rows and counts kept at most (beyond, the cache starts again): some 30 MB. */
const PHRASES_KEPT = 1_000_000;

/**
 * A bounded ranking's first cut ({@link topRankSql}): the phrases of smallest bounds summing
 * below this share of all phrases' bounds are read for the candidates only.
 */
const TOP_SHARE = 0.3;

/**
 * Rows of a phrase sent with a search at most: a phrase in more documents is found by the
 * search itself (sending and reading that many numbers would cost about as much).
 */
const PHRASE_ROWS_SENT = 20_000;

/**
 * What a search finds for phrases of several words over the whole index (by positions, in
 * every document holding their words: the costly part of a search), kept for one
 * generation of the store (`kw_totals.gen`, raised by every write): their rows for the
 * document ranking, and the passages holding them for the passage ranking.
 */
interface PhraseStats {
  /** The generation they hold for (unknown before the first search). */
  gen?: string;
  /** Each phrase's rows, by its terms joined by spaces (`null`: too many to send). */
  rows: Map<string, PhraseRows | null>;
  /** Passages holding each phrase, by its terms joined by spaces. */
  passages: Map<string, number>;
  /** Values kept (rows count one each), for the bound {@link PHRASES_KEPT}. */
  size: number;
}

/** The first column a passage's words come from (headings, then body). */
const PASSAGE_COLUMNS = COLUMNS.indexOf("headings");

/** A ranked document. */
interface RankedRow {
  doc_id: string;
  doc: string;
  raw: number;
}

/**
 * The keyword index over PostgreSQL.
 *
 * Writes are one transaction per call: a document's row, postings, term counts and the
 * library's totals are visible together or not at all.
 */
export class PgKeywordIndex implements KeywordIndex {
  /** Backend name, used to tag hits. */
  readonly name = "postgres";
  /** The primary: writes, and the tables made there. */
  #pool: pg.Pool;
  /** Searches: the replica of `readUrl`, else the primary's pool. */
  #read: pg.Pool;
  #machine?: Machine;
  #catalog: Catalog;
  #stats?: TermStats;
  #weights: number[];
  #share: number;
  #tokens = new Tokenizer();
  #store: CatalogStore;
  #schema?: Promise<void>;
  #documents = 0;
  #counted = 0;
  #phrases: PhraseStats = { rows: new Map(), passages: new Map(), size: 0 };
  #rowsSent: number;
  #everyMachine: boolean;
  /** The machines as last read, for a search across machines ({@link #acrossNow}). */
  #across?: { at: number; value: Promise<Across | undefined> };

  /**
   * Connect (lazily: on the first call) and create the tables if missing.
   *
   * @param url the store's URL (`postgres://user@host:5432/db`, no password)
   * @param catalog the local catalog (term statistics, filters)
   * @param options weights, connections, the URL searches read, the catalog store
   */
  constructor(url: string, catalog: Catalog, options: PgOptions = {}) {
    const [max, machine] = [options.connections ?? 10, options.machine];
    this.#pool = openPool(url, max, machine?.name);
    this.#read = options.readUrl ? openPool(options.readUrl, max, machine?.name) : this.#pool;
    this.#machine = machine;
    this.#catalog = catalog;
    this.#stats = options.stats;
    const w = { ...DEFAULT_WEIGHTS, ...options.weights };
    this.#weights = COLUMNS.map((c) => w[c]);
    this.#share = options.commonShare ?? 0.25;
    this.#rowsSent = options.phraseRowsSent ?? PHRASE_ROWS_SENT;
    this.#everyMachine = !!(options.everyMachine && machine);
    this.#store = options.store ?? new SqliteCatalogStore(catalog);
  }

  /**
   * Run a search's query, its failures as `INDEX_UNAVAILABLE` without credentials: across
   * every machine's tables when searching across machines ({@link acrossMachines}), its
   * `gen` then that of the machines read too (phrase statistics hold for both).
   *
   * @param sql the statement, over the `kw_*` tables by their bare names
   * @param params its parameters
   * @param own as it is, even across machines (a statement naming the schemas itself)
   */
  async #query<T extends pg.QueryResultRow>(
    sql: string,
    params: unknown[] = [],
    own = false,
  ): Promise<T[]> {
    await this.#ready();
    const across = own ? undefined : await this.#acrossNow();
    const q = across ? acrossMachines(sql, across.machines, params) : { text: sql, values: params };
    const rows = await this.#guard(async () => (await this.#read.query<T>(q.text, q.values)).rows);
    if (across) {
      const names = across.machines.map((m) => m.name).join(",");
      for (const r of rows as { gen?: string }[]) {
        if (r.gen !== undefined) r.gen = `${names}/${r.gen}`;
      }
    }
    return rows;
  }

  /**
   * The machines a search across machines reads, read again after
   * {@link MACHINES_KEPT_MS} (a machine that joins is searched from then on): those of
   * `shelfmark_machines` whose schema has the keyword tables, the own first. None when
   * searching the own machine only, or when it is the only one.
   */
  #acrossNow(): Promise<Across | undefined> {
    if (!this.#everyMachine) return Promise.resolve(undefined);
    const now = Date.now();
    if (!this.#across || now - this.#across.at >= MACHINES_KEPT_MS) {
      const value = this.#readMachines();
      const kept = { at: now, value };
      this.#across = kept;
      value.catch(() => {
        if (this.#across === kept) this.#across = undefined;
      });
    }
    return this.#across.value;
  }

  /** The machines a search across machines reads, and their documents ({@link #acrossNow}). */
  async #readMachines(): Promise<Across | undefined> {
    const own = this.#machine!.name;
    const rows = await this.#guard(async () =>
      (await this.#read.query<{ name: string; key: string }>(
        `SELECT m.name, n.oid::int8 AS key FROM public.shelfmark_machines m
         JOIN pg_namespace n ON n.nspname = m.name
         WHERE m.name <> $1 AND to_regclass(format('%I.kw_totals', m.name)) IS NOT NULL
         ORDER BY m.name COLLATE "C"`,
        [own],
      )).rows
    );
    // names as a machine's name is checked (they are written into the statements)
    const others = rows.filter((r) => /^[a-z0-9_-]+$/.test(r.name));
    if (!others.length) return undefined;
    const machines = [{ name: own }, ...others.map((r) => ({ name: r.name, key: Number(r.key) }))];
    const counted = await this.#guard(() =>
      this.#read.query<{ n: number }>(acrossMachines(COUNT_SQL, machines).text)
    );
    return { machines, documents: counted.rows[0]!.n };
  }

  #guard<T>(fn: () => Promise<T>): Promise<T> {
    return guarded("the keyword index", fn);
  }

  #ready(): Promise<void> {
    this.#schema ??= this.#guard(async () => {
      // one creator at a time when several servers start together
      const c = await this.#pool.connect();
      let standby: boolean;
      try {
        // a streaming replica is read-only: its primary made the tables
        standby = (await c.query("SELECT pg_is_in_recovery() AS r")).rows[0].r;
        if (!standby) {
          await c.query("SELECT pg_advisory_lock(7243101)");
          if (this.#machine) await claimMachine(c, this.#machine);
          await c.query(SCHEMA);
          if (this.#machine) await c.query(keyIndexSql(this.#machine.name));
          await c.query("SELECT pg_advisory_unlock(7243101)");
        }
      } finally {
        c.release();
      }
      // counted where the tables were just made: a replica read by searches may not have
      // replayed them yet
      await this.#count(standby ? this.#read : this.#pool);
    }).catch((e) => {
      this.#schema = undefined;
      throw e;
    });
    return this.#schema;
  }

  async #count(via: pg.Pool = this.#read): Promise<void> {
    const rows = await via.query(COUNT_SQL);
    this.#documents = rows.rows[0].n;
    this.#counted = Date.now();
  }

  /**
   * A write transaction; rolled back on failure. One that PostgreSQL aborts to break a
   * deadlock or a serialization conflict with another writer is run again (a few times):
   * `fn` must only write.
   */
  async #transaction(fn: (c: pg.PoolClient) => Promise<void>): Promise<void> {
    await this.#ready();
    await this.#guard(async () => {
      // counted on the primary, in the commit's round trip: the replica that searches read
      // may not have the write yet
      const done = await retriedTransaction(this.#pool, fn, `COMMIT; ${COUNT_SQL}`);
      this.#documents = (done as pg.QueryResult[])[1]!.rows[0].n;
      this.#counted = Date.now();
    });
  }

  /**
   * Remove documents and add others (inside a transaction): their rows and postings, and the
   * term counts and library totals they change, netted. Term counts and totals are rows
   * every writer of the schema updates: they are changed once per transaction, in term and
   * then library order, so two writers never wait on each other's rows in a cycle (a
   * document re-indexed unchanged changes no term count).
   */
  async #write(c: pg.PoolClient, ids: string[], docs: PreparedDoc[] = []): Promise<void> {
    const old = (await c.query(
      "DELETE FROM kw_docs WHERE doc_id = ANY($1) RETURNING id, library, tokens, plens",
      [ids],
    )).rows;
    const oldIds = old.map((r) => r.id);
    // the new documents' counts, summed (a term of two of them counts twice)
    const added = new Map<string, [number, number]>();
    for (const { tokens, passages } of docs) {
      for (const t of new Set(tokens.terms)) {
        const d = added.get(t) ?? [0, 0];
        d[0]++;
        added.set(t, d);
      }
      passages.terms.forEach((t, i) => {
        const d = added.get(t) ?? [0, 0];
        d[1] += passages.passages[i]!;
        added.set(t, d);
      });
    }
    const names = [...added.keys()];
    await c.query(
      `INSERT INTO kw_terms (term, df, pdf)
       SELECT term, sum(df)::int, sum(pdf)::int FROM (
         SELECT term, -count(DISTINCT doc) AS df, 0 AS pdf FROM kw_postings
         WHERE doc = ANY($1) GROUP BY term
         UNION ALL
         SELECT term, 0, -sum(np) FROM kw_ppostings WHERE doc = ANY($1) GROUP BY term
         UNION ALL
         SELECT * FROM unnest($2::text[], $3::int[], $4::int[])) u (term, df, pdf)
       GROUP BY term HAVING sum(df) <> 0 OR sum(pdf) <> 0 ORDER BY term
       ON CONFLICT (term) DO UPDATE SET df = kw_terms.df + excluded.df,
         pdf = kw_terms.pdf + excluded.pdf`,
      [oldIds, names, names.map((t) => added.get(t)![0]), names.map((t) => added.get(t)![1])],
    );
    if (oldIds.length) {
      await c.query("DELETE FROM kw_postings WHERE doc = ANY($1)", [oldIds]);
      await c.query("DELETE FROM kw_ppostings WHERE doc = ANY($1)", [oldIds]);
    }
    const totals = new Map<string, [number, number, number, number]>();
    const total = (lib: string, sign: number, tokens: number, plens: number[]) => {
      const t = totals.get(lib) ?? [0, 0, 0, 0];
      t[0] += sign;
      t[1] += sign * tokens;
      t[2] += sign * plens.length;
      t[3] += sign * plens.reduce((a, b) => a + b, 0);
      totals.set(lib, t);
    };
    for (const r of old) total(r.library, -1, r.tokens, r.plens as number[]);
    for (const { card, tokens, passages } of docs) {
      const sum = tokens.lengths.reduce((a, b) => a + b, 0);
      total(card.library, 1, sum, passages.lengths);
      // one statement, one round trip: the row and its postings
      await c.query(
        `WITH d AS (
           INSERT INTO kw_docs (doc_id, library, lens, tokens, plens)
           VALUES ($1, $2, $3, $4, $5) RETURNING id),
         p AS (
           INSERT INTO kw_postings (term, doc, col, tf, pos)
           SELECT t, d.id, c, f, string_to_array(p, ',')::int[]
           FROM d, unnest($6::text[], $7::smallint[], $8::int[], $9::text[]) AS u(t, c, f, p))
         INSERT INTO kw_ppostings (term, doc, np, pos)
         SELECT t, d.id, n, string_to_array(p, ',')::int8[]
         FROM d, unnest($10::text[], $11::int[], $12::text[]) AS u(t, n, p)`,
        [
          card.doc_id,
          card.library,
          tokens.lengths,
          sum,
          passages.lengths,
          tokens.terms,
          tokens.cols,
          tokens.tfs,
          tokens.positions,
          passages.terms,
          passages.passages,
          passages.positions,
        ],
      );
    }
    const libs = [...totals.keys()].sort();
    const col = (i: number) => libs.map((l) => totals.get(l)![i]);
    if (libs.length) {
      await c.query(
        // gen: raised by every write (searches' cached phrase statistics hold until it is)
        `INSERT INTO kw_totals (library, docs, tokens, passages, ptokens, gen)
         SELECT *, 1 FROM unnest($1::text[], $2::int[], $3::int8[], $4::int8[], $5::int8[])
         ORDER BY 1
         ON CONFLICT (library) DO UPDATE SET docs = kw_totals.docs + excluded.docs,
           tokens = kw_totals.tokens + excluded.tokens,
           passages = kw_totals.passages + excluded.passages,
           ptokens = kw_totals.ptokens + excluded.ptokens, gen = kw_totals.gen + 1`,
        [libs, col(0), col(1), col(2), col(3)],
      );
    }
  }

  /** Add or replace documents (by `doc_id`), in one transaction. */
  upsert(docs: IndexedDoc[]): Promise<void> {
    const prepared: PreparedDoc[] = docs.map((doc) => ({
      card: doc.card,
      tokens: this.#tokens.document([
        segmentCJK(doc.card.title),
        segmentCJK(pathWords(doc.card.path)),
        segmentCJK(doc.card.keywords.join(" ")),
        segmentCJK(headingTitles(doc.outline).join("\n")),
        segmentCJK(doc.lines.join("\n")),
      ]),
      passages: this.#tokens.passages(passageTexts(doc)),
    }));
    return this.#transaction((c) => this.#write(c, docs.map((d) => d.card.doc_id), prepared));
  }

  /** Remove documents by id; unknown ids are ignored. */
  remove(ids: string[]): Promise<void> {
    return this.#transaction((c) => this.#write(c, ids));
  }

  /** A MATCH expression's plan: its tree and its distinct phrases' terms. */
  #plan(match: string): Plan {
    const { root, phrases } = parseMatch(match);
    const distinct = new Map<string, number>();
    const out: Plan = { root, phrases: [], of: [], mult: [] };
    for (const text of phrases) {
      const tokens = this.#tokens.phrase(text);
      const key = tokens.join(" ");
      let i = distinct.get(key);
      if (i === undefined) {
        distinct.set(key, i = out.phrases.length);
        out.phrases.push(tokens);
        out.mult.push(0);
      }
      out.of.push(i);
      out.mult[i]!++;
    }
    return out;
  }

  /** The plan's match condition in SQL over `s.phs` (an empty phrase matches nothing). */
  #cond(plan: Plan, node: MatchNode = plan.root): string {
    switch (node.op) {
      case "phrase": {
        const i = plan.of[node.index]!;
        return plan.phrases[i]!.length ? holdsSql(i, plan.phrases.length) : "false";
      }
      case "and":
      case "or":
        return `(${node.children.map((c) => this.#cond(plan, c)).join(` ${node.op} `)})`;
      case "not":
        return `(${this.#cond(plan, node.left)} AND NOT ${this.#cond(plan, node.right)})`;
    }
  }

  /**
   * What the whole index holds for each phrase of several words (by phrase number), from
   * the cache where it has it, else found (and kept); with the store's generation it holds
   * for. A store changing under way twice: found for this search alone.
   *
   * @param phrases the phrases' terms (phrases of one word are left out)
   * @param kept the cache's map of this kind
   * @param find what the index holds for some phrases, with the generation
   * @param size how much a value counts against {@link PHRASES_KEPT}
   */
  async #known<V>(
    phrases: string[][],
    kept: (s: PhraseStats) => Map<string, V>,
    find: (missing: string[][]) => Promise<{ gen: string; values: V[] }>,
    size: (v: V) => number,
  ): Promise<{ gen?: string; values: (V | undefined)[] }> {
    const key = (t: string[]) => t.join(" ");
    for (let attempt = 0;; attempt++) {
      const cache = this.#phrases;
      const wanted = phrases.filter((t) => t.length > 1);
      const missing = attempt < 2 ? wanted.filter((t) => !kept(cache).has(key(t))) : wanted;
      if (!missing.length) {
        return {
          gen: cache.gen,
          values: phrases.map((t) => t.length > 1 ? kept(cache).get(key(t)) : undefined),
        };
      }
      const { gen, values } = await find(missing);
      const found = new Map(missing.map((t, i) => [key(t), values[i]!]));
      if (attempt >= 2) return { gen, values: phrases.map((t) => found.get(key(t))) };
      const into = this.#phraseStats(gen);
      for (const [k, v] of found) {
        kept(into).set(k, v);
        into.size += size(v);
      }
    }
  }

  /** The phrases' cache for a generation of the store, started again if it changed. */
  #phraseStats(gen: string): PhraseStats {
    const c = this.#phrases;
    if (c.gen !== gen || c.size > PHRASES_KEPT) {
      this.#phrases = { gen, rows: new Map(), passages: new Map(), size: 0 };
    }
    return this.#phrases;
  }

  /** The rows of each phrase of several words in the whole index ({@link #known}). */
  #phraseRows(
    phrases: string[][],
  ): Promise<{ gen?: string; values: (PhraseRows | null | undefined)[] }> {
    return this.#known(phrases, (s) => s.rows, async (missing) => {
      const p = new Params();
      const rows = await this.#query<
        { gen: string; k: number; n: number; docs: string[] | null; cols: number[]; tfs: number[] }
      >(phraseRowsSql(missing, p, this.#rowsSent), p.values);
      const values = missing.map((): PhraseRows | null => ({ docs: [], cols: [], tfs: [] }));
      for (const r of rows) {
        if (r.n) values[r.k] = r.docs ? { docs: r.docs, cols: r.cols, tfs: r.tfs } : null;
      }
      return { gen: rows[0]!.gen, values };
    }, (v) => (v?.docs.length ?? 0) + 1);
  }

  /**
   * The passages holding each phrase of several words ({@link #known}), looked for only in
   * the documents holding the phrase in their headings or body ({@link #phraseRows}): a
   * passage is a heading's title and lines of the body.
   */
  #passageHits(phrases: string[][]): Promise<{ gen?: string; values: (number | undefined)[] }> {
    return this.#known(phrases, (s) => s.passages, async (missing) => {
      const count = async (within: (string[] | undefined)[]) => {
        const p = new Params();
        const row = (await this.#query<Record<string, number> & { gen: string }>(
          phraseCountSql(missing, p, within),
          p.values,
        ))[0]!;
        return { gen: row.gen, values: missing.map((_, i) => row[`p${i}`]!) };
      };
      const { gen, values } = await this.#phraseRows(missing);
      const within = values.map((r) =>
        r ? [...new Set(r.docs.filter((_, i) => r.cols[i]! >= PASSAGE_COLUMNS))] : undefined
      );
      const counted = await count(within);
      // documents found at another generation than the passages: all looked in
      return counted.gen === gen ? counted : await count([]);
    }, () => 1);
  }

  /**
   * The best `want` documents matching a plan, best first ({@link rankSql}), the rows of
   * its phrases of several words sent from the cache; found in the statement itself when
   * the store keeps changing.
   */
  async #rank(plan: Plan, want: number): Promise<RankedRow[]> {
    const multi = plan.phrases.some((t) => t.length > 1);
    for (let attempt = 0;; attempt++) {
      const { gen, values } = multi && attempt < 2
        ? await this.#phraseRows(plan.phrases)
        : { gen: undefined, values: [] };
      const top = attempt < 2 ? await this.#topRank(plan, values, want) : undefined;
      if (top) {
        if (gen === undefined || top.gen === gen) return top.rows;
        this.#phraseStats(top.gen);
        continue;
      }
      const p = new Params();
      const rows = await this.#query<RankedRow & { gen: string }>(
        rankSql(
          hitRows(plan.phrases, p, {}, values),
          this.#cond(plan),
          p,
          this.#weights,
          plan.mult,
          want,
        ),
        p.values,
      );
      if (gen === undefined || rows[0]!.gen === gen) return rows.filter((r) => r.doc_id !== null);
      // the store changed since the rows were found: found again
      this.#phraseStats(rows[0]!.gen);
    }
  }

  /**
   * The best `want` documents matching a plan ({@link topRankSql}), reading the common
   * phrases' postings for the candidates only, when that is proven to give every
   * document's ranking ({@link rankSql}): tried with the first cut, then with the k-th
   * score found as the cut; none when not proven (fewer candidates than wanted), or when a
   * phrase of several words' rows are not at hand.
   *
   * @param plan the question's plan
   * @param known the rows of its phrases of several words in the whole index
   * @param want documents wanted
   */
  async #topRank(
    plan: Plan,
    known: (PhraseRows | null | undefined)[],
    want: number,
  ): Promise<{ gen: string; rows: RankedRow[] } | undefined> {
    if (plan.phrases.some((t, i) => t.length > 1 && !known[i])) return undefined;
    let cut: TopCut = { share: TOP_SHARE, floor: 0 };
    for (;;) {
      const p = new Params();
      const rows = await this.#query<
        RankedRow & { gen: string; bound: number; low: number; score: number }
      >(
        topRankSql(plan.phrases, known, this.#cond(plan), p, this.#weights, plan.mult, want, cut),
        p.values,
      );
      const { gen, bound, low } = rows[0]!;
      const hits = rows.filter((r) => r.doc_id !== null);
      // every document ranked
      if (!low) return { gen, rows: hits };
      const kth = hits[want - 1]?.score;
      // a document holding none of the candidates' phrases scores below `bound`
      if (kth !== undefined && kth > bound * (1 + 1e-9)) return { gen, rows: hits };
      // too few candidates to bound the others: every document; else the k-th score as cut
      cut = { share: 0, floor: kth === undefined || cut.floor ? 0 : kth };
    }
  }

  /**
   * Words too common to be worth matching, as the FTS5 index decides (see `WordDocs`):
   * in more than `commonShare` of the documents (the store's, `kw_totals`). A word is
   * counted as the catalog counts words (`CatalogStore.df`: the catalog store's counts,
   * which every server of the store shares), or by `stats` when given; a token the catalog
   * does not count (a number, a single letter) by its term's documents in this index
   * (`kw_terms`), as FTS5 counts it in its own.
   */
  async #isCommon(parsed: ParsedQuery): Promise<((word: string) => boolean) | undefined> {
    await this.#ready();
    const stats = this.#stats;
    const n = stats ? stats.docCount() : (await this.#acrossNow())?.documents ?? this.#documents;
    if (n < 50) return undefined;
    const limit = n * this.#share;
    // the catalog's words, and the index's term of each other alternative
    const single = new Set<string>();
    const counted = new Map<string, string>();
    for (const u of parsed.optional) {
      for (const a of u.alternatives) {
        const one = words(a.text, true);
        if (one.length === 1) single.add(one[0]!);
        const token = bareWord(a.text);
        const term = one.length !== 1 && /^[\p{L}\p{N}]+$/u.test(token) &&
          this.#tokens.phrase(token)[0];
        if (term) counted.set(a.text, term);
      }
    }
    const [wordDocs, termRows] = await Promise.all([
      stats || !single.size ? undefined : this.#store.df([...single]),
      counted.size
        ? this.#query<{ term: string; df: number }>(
          // a row per machine across machines
          "SELECT term, sum(df)::int AS df FROM kw_terms WHERE term = ANY($1) GROUP BY term",
          [[...new Set(counted.values())]],
        )
        : [],
    ]);
    const termDocs = new Map(termRows.map((r) => [r.term, r.df]));
    return (word) => {
      const ws = words(word, true);
      if (ws.length === 1) return (stats ? stats.df(ws[0]!) : wordDocs?.get(ws[0]!) ?? 0) > limit;
      const term = counted.get(word);
      return term !== undefined && (termDocs.get(term) ?? 0) > limit;
    };
  }

  /**
   * Ranked hits: BM25 as FTS5's, filters checked in the catalog store in rank order, passages
   * and snippets from the catalog store's text.
   *
   * @throws {ToolError} `INVALID_ARGUMENT` when the query has nothing to search for;
   *   `INDEX_UNAVAILABLE` when PostgreSQL cannot be reached
   */
  async search(q: Query): Promise<Hit[]> {
    const isCommon = await this.#isCommon(q.parsed);
    const plan = this.#plan(matchExpression(q, isCommon));
    const limit = Math.max(0, Math.floor(q.limit));
    if (limit === 0) return [];
    const allowed = await this.#store.idsMatching(q.filters);
    let rows: RankedRow[] = [];
    for (let want = allowed ? Math.max(FILTER_FIRST, limit * 4) : limit;; want *= 4) {
      const ranked = await this.#rank(plan, want);
      const allowedSet = allowed && new Set(allowed);
      rows = allowedSet ? ranked.filter((r) => allowedSet.has(r.doc_id)) : ranked;
      if (rows.length >= limit || ranked.length < want) break;
    }
    rows = rows.slice(0, limit);
    const re = snippetMatcher(positiveTerms(q.parsed));
    const withSnippets = q.snippets ?? Infinity;
    // A search that wants snippets is ranked by best passage too, as the FTS5 index's.
    const inPassages = re && withSnippets > 0 ? passageMatch(q.parsed) : undefined;
    const want = Math.max(1, Math.floor(q.passages ?? 1));
    const best = inPassages
      ? await this.#bestPassages(inPassages, rows.map((r) => r.doc), Math.max(want, CANDIDATES))
      : new Map<string, PassageRank[]>();
    const docs = rows.map((row) => {
      const hit: Hit = {
        doc_id: row.doc_id,
        score: bm25Score(row.raw),
        raw: row.raw,
        retriever: this.name,
      };
      return { hit, doc: row.doc, ranks: best.get(row.doc) ?? [] };
    });
    const { order, across, words } = passageOrder(docs, q.parsed, re ? withSnippets : 0);
    const loose = words && across.length && !q.unread
      ? await this.#bestPassages(words, across.map((d) => d.doc), Math.max(want, CANDIDATES))
      : undefined;
    return await this.#shown(order, q.parsed, re, {
      passages: want,
      snippets: re ? withSnippets : 0,
      read: q.unread ? 0 : undefined,
      loose: (d) => loose?.get(d.doc),
    });
  }

  /**
   * Hits in passage order with the passages and snippets they show (`rankedHits`): every
   * shown hit's candidate passages read from the catalog store at once (`passagesOf`), and
   * the snippets of those without passages cut from their texts, read at once.
   *
   * @param order the hits with their candidate passages, in passage order
   * @param parsed the query
   * @param re its snippet matcher (none: no snippets)
   * @param show which hits show passages
   */
  async #shown<T extends { hit: Hit; ranks: PassageRank[] }>(
    order: T[],
    parsed: ParsedQuery,
    re: RegExp | undefined,
    show: Omit<ShowPassages<T>, "otherwise">,
  ): Promise<Hit[]> {
    const wanted = new Map<string, number[]>();
    for (const d of order.slice(0, show.read ?? show.snippets)) {
      const ranks = d.ranks.length ? d.ranks : show.loose?.(d) ?? [];
      if (ranks.length) wanted.set(d.hit.doc_id, ranks.map((r) => r.seq));
    }
    const stored = wanted.size ? await this.#store.passagesOf(wanted) : new Map();
    const bare = new Set<string>();
    const hits = rankedHits(order, parsed, {
      ...show,
      otherwise: (id) => {
        if (re) bare.add(id);
        return "";
      },
    }, (id) => stored.get(id));
    if (!re || !bare.size) return hits;
    const snippets = await this.#textSnippets([...bare], re);
    for (const h of hits) {
      const snippet = bare.has(h.doc_id) ? snippets.get(h.doc_id) : undefined;
      if (snippet) h.snippet = snippet;
    }
    return hits;
  }

  /**
   * Snippets cut from documents' stored texts (else their headings or title, as
   * `StoredSnippets`), by id; left out where none of the words occur. The texts are read
   * in one query; the outlines and cards only of those whose text holds no match.
   */
  async #textSnippets(ids: string[], re: RegExp): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    const texts = await this.#store.texts(ids);
    const rest: string[] = [];
    for (const id of ids) {
      const snippet = snippetOfText(texts.get(id) ?? "", re, () => undefined);
      if (snippet) out.set(id, snippet);
      else if (texts.has(id)) rest.push(id);
    }
    if (!rest.length) return out;
    const [cards, sections] = await Promise.all([
      this.#store.cards(rest),
      Promise.all(rest.map((id) => this.#store.sections(id))),
    ]);
    rest.forEach((id, i) => {
      const snippet = snippetOfText("", re, () => ({
        title: cards.get(id)?.title ?? "",
        headings: headingTitles(sections[i]?.outline ?? []),
      }));
      if (snippet) out.set(id, snippet);
    });
    return out;
  }

  /**
   * Give hits ranked past a search's first `snippets` (they carry `candidates`) their best
   * passages and snippet, as the search gives its first hits: their candidates read (for
   * a hit none of whose passages holds a whole phrase of the query, the passages of the
   * query's words), all hits' passages in one read.
   */
  async readPassages(hits: Hit[], parsed: ParsedQuery, passages: number): Promise<void> {
    const re = snippetMatcher(positiveTerms(parsed));
    const want = Math.max(1, Math.floor(passages));
    const docs = hits.filter((hit) => hit.candidates).map((hit) => ({
      hit,
      ranks: hit.candidates!.map((seq) => ({ seq, raw: 0 })),
    }));
    const words = re ? wordsMatch(parsed) : undefined;
    const across = words ? docs.filter((d) => !d.ranks.length) : [];
    const rows = across.length ? await this.#indexed(across.map((d) => d.hit.doc_id)) : undefined;
    const loose = words && rows?.size
      ? await this.#bestPassages(words, [...rows.values()], Math.max(want, CANDIDATES))
      : undefined;
    await this.#shown(docs, parsed, re, {
      passages: want,
      snippets: re ? docs.length : 0,
      loose: (d) => loose?.get(rows?.get(d.hit.doc_id) ?? ""),
    });
  }

  /**
   * The best passages of some documents for a MATCH expression (`passageMatch`), best
   * first, by document: BM25 among all passages of the store, as `PassageRows.best`.
   *
   * @param match the expression
   * @param docs the documents (`kw_docs.id`s)
   * @param limit passages wanted per document
   */
  async #bestPassages(
    match: string,
    docs: string[],
    limit: number,
  ): Promise<Map<string, PassageRank[]>> {
    const out = new Map<string, PassageRank[]>();
    if (!docs.length) return out;
    const plan = this.#plan(match);
    let rows: { doc: string; seq: number; raw: number; gen: string }[] = [];
    for (let attempt = 0; attempt < 2; attempt++) {
      const { gen, values: hits } = await this.#passageHits(plan.phrases);
      const p = new Params();
      const sql = passageRankSql(
        plan.phrases,
        this.#cond(plan),
        p,
        docs,
        [...PASSAGE_WEIGHTS],
        plan.mult,
        hits,
        limit,
      );
      rows = await this.#query<{ doc: string; seq: number; raw: number; gen: string }>(
        sql,
        p.values,
      );
      // the store changed since the counts were made: counted again, once
      if (!rows.length || hits.every((h) => h === undefined) || rows[0]!.gen === gen) break;
      this.#phraseStats(rows[0]!.gen);
    }
    for (const r of rows) {
      const list = out.get(r.doc) ?? [];
      if (list.length < limit) list.push({ seq: r.seq, raw: r.raw });
      out.set(r.doc, list);
    }
    return out;
  }

  /** The `doc_id`s, among `ids`, of indexed documents; with their `kw_docs` ids. */
  async #indexed(ids: string[]): Promise<Map<string, string>> {
    const across = await this.#acrossNow();
    const p = new Params();
    let sql: string;
    if (across) {
      // each id looked up in its machine's schema, by its id there
      const local = across.machines.map((): string[] => []);
      for (const id of ids) {
        const m = QUALIFIED.exec(id);
        const k = m ? across.machines.findIndex((x) => x.key !== undefined && x.name === m[1]) : -1;
        local[Math.max(k, 0)]!.push(k > 0 ? m![2]! : id);
      }
      sql = indexedSql(local, across.machines, p);
    } else sql = `SELECT id, doc_id FROM kw_docs WHERE doc_id = ANY(${p.add(ids)})`;
    const rows = await this.#query<{ id: string; doc_id: string }>(sql, p.values, true);
    return new Map(rows.map((r) => [r.doc_id, r.id]));
  }

  /** Which of these documents the index holds. */
  async indexed(ids: string[]): Promise<Set<string>> {
    return new Set((await this.#indexed(ids)).keys());
  }

  /** Snippets of documents for a query, by id (left out where none of its terms occur). */
  async snippets(ids: string[], parsed: ParsedQuery): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    const re = snippetMatcher(positiveTerms(parsed));
    if (!re || !ids.length) return out;
    const indexed = await this.#indexed(ids);
    const inPassages = passageMatch(parsed);
    const best = inPassages
      ? await this.#bestPassages(inPassages, [...indexed.values()], CANDIDATES)
      : new Map<string, PassageRank[]>();
    const docs = ids.filter((id) => indexed.has(id)).map((id) => ({
      hit: { doc_id: id, score: 0, raw: 0, retriever: this.name },
      ranks: best.get(indexed.get(id)!) ?? [],
    }));
    const hits = await this.#shown(docs, parsed, re, { passages: 1, snippets: docs.length });
    for (const h of hits) if (h.snippet) out.set(h.doc_id, h.snippet);
    return out;
  }

  /**
   * The documents (`doc_id`s) matching a MATCH expression, among some documents or in
   * one column.
   */
  async #matching(match: string, docs?: string[], col?: number): Promise<Set<string>> {
    const plan = this.#plan(match);
    const p = new Params();
    const scope = { docs: docs ? `${p.add(docs)}::bigint[]` : undefined, col };
    const live = plan.phrases.map((t, i) => ({ t, i })).filter((x) => x.t.length);
    if (!live.length) return new Set();
    const hits = hitRows(live.map((x) => x.t), p, scope);
    const rows = await this.#query<{ doc_id: string; phs: number[] }>(
      `SELECT d.doc_id, array_agg(DISTINCT h.ph) AS phs FROM (${hits}) h
       JOIN kw_docs d ON d.id = h.doc GROUP BY d.doc_id`,
      p.values,
    );
    const out = new Set<string>();
    for (const r of rows) {
      const held = new Set(r.phs.map((k) => live[k]!.i));
      if (matches(plan.root, (index) => held.has(plan.of[index]!))) out.add(r.doc_id);
    }
    return out;
  }

  /**
   * The ids, in order, of the documents that satisfy a query's hard constraints (quoted
   * phrases and `+` units match, `-` units do not).
   */
  async constrain(ids: string[], parsed: ParsedQuery): Promise<string[]> {
    if (!ids.length || (!parsed.required.length && !parsed.excluded.length)) return ids;
    const indexed = await this.#indexed(ids);
    const docs = [...indexed.values()];
    const matching = async (units: typeof parsed.required, all: boolean) => {
      const match = toFtsMatch(
        all
          ? { optional: [], required: units, excluded: [] }
          : { optional: units, required: [], excluded: [] },
      );
      return match && docs.length ? await this.#matching(match, docs) : new Set<string>();
    };
    const ok = parsed.required.length ? await matching(parsed.required, true) : undefined;
    const bad = parsed.excluded.length ? await matching(parsed.excluded, false) : new Set();
    return ids.filter((id) => (!ok || ok.has(id)) && !bad.has(id));
  }

  /**
   * Ids of the documents, among those the filters allow, whose body holds every one of
   * `words` (matched as whole words, stemmed and folded like the index).
   */
  async candidates(words: string[], filters: SearchFilters): Promise<string[]> {
    const match = words.map((w) => `"${w.replaceAll('"', '""')}"`).join(" AND ");
    const found = await this.#matching(match, undefined, COLUMNS.indexOf("body"));
    const allowed = await this.#store.idsMatching(filters);
    return allowed ? allowed.filter((id) => found.has(id)) : [...found];
  }

  /** `ready` with the document count (refreshed every few seconds), or `empty`. */
  ready(): IndexState {
    if (Date.now() - this.#counted > 2000) {
      this.#counted = Date.now();
      this.#ready().then(() => this.#count()).catch(() => {});
    }
    const documents = this.#documents;
    return { state: documents > 0 ? "ready" : "empty", documents };
  }

  /** Close the connections. */
  async close(): Promise<void> {
    await this.#pool.end();
    if (this.#read !== this.#pool) await this.#read.end();
    this.#tokens.close();
  }
}
