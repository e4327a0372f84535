/**
 * `grep`: regular-expression matches inside one document, or across the documents of a
 * library, glob or type, with merged context (no line is given twice), on a worker thread
 * with a time limit (a runaway pattern fails with `PATTERN_TIMEOUT`).
 *
 * The grep itself is the shelf's (`shelf.grep`, `shelf.grepDocuments`: `shelf/grep.ts`);
 * this module holds the tool's schema, its markdown and its CLI form, and shows paths as
 * `--full-paths` asks.
 *
 * @module
 */
import { z } from "zod";
import { type SearchFilters, ToolError } from "../../core/types.ts";
import type { GrepMatch } from "../../shelf/grep_worker.ts";
import {
  type DocMatches,
  type GrepDocumentAnswer,
  type GrepDocumentsAnswer,
  nextAt,
} from "../../shelf/grep.ts";
import {
  argHint,
  argNames,
  checkStoreLibrary,
  defineTool,
  docIdArg,
  escapeControl,
  libraryArg,
  n,
  needArgs,
  type Render,
  resolveStoredDoc,
  shownPath,
} from "../tool.ts";
import { docRef, grepMatch, nextOffset, obj, optString } from "./_output.ts";
import { count } from "./_listing.ts";
import { citeHint, place } from "./_cite.ts";

const USAGE =
  `shelfmark grep PATTERN ID [-C 2] [-B N] [-A N] [-i] [--count] [--limit 20] [--offset 0] [--json]
shelfmark grep PATTERN [--library NAME] [--path-glob 'Lib/dir/*'] [--doc-types pdf,docx]
               [--limit-documents 10] [--offset-documents 0] [--limit 5] [-C 1] [-i] [--count]
               [--list]
  -C/--context, -B/--before, -A/--after: lines of context; -i/--case-insensitive.
  With ID, one document; without, every document of the library, glob and types
  (all libraries when none is given), matches grouped by document; --list: one line per
  document, its count and best line.
  In a PDF each match shows its page (p.47 L2381); a pattern with a space also matches
  across line breaks (L2381-2382), and a hyphenated line end matches the whole word.`;

/**
 * Characters of a markdown answer's matches (about 1,500 tokens: some ten groups of
 * ordinary lines, or three of long PDF lines); past it the answer says what it left out.
 * A `read` of 200 lines costs about twice as much, so a grep stays the cheaper way to locate.
 */
export const MAX_MD_CHARS = 6000;
/** Where a match is: `p.47 L2381-2382` in a paged document, else `2381` (as grep prints it). */
const matchPlace = (m: GrepMatch) =>
  m.page === undefined
    ? (m.end_line ? `${m.line}-${m.end_line}` : `${m.line}`)
    : place({ first: m.line, last: m.end_line, page: m.page });

/** The citation of a match. */
const matchCite = (path: string, m: GrepMatch) =>
  citeHint(path, { first: m.line, last: m.end_line, page: m.page });

/**
 * Matches as grep prints them (`N: match`, `p.P LN: match` in a paged document, `N- context`,
 * `--` between groups), within `budget` characters.
 */
function matchLines(
  matches: GrepMatch[],
  budget: number,
  first: boolean,
): { lines: string[]; shown: number; used: number } {
  const lines: string[] = [];
  let used = 0;
  let shown = 0;
  for (const [k, m] of matches.entries()) {
    const prev = matches[k - 1];
    const gap = prev !== undefined &&
      (prev.end_line ?? prev.line) + prev.after.length + 1 < m.line - m.before.length;
    let before = m.before.map((t, i) => `${m.line - m.before.length + i}- ${t}`);
    const hit = `${matchPlace(m)}: ${m.text}`;
    let after = m.after.map((t, i) => `${(m.end_line ?? m.line) + 1 + i}- ${t}`);
    const size = (ls: string[]) => ls.reduce((s, l) => s + l.length + 1, 0);
    let block = [...(gap ? ["--"] : []), ...before, hit, ...after];
    if (used + size(block) > budget) {
      if (shown > 0 || !first) break;
      // The first match of an answer is always shown, with what context fits.
      let room = budget - hit.length - 1;
      const keep = (ls: string[], fromEnd: boolean) => {
        const out: string[] = [];
        for (const l of fromEnd ? [...ls].reverse() : ls) {
          if (l.length + 1 > room) break;
          room -= l.length + 1;
          out.push(l);
        }
        return fromEnd ? out.reverse() : out;
      };
      before = keep(before, true);
      after = keep(after, false);
      block = [...before, hit, ...after];
      lines.push(...block);
      return { lines, shown: 1, used: used + size(block) };
    }
    lines.push(...block);
    used += size(block);
    shown++;
  }
  return { lines, shown, used };
}

const matchesText = (k: number) => count(k, "match", "matches");

/** Lines of context by default inside one document. */
const DOC_CONTEXT = 2;
/**
 * Lines of context by default across documents: there the matches choose the documents
 * to read, so the line before and after is enough to tell them apart.
 */
