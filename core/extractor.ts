/**
 * The extractor contract: what an extractor plugin receives (`ExtractInput`), what it gives
 * back (`Extracted`: lines, headings, links, metadata), the `Extractor` it default-exports and
 * the `ExtractError` it throws for a file it cannot read. Plugins import it through
 * `@shelfmark/shelfmark/plugin`; nothing here depends on the rest of shelfmark.
 *
 * @module
 */

/** How much an outline can be trusted. */
export type OutlineQuality = "high" | "medium" | "none";

/** Metadata an extractor may read from the document itself. */
export interface DocMeta {
  /** Title from document metadata (front matter, `<title>`, PDF info). */
  title?: string;
  /** Author from document metadata. */
  author?: string;
  /** Creation date as written in the document, ISO 8601 when known. */
  created?: string;
  /** Language declared by the document (BCP 47 / ISO 639), when declared. */
  language?: string;
  /** Tags or keywords declared by the document (front matter `tags`). */
  tags?: string[];
  /**
   * Front-matter fields by lower-case name, each value a list of strings (a scalar is a
   * one-element list); the catalog keeps those the library indexes (see `core/fields.ts`).
   */
  fields?: Record<string, string[]>;
}

/** What an extractor receives: the file's bytes and where they came from. */
export interface ExtractInput {
  /** Display path, `<library>/<path inside the library>`. */
  path: string;
  /** Lower-cased extension with its dot (`".md"`), or `""` when the file has none. */
  extension: string;
  /** The whole file. Extractors must not modify it. */
  bytes: Uint8Array;
  /** Type sniffed from the content (`"text/plain"`, `"application/pdf"`, ...), if known. */
  mimeType?: string;
  /** Aborted when the per-file time limit runs out. */
  signal?: AbortSignal;
  /**
   * How many times the per-file time limit this file gets (default 1): a file cut short or
   * stopped before gets more on its next run (see `shelf/indexer.ts`).
   */
  allowance?: number;
}

/** A heading found in the document: its level (1 = top), title and 1-based line. */
export interface Heading {
  /** 1 for the top level; formats keep their own numbering (an h2 stays 2). */
  level: number;
  /** Plain-text title, inline markup removed, whitespace collapsed. */
  title: string;
  /** 1-based line in `Extracted.lines` where the heading stands. */
  line: number;
  /** 1-based page, for paged formats. */
  page?: number;
}

/**
 * A link of a document: where it points, the text it shows and the line that text
 * stands on. HTML, EPUB and DOCX lines keep the text only; Markdown lines keep the link
 * as written.
 */
export interface Link {
  /** The target as written: a relative href with its `#anchor`, a URL, a wiki link's note. */
  target: string;
  /** The link's text as plain text (an image's alt text, a wiki link's alias). */
  text: string;
  /** 1-based line in `Extracted.lines` where the link's text starts. */
  line: number;
}

/** The result of an extractor: numbered lines plus whatever structure the format carries. */
export interface Extracted {
  /** The document as lines (Markdown-flavoured where the format has structure). */
  lines: string[];
  /** Native or heuristic structure, in document order. */
  headings?: Heading[];
  /** How reliable `headings` is; defaults to `high` when headings exist, else `none`. */
  outlineQuality?: OutlineQuality;
  /** First line of each page (1-based), for paged formats. */
  pages?: number[];
  /** Document metadata. */
  meta?: DocMeta;
  /** Non-fatal problems worth recording (e.g. "decoded as Latin-1"). */
  warnings?: string[];
  /** The document's links, in document order (the catalog keeps them for the link graph). */
  links?: Link[];
}

/**
 * An extractor plugin turns bytes into lines of text plus structure.
 * A custom extractor is a module that default-exports one of these.
 */
export interface Extractor {
  /** Short name, also the `doc_type` of what it extracts: `"markdown"`, `"pdf"`, ... */
  name: string;
  /** Extensions it handles, lower case with the dot: `[".md", ".markdown"]`. */
  extensions: string[];
  /** Sniffed MIME types it accepts for files whose extension matched nothing. */
  mimeTypes?: string[];
  /** Specific formats 0, generic fallbacks 10. Lower wins; a later registration wins ties. */
  priority?: number;
  /** Optional finer check; must not consume or modify the input. */
  accepts?(input: ExtractInput): boolean;
  /** Extract the document. Throw `ExtractError` for a file that cannot be read. */
  extract(input: ExtractInput): Promise<Extracted>;
}

/** An error an extractor throws for a file it cannot read; `reason` is short and stable. */
export class ExtractError extends Error {
  /** Short machine-readable reason such as `binary`, `encrypted`, `empty`, `corrupt`. */
  readonly reason: string;
  /**
   * Create an extraction error.
   *
   * @param reason short machine-readable reason
   * @param message human-readable detail
   * @param options standard error options (`cause`)
   */
  constructor(reason: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "ExtractError";
    this.reason = reason;
  }
}
