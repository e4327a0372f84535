/**
 * Running a grep: inside one document, or across the documents of a scope (candidates
 * from the keyword index when the pattern has sure words, texts read by the worker in
 * batches under a time budget, copies folded). Answers as data; the `grep` tool
 * (`tools/grep.ts`) renders them.
 *
 * @module
 */
import { type SearchFilters, ToolError } from "../core/types.ts";
import type { Shelf } from "../shelf/shelf.ts";
import { GrepRunner, patternLiterals } from "./grep.ts";
import type { GrepJob, GrepMatch, GrepResult } from "./grep_worker.ts";
import { checkLibrary, resolveDoc, shownPath } from "./tool.ts";

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
export function regexFlags(pattern: string, caseInsensitive: boolean): string {
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
export const nextAt = (offset: number, shown: number, total: number) =>
  offset + shown < total ? offset + shown : null;

/** The answer for one document. */
export interface OneAnswer {
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
export interface DocMatches {
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
export interface ManyAnswer {
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

/** A grep job without its texts and page. */
export type Job = Omit<GrepJob, "texts" | "offset" | "limit">;

function runner(): GrepRunner {
  return grepRunner ??= new GrepRunner();
}

/** Grep one document (by id or path). */
export async function grepOne(
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

/** Grep every document of a scope, matches grouped by document. */
export async function grepMany(
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
  const ids = words.length ? await shelf.fts.candidates(words, scope) : inScope;
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
