/**
 * `grep`: regular-expression matches inside one document, or across the documents of a
 * library, glob or type, with merged context (no line is given twice), on a worker thread
 * with a time limit (a runaway pattern fails with `PATTERN_TIMEOUT`).
 *
 * Across documents, the pattern's sure words (see `patternLiterals`) pick the candidates
 * from the keyword index when it has any; otherwise every document in scope is grepped.
 * The worker reads the texts itself, in batches, each under the time limit; the scan stops
 * at a time budget and says so. Copies with the same text are one entry.
 *
 * @module
 */
import { z } from "zod";
import { type SearchFilters, ToolError } from "../../core/types.ts";
import type { Shelf } from "../../shelf/shelf.ts";
import { GrepRunner, patternLiterals } from "../grep.ts";
import type { GrepJob, GrepMatch, GrepResult } from "../grep_worker.ts";
import {
  argHint,
  checkLibrary,
  defineTool,
  docIdArg,
  escapeControl,
  intFlag,
  libraryArg,
  listFlag,
  n,
  needArgs,
  type Render,
  resolveDoc,
  shownPath,
} from "../tool.ts";
import { docRef, grepMatch, nextOffset, obj, optString } from "./_output.ts";

const USAGE =
  `shelfmark grep PATTERN ID [-C 3] [-B N] [-A N] [-i] [--count] [--limit 20] [--offset 0] [--json]
shelfmark grep PATTERN [--library NAME] [--path-glob 'Lib/dir/*'] [--type pdf,docx]
               [--documents 10] [--offset-documents 0] [--limit 5] [-C 3] [-i] [--count] [--json]
  With ID, one document; without, every document of the library, glob and types
  (all libraries when none is given), matches grouped by document.`;

/**
 * Characters of a markdown answer's matches (about 1,500 tokens: some ten groups of
 * ordinary lines, or three of long PDF lines); past it the answer says what it left out.
 * A `read` of 200 lines costs about twice as much, so a grep stays the cheaper way to locate.
 */
export const MAX_MD_CHARS = 6000;
/** Documents in one request to the grep worker (it reads fewer when they are long). */
const BATCH_DOCS = 512;
/** Time a grep across documents may take before it stops and answers with what it found. */
const SCAN_MS = 15_000;

let grepRunner: GrepRunner | undefined;

/** Stop the grep worker (the CLI calls this before exiting). */
export function closeGrep(): void {
  grepRunner?.close();
  grepRunner = undefined;
}

/** The pattern's flags: with `u` when the pattern is valid that way, else without. */
function regexFlags(pattern: string, caseInsensitive: boolean): string {
  const flags = caseInsensitive ? "i" : "";
  try {
    new RegExp(pattern, flags + "u");
    return flags + "u";
  } catch {
    try {
      new RegExp(pattern, flags);
      return flags;
    } catch (e) {
      throw new ToolError(
        "INVALID_PATTERN",
        `Invalid regular expression ${JSON.stringify(pattern)}: ${(e as Error).message}`,
        "Patterns are JavaScript regular expressions; escape special characters with \\.",
      );
    }
  }
}

/** Where the next page starts, or null after the last. */
const nextAt = (offset: number, shown: number, total: number) =>
  offset + shown < total ? offset + shown : null;

/** The answer for one document. */
interface OneAnswer {
  doc_id: string;
  title: string;
  path: string;
  pattern: string;
  total_matches: number;
  offset: number;
  matches?: GrepMatch[];
  next_offset: number | null;
}

/** One document of an answer across documents. */
interface DocMatches {
  doc_id: string;
  title: string;
  path: string;
  doc_type: string;
  total_matches: number;
  matches?: GrepMatch[];
  /** `offset` for a grep of this document alone that continues where `matches` stop. */
  next_offset: number | null;
  /** Documents with the same text and the same matches, folded into this one. */
  copies?: { doc_id: string; path: string }[];
}

