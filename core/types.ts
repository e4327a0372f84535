/**
 * Types for every stage of the shelfmark pipeline, in one place:
 * source file -> extracted document -> outline -> card -> indexed document -> hit.
 * The extractor contract (what plugins implement) is in `extractor.ts`.
 *
 * Fields that reach tool answers use the snake_case names of the tool contract.
 *
 * @module
 */

import type { Extracted, ExtractInput, OutlineQuality } from "./extractor.ts";
import type { MeasuredDoc } from "./measure.ts";

/**
 * What extraction gives back: the extractor's name and its result, or undefined (no
 * extractor). `partial` says why the result holds only part of the file (`time limit`: the
 * extractor was stopped by the soft deadline and left the rest out). `measured` is the
 * document's outline and card before the corpus statistics rank their keywords
 * (`measureDoc` of `core/measure.ts`, done where it was extracted); without it the indexer
 * measures the document itself.
 */
export type ExtractResult =
  | { extractor: string; extracted: Extracted; partial?: string; measured?: MeasuredDoc }
  | undefined;

/** Extracts one file (in this thread, a worker thread or a child process). */
export type ExtractFn = (input: ExtractInput) => Promise<ExtractResult>;

/** One node of a document outline, with its line range (inclusive, 1-based). */
export interface OutlineNode {
  /** Position in the tree: `"1"`, `"2.3"`, `"2.3.1"`. */
  id: string;
  /** Heading text. */
  title: string;
  /** Depth in the tree, 1 = top. */
  level: number;
  /** Line of the heading. */
  start_line: number;
  /** Last line of the section, children included. */
  end_line: number;
  /** `end_line - start_line + 1`. */
  line_count: number;
  /** 1-based page of the heading, for paged formats. */
  page?: number;
  /** First sentence of the section's own text. */
  summary?: string;
  /** A few distinctive words of the section. */
  keywords?: string[];
  /** Sub-sections. */
  children: OutlineNode[];
}

/** The card: what a search hit and an outline say about a document. */
export interface Card {
  /** Short id, stable while the file stays at the same path. */
  doc_id: string;
  /** `<library>/<path inside the library>`, with `/`. */
  path: string;
  /** Library name. */
  library: string;
  /** Extractor name: `markdown`, `html`, `text`, `pdf`, ... */
  doc_type: string;
  /** Metadata title, else first heading, else file name. */
  title: string;
  /** Author, when the document names one. */
  author?: string;
  /** Detected language, ISO 639-1 where one exists (else 639-3), or `und`. */
  language: string;
  /** Number of words. */
  word_count: number;
  /** Number of lines `read` can return. */
  total_lines: number;
  /** Number of pages (paged formats). */
  page_count?: number;
  /** The first ~200 words. */
  abstract: string;
  /** 5-10 distinctive words (TF-IDF against the corpus). */
  keywords: string[];
  /** True when `word_count < 500`. */
  brief: boolean;
  /** Whether the outline can be trusted. */
  outline_quality: OutlineQuality;
  /** Whether the outline has at least one node. */
  has_outline: boolean;
  /** File modification time, RFC 3339 UTC. */
  modified_at: string;
  /** File size in bytes. */
  size: number;
  /** The extractor's warnings (a page it could not read, rows left out, where it stopped). */
  warnings?: string[];
  /**
   * Why only part of the file was extracted (`time limit`); the warnings say what was left
   * out. The next index runs extract it again, each with twice the time, up to 8 times the
   * per-file limit.
   */
  partial?: string;
  /** Extractions of this content that were cut short (with `partial`). */
  attempts?: number;
}

/** Candidate terms of a text with their counts, kept so keywords can be re-ranked later. */
export type TermCounts = Record<string, number>;

/** Document-frequency statistics of the indexed corpus, for TF-IDF. */
export interface TermStats {
  /** Number of documents in the corpus. */
  docCount(): number;
  /** Number of documents containing `term`. */
  df(term: string): number;
}

/** A document ready for the indexes. */
export interface IndexedDoc {
  /** The card. */
  card: Card;
  /** The outline tree. */
  outline: OutlineNode[];
  /** All lines of the document. */
  lines: string[];
  /** First line of each page (1-based), for paged formats: where its passages are cut. */
  pages?: number[];
}

