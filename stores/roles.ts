/**
 * The two storage roles the search path asks: a keyword index (documents by words, hard
 * query constraints, snippets) and a vector index (one vector per document, nearest by
 * vector). SQLite FTS5 (`fts5.ts`) and LanceDB (`lancedb.ts`) implement them; another
 * backend (PostgreSQL, ...) implements the same two interfaces and nothing else changes:
 * the search path (`search/`) and the indexer call only these methods.
 *
 * A third role, the catalog as a server and an indexer reach it asynchronously
 * (`CatalogStore`), is implemented over the SQLite catalog (`catalog_sqlite.ts`) and in
 * PostgreSQL (`catalog_postgres.ts`); the shelf owns one, and the reading tools (`read`,
 * `outline`, `grep`, listings, the link graph's `links`, `connection`, `context`) read
 * through it (see docs/postgres.md, the catalog's plan).
 *
 * @module
 */
import type { Card, Hit, IndexedDoc, ParsedQuery, SearchFilters, Skipped } from "../core/types.ts";
import type { FileState, PartialDoc } from "../core/catalog.ts";
import type { DocHead, DocSections, StoredDoc } from "../core/catalog_docs.ts";
import type { StoredPassages } from "../core/catalog_sql.ts";
import type { DocEntry, DocTable } from "../core/listing.ts";
import type { Link } from "../core/extractor.ts";
import type { Fingerprint } from "../core/fingerprint.ts";
import type { FieldValueCount } from "../core/fields.ts";
import type { LinkStore } from "../core/graph.ts";

/** A query as the keyword index sees it: parsed once by the search path. */
export interface Query {
  /** The user's query text, in the search syntax of the spec. */
  text: string;
  /** The same text, parsed (see `parseQuery` in `search/query.ts`). */
  parsed: ParsedQuery;
  /** Maximum number of hits wanted. */
  limit: number;
  /** Filters to apply. */
  filters: SearchFilters;
  /** How many of the top hits get a snippet (default: all). */
  snippets?: number;
  /** Best passages each hit with a snippet carries (default 1). */
  passages?: number;
  /**
   * Read no passages: the hits that would get a snippet carry their `candidates` instead,
   * for the caller to have those of the hits it shows read (`readPassages`).
   */
  unread?: boolean;
  /**
   * CPU ms per stage of the search, added to when given (for `bench/search_cpu.ts`); a
   * search on the search workers leaves it as it was (they get a copy).
   */
  stages?: Record<string, number>;
}

/** Availability of an index while the library is indexed. */
export interface IndexState {
  /** `ready` once it answers over everything indexed. */
  state: "empty" | "building" | "ready" | "failed";
  /** Documents it holds. */
  documents: number;
  /** Last error, when failed. */
  error?: string;
}

/**
 * A keyword index's write that SQLite failed after some of its rows were written, inside the
 * caller's transaction and without a savepoint of its own (new documents, see `Fts5Index`):
 * the transaction holds a document in part and is to be rolled back. The cause is the
 * database's error (every value was made before the first row).
 */
export class HalfWrittenError extends Error {
  /** @param cause SQLite's error */
  constructor(cause: unknown) {
    super(`keyword index write failed halfway: ${(cause as Error)?.message ?? cause}`, { cause });
    this.name = "HalfWrittenError";
  }
}

