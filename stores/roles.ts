/**
 * The two storage roles the search path asks: a keyword index (documents by words, hard
 * query constraints, snippets) and a vector index (one vector per document, nearest by
 * vector). SQLite FTS5 (`fts5.ts`) and LanceDB (`lancedb.ts`) implement them; another
 * backend (PostgreSQL, ...) implements the same two interfaces and nothing else changes:
 * the search path (`search/`) and the indexer call only these methods.
 *
 * @module
 */
import type { Hit, IndexedDoc, ParsedQuery, SearchFilters } from "../core/types.ts";

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

/** Documents by their words: ranked search, hard constraints, snippets. */
export interface KeywordIndex {
  /** Backend name, tagged on hits (`"fts5"`). */
  readonly name: string;
  /** Add or replace documents (by `doc_id`). */
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
