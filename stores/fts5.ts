/**
 * The keyword index (see `roles.ts`): SQLite FTS5 with BM25 over five weighted columns (title, path,
 * keywords, headings, body), in the catalog's database; documents re-ranked by their best
 * passage among all passages of the library (`fts5_passages.ts`).
 *
 * Tokenizer: `porter unicode61 remove_diacritics 2`. unicode61 folds case and diacritics
 * (`café` finds `cafe`) and splits on punctuation; porter adds English stemming
 * (`running` finds `run`, `configurations` finds `configuration`), which helps recall on
 * the English-heavy corpora this serves and leaves other scripts untouched. CJK text is
 * split into words with `segmentCJK` both when indexing and when querying.
 *
 * The table is contentless (`content=''`, with `contentless_delete=1` so rows can be
 * replaced): it holds the index and the column sizes BM25 needs, never a copy of the text.
 * FTS5 leaves a deleted row in the row count and column totals `bm25()` reads; they are
 * kept exact by `fts5_totals.ts`.
 * Snippets are cut from the catalog's one stored copy (`text_blocks`), and from the card's title
 * and the outline's headings when the body does not hold the query's words.
 *
 * @module
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { filterJoin, statements } from "../core/catalog_sql.ts";
import {
  type Hit,
  type IndexedDoc,
  type OutlineNode,
  type ParsedQuery,
  type SearchFilters,
  type TermStats,
  ToolError,
} from "../core/types.ts";
import { hasCJK, segmentCJK } from "../core/tokenize.ts";
import { positiveTerms, stageCpu } from "../search/query.ts";
import { toFtsMatch } from "./fts5_match.ts";
import { snippetMatcher, StoredSnippets } from "../search/snippet.ts";
import { WordDocs } from "./fts5_words.ts";
import { DEFAULT_WEIGHTS, Fts5Ranking, type Fts5Weights } from "./fts5_rank.ts";
import type { SearchPool } from "./fts5_pool.ts";
import {
  CANDIDATES,
  PASSAGE_SCHEMA,
  PASSAGE_SPAN,
  passageMatch,
  passageOrder,
  type PassageRank,
  PassageRows,
  type PassageText,
  passageTexts,
  wordsMatch,
} from "./fts5_passages.ts";
import { HalfWrittenError, type IndexState, type KeywordIndex, type Query } from "./roles.ts";
import { Fts5Totals } from "./fts5_totals.ts";

/** Options of {@link Fts5Index}. */
export interface Fts5Options {
  /** Column weights, merged over {@link DEFAULT_WEIGHTS}. */
  weights?: Partial<Fts5Weights>;
  /**
   * Corpus statistics: optional query words found in more than `commonShare` of the
   * documents are left out of the match while rarer words remain (faster, same ranking).
   */
  stats?: TermStats;
  /** Share of documents above which a word is common (default 0.25). */
  commonShare?: number;
  /**
   * A question whose words' documents add up to more than this is ranked in two phases,
   * over the documents holding its rarer words (default 20,000; see `tieredMatch` in
   * `fts5_match.ts`). Below, every match is ranked.
   */
  wholeDocs?: number;
  /**
   * Documents the rarer words may match together in two-phase ranking (default 10 % of
   * the documents, at least 10,000).
   */
  rareDocs?: number;
  /** The tables exist and the handle is read-only: do not create them (search workers). */
  readOnly?: boolean;
  /** Search workers: `search` runs there instead of on this thread. */
  pool?: SearchPool;
}

const SCHEMA = `
CREATE VIRTUAL TABLE IF NOT EXISTS docs_fts USING fts5(
  doc_id UNINDEXED, title, path, keywords, headings, body,
  content = '', contentless_delete = 1,
  tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE TABLE IF NOT EXISTS fts_map (
  doc_id TEXT PRIMARY KEY, rowid INTEGER NOT NULL, passages INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS fts_map_rowid ON fts_map(rowid);
${PASSAGE_SCHEMA}`;