/** Documents by their words: ranked search, hard constraints, snippets. */
export interface KeywordIndex {
  /** Backend name, tagged on hits (`"fts5"`). */
  readonly name: string;
  /**
   * Add or replace documents (by `doc_id`).
   *
   * @throws {HalfWrittenError} when it failed inside the caller's transaction with some of
   *   its rows written: the caller rolls the transaction back
   */
  upsert(docs: IndexedDoc[]): Promise<void>;
  /** Remove documents by id; unknown ids are ignored. */
  remove(ids: string[]): Promise<void>;
  /**
   * Ranked hits for a query, filters applied, scores in 0-1; the top `q.snippets` hits
   * carry a snippet, and `passages` when the backend has passage rows (their best passages,
   * empty when none holds a query word: the search path then does not look for any).
   *
   * @throws {ToolError} `INVALID_ARGUMENT` when the query has nothing to search for;
   *   `QUERY_TIMEOUT` when it runs past the time limit (search workers only)
   */
  search(q: Query): Promise<Hit[]>;
  /**
   * Give hits that {@link search} ranked past its first `q.snippets` (they carry
   * `candidates`) their `passages` best passages (an empty list when none holds a query
   * word) and snippet, as `search` gives its first hits (the caller removes `candidates`).
   * Without this method the search path looks for their passages in their text.
   */
  readPassages?(hits: Hit[], parsed: ParsedQuery, passages: number): Promise<void>;
  /**
   * The ids, in order, of the documents that satisfy a query's hard constraints (quoted
   * phrases and `+` units match, `-` units do not): for hits found another way (vectors).
   */
  constrain(ids: string[], parsed: ParsedQuery): Promise<string[]>;
  /** Snippets of documents for a query, by id (left out where none of its terms occur). */
  snippets(ids: string[], parsed: ParsedQuery): Promise<Map<string, string>>;
  /**
   * Ids of the documents, among those the filters allow, whose body holds every one of
   * `words` (a superset of those where the exact words occur): the candidates of a grep.
   */
  candidates(words: string[], filters: SearchFilters): Promise<string[]>;
  /**
   * Which of these documents the index holds: the indexer writes the catalog's others
   * again (after a crash between the two writes, or an index dropped for a new layout).
   */
  indexed(ids: string[]): Promise<Set<string>>;
  /** Current availability. */
  ready(): IndexState;
  /**
   * After an indexing run that wrote documents: reorganise what the writes left (merge
   * index segments) when that pays for the searches after it.
   */
  afterRun?(): Promise<void>;
  /** Release connections (a backend outside the catalog's file); not used after. */
  close?(): Promise<void>;
}

/** A document's vector with the filter columns copied from its card. */
export interface VectorRow {
  /** The document. */
  doc_id: string;
  /** Its vector (unit length). */
  vector: Float32Array;
  /** Filter columns, copied from the card. */
  library: string;
  doc_type: string;
  path: string;
  modified_at: string;
}

/** One vector per document, searched by cosine distance. */
export interface VectorIndex {
  /** Backend name, tagged on hits (`"lancedb"`). */
  readonly name: string;
  /** Open the stored vectors, once; their number. */
  open(): Promise<number>;
  /**
   * Insert or replace rows (by `doc_id`); with `append`, the rows are known to be new and
   * may be added without a merge.
   */
  upsert(rows: VectorRow[], append?: boolean): Promise<void>;
  /** Remove documents' vectors; unknown ids are ignored. */
  remove(ids: string[]): Promise<void>;
  /** Drop every vector (the model changed). */
  clear(): Promise<void>;
  /**
   * The nearest documents to a vector, filters applied, `exclude` left out; scores are the
   * cosine distance `d` as `1 - d / 2` (1: the same direction).
   */
  nearest(
    vector: Float32Array,
    limit: number,
    filters?: SearchFilters,
    exclude?: string,
  ): Promise<Hit[]>;
  /** The stored vector of a document, if it has one. */
  vectorOf(docId: string): Promise<Float32Array | undefined>;
  /** Every document id that has a vector. */
  ids(): Promise<string[]>;
  /** Compact after writes (and build an approximate index when it pays off). */
  optimize(): Promise<void>;
  /** Number of vectors stored. */
  count(): number;
  /** Current availability. */
  ready(): IndexState;
  /** Release the connection and the table; the index is not used after. */
  close(): Promise<void>;
}

/**
 * The catalog as a server answering the tools and an indexer writing a library reach it,
 * asynchronously: so it can live in a database several machines share. What a document is
 * made of (row, card, outline, text in compressed blocks of lines, passages, links, fields)
 * is written and removed as one whole: a reader sees all of a document or none of it; the
 * documents' word counts ({@link CatalogStore.df}) change with its writes. What the link
 * graph reads of it (its change token, links) is declared with the graph (`LinkStore` in
 * `core/graph.ts`).
 *
 * Left for later (the synchronous `Catalog` keeps them): skipped files, invalidation of
 * file states, text fingerprints and copies, the meta table, vector and OCR records,
 * filtered id lists (`recentIds`, `paths`).
 */
