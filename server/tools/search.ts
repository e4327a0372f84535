/**
 * `search`: ranked document cards for a query, by keywords, vectors, or both fused.
 *
 * @module
 */
import { z } from "zod";
import { checkFields } from "../../core/fields.ts";
import { MAX_QUERY_CHARS, MAX_QUERY_WORDS } from "../../search/query.ts";
import { ToolError } from "../../core/types.ts";
import {
  checkLibrary,
  defineTool,
  type ErrorBody,
  errorBody,
  libraryArg,
  needArgs,
  type Render,
  UsageError,
} from "../tool.ts";
import { nextStep, resultsMd, toResults } from "./_results.ts";
import { count } from "./_listing.ts";
import { hit, obj, optString } from "./_output.ts";

/** The answer to one query. */
interface One {
  query: string;
  mode_used: string;
  mode_reason?: string;
  note?: string;
  results: ReturnType<typeof toResults>;
  verbose: boolean;
}

/** The answer: one query's, or several keyed by query. */
type Answer = One | {
  queries: Record<string, One | { error: ErrorBody["error"] }>;
  verbose: boolean;
};

function withoutVerbose({ verbose: _, ...r }: One): Omit<One, "verbose"> {
  return r;
}

function oneMd(r: One, render: Render): string {
  const mode = r.note ? ` (${r.note})` : "";
  if (!r.results.length) {
    return `No documents match ${JSON.stringify(r.query)}${mode}.\n` +
      `Try other words, fewer filters, or ${
        render.cli ? "shelfmark find-paths" : "find_paths"
      } for folder names.`;
  }
  return [
    `${count(r.results.length, "document")} for ${
      JSON.stringify(r.query)
    }, mode ${r.mode_used}${mode}:`,
    ...resultsMd(r.results, r.verbose),
  ].join("\n");
}

const USAGE =
  `shelfmark search QUERY [--limit 20] [--doc-types pdf,docx] [--library NAME] [--path-glob 'Lib/dir/*']
                 [--modified-after 2024-01-01] [--modified-before 2024-12-31]
                 [--sort default|newest|oldest] [--mode hybrid|keyword|semantic]
                 [--limit-passages 1] [--verbose] [--json]
                 [--filter FIELD=VALUE]...  (front matter; a field repeated matches any value)
       shelfmark search --query Q1 --query Q2 ...   (up to 10 queries in one call)
  Query syntax: words (ranked, need not all match), "a phrase" (must match), -word (exclude),
  +word (require), a|b (alternatives).`;