/** The answer across documents. */
interface ManyAnswer {
  pattern: string;
  scope: SearchFilters;
  total_matches: number;
  /** Documents with at least one match. */
  total_documents: number;
  documents_in_scope: number;
  /** Documents grepped: those in scope holding the pattern's sure words, or all. */
  documents_grepped: number;
  /** False when the time budget ran out before every document was grepped. */
  complete: boolean;
  offset_documents: number;
  documents: DocMatches[];
  next_offset_documents: number | null;
}

type Job = Omit<GrepJob, "texts" | "offset" | "limit">;

function runner(): GrepRunner {
  return grepRunner ??= new GrepRunner();
}

async function grepOne(
  shelf: Shelf,
  docId: string,
  pattern: string,
  job: Job,
  offset: number,
  limit: number,
): Promise<OneAnswer> {
  const id = resolveDoc(shelf, docId);
  const text = shelf.catalog.text(id) ?? "";
  const [r] = await runner().run({ ...job, texts: [text], offset, limit });
  const card = shelf.catalog.cards([id]).get(id)!;
  return {
    doc_id: id,
    title: card.title,
    path: shownPath(shelf, card.path),
    pattern,
    total_matches: r!.total,
    offset,
    matches: job.countOnly ? undefined : r!.matches,
    next_offset: job.countOnly ? null : nextAt(offset, r!.matches.length, r!.total),
  };
}

/**
 * Grep the documents `ids` in batches: the worker reads their texts from the catalog file
 * (a batch ends after `BATCH_CHARS` characters, see the worker); the texts of a catalog in
 * memory are sent. Stops at the time budget.
 */
async function grepBatches(
  shelf: Shelf,
  ids: string[],
  job: GrepJob,
): Promise<{ found: Map<string, GrepResult>; grepped: number; complete: boolean }> {
  const found = new Map<string, GrepResult>();
  const file = shelf.catalog.db.location() ?? undefined;
  const started = Date.now();
  let rest = [...ids].sort();
  let grepped = 0;
  while (rest.length) {
    if (Date.now() - started > SCAN_MS) break;
    const batch = rest.slice(0, BATCH_DOCS);
    const rs = await runner().run(
      file
        ? { ...job, file, ids: batch }
        : { ...job, texts: batch.map((id) => shelf.catalog.text(id) ?? "") },
    );
    rs.forEach((r, i) => r.total && found.set(batch[i]!, r));
    grepped += rs.length;
    rest = rest.slice(Math.max(1, rs.length));
  }
  return { found, grepped, complete: rest.length === 0 };
}

async function grepMany(
  shelf: Shelf,
  pattern: string,
  scope: SearchFilters,
  job: Job,
  limit: number,
  limitDocs: number,
  offsetDocs: number,
): Promise<ManyAnswer> {
  checkLibrary(shelf, scope.library);
  const inScope = shelf.catalog.idsMatching(scope) ?? shelf.catalog.ids();
  const { literal, words } = patternLiterals(pattern);
  const ids = words.length ? shelf.fts.candidates(words, scope) : inScope;
  const { found, grepped, complete } = await grepBatches(shelf, ids, {
    ...job,
    literal,
    offset: 0,
    limit,
  });
  const cards = shelf.catalog.cards([...found.keys()]);
  const docs: DocMatches[] = [...found].flatMap(([id, r]) => {
    const card = cards.get(id);
    if (!card) return [];
    return [{
      doc_id: id,
      title: card.title,
      path: card.path,
      doc_type: card.doc_type,
      total_matches: r.total,
      matches: job.countOnly ? undefined : r.matches,
      next_offset: job.countOnly ? null : nextAt(0, r.matches.length, r.total),
    }];
  });
  // Most matches first; of copies, the one with the shortest path is kept.
  const depth = (p: string) => p.split("/").length;
  docs.sort((x, y) =>
    y.total_matches - x.total_matches || depth(x.path) - depth(y.path) ||
    x.path.localeCompare(y.path)
  );
  const folded = foldCopies(shelf, docs);
  const page = folded.slice(offsetDocs, offsetDocs + limitDocs);
  for (const d of page) {
    d.path = shownPath(shelf, d.path);
    for (const c of d.copies ?? []) c.path = shownPath(shelf, c.path);
  }
  return {
    pattern,
    scope,
    total_matches: docs.reduce((s, d) => s + d.total_matches, 0),
    total_documents: docs.length,
    documents_in_scope: inScope.length,
    documents_grepped: grepped,
    complete,
    offset_documents: offsetDocs,
    documents: page,
    next_offset_documents: nextAt(offsetDocs, page.length, folded.length),
  };
}