export interface CatalogStore extends LinkStore {
  /** Backend name (`"sqlite"`, `"postgres"`). */
  readonly name: string;
  /**
   * Store (insert or replace) a document with its text, links and fields, in one
   * transaction: they replace its old ones.
   */
  put(doc: StoredDoc, text: string, links?: Link[]): Promise<void>;
  /**
   * Record that an unchanged file was touched: its new mtime, and its card's `modified_at`
   * (an unknown id is ignored).
   */
  touch(docId: string, mtimeMs: number, modifiedAt: string): Promise<void>;
  /** Remove documents with everything of theirs, in one transaction; unknown ids are ignored. */
  remove(ids: string[]): Promise<void>;
  /** A document's row (card, outline, pages, term counts, file state), or undefined. */
  get(docId: string): Promise<StoredDoc | undefined>;
  /** A document's card, pages and content hash (what reading its lines needs). */
  head(docId: string): Promise<DocHead | undefined>;
  /** What a document's sections are cut from: outline, quality, type, pages, hash. */
  sections(docId: string): Promise<DocSections | undefined>;
  /** Cards of many documents, in the order asked (missing ids left out): search hits. */
  cards(ids: string[]): Promise<Map<string, Card>>;
  /** A document's whole text (its blocks joined), or undefined when it is not stored. */
  text(docId: string): Promise<string | undefined>;
  /** The whole texts of many documents (grep's candidates), by id; missing ones left out. */
  texts(ids: string[]): Promise<Map<string, string>>;
  /**
   * Lines `from`..`to` (1-based, inclusive) of a document, those that exist, decoding only
   * the blocks that hold them; undefined when the document is not stored.
   */
  lines(docId: string, from: number, to: number): Promise<string[] | undefined>;
  /**
   * Some passages of a document by sequence number (unknown ones left out), with their
   * lines; undefined when the document is not stored.
   */
  passages(docId: string, seqs: number[]): Promise<StoredPassages | undefined>;
  /**
   * The passages of many documents at once (a search's hits): as {@link passages} for each
   * document asked, by id; documents not stored are left out. One read for all, not one per
   * document.
   */
  passagesOf(wanted: Map<string, number[]>): Promise<Map<string, StoredPassages>>;
  /**
   * Ids of the documents the search filters allow (dates normalised), evaluated where the
   * documents are; `undefined` when there is no filter (all).
   */
  idsMatching(filters: SearchFilters): Promise<string[] | undefined>;
  /** The text fingerprints of documents, by id (documents without one left out). */
  fingerprints(ids: string[]): Promise<Map<string, Fingerprint>>;
  /**
   * Documents with exactly the same text as each key (`Fingerprint.key`), among those the
   * filters allow, by path.
   */
  sameText(
    keys: string[],
    filters: SearchFilters,
  ): Promise<Map<string, { doc_id: string; path: string }[]>>;
  /** The stored front-matter field values of a document, by field. */
  fields(docId: string): Promise<Record<string, string[]>>;
  /** The id of the document at a display path. */
  idByPath(path: string): Promise<string | undefined>;
  /** Every document of a library (all libraries without one), as listings show it, by path. */
  list(library?: string): Promise<DocEntry[]>;
  /**
   * The table of every document as listings show it (by path, and by id), read again only
   * when the store changed since the last call ({@link changeToken}); kept until `close()`.
   */
  table(): Promise<DocTable>;
  /** File states of every document of a library, by path (what an index run compares). */
  fileStates(library: string): Promise<Map<string, FileState>>;
  /** Number of documents (all libraries, or one). */
  count(library?: string): Promise<number>;
  /**
   * How many documents hold each term, as the catalog's term statistics count them (each
   * document's distinct words, `distinctTerms`: what tells a search's common words); 0
   * for a term none holds. Kept by `put` and `remove`.
   */
  df(terms: string[]): Promise<Map<string, number>>;
  /**
   * Claim a library for an index run, without waiting, where several indexers share the
   * store (PostgreSQL); a store of one machine's data folder has no such method.
   *
   * @throws {ToolError} `CONFLICT` when another indexer holds the library
   */
  claimLibrary?(library: string): Promise<LibraryClaim>;
  /**
   * The libraries of the other machines of a shared store, by their names in it
   * (`laptop:Papers`); a store of one data folder has no such method.
   */
  otherLibraries?(): Promise<string[]>;
  /**
   * The fields the other machines' libraries hold values of (folded), by their names in
   * the store; a store of one data folder has no such method.
   */
  otherLibraryFields?(): Promise<Map<string, string[]>>;
  /**
   * The values of a field in the other machines' libraries (or one of them, by its name in
   * the store), with their document counts; a store of one data folder has no such method.
   */
  otherFieldValues?(field: string, library?: string): Promise<FieldValueCount[]>;
  /**
   * Keep a library's skipped files and documents extracted in part after an index run, for
   * the other machines' servers of a shared store; a store of one data folder (whose
   * catalog holds them) has no such method.
   */
  saveRunFiles?(library: string, skipped: Skipped[], partial: PartialDoc[]): Promise<void>;
  /** Release connections; the store is not used after. */
  close(): Promise<void>;
}

/** A library claimed for an index run, until released (or the connection ends). */
export interface LibraryClaim {
  /** The library. */
  readonly library: string;
  /** Give the library up (once; later calls do nothing). */
  release(): Promise<void>;
}
