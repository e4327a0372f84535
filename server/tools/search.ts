/**
 * `search`: ranked document cards for a query, by keywords, vectors, or both fused.
 *
 * @module
 */
import { z } from "zod";
import { defaultMode, searchShelf } from "../../shelf/search.ts";
import { checkLibrary, defineTool, intFlag, libraryArg, listFlag, needArgs } from "../tool.ts";
import { NEXT_STEP, resultsMd, toResults } from "./_results.ts";

const USAGE =
  `shelfmark search QUERY [--limit 20] [--type pdf,docx] [--library NAME] [--path-glob 'Lib/dir/*']
                 [--after 2024-01-01] [--before 2024-12-31] [--sort default|newest|oldest]
                 [--mode hybrid|keyword|semantic] [--passages 1] [--verbose] [--json]
  Query syntax: words (ranked, need not all match), "a phrase" (must match), -word (exclude),
  +word (require), a|b (alternatives).`;

/** The `search` tool. */
export const search = defineTool({
  name: "search",
  title: "Search documents",
  description:
    "Find documents in the user's local libraries (PDF, Word, EPUB, HTML, Markdown, text, scans). One hit per document (copies of the same text collapsed): title, doc_id, path, size, and its best passages with line range, page, section and the sentence that matches. Next: read those lines (offset/limit, or section), or outline the document.",
  input: {
    query: z.string().min(1).max(2000).describe(
      'Words ranked by BM25 (need not all match); "quoted phrase" must match; -term excludes; +term requires; a|b alternatives',
    ),
    limit: z.number().int().min(1).max(50).default(20).describe("Results to return (1-50)"),
    doc_types: z.array(z.string().min(1).max(32)).max(20).default([]).describe(
      "Only these types: markdown, html, text, pdf, docx, epub, image",
    ),
    library: libraryArg.optional(),
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
    mode: z.enum(["hybrid", "keyword", "semantic"]).optional().describe(
      "keyword, hybrid or semantic; default: the best measured for the embedder (see status)",
    ),
    limit_passages: z.number().int().min(0).max(5).default(1).describe(
      "Best passages per hit (line range, page, snippet), 0-5",
    ),
    verbose: z.boolean().default(false).describe(
      "Markdown: the whole card (keywords, words, outline quality, relevance, date)",
    ),
  },
  async run(shelf, a) {
    checkLibrary(shelf, a.library);
    const { hits, mode, note } = await searchShelf(shelf, {
      query: a.query,
      limit: a.limit,
      mode: a.mode,
      passages: a.limit_passages,
      filters: {
        doc_types: a.doc_types,
        library: a.library,
        path_glob: a.path_glob,
        modified_after: a.modified_after,
        modified_before: a.modified_before,
      },
    });
    const results = toResults(shelf, hits);
    if (a.time_sort !== "default") {
      const dir = a.time_sort === "newest" ? -1 : 1;
      results.sort((x, y) => dir * x.modified_at.localeCompare(y.modified_at));
    }
    const mode_reason = a.mode === undefined ? defaultMode(shelf).why : undefined;
    return { query: a.query, mode_used: mode, mode_reason, note, results, verbose: a.verbose };
  },
  json: ({ verbose: _, ...r }) => r,
  markdown(r) {
    const out: string[] = [];
    const mode = r.note ? ` (${r.note})` : "";
    if (!r.results.length) {
      out.push(`No documents match ${JSON.stringify(r.query)}${mode}.`);
      out.push("Try other words, fewer filters, or find_paths for folder names.");
      return out.join("\n");
    }
    out.push(
      `${r.results.length} documents for ${JSON.stringify(r.query)}, mode ${r.mode_used}${mode}:`,
    );
    out.push(...resultsMd(r.results, r.verbose));
    out.push(NEXT_STEP);
    return out.join("\n");
  },
  cli: {
    summary: "search QUERY                    documents for a query",
    usage: USAGE,
    flags: {
      limit: { type: "string", short: "n" },
      type: { type: "string" },
      library: { type: "string" },
      glob: { type: "string" },
      after: { type: "string" },
      before: { type: "string" },
      sort: { type: "string" },
      mode: { type: "string" },
      "path-glob": { type: "string" },
      passages: { type: "string" },
      verbose: { type: "boolean", short: "v" },
    },
    args(pos, f) {
      needArgs(pos, 1, "QUERY", USAGE);
      return {
        query: pos.join(" "),
        limit: intFlag(f.limit, "limit"),
        doc_types: listFlag(f.type),
        library: f.library,
        path_glob: f["path-glob"] ?? f.glob,
        modified_after: f.after,
        modified_before: f.before,
        time_sort: f.sort,
        mode: f.mode,
        limit_passages: intFlag(f.passages, "passages"),
        verbose: f.verbose,
      };
    },
  },
});