const ACROSS_CONTEXT = 1;

/** Room kept for the closing notes of an answer across documents. */
const NOTES_CHARS = 300;

const CUT = `answer cut at ~${n(MAX_MD_CHARS)} characters`;

function oneMarkdown(r: GrepDocumentAnswer, render: Render): string {
  const head = `${matchesText(r.total_matches)} for /${escapeControl(r.pattern)}/ in ${
    escapeControl(r.title)
  } [${r.doc_id}]`;
  if (!r.matches) return head;
  const { lines, shown } = matchLines(r.matches, MAX_MD_CHARS, true);
  const out = [head, ...lines];
  const next = nextAt(r.offset, shown, r.total_matches);
  if (r.matches[0]) out.push("", matchCite(escapeControl(r.path), r.matches[0]));
  if (next !== null) {
    const cut = shown < r.matches.length
      ? ` (${CUT}; a narrower pattern or less context shows more per call)`
      : "";
    if (!r.matches[0]) out.push("");
    out.push(
      `Showing matches ${r.offset + 1}-${r.offset + shown} of ${r.total_matches}${cut}. ` +
        `Next: ${render.cli ? "add " : ""}${argHint(render, { offset: next })}.`,
    );
  }
  return out.join("\n");
}

function scopeText(s: SearchFilters): string {
  const parts: string[] = [];
  if (s.library !== undefined) parts.push(`library ${s.library}`);
  if (s.path_glob) parts.push(`path ${s.path_glob}`);
  if (s.doc_types?.length) parts.push(`types ${s.doc_types.join(",")}`);
  return parts.length ? parts.join(", ") : "all libraries";
}

function docHead(d: DocMatches): string {
  const base = d.path.slice(d.path.lastIndexOf("/") + 1).replace(/\.[^.]*$/, "");
  const title = d.title && d.title.toLowerCase() !== base.toLowerCase()
    ? ` — ${escapeControl(d.title)}`
    : "";
  const k = d.copies?.length ?? 0;
  const copies = k
    ? ` (same in ${k === 1 ? "1 copy" : `${k} copies`}: ${
      d.copies!.map((c) => `[${c.doc_id}] ${escapeControl(c.path)}`).join(", ")
    })`
    : "";
  return `[${d.doc_id}] ${escapeControl(d.path)}${title}: ${matchesText(d.total_matches)}${copies}`;
}

function manyMarkdown(r: GrepDocumentsAnswer, render: Render): string {
  const out = [
    `${matchesText(r.total_matches)} in ${count(r.total_documents, "document")} for /${
      escapeControl(r.pattern)
    }/ (${scopeText(r.scope)}, ${count(r.documents_in_scope, "document")})`,
  ];
  // Every document of the page is listed, with its "more" line: the matches get the rest.
  const heads = r.documents.map(docHead);
  let budget = MAX_MD_CHARS - out[0]!.length - NOTES_CHARS -
    heads.reduce((s, h) => s + h.length + 50, 0);
  let hidden = 0;
  for (const [i, d] of r.documents.entries()) {
    const head = heads[i]!;
    if (d.best) {
      const at = d.best.page === undefined ? `L${matchPlace(d.best)}` : matchPlace(d.best);
      out.push(`${head} · ${at}: ${escapeControl(d.best.text)}`);
      continue;
    }
    if (!d.matches) {
      out.push(head);
      continue;
    }
    out.push("", head);
    const first = i === 0;
    const { lines, shown, used } = matchLines(d.matches, Math.max(0, budget), first);
    out.push(...lines);
    budget -= used;
    hidden += d.matches.length - shown;
    if (shown < d.total_matches) {
      out.push(
        `(${d.total_matches - shown} more: ${
          render.cli ? `grep PATTERN ${d.doc_id} ` : `doc_id=${d.doc_id} `
        }${argHint(render, { offset: shown })})`,
      );
    }
  }
  const notes: string[] = [];
  const firstHit = r.documents.find((d) => d.matches?.length);
  if (firstHit) notes.push(matchCite(escapeControl(firstHit.path), firstHit.matches![0]!));
  if (hidden) {
    notes.push(
      `Not shown: ${n(hidden)} matches (${CUT}); grep one document (${
        render.cli ? "grep PATTERN ID" : "doc_id"
      }), or narrow the pattern or scope.`,
    );
  }
  if (r.next_offset_documents !== null) {
    notes.push(
      `More documents: ${argHint(render, { offset_documents: r.next_offset_documents })}.`,
    );
  }
  if (!r.complete) {
    notes.push(
      `Stopped at the time limit after ${n(r.documents_grepped)} documents: narrow ${
        argNames(render, "library", "path_glob", "doc_types")
      }.`,
    );
  }
  if (notes.length) out.push("", ...notes);
  return out.join("\n");
}