/**
 * The layout of the keyword index's tables (kept in the catalog's `meta` under
 * `keyword_format`): an index of another layout is dropped when a writer opens it, and the
 * indexer writes its documents again from the catalog's stored texts (`Indexer.run`),
 * without extracting a file. 1: passage rows without a document column. 2: a passage row
 * names its document (`docToken`).
 */
export const KEYWORD_FORMAT = "2";

/**
 * The layout the keyword index's tables were written with: the stored `keyword_format`, or
 * for an index from before it was stored, told from its passage table; undefined when
 * there are no tables yet.
 */
function storedLayout(db: DatabaseSync): string | undefined {
  const stored = db.prepare("SELECT value FROM meta WHERE key = 'keyword_format'").get();
  if (stored) return stored.value as string;
  const table = db.prepare(
    "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'passages_fts'",
  ).get();
  if (!table) return undefined;
  return /\bdoc\s*,/.test(table.sql as string) ? "2" : "1";
}

/**
 * Create the keyword index's tables, after dropping those of another layout (see
 * {@link KEYWORD_FORMAT}). Statistics that count rows the tables no longer hold (written
 * by a version that did not keep them exact, `fts5_totals.ts`) are counted again from the
 * rows (350 ms CPU on the full corpus, once; the check costs 3.5 ms).
 */
function openTables(db: DatabaseSync, totals: Fts5Totals): void {
  const layout = storedLayout(db);
  if (layout !== undefined && layout !== KEYWORD_FORMAT) {
    // dropping a virtual table drops its shadow tables
    db.exec("DROP TABLE IF EXISTS docs_fts; DROP TABLE IF EXISTS passages_fts");
    db.exec("DROP TABLE IF EXISTS fts_map");
  }
  db.exec(SCHEMA);
  if (layout !== KEYWORD_FORMAT) {
    db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('keyword_format', ?)")
      .run(KEYWORD_FORMAT);
  }
  for (const table of ["docs_fts", "passages_fts"] as const) totals.keepExact(table);
}

/**
 * An indexing run that wrote at least this share of the documents indexed (since the last
 * merge) merges the index segments ({@link Fts5Index.afterRun}). On the full corpus the
 * first run leaves 15 passage segments and 17 document segments; one merge costs 1.7 s CPU
 * (0.2 % of the run's) and cuts the search's CPU p50/p95 29.2/52.6 -> 26.9/49.1 ms.
 */
const MERGE_SHARE = 1 / 8;

/** BM25 magnitude that maps to a score of 0.5. */
const HALF_SCORE = 5;

/**
 * The FTS5 MATCH expression of a query.
 *
 * @param q the query (its parsed form)
 * @param isCommon words too common to be worth matching, when rarer ones remain
 * @returns the MATCH expression
 * @throws {ToolError} `INVALID_ARGUMENT` when nothing searchable remains
 */
export function matchExpression(q: Query, isCommon?: (word: string) => boolean): string {
  const text = q.text;
  const match = toFtsMatch(q.parsed, isCommon);
  if (match === undefined) {
    throw new ToolError(
      "INVALID_ARGUMENT",
      `query "${text}" has nothing to search for`,
      "Give at least one word or quoted phrase that is not excluded with '-'.",
    );
  }
  return match;
}

/** The titles of an outline's headings, depth first (the `headings` column). */
export function headingTitles(nodes: OutlineNode[], out: string[] = []): string[] {
  for (const n of nodes) {
    out.push(n.title);
    headingTitles(n.children, out);
  }
  return out;
}

/** The path as words: separators become spaces and the file extension is left out. */
export function pathWords(path: string): string {
  return path.replace(/\.[A-Za-z0-9]{1,5}$/, "").replace(/[/_.\-\\]+/g, " ");
}

/**
 * What a keyword index writes for a document: its row's columns after its id (title, path,
 * keywords, headings, body) and its passages' (`passageTexts`), CJK segmented. A line is
 * segmented once for the body and its passage: CJK runs never cross a line.
 */
function docColumns(doc: IndexedDoc): { columns: string[]; passages: PassageText[] } {
  const { card, outline } = doc;
  const text = doc.lines.join("\n");
  const cjk = hasCJK(text);
  const lines = cjk ? doc.lines.map(segmentCJK) : doc.lines;
  return {
    columns: [
      segmentCJK(card.title),
      segmentCJK(pathWords(card.path)),
      segmentCJK(card.keywords.join(" ")),
      segmentCJK(headingTitles(outline).join("\n")),
      cjk ? lines.join("\n") : text,
    ],
    passages: passageTexts(doc, lines),
  };
}