/** The `search` tool. */
export const search = defineTool({
  name: "search",
  title: "Search documents",
  description:
    "Find documents in the user's local libraries (PDF, Word, EPUB, HTML, Markdown, text, scans). One hit per document (copies of the same text collapsed): title, doc_id, path, size, and its best passages with line range, page, section and the sentence that matches. Next: read those lines (offset/limit, or section), or outline the document.",
  input: {
    query: z.string().min(1).max(MAX_QUERY_CHARS).optional().describe(
      `Words ranked by BM25 (need not all match); "quoted phrase" must match; -term excludes; +term requires; a|b alternatives; at most ${MAX_QUERY_WORDS} words`,
    ),
    queries: z.array(z.string().min(1).max(MAX_QUERY_CHARS)).min(1).max(10).optional().describe(
      "Instead of query: 1-10 queries answered in one call, results keyed by query",
    ),
    limit: z.number().int().min(1).max(50).default(20).describe("Results to return (1-50)"),
    doc_types: z.array(z.string().min(1).max(32)).max(20).default([]).describe(
      "Only these types: markdown, html, text, pdf, docx, epub, image",
    ),
    library: libraryArg.optional(),
    path_glob: z.string().min(1).max(1000).optional().describe(
      "SQLite GLOB against the path <library>/<...>, case-sensitive, e.g. 'Papers/2024/*'",
    ),
    filters: z.record(
      z.string().min(1).max(64),
      z.union([z.string().max(256), z.array(z.string().max(256)).min(1).max(20)]),
    ).optional().describe(
      'Front-matter fields, all must match (a list: any value), e.g. {"tags": "x", "status": ["a", "b"]}',
    ),
    modified_after: z.string().max(40).optional().describe(
      "ISO date or RFC 3339 time, inclusive",
    ),
    modified_before: z.string().max(40).optional().describe(
      "ISO date or RFC 3339 time, inclusive",
    ),
    sort: z.enum(["default", "newest", "oldest"]).default("default").describe(
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
  output: {
    query: optString,
    mode_used: optString,
    mode_reason: optString,
    note: optString,
    results: z.array(hit).optional(),
    queries: z.record(z.string(), obj({ results: z.array(hit).optional() })).optional(),
  },
  async run(shelf, a): Promise<Answer> {
    checkLibrary(shelf, a.library);
    if (a.filters) checkFields(shelf.libraries, a.library, Object.keys(a.filters));
    if ((a.query === undefined) === (a.queries === undefined)) {
      throw new ToolError(
        "INVALID_ARGUMENT",
        a.query === undefined ? "query or queries is required" : "give query or queries, not both",
        'query: "words"; queries: ["words", "other words"] for several at once',
      );
    }
    if (a.queries) {
      // Answered side by side; a query that fails gets its error, the others their hits.
      const settled = await Promise.allSettled(a.queries.map((q) => one(q)));
      const queries: Record<string, One | { error: ErrorBody["error"] }> = {};
      a.queries.forEach((q, i) => {
        const s = settled[i]!;
        queries[q] = s.status === "fulfilled" ? s.value : errorBody(s.reason, shelf.log);
      });
      return { queries, verbose: a.verbose };
    }
    return await one(a.query!);

    async function one(query: string): Promise<One> {
      const { hits, mode, note, cards } = await shelf.search({
        query,
        limit: a.limit,
        mode: a.mode,
        passages: a.limit_passages,
        filters: {
          doc_types: a.doc_types,
          library: a.library,
          path_glob: a.path_glob,
          modified_after: a.modified_after,
          modified_before: a.modified_before,
          fields: a.filters,
        },
      });
      const results = toResults(shelf, hits, cards);
      if (a.sort !== "default") {
        const dir = a.sort === "newest" ? -1 : 1;
        results.sort((x, y) => dir * x.modified_at.localeCompare(y.modified_at));
      }
      const mode_reason = a.mode === undefined ? shelf.defaultSearchMode().why : undefined;
      return { query, mode_used: mode, mode_reason, note, results, verbose: a.verbose };
    }
  },
  aliases: { time_sort: "sort" },
  json: ({ verbose: _, ...r }) => {
    if (!("queries" in r)) return r;
    const queries = Object.fromEntries(
      Object.entries(r.queries).map(([q, v]) =>
        ["error" in v ? [q, v] : [q, withoutVerbose(v)]][0]!
      ),
    );
    return { queries };
  },
  markdown(r, render) {
    if (!("queries" in r)) {
      return r.results.length ? `${oneMd(r, render)}\n${nextStep(render)}` : oneMd(r, render);
    }
    const out = Object.entries(r.queries).map(([q, v]) =>
      "error" in v
        ? `## ${JSON.stringify(q)}\nerror ${v.error.code}: ${v.error.message}`
        : `## ${JSON.stringify(q)}\n${oneMd(v, render)}`
    );
    return `${out.join("\n\n")}\n${nextStep(render)}`;
  },
  cli: {
    synopsis: "search QUERY",
    summary: "documents for a query",
    usage: USAGE,
    positional: ["query", "queries"],
    flags: {
      query: { type: "string", multiple: true },
      filter: { type: "string", multiple: true },
    },
    short: { n: "limit", v: "verbose" },
    aliases: {
      type: "doc-types",
      glob: "path-glob",
      after: "modified-after",
      before: "modified-before",
      passages: "limit-passages",
    },
    args(pos, f) {
      const several = f.query as string[] | undefined;
      if (!several?.length) needArgs(pos, 1, "QUERY", USAGE);
      return {
        query: several?.length ? undefined : pos.join(" "),
        queries: several?.length ? [...(pos.length ? [pos.join(" ")] : []), ...several] : undefined,
        filters: filterFlags(f.filter as string[] | undefined),
      };
    },
  },
});

/** `--filter field=value` flags as the `filters` argument (a field repeated: any value). */
function filterFlags(flags: string[] | undefined): Record<string, string[]> | undefined {
  if (!flags?.length) return undefined;
  const out: Record<string, string[]> = {};
  for (const f of flags) {
    const eq = f.indexOf("=");
    if (eq <= 0) throw new UsageError(`--filter must be FIELD=VALUE, not "${f}"`);
    (out[f.slice(0, eq).trim()] ??= []).push(f.slice(eq + 1));
  }
  return out;
}