/** The `grep` tool. */
export const grep = defineTool({
  name: "grep",
  title: "Grep documents",
  description:
    "Regular-expression search with line numbers and merged context, or a count: inside one document (doc_id), or across the documents of library/path_glob/doc_types (all when none), grouped by document (list: one line per document, its count and best line). Matches in paged documents (PDF) carry their page; a pattern with a space also matches across line breaks.",
  input: {
    pattern: z.string().min(1).max(1000).describe("JavaScript regular expression"),
    doc_id: docIdArg.optional(),
    library: libraryArg.optional(),
    path_glob: z.string().min(1).max(1000).optional().describe("SQLite GLOB against the path"),
    doc_types: z.array(z.string().min(1).max(32)).max(20).optional(),
    context: z.number().int().min(0).max(50).optional().describe(
      `Lines of context (default ${DOC_CONTEXT} in one document, ${ACROSS_CONTEXT} across documents)`,
    ),
    before: z.number().int().min(0).max(50).optional().describe("Lines before (overrides context)"),
    after: z.number().int().min(0).max(50).optional().describe("Lines after (overrides context)"),
    case_insensitive: z.boolean().default(false),
    count: z.boolean().default(false).describe("Only the number of matches"),
    list: z.boolean().default(false).describe(
      "Across documents: only the matching documents, each with its count and best line",
    ),
    limit: z.number().int().min(1).max(100).optional().describe(
      "Matches to return (default 20; per document across documents, default 5)",
    ),
    offset: z.number().int().min(0).default(0).describe("Matches to skip (with doc_id)"),
    limit_documents: z.number().int().min(1).max(50).default(10),
    offset_documents: z.number().int().min(0).default(0),
  },
  output: {
    pattern: z.string(),
    total_matches: z.number().int(),
    doc_id: optString,
    path: optString,
    matches: z.array(grepMatch).optional(),
    next_offset: nextOffset,
    documents: z.array(
      obj({
        ...docRef.shape,
        total_matches: z.number().int(),
        matches: z.array(grepMatch).optional(),
        best: grepMatch.optional(),
      }),
    ).optional(),
    complete: z.boolean().optional(),
    next_offset_documents: nextOffset,
  },
  async run(shelf, a): Promise<GrepDocumentAnswer | GrepDocumentsAnswer> {
    const context = a.context ?? (a.doc_id === undefined ? ACROSS_CONTEXT : DOC_CONTEXT);
    const options = {
      pattern: a.pattern,
      caseInsensitive: a.case_insensitive,
      before: a.before ?? context,
      after: a.after ?? context,
      countOnly: a.count,
    };
    const scope: SearchFilters = {};
    if (a.library !== undefined) scope.library = a.library;
    if (a.path_glob) scope.path_glob = a.path_glob;
    if (a.doc_types?.length) scope.doc_types = a.doc_types.map((t) => t.toLowerCase());
    if (a.doc_id !== undefined) {
      if (Object.keys(scope).length || a.list) {
        throw new ToolError(
          "INVALID_ARGUMENT",
          `doc_id and ${a.list ? "list" : "library/path_glob/doc_types"} do not go together`,
          "Give doc_id to grep one document, or the scope (and list) to grep many.",
        );
      }
      const id = await resolveStoredDoc(shelf, a.doc_id, false);
      const r = await shelf.grep(id, { ...options, offset: a.offset, limit: a.limit ?? 20 });
      return { ...r, path: shownPath(shelf, r.path) };
    }
    if (a.offset) {
      throw new ToolError(
        "INVALID_ARGUMENT",
        "offset pages through the matches of one document",
        "Give doc_id with offset, or use offset_documents across documents.",
      );
    }
    await checkStoreLibrary(shelf, scope.library);
    const r = await shelf.grepDocuments({
      ...options,
      scope,
      list: a.list,
      limit: a.limit ?? 5,
      limitDocuments: a.limit_documents,
      offsetDocuments: a.offset_documents,
    });
    for (const d of r.documents) {
      d.path = shownPath(shelf, d.path);
      for (const c of d.copies ?? []) c.path = shownPath(shelf, c.path);
    }
    return r;
  },
  // Before `count`, `output_mode: "content" | "count"`.
  aliases: {
    output_mode: (v) =>
      v === "count" || v === "content" ? { count: v === "count" } : { output_mode: v },
  },
  markdown: (r, render) => ("documents" in r ? manyMarkdown(r, render) : oneMarkdown(r, render)),
  cli: {
    synopsis: "grep PATTERN [ID]",
    summary: "regex matches in a document, or across a library",
    usage: USAGE,
    positional: ["pattern", "doc_id"],
    short: { C: "context", B: "before", A: "after", i: "case-insensitive", n: "limit" },
    aliases: {
      "before-context": "before",
      "after-context": "after",
      "ignore-case": "case-insensitive",
      glob: "path-glob",
      type: "doc-types",
      documents: "limit-documents",
    },
    args(pos) {
      needArgs(pos, 1, "PATTERN", USAGE);
      return { pattern: pos[0], doc_id: pos[1] };
    },
  },
});