/**
 * Filters of `search`, applied by every index. Dates are already normalised to the
 * stored `modified_at` form (RFC 3339 in UTC, milliseconds): the search path parses them once.
 */
export interface SearchFilters {
  /** Only these `doc_type`s. */
  doc_types?: string[];
  /** Only this library. */
  library?: string;
  /** SQLite GLOB against `path` (case-sensitive). */
  path_glob?: string;
  /** Inclusive lower bound on `modified_at` (normalised RFC 3339). */
  modified_after?: string;
  /** Inclusive upper bound on `modified_at` (normalised RFC 3339). */
  modified_before?: string;
  /**
   * Front-matter fields: for every field, one of the document's values equals one given
   * (whole values, case-insensitive; see `core/fields.ts`).
   */
  fields?: Record<string, string | string[]>;
}

/** One searchable item of a query: a plain term or a quoted phrase, as the user wrote it. */
export interface QueryItem {
  /** `term` for a bare word, `phrase` for quoted text. */
  kind: "term" | "phrase";
  /** The text, without quotes or prefixes. */
  text: string;
}

/** A unit of the query: one item, or several alternatives written `a|b`. */
export interface QueryUnit {
  /** The alternatives; a single item when the unit has no `|`. */
  alternatives: QueryItem[];
}

/** A parsed query: what ranks, what must match, what must not. */
export interface ParsedQuery {
  /** Plain terms and unprefixed `a|b` groups: ranked, need not match. */
  optional: QueryUnit[];
  /** Quoted phrases and `+` units: all must match. */
  required: QueryUnit[];
  /** `-` units: documents matching any of them are left out. */
  excluded: QueryUnit[];
}

/** A span of a document's lines: an outline section, a page, or a window. */
export interface Passage {
  /** The outline node it belongs to (`"3.2"`), when it comes from the outline. */
  node_id?: string;
  /** The node's title, `Page N`, or `Lines A-B`. */
  title: string;
  /** First line (1-based). */
  start_line: number;
  /** Last line. */
  end_line: number;
  /** Page of its first line, for paged documents (in a search hit: the page of its snippet). */
  page?: number;
}

/** A passage chosen for a query, with its snippet. */
export interface PassageHit extends Passage {
  /** One or two sentences around the densest match, matches in `**bold**`. */
  snippet: string;
  /** The line of the snippet's sentence. */
  line?: number;
  /** BM25 score inside the document (orders passages; not comparable across documents). */
  score: number;
  /**
   * Its lines (`start_line` on, with their pages in a paged document) as the keyword index
   * read them for the snippet: the search answer takes its sentence from them instead of
   * decoding the text again. Never shown.
   */
  lines?: { n: number; text: string; page?: number }[];
}

/** One ranked answer of an index (keyword or vector). */
export interface Hit {
  /** The document. */
  doc_id: string;
  /** Score normalised to 0-1 by the index (higher is better). */
  score: number;
  /** The index's raw score (BM25, distance, ...). */
  raw: number;
  /** Name of the index that produced it (`fts5`, `lancedb`). */
  retriever: string;
  /** A short passage around the match, when the index makes one. */
  snippet?: string;
  /** The document's best passages for the query (added by the search path). */
  passages?: PassageHit[];
  /** Other documents with the same text, collapsed into this hit (added by the search path). */
  copies?: { doc_id: string; path: string }[];
  /**
   * The passages (sequence numbers, best first; empty: none holds a query word) the keyword
   * index found for a hit it ranked but did not read: the search path has those of the hits
   * it shows read (`KeywordIndex.readPassages`) and drops the field.
   */
  candidates?: number[];
}

/** A named library root. */
export interface Library {
  /** Name used in paths and filters. */
  name: string;
  /** Absolute path of the root folder. */
  root: string;
  /** What the library holds. */
  description?: string;
  /** Globs (relative to the root) a file must match to be indexed; all files when absent. */
  include?: string[];
  /** Globs (relative to the root) of files and folders to leave out. */
  exclude?: string[];
  /** Front-matter fields indexed for filters and `list_tags` (default: see `core/fields.ts`). */
  fields?: string[];
  /** Index hidden files and folders (names starting with `.`); default false: skipped, listed as `hidden`. */
  index_hidden?: boolean;
  /** A git work tree (default: detected from a `.git` in the root or a parent folder). */
  git?: boolean;
}