/**
 * Documents with the same text (the catalog's exact text key) and the same matches are
 * one entry with `copies`, the first in order kept; the totals still count each copy.
 */
function foldCopies(shelf: Shelf, docs: DocMatches[]): DocMatches[] {
  const keys = shelf.catalog.fingerprints(docs.map((d) => d.doc_id));
  const kept = new Map<string, DocMatches>();
  const out: DocMatches[] = [];
  for (const d of docs) {
    const key = keys.get(d.doc_id)?.key;
    const sig = key && `${key} ${d.total_matches} ${d.matches?.[0]?.line}`;
    const first = sig ? kept.get(sig) : undefined;
    if (first) (first.copies ??= []).push({ doc_id: d.doc_id, path: d.path });
    else {
      if (sig) kept.set(sig, d);
      out.push(d);
    }
  }
  return out;
}

/** Matches as grep prints them (`N: match`, `N- context`, `--` between groups), within `budget` characters. */
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
    const gap = prev !== undefined && prev.line + prev.after.length + 1 < m.line - m.before.length;
    let before = m.before.map((t, i) => `${m.line - m.before.length + i}- ${t}`);
    const hit = `${m.line}: ${m.text}`;
    let after = m.after.map((t, i) => `${m.line + 1 + i}- ${t}`);
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

const matchesText = (k: number) => `${n(k)} ${k === 1 ? "match" : "matches"}`;

/** Room kept for the closing notes of an answer across documents. */
const NOTES_CHARS = 300;

const CUT = `answer cut at ~${n(MAX_MD_CHARS)} characters`;