/** Run synchronous work, turning a throw into a rejected promise. */
function settle<T>(fn: () => T): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (e) {
    return Promise.reject(e);
  }
}

/**
 * Map a BM25 value (negative, lower is better) to 0..1, monotonically:
 * `|x| / (|x| + 5)`, so 5 gives 0.5 and 20 gives 0.8 (with the default weights, a good
 * match for a question of a dozen words scores about 20, a one-word match 3 to 8).
 *
 * @param raw the `bm25()` value
 * @returns the normalised score
 */
export function bm25Score(raw: number): number {
  const x = Math.abs(raw);
  return x / (x + HALF_SCORE);
}

/**
 * The keyword index over SQLite FTS5 (BM25), sharing the catalog's database.
 *
 * `remove`, and `upsert` of documents the index holds, run inside a SAVEPOINT, so they are
 * atomic on their own and join the caller's transaction when there is one (the indexer's
 * batch). New documents written inside the caller's transaction join it without a
 * SAVEPOINT of their own: opening one makes FTS5 write the terms it holds in memory to disk,
 * so each document became a segment of its own, merged again and again (1.7 ms of CPU per
 * document of the full corpus). Their values are all made before the first row is written;
 * should SQLite fail between two rows, the error is a {@link HalfWrittenError} and the
 * caller rolls its transaction back.
 *
 * @example
 * ```ts
 * import { Catalog } from "../core/catalog.ts";
 * import { Fts5Index } from "./fts5.ts";
 * import { prepareQuery } from "../search/query.ts";
 * import assert from "node:assert/strict";
 * const catalog = new Catalog(":memory:");
 * const fts = new Fts5Index(catalog.db);
 * assert.deepEqual(await fts.search(prepareQuery("docker compose", 10)), []);
 * ```
 */
export class Fts5Index implements KeywordIndex {
  /** Backend name, used to tag hits. */
  readonly name = "fts5";
  #db: DatabaseSync;
  #pool?: SearchPool;
  readonly #q: (sql: string) => StatementSync;
  #words?: WordDocs;
  #ranking: Fts5Ranking;
  #snippets: StoredSnippets;
  #passages: PassageRows;
  #totals: Fts5Totals;
  /** Documents written or removed since the segments were last merged. */
  #written = 0;

