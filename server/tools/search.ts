/**
 * `search`: ranked document cards for a query, by keywords, vectors, or both fused.
 *
 * @module
 */
import { z } from "zod";
import { MAX_QUERY_CHARS, MAX_QUERY_WORDS, parseQuery, positiveTerms } from "../../search/query.ts";
import {
  type Candidate,
  chooseSentence,
  lexicalScores,
  type NumberedLine,
  readWindow,
  sentencesOf,
} from "../../search/sentence.ts";
import { type PassageHit, ToolError } from "../../core/types.ts";
import {
  checkStoreFields,
  checkStoreLibrary,
  defineTool,
  type ErrorBody,
  errorBody,
  libraryArg,
  needArgs,
  type Render,
  UsageError,
} from "../tool.ts";
import { nextStep, resultsMd, type SearchResult, toResults, WITH_SNIPPETS } from "./_results.ts";
import type { Shelf } from "../../shelf/shelf.ts";
import { MAX_LINE_CHARS } from "../../shelf/documents.ts";
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

/** One query's markdown; `echo` names the query in the first line (among several). */
function oneMd(r: One, render: Render, echo = false): string {
  const mode = r.note ? ` (${r.note})` : "";
  if (!r.results.length) {
    return `No documents match ${JSON.stringify(r.query)}${mode}.\n` +
      `Try other words, fewer filters, or ${
        render.cli ? "shelfmark find-paths" : "find_paths"
      } for folder names.`;
  }
  // One query is not repeated: the caller just wrote it. The mode is said when a note
  // explains it (vectors not ready) or the whole card is asked for; JSON always has it.
  const what = echo ? ` for ${JSON.stringify(r.query)}` : "";
  const used = r.note || r.verbose ? `, mode ${r.mode_used}${mode}` : "";
  return [
    `${count(r.results.length, "document")}${what}${used}:`,
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
    "Find documents in the user's local libraries (PDF, Word, EPUB, HTML, Markdown, text, scans). One hit per document (copies of the same text collapsed): title, doc_id, path, its best passages (line range, page, section), and for the first hits the sentence or two that best answer the query (often the answer itself) with the lines to read to verify it and its page. Next: read those lines (offset/limit, or section), or outline the document.",
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
    await checkStoreLibrary(shelf, a.library);
    if (a.filters) await checkStoreFields(shelf, a.library, Object.keys(a.filters));
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
        // The answer is chosen among the passages shown (the best one at least).
        passages: Math.max(a.limit_passages, 1),
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
      // the lines the keyword index read for each passage shown, by document and first line
      const stored = new Map(
        hits.map((h) => [h.doc_id, new Map(h.passages?.map((p) => [p.start_line, p.lines]))]),
      );
      if (a.sort !== "default") {
        const dir = a.sort === "newest" ? -1 : 1;
        results.sort((x, y) => dir * x.modified_at.localeCompare(y.modified_at));
      }
      await addAnswers(
        shelf,
        query,
        results,
        a.limit_passages,
        (id, from) => stored.get(id)?.get(from),
      );
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
        : `## ${JSON.stringify(q)}\n${oneMd(v, render, true)}`
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

/** Hits whose answer gets {@link ANSWER_CHARS}; the next ones, up to `WITH_SNIPPETS`, one line. */
const FULL_ANSWERS = 3;
/** Characters of the answer of the first hits. */
const ANSWER_CHARS = 240;
/** Characters of the answer of the hits after them: one line of 120 columns with its lead. */
const ANSWER_LINE = 90;
/** Lines of a passage read for its sentences (a long section is read from its start). */
const PASSAGE_LINES = 300;
/** Characters after the answer's line that its read window takes at most (`readWindow`). */
const WINDOW_CHARS = 600;
/** Lines of an answer's read window, at most. */
const WINDOW_LINES = 15;

/**
 * Give the first hits the sentence of the passages they show (the best one when none is
 * asked for) that best answers the query, put the passage holding it first, and keep
 * `limitPassages` passages on every hit. Choosing among more passages than are shown
 * measured worse: a lower passage's sentence that scores high by words alone is more
 * often wrong than the best passage's best sentence. A passage's lines are those the search
 * read (`stored`, by document and first line) when it has them and none was cut for
 * reading, else read again.
 */
async function addAnswers(
  shelf: Shelf,
  query: string,
  results: SearchResult[],
  limitPassages: number,
  stored: (docId: string, startLine: number) => PassageHit["lines"],
) {
  const terms = positiveTerms(parseQuery(query));
  for (const [i, r] of results.entries()) {
    const passages = r.passages ?? [];
    if (i < WITH_SNIPPETS && terms.length && passages.length) {
      const candidates: Candidate[] = [];
      const from: number[] = [];
      const read: NumberedLine[][] = [];
      for (const [k, p] of passages.entries()) {
        const limit = Math.min(PASSAGE_LINES, p.end_line - p.start_line + 1);
        const known = stored(r.doc_id, p.start_line)?.slice(0, limit);
        const lines = known?.length === limit && known.every((l) => l.text.length <= MAX_LINE_CHARS)
          ? known
          : (await shelf.readLines(r.doc_id, { offset: p.start_line, limit })).lines;
        read.push(lines);
        // Paragraphs numbered on from the previous passage's (none is shared across them).
        const base = candidates.length ? candidates.at(-1)!.paragraph + 1 : 0;
        for (const s of sentencesOf(lines)) {
          candidates.push({ ...s, paragraph: base + s.paragraph });
          from.push(k);
        }
      }
      const max = i < FULL_ANSWERS ? ANSWER_CHARS : ANSWER_LINE;
      // A sentence of a lower passage must score higher to be chosen: a long passage has
      // more sentences, so more chances of one scoring high by words alone, and the passage
      // ranking already weighed its length.
      const scores = lexicalScores(candidates, terms).map((x, j) => x / (1 + from[j]! / 2));
      const answer = chooseSentence(candidates, scores, terms, max, passages[0]!.title);
      if (answer) {
        const k = from[candidates.findIndex((c) => c.line === answer.line)] ?? 0;
        const lines = readWindow(read[k] ?? [], answer.line, WINDOW_CHARS, WINDOW_LINES);
        r.answer = { text: answer.text, line: answer.line, page: answer.page, ...lines };
        if (answer.page === undefined) delete r.answer.page;
        if (k > 0) passages.unshift(...passages.splice(k, 1));
      }
    }
    if (r.passages) r.passages = passages.slice(0, limitPassages);
    if (r.passages?.length === 0) delete r.passages;
  }
}

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
