/**
 * The tools' argument schemas (zod), shared by the MCP server and the CLI so both
 * validate the same way with the same defaults.
 *
 * @module
 */
import { z } from "zod";

const outputFormat = z.enum(["markdown", "json"]).default("markdown").describe(
  "markdown (compact, for reading) or json (structured; also sent as structuredContent)",
);
const docId = z.string().min(1).max(4096).describe(
  "A doc_id from search (or a path <library>/<path inside it>)",
);
const library = z.string().min(1).max(256).describe("Library name (see list_libraries)");

const SCHEMAS = {
  search: {
    query: z.string().min(1).max(2000).describe(
      'Words ranked by BM25 (need not all match); "quoted phrase" must match; -term excludes; +term requires; a|b alternatives',
    ),
    limit: z.number().int().min(1).max(50).default(20).describe("Results to return (1-50)"),
    doc_types: z.array(z.string().min(1).max(32)).max(20).default([]).describe(
      "Only these types: markdown, html, text, pdf, docx, epub, image",
    ),
    library: library.optional(),
    path_glob: z.string().min(1).max(1000).optional().describe(
      "SQLite GLOB against the path <library>/<...>, case-sensitive, e.g. 'Papers/2024/*'",
    ),
    modified_after: z.string().max(40).optional().describe(
      "ISO date or RFC 3339 time, inclusive",
    ),
    modified_before: z.string().max(40).optional().describe(
      "ISO date or RFC 3339 time, inclusive",
    ),
    time_sort: z.enum(["default", "newest", "oldest"]).default("default").describe(
      "Reorder the selected results by modification time",
    ),
    mode: z.enum(["hybrid", "keyword", "semantic"]).default("hybrid").describe(
      "hybrid (default), keyword or semantic; keyword while vectors are not ready",
    ),
    output_format: outputFormat,
  },
  outline: {
    doc_ids: z.array(docId).min(1).max(20).describe("1-20 documents"),
    expand: z.array(z.string().min(1).max(64)).max(50).default([]).describe(
      'Node ids shown in full even past the budget, e.g. ["2", "3.1"]',
    ),
    max_tokens: z.number().int().min(50).max(50000).optional().describe(
      "Token budget per document. Default: a compact view of about 500 tokens (deeper levels " +
        "and summaries hidden when they do not fit; expand shows them), up to 2000 when even " +
        "the top level needs more",
    ),
    output_format: outputFormat,
  },
  read: {
    doc_id: docId,
    offset: z.number().int().min(1).default(1).describe("First line (1-based)"),
    limit: z.number().int().min(1).max(500).default(200).describe("Lines to return (max 500)"),
    page: z.number().int().min(1).optional().describe(
      "Paged documents (PDF, OCR): start at this page",
    ),
    output_format: outputFormat,
  },
  grep: {
    pattern: z.string().min(1).max(1000).describe("JavaScript regular expression"),
    doc_id: docId,
    context: z.number().int().min(0).max(50).default(3).describe("Lines of context"),
    before: z.number().int().min(0).max(50).optional().describe("Lines before (overrides context)"),
    after: z.number().int().min(0).max(50).optional().describe("Lines after (overrides context)"),
    case_insensitive: z.boolean().default(false),
    output_mode: z.enum(["content", "count"]).default("content"),
    limit: z.number().int().min(1).max(100).default(20).describe("Matches to return (max 100)"),
    offset: z.number().int().min(0).default(0).describe("Matches to skip"),
    output_format: outputFormat,
  },
  list_libraries: { output_format: outputFormat },
  explore: { library: library.optional(), output_format: outputFormat },
  find_paths: {
    patterns: z.array(z.string().min(1).max(200)).min(1).max(20).describe(
      "Keywords, OR-ed, each a case-insensitive %keyword% match on folder paths",
    ),
    library: library.optional(),
    limit: z.number().int().min(1).max(50).default(10).describe("Folders to return (max 50)"),
    output_format: outputFormat,
  },
  status: {
    skipped_offset: z.number().int().min(0).default(0).describe("Skipped files to pass over"),
    skipped_limit: z.number().int().min(0).max(1000).default(100).describe(
      "Skipped files to list (max 1000)",
    ),
    output_format: outputFormat,
  },
  similar: {
    doc_id: docId,
    limit: z.number().int().min(1).max(50).default(10).describe("Maximum results (1-50)"),
    output_format: outputFormat,
  },
} as const satisfies Record<ToolName, z.ZodRawShape>;

/** Arguments of every tool: zod shapes, for the MCP server and the CLI. */
export const schemas: Record<ToolName, z.ZodRawShape> = SCHEMAS;

/** Tool names. */
export type ToolName =
  | "search"
  | "outline"
  | "read"
  | "grep"
  | "list_libraries"
  | "explore"
  | "find_paths"
  | "status"
  | "similar";

/** Parsed arguments of a tool. */
export type ToolArgs<T extends ToolName> = z.infer<z.ZodObject<(typeof SCHEMAS)[T]>>;

/** Titles and descriptions of the tools, as clients list them. */
export const descriptions: Record<ToolName, { title: string; description: string }> = {
  search: {
    title: "Search documents",
    description:
      "Find documents in the user's local libraries. Returns one card per document (~50 tokens): doc_id, title, path, type, size, outline quality, keywords and a snippet. Next step: outline the promising doc_ids, then read the lines you need.",
  },
  outline: {
    title: "Outline documents",
    description:
      "Table of contents of 1-20 documents with line ranges ([L120-180]), pages and one-sentence summaries, within a token budget. Use the ranges with read.",
  },
  read: {
    title: "Read lines",
    description:
      "Numbered lines of a document: offset (1-based) and limit (max 500), or page for PDFs and scans.",
  },
  grep: {
    title: "Grep a document",
    description:
      "Regular-expression search inside one document, with line numbers and context, or a count.",
  },
  list_libraries: {
    title: "List libraries",
    description: "The libraries (named folders) shelfmark indexes, with document counts.",
  },
  explore: {
    title: "Explore a library",
    description:
      "Overview of a library: document types, folder structure with counts and median sizes, top keywords and where they come from.",
  },
  find_paths: {
    title: "Find folders",
    description:
      "Folders whose path contains any of the keywords, with file counts: for questions that name a project, collection or folder.",
  },
  status: {
    title: "Index status",
    description:
      "Indexing progress, document counts, vector state, and files skipped with their reasons.",
  },
  similar: {
    title: "Similar documents",
    description:
      "Documents nearest to one document by meaning (its document vector), same result shape as search: for 'more like this' and related reading.",
  },
};