  /**
   * Create the index and its tables (`docs_fts`, `fts_map`) if they do not exist.
   *
   * @param db the catalog's database (with its `documents` table)
   * @param options column weights, statistics, search workers
   */
  constructor(db: DatabaseSync, options: Fts5Options = {}) {
    this.#db = db;
    this.#pool = options.pool;
    this.#q = statements(db);
    if (options.stats) {
      this.#words = new WordDocs(db, options.stats, options.commonShare ?? 0.25);
    }
    this.#ranking = new Fts5Ranking(this.#q, {
      weights: { ...DEFAULT_WEIGHTS, ...options.weights },
      stats: options.stats,
      words: this.#words,
      wholeDocs: options.wholeDocs,
      rareDocs: options.rareDocs,
    });
    this.#snippets = new StoredSnippets(db);
    this.#passages = new PassageRows(db, this.#q);
    this.#totals = new Fts5Totals(db, this.#q);
    if (!options.readOnly) openTables(db, this.#totals);
  }

  #atomic(fn: () => void): void {
    this.#db.exec("SAVEPOINT fts5_index");
    try {
      fn();
      this.#db.exec("RELEASE fts5_index");
    } catch (e) {
      this.#db.exec("ROLLBACK TO fts5_index; RELEASE fts5_index");
      throw e;
    }
  }

  #delete(ids: string[]): void {
    const find = this.#q("SELECT rowid, passages FROM fts_map WHERE doc_id = ?");
    const delFts = this.#q("DELETE FROM docs_fts WHERE rowid = ?");
    const delMap = this.#q("DELETE FROM fts_map WHERE doc_id = ?");
    const rows = ids.flatMap((id) => {
      const row = find.get(id);
      return row
        ? [{ id, rowid: BigInt(row.rowid as number), passages: row.passages as number }]
        : [];
    });
    if (!rows.length) return;
    // the statistics lowered first, while FTS5 holds none in memory (see `Fts5Totals`)
    for (const { rowid, passages } of rows) {
      this.#totals.noteDelete("docs_fts", rowid, rowid);
      const base = rowid * BigInt(PASSAGE_SPAN);
      if (passages) this.#totals.noteDelete("passages_fts", base, base + BigInt(passages - 1));
    }
    this.#totals.apply();
    for (const { id, rowid, passages } of rows) {
      this.#passages.delete(rowid, passages);
      delFts.run(rowid);
      delMap.run(id);
    }
  }

  /**
   * Add or replace documents (delete then insert, per `doc_id`).
   *
   * @throws {HalfWrittenError} when SQLite failed after some rows of new documents were
   *   written inside the caller's transaction (see the class's description)
   */
  upsert(docs: IndexedDoc[]): Promise<void> {
    return settle(() => {
      // Every value first: once rows are written, nothing but SQLite can fail.
      const rows = docs.map((doc) => ({ id: doc.card.doc_id, ...docColumns(doc) }));
      const write = () => {
        const ins = this.#q(
          "INSERT INTO docs_fts (doc_id, title, path, keywords, headings, body) VALUES (?, ?, ?, ?, ?, ?)",
        );
        const map = this.#q("INSERT INTO fts_map (doc_id, rowid, passages) VALUES (?, ?, ?)");
        for (const { id, columns, passages } of rows) {
          const rowid = BigInt(ins.run(id, ...columns).lastInsertRowid);
          this.#passages.write(rowid, passages);
          map.run(id, rowid, passages.length);
        }
        this.#written += docs.length;
      };
      const held = this.#q("SELECT 1 AS x FROM fts_map WHERE doc_id = ?");
      if (this.#db.isTransaction && rows.every((r) => !held.get(r.id))) {
        try {
          write();
        } catch (e) {
          throw new HalfWrittenError(e);
        }
        return;
      }
      this.#atomic(() => {
        this.#delete(rows.map((r) => r.id));
        write();
      });
    });
  }

  /** Remove documents by id; unknown ids are ignored. */
  remove(ids: string[]): Promise<void> {
    return settle(() =>
      this.#atomic(() => {
        this.#delete(ids);
        this.#written += ids.length;
      })
    );
  }

  /**
   * Ranked hits: BM25 with column weights, filters joined from the catalog, snippets from
   * the body (or the best other column when only the title, path or headings matched); on
   * the search workers when there are some (where a search past their time limit fails
   * with `QUERY_TIMEOUT`; on this thread, nothing can stop it).
   *
   * @throws {ToolError} `INVALID_ARGUMENT` when the query has nothing to search for;
   *   `QUERY_TIMEOUT` past the workers' time limit
   */
  search(q: Query): Promise<Hit[]> {
    return this.#pool ? this.#pool.search(q) : settle(() => this.#search(q));
  }

  #search(q: Query): Hit[] {
    const isCommon = this.#words?.isCommon();
    const match = matchExpression(q, isCommon);
    const f = filterJoin(q.filters, "m.doc_id");
    const limit = Math.max(0, Math.floor(q.limit));
    const st = q.stages;
    const rows = stageCpu(
      st,
      "rank",
      () => this.#ranking.rows(q.parsed, match, isCommon, f, limit),
    );
    const re = snippetMatcher(positiveTerms(q.parsed));
    const withSnippets = q.snippets ?? Infinity;
    // A search that wants snippets is ranked by best passage too (the same query finds both).
    const inPassages = re && withSnippets > 0 ? passageMatch(q.parsed) : undefined;
    const want = Math.max(1, Math.floor(q.passages ?? 1));
    // each document's passages ranked by BM25 among all passages of the library (one query)
    const best = inPassages
      ? stageCpu(
        st,
        "passage query",
        () =>
          this.#passages.best(
            inPassages,
            rows.map((r) => Number(r.rid)),
            Math.max(want, CANDIDATES),
          ),
      )
      : new Map<number, PassageRank[]>();
    const docs = rows.map((row) => {
      const raw = row.raw as number;
      const hit: Hit = {
        doc_id: row.doc_id as string,
        score: bm25Score(raw),
        raw,
        retriever: this.name,
      };
      return { hit, rid: Number(row.rid), ranks: best.get(Number(row.rid)) ?? [] };
    });
    const { order, across, words } = passageOrder(docs, q.parsed, re ? withSnippets : 0);
    const loose = words && across.length && !q.unread
      ? this.#passages.best(words, across.map((d) => d.rid), Math.max(want, CANDIDATES))
      : undefined;
    return stageCpu(st, "read passages", () =>
      this.#passages.ranked(order, q.parsed, {
        passages: want,
        snippets: re ? withSnippets : 0,
        read: q.unread ? 0 : undefined,
        otherwise: (id) => re ? this.#snippets.of(id, re) : "",
        loose: (d) => loose?.get(d.rid),
      }));
  }

  /**
   * Give hits ranked past a search's first `snippets` (they carry `candidates`) their best
   * passages and snippet, as the search gives its first hits: their candidates read (for
   * a hit none of whose passages holds a whole phrase of the query, the passages of the
   * query's words).
   */
  readPassages(hits: Hit[], parsed: ParsedQuery, passages: number): Promise<void> {
    return settle(() => this.#readPassages(hits, parsed, passages));
  }

  #readPassages(hits: Hit[], parsed: ParsedQuery, passages: number): void {
    const re = snippetMatcher(positiveTerms(parsed));
    const want = Math.max(1, Math.floor(passages));
    const rowid = this.#q("SELECT rowid FROM fts_map WHERE doc_id = ?");
    const docs = hits.filter((hit) => hit.candidates).map((hit) => {
      const ranks = hit.candidates!.map((seq) => ({ seq, raw: 0 }));
      return { hit, rid: Number(rowid.get(hit.doc_id)?.rowid ?? -1), ranks };
    });
    const words = re ? wordsMatch(parsed) : undefined;
    const across = words ? docs.filter((d) => !d.ranks.length && d.rid >= 0) : [];
    const loose = words && across.length
      ? this.#passages.best(words, across.map((d) => d.rid), Math.max(want, CANDIDATES))
      : undefined;
    this.#passages.ranked(docs, parsed, {
      passages: want,
      snippets: re ? docs.length : 0,
      otherwise: (id) => re ? this.#snippets.of(id, re) : "",
      loose: (d) => loose?.get(d.rid),
    });
  }

  /** Snippets of documents for a query, by id (left out where none of its terms occur). */
  snippets(docIds: string[], parsed: ParsedQuery): Promise<Map<string, string>> {
    return settle(() => this.#snippetsOf(docIds, parsed));
  }

  #snippetsOf(docIds: string[], parsed: ParsedQuery): Map<string, string> {
    const out = new Map<string, string>();
    const re = snippetMatcher(positiveTerms(parsed));
    if (!re) return out;
    const indexed = this.#q("SELECT rowid FROM fts_map WHERE doc_id = ?");
    const inPassages = passageMatch(parsed);
    for (const id of docIds) {
      const row = indexed.get(id);
      if (!row) continue;
      const snippet = this.#snippetOf(id, row.rowid as number, inPassages, parsed, re);
      if (snippet) out.set(id, snippet);
    }
    return out;
  }

  /** A document's snippet: its best passage's, else the stored text's, headings' or title's. */
  #snippetOf(
    docId: string,
    rowid: number,
    inPassages: string | undefined,
    parsed: ParsedQuery,
    re: RegExp,
  ): string {
    const best = inPassages
      ? this.#passages.best(inPassages, [rowid], CANDIDATES).get(rowid) ?? []
      : [];
    return this.#passages.hits(docId, best, parsed, 1)[0]?.snippet ??
      this.#snippets.of(docId, re);
  }

  /**
   * The ids, in order, of the documents that satisfy a query's hard constraints (its
   * quoted phrases and `+` units must match, its `-` units must not); for hits that came
   * from another index, such as vectors.
   */
  constrain(ids: string[], parsed: ParsedQuery): Promise<string[]> {
    return settle(() => this.#constrain(ids, parsed));
  }

  #constrain(ids: string[], parsed: ParsedQuery): string[] {
    if (!ids.length || (!parsed.required.length && !parsed.excluded.length)) return ids;
    // From the documents to their FTS rows, then the match on those rows alone: joining
    // the match's rows to their documents walks every document holding a word (900 ms for
    // a word in 63,000 documents of 100,000; 3 ms this way).
    const byRow = new Map<number, string>();
    for (
      const r of this.#db.prepare(
        `SELECT rowid, doc_id FROM fts_map WHERE doc_id IN (${ids.map(() => "?").join(", ")})`,
      ).all(...ids)
    ) byRow.set(r.rowid as number, r.doc_id as string);
    const rowids = [...byRow.keys()].filter(Number.isSafeInteger).join(", ");
    const matching = (units: typeof parsed.required, all: boolean): Set<string> => {
      const match = toFtsMatch(
        all
          ? { optional: [], required: units, excluded: [] }
          : { optional: units, required: [], excluded: [] },
      );
      if (!match || !rowids) return new Set();
      const rows = this.#db.prepare(
        `SELECT rowid FROM docs_fts WHERE docs_fts MATCH ? AND rowid IN (${rowids})`,
      ).all(match);
      return new Set(rows.map((r) => byRow.get(r.rowid as number)!));
    };
    const ok = parsed.required.length ? matching(parsed.required, true) : undefined;
    const bad = parsed.excluded.length ? matching(parsed.excluded, false) : new Set<string>();
    return ids.filter((id) => (!ok || ok.has(id)) && !bad.has(id));
  }

  /**
   * Ids of the documents, among those the filters allow, whose body holds every one of
   * `words` (each matched as a whole word, stemmed and case-folded like the index: a
   * superset of the documents where the exact words occur). For grep across documents.
   */
  candidates(words: string[], filters: SearchFilters): Promise<string[]> {
    const match = `body : (${words.map((w) => `"${w.replaceAll('"', '""')}"`).join(" AND ")})`;
    const f = filterJoin(filters, "m.doc_id");
    // CROSS JOIN: from the matches to their documents (the other way walks the library)
    return settle(() =>
      this.#q(`
      SELECT m.doc_id FROM docs_fts CROSS JOIN fts_map m ON m.rowid = docs_fts.rowid
      ${f.join}
      WHERE docs_fts MATCH ? AND ${f.where}`).all(match, ...f.params)
        .map((r) => r.doc_id as string)
    );
  }

  /** Which of these documents the index holds. */
  indexed(ids: string[]): Promise<Set<string>> {
    return settle(() =>
      new Set(
        this.#q("SELECT doc_id FROM fts_map WHERE doc_id IN (SELECT value FROM json_each(?))")
          .all(JSON.stringify(ids)).map((r) => r.doc_id as string),
      )
    );
  }

  /** Number of documents indexed. */
  count(): number {
    return this.#q("SELECT count(*) AS n FROM fts_map").get()?.n as number;
  }

  /** `ready` with the document count, or `empty` when nothing is indexed. */
  ready(): IndexState {
    const documents = this.count();
    return { state: documents > 0 ? "ready" : "empty", documents };
  }

  /** Merge the FTS5 index segments into one per table (after a large indexing run). */
  optimize(): void {
    this.#db.exec("INSERT INTO docs_fts(docs_fts) VALUES('optimize')");
    this.#db.exec("INSERT INTO passages_fts(passages_fts) VALUES('optimize')");
    this.#written = 0;
  }

  /**
   * After an indexing run: merge the segments ({@link optimize}) when the writes since the
   * last merge reach {@link MERGE_SHARE} of the documents (a run over a few changed files
   * leaves them to FTS5's own incremental merging).
   */
  afterRun(): Promise<void> {
    return settle(() => {
      if (this.#written > 0 && this.#written >= MERGE_SHARE * this.count()) this.optimize();
    });
  }
}