/** A file that was not indexed (or only partly), with the reason. */
export interface Skipped {
  /** Display path. */
  path: string;
  /** Short reason: `binary`, `empty`, `too_large`, `encrypted`, `corrupt`, `unreadable`, ... */
  reason: string;
  /** Detail. */
  message: string;
}

/** Error codes of tool answers. */
export type ErrorCode =
  | "DOCUMENT_NOT_FOUND"
  | "LIBRARY_NOT_FOUND"
  | "INVALID_ARGUMENT"
  | "INVALID_PATTERN"
  | "PATTERN_TIMEOUT"
  | "QUERY_TIMEOUT"
  | "PATH_OUTSIDE_LIBRARY"
  | "INDEX_UNAVAILABLE"
  | "NOT_ALLOWED"
  | "NOT_GIT"
  | "GIT_FAILED"
  | "PUSH_REJECTED"
  | "FILE_NOT_FOUND"
  | "ALREADY_EXISTS"
  | "CONFLICT"
  | "NO_MATCH"
  | "NOT_UNIQUE"
  | "TOO_LARGE"
  | "FETCH_FAILED"
  | "REDIRECTED"
  | "UNSUPPORTED_TYPE"
  | "INTERNAL";

/** A tool failure the caller can act on. Tools turn it into `{"error": {code, message, hint}}`. */
export class ToolError extends Error {
  /** Stable code. */
  readonly code: ErrorCode;
  /** What to do about it. */
  readonly hint?: string;
  /** Facts a caller acts on (a `CONFLICT`'s `current_version`), beside the message. */
  readonly details?: Record<string, unknown>;
  /**
   * Create a tool error.
   *
   * @param code stable error code
   * @param message what went wrong, quoting the bad value
   * @param hint what to try instead
   * @param details facts a caller acts on, put in the error body
   */
  constructor(code: ErrorCode, message: string, hint?: string, details?: Record<string, unknown>) {
    super(message);
    this.name = "ToolError";
    this.code = code;
    this.hint = hint;
    this.details = details;
  }
}

/** Turns texts into vectors: one document vector, or one query vector, per text. */
export interface Embedder {
  /** Model name as `status` shows it, e.g. `use-lite-en`, `ollama:nomic-embed-text`. */
  readonly model: string;
  /**
   * What beside the name decides a document's vector (weights file and its size, pooling,
   * document prefix): stored with the vectors, and a change computes them all again.
   */
  readonly settings?: string;
  /** Vector length (0 until known: remote embedders learn it from their first answer). */
  readonly dimensions: number;
  /** Whether the model understands many languages (a query in one finds documents in another). */
  readonly multilingual: boolean;
  /** Characters of input the model uses; longer texts are trimmed by the caller. */
  readonly maxChars: number;
  /**
   * Cosine similarity below which a query's nearest documents are not related at all
   * (they are left out of search results; `similar` keeps them). 0 keeps everything.
   */
  readonly minSimilarity?: number;
  /**
   * Weight of the vector ranking in hybrid search (weighted RRF; BM25 weighs 1). Default 1;
   * a weak model gets less so that it adds documents keywords miss without reordering the
   * keyword hits it cannot judge.
   */
  readonly fusionWeight?: number;
  /**
   * The search mode this model serves best, as measured (default `hybrid`): a weak model
   * whose hybrid ranking loses to keyword ranking on Recall@1 and MRR says `keyword`, and
   * search then uses vectors only when asked (`mode: "hybrid"` or `"semantic"`).
   */
  readonly defaultMode?: "hybrid" | "keyword";
  /**
   * One vector per text, in order. `kind` says whether the texts are search queries (short,
   * wanted now) or documents (background work); models with query and document prefixes
   * use it, and local models serve queries first.
   */
  embed(texts: string[], kind?: "query" | "document"): Promise<Float32Array[]>;
  /** Release workers or connections. */
  close?(): void;
}