function oneMarkdown(r: OneAnswer, render: Render): string {
  const head = `${matchesText(r.total_matches)} for /${escapeControl(r.pattern)}/ in ${
    escapeControl(r.title)
  } [${r.doc_id}]`;
  if (!r.matches) return head;
  const { lines, shown } = matchLines(r.matches, MAX_MD_CHARS, true);
  const out = [head, ...lines];
  const next = nextAt(r.offset, shown, r.total_matches);
  if (next !== null) {
    const cut = shown < r.matches.length
      ? ` (${CUT}; a narrower pattern or less context shows more per call)`
      : "";
    out.push("");
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

function manyMarkdown(r: ManyAnswer, render: Render): string {
  const out = [
    `${matchesText(r.total_matches)} in ${n(r.total_documents)} documents for /${
      escapeControl(r.pattern)
    }/ (${scopeText(r.scope)}, ${n(r.documents_in_scope)} documents)`,
  ];
  // Every document of the page is listed, with its "more" line: the matches get the rest.
  const heads = r.documents.map(docHead);
  let budget = MAX_MD_CHARS - out[0]!.length - NOTES_CHARS -
    heads.reduce((s, h) => s + h.length + 50, 0);
  let hidden = 0;
  for (const [i, d] of r.documents.entries()) {
    const head = heads[i]!;
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
  if (hidden) {
    notes.push(
      `Not shown: ${
        n(hidden)
      } matches (${CUT}); grep one document with its doc_id, or narrow the pattern or scope.`,
    );
  }
  if (r.next_offset_documents !== null) {
    notes.push(`More documents: offset_documents=${r.next_offset_documents}.`);
  }
  if (!r.complete) {
    notes.push(
      `Stopped at the time limit after ${
        n(r.documents_grepped)
      } documents: narrow library, path_glob or doc_types.`,
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
    "Regular-expression search with line numbers and merged context, or a count: inside one document (doc_id), or across the documents of library/path_glob/doc_types (all when none), grouped by document.",
  input: {
    pattern: z.string().min(1).max(1000).describe("JavaScript regular expression"),
    doc_id: docIdArg.optional(),
    library: libraryArg.optional(),
    path_glob: z.string().min(1).max(1000).optional().describe("SQLite GLOB against the path"),
    doc_types: z.array(z.string().min(1).max(32)).max(20).optional(),
    context: z.number().int().min(0).max(50).default(3).describe("Lines of context"),
    before: z.number().int().min(0).max(50).optional().describe("Lines before (overrides context)"),
    after: z.number().int().min(0).max(50).optional().describe("Lines after (overrides context)"),
    case_insensitive: z.boolean().default(false),
    output_mode: z.enum(["content", "count"]).default("content"),
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
      }),
    ).optional(),
    complete: z.boolean().optional(),
    next_offset_documents: nextOffset,
  },
  run(shelf, a): Promise<OneAnswer | ManyAnswer> {
    const job: Job = {
      source: a.pattern,
      flags: regexFlags(a.pattern, a.case_insensitive),
      before: a.before ?? a.context,
      after: a.after ?? a.context,
      countOnly: a.output_mode === "count",
    };
    const scope: SearchFilters = {};
    if (a.library !== undefined) scope.library = a.library;
    if (a.path_glob) scope.path_glob = a.path_glob;
    if (a.doc_types?.length) scope.doc_types = a.doc_types.map((t) => t.toLowerCase());
    if (a.doc_id !== undefined) {
      if (Object.keys(scope).length) {
        throw new ToolError(
          "INVALID_ARGUMENT",
          "doc_id and library/path_glob/doc_types do not go together",
          "Give doc_id to grep one document, or the scope to grep many.",
        );
      }
      return grepOne(shelf, a.doc_id, a.pattern, job, a.offset, a.limit ?? 20);
    }
    if (a.offset) {
      throw new ToolError(
        "INVALID_ARGUMENT",
        "offset pages through the matches of one document",
        "Give doc_id with offset, or use offset_documents across documents.",
      );
    }
    return grepMany(
      shelf,
      a.pattern,
      scope,
      job,
      a.limit ?? 5,
      a.limit_documents,
      a.offset_documents,
    );
  },
  markdown: (r, render) => ("documents" in r ? manyMarkdown(r, render) : oneMarkdown(r, render)),
  cli: {
    summary: "grep PATTERN [ID]               regex matches in a document, or across a library",
    usage: USAGE,
    flags: {
      context: { type: "string", short: "C" },
      "before-context": { type: "string", short: "B" },
      "after-context": { type: "string", short: "A" },
      "ignore-case": { type: "boolean", short: "i" },
      count: { type: "boolean" },
      limit: { type: "string", short: "n" },
      offset: { type: "string" },
      library: { type: "string" },
      glob: { type: "string" },
      "path-glob": { type: "string" },
      type: { type: "string" },
      documents: { type: "string" },
      "offset-documents": { type: "string" },
    },
    args(pos, f) {
      needArgs(pos, 1, "PATTERN", USAGE);
      return {
        pattern: pos[0],
        doc_id: pos[1],
        library: f.library,
        path_glob: f["path-glob"] ?? f.glob,
        doc_types: listFlag(f.type),
        context: intFlag(f.context, "context"),
        before: intFlag(f["before-context"], "before-context"),
        after: intFlag(f["after-context"], "after-context"),
        case_insensitive: f["ignore-case"] ?? false,
        output_mode: f.count ? "count" : "content",
        limit: intFlag(f.limit, "limit"),
        offset: intFlag(f.offset, "offset"),
        limit_documents: intFlag(f.documents, "documents"),
        offset_documents: intFlag(f["offset-documents"], "offset-documents"),
      };
    },
  },
});
