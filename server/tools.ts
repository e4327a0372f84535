/**
 * The tools: each takes a shelf and validated arguments and returns a JSON answer.
 * Markdown renderings live in `render.ts`; MCP and the CLI only wrap these.
 *
 * @module
 */
import { renderOutline } from "../core/budget.ts";
import { clipWords } from "../core/outline.ts";
import { confinePath } from "../core/paths.ts";
import type { Shelf } from "../shelf/shelf.ts";
import { type Card, type Hit, type SearchFilters, ToolError } from "../core/types.ts";
import { rrf } from "../retrievers/fusion.ts";
import { findPaths } from "../retrievers/path.ts";
import { GrepRunner } from "./grep.ts";
import type { GrepMatch } from "./grep_worker.ts";
import type { ToolArgs } from "./schemas.ts";

/** A search result, as the tool contract names its fields. */
export type SearchResult =
  & Pick<
    Card,
    | "doc_id"
    | "title"
    | "path"
    | "library"
    | "doc_type"
    | "word_count"
    | "total_lines"
    | "has_outline"
    | "outline_quality"
    | "brief"
    | "modified_at"
    | "keywords"
  >
  & { relevance: number; snippet: string };

const MAX_LINE_CHARS = 2000;
/** The default outline view: a glance at the structure, about 500 tokens. */
const COMPACT_TOKENS = 500;
/** The default budget when the top level alone needs more than the compact view. */
const DEFAULT_TOKENS = 2000;
const lineCache = new Map<string, { lines: string[]; chars: number }>();
let cachedChars = 0;
/** Characters of text the line cache may hold (a few large documents, or many small ones). */
const CACHE_CHARS = 32 * 1024 * 1024;

/** The lines of a document version (a small cache keeps the last few, keyed by content hash). */
export function docLines(shelf: Shelf, docId: string, hash: string): string[] {
  const key = `${docId}:${hash}`;
  const hit = lineCache.get(key);
  if (hit) {
    lineCache.delete(key);
    lineCache.set(key, hit);
    return hit.lines;
  }
  const text = shelf.catalog.text(docId) ?? "";
  const lines = text === "" ? [] : text.split("\n");
  if (text.length > CACHE_CHARS) return lines;
  lineCache.set(key, { lines, chars: text.length });
  cachedChars += text.length;
  while (lineCache.size > 16 || cachedChars > CACHE_CHARS) {
    const [oldest, entry] = lineCache.entries().next().value!;
    lineCache.delete(oldest);
    cachedChars -= entry.chars;
  }
  return lines;
}

/** Resolve a `doc_id` argument (an id, or a path inside a library) to a stored id. */
export function resolveDoc(shelf: Shelf, arg: string): string {
  const id = arg.trim();
  if (/^[0-9a-f]{6,16}$/.test(id) && shelf.catalog.has(id)) return id;
  if (/[/\\\0]/.test(id) || id.startsWith("..")) {
    const path = confinePath(id, shelf.libraries);
    const found = shelf.catalog.idByPath(path);
    if (found) return found;
  }
  throw new ToolError(
    "DOCUMENT_NOT_FOUND",
    `No document ${JSON.stringify(arg)}`,
    "Use a doc_id from search results (or a path such as <library>/<folder>/<file>).",
  );
}

function checkLibrary(shelf: Shelf, name?: string): void {
  if (name !== undefined && !shelf.libraries.some((l) => l.name === name)) {
    throw new ToolError(
      "LIBRARY_NOT_FOUND",
      `No library named ${JSON.stringify(name)}`,
      `Libraries: ${shelf.libraries.map((l) => l.name).join(", ") || "(none)"}`,
    );
  }
}

/** Parse an ISO date or RFC 3339 time; a bare date as an upper bound means the end of that day. */
export function parseTime(arg: string, name: string, endOfDay: boolean): string {
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(arg);
  const d = new Date(dateOnly ? `${arg}T${endOfDay ? "23:59:59.999" : "00:00:00.000"}Z` : arg);
  if (!/^\d{4}-\d{2}-\d{2}/.test(arg) || Number.isNaN(d.getTime())) {
    throw new ToolError(
      "INVALID_ARGUMENT",
      `${name} ${JSON.stringify(arg)} is not an ISO date or RFC 3339 time`,
      "Use 2024-05-01 or 2024-05-01T12:00:00Z.",
    );
  }
  return d.toISOString();
}

/** Keyword hits fetched before fusion. */
const FUSION_DEPTH = 50;
/** Vector hits fused: deeper ones are mostly unrelated and only add noise. */
const VECTOR_DEPTH = 20;

/** Why a search fell back to keywords, or `undefined` when vectors can answer. */
function vectorsUnavailable(shelf: Shelf): string | undefined {
  const v = shelf.vectors;
  if (!v) return "no embedder configured, answered in keyword mode";
  if (v.ready) return undefined;
  const s = v.status();
  return s.state === "failed"
    ? `vectors failed (${s.error}), answered in keyword mode`
    : `vectors pending (${s.embedded} of ${
      s.embedded + s.pending
    } documents), answered in keyword mode`;
}

/** `search`: ranked cards, by keywords, vectors, or both fused (RRF, k = 60). */
export async function search(shelf: Shelf, a: ToolArgs<"search">) {
  checkLibrary(shelf, a.library);
  const filters: SearchFilters = {
    doc_types: a.doc_types.length ? a.doc_types.map((t) => t.toLowerCase()) : undefined,
    library: a.library,
    path_glob: a.path_glob,
    modified_after: a.modified_after && parseTime(a.modified_after, "modified_after", false),
    modified_before: a.modified_before && parseTime(a.modified_before, "modified_before", true),
  };
  const note = a.mode === "keyword" ? undefined : vectorsUnavailable(shelf);
  const mode: "hybrid" | "keyword" | "semantic" = note ? "keyword" : a.mode;
  let hits: Hit[];
  if (mode === "keyword") {
    hits = await shelf.keywordSearch({ text: a.query, limit: a.limit, filters });
  } else {
    const lance = shelf.vectors!.retriever;
    const depth = Math.max(a.limit, FUSION_DEPTH);
    // The query is embedded in the embedder's worker while BM25 runs here.
    const vectorHits = lance.search({ text: a.query, limit: depth, filters });
    const keyword = mode === "hybrid"
      ? await shelf.keywordSearch({ text: a.query, limit: depth, filters, snippets: 0 }).catch(
        async (e) => {
          await vectorHits.catch(() => {});
          throw e;
        },
      )
      : [];
    const vector = await vectorHits;
    const allowed = new Set(shelf.fts.constrain(vector.map((h) => h.doc_id), a.query));
    const vec = vector.filter((h) => allowed.has(h.doc_id));
    hits = mode === "hybrid"
      ? rrf([keyword, vec.slice(0, VECTOR_DEPTH)], 60, a.limit, [
        1,
        shelf.vectors!.embedder.fusionWeight ?? 1,
      ])
      : vec.slice(0, a.limit);
    const snippets = shelf.fts.snippets(hits.map((h) => h.doc_id), a.query);
    for (const h of hits) h.snippet = snippets.get(h.doc_id) ?? h.snippet;
  }
  const results = toResults(shelf, hits);
  if (a.time_sort !== "default") {
    const dir = a.time_sort === "newest" ? -1 : 1;
    results.sort((x, y) => dir * x.modified_at.localeCompare(y.modified_at));
  }
  return { query: a.query, mode_used: mode, note, results };
}

/** Cards of hits as search results (a hit without a snippet shows the abstract's start). */
function toResults(shelf: Shelf, hits: Hit[]): SearchResult[] {
  const cards = shelf.catalog.cards(hits.map((h) => h.doc_id));
  const results: SearchResult[] = [];
  for (const h of hits) {
    const c = cards.get(h.doc_id);
    if (!c) continue;
    results.push({
      doc_id: c.doc_id,
      title: c.title,
      path: shownPath(shelf, c.path),
      library: c.library,
      doc_type: c.doc_type,
      relevance: Math.round(h.score * 1000) / 1000,
      word_count: c.word_count,
      total_lines: c.total_lines,
      has_outline: c.has_outline,
      outline_quality: c.outline_quality,
      brief: c.brief,
      modified_at: c.modified_at,
      keywords: c.keywords,
      snippet: h.snippet ?? abstractStart(c.abstract),
    });
  }
  return results;
}

function abstractStart(abstract: string): string {
  return clipWords(abstract.replace(/\s+/g, " ").trim(), 200);
}

/** `similar`: the documents nearest to one document by their vectors. */
export async function similar(shelf: Shelf, a: ToolArgs<"similar">) {
  const id = resolveDoc(shelf, a.doc_id);
  const v = shelf.vectors;
  if (!v) {
    throw new ToolError(
      "INDEX_UNAVAILABLE",
      "No embedder is configured, so documents have no vectors",
      'Set "embedder" in shelfmark.json (or --embedder default) and let the index build.',
    );
  }
  const vector = await v.retriever.vectorOf(id);
  if (!vector) {
    const s = v.status();
    throw new ToolError(
      "INDEX_UNAVAILABLE",
      `Document ${id} has no vector yet (${s.embedded} of ${s.embedded + s.pending} embedded)`,
      "Try again when status shows vectors ready; search works meanwhile.",
    );
  }
  const hits = await v.retriever.nearest(vector, a.limit, {}, id);
  return { doc_id: id, results: toResults(shelf, hits) };
}

// deno-lint-ignore no-control-regex
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/g;

/** Control characters (newline, tab, ...) written as escapes, for one-line markdown fields. */
export function escapeControl(s: string): string {
  return s.replace(
    CONTROL_CHARS,
    (c) =>
      c === "\n"
        ? "\\n"
        : c === "\t"
        ? "\\t"
        : `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`,
  );
}

/** The path to show: the display path, or the absolute one with `--full-paths`. */
export function shownPath(shelf: Shelf, path: string): string {
  if (!shelf.fullPaths) return path;
  const [name, ...rest] = path.split("/");
  const lib = shelf.libraries.find((l) => l.name === name);
  return lib ? [lib.root, ...rest].join("/") : path;
}

/** `outline`: card and table of contents of each document, within a token budget. */
export function outline(shelf: Shelf, a: ToolArgs<"outline">) {
  const documents = [];
  const markdown: string[] = [];
  const missing: string[] = [];
  for (const arg of a.doc_ids) {
    let id: string;
    try {
      id = resolveDoc(shelf, arg);
    } catch (e) {
      if (e instanceof ToolError && e.code === "DOCUMENT_NOT_FOUND") {
        missing.push(arg);
        continue;
      }
      throw e;
    }
    const doc = shelf.catalog.get(id)!;
    const card = { ...doc.card, path: shownPath(shelf, doc.card.path) };
    const shown = { ...card, path: escapeControl(card.path), title: escapeControl(card.title) };
    let r = renderOutline(shown, doc.outline, {
      maxTokens: a.max_tokens ?? COMPACT_TOKENS,
      expand: a.expand,
    });
    // The compact default gives way when even the top level does not fit in it.
    if (a.max_tokens === undefined && r.budget === "truncated") {
      r = renderOutline(shown, doc.outline, { maxTokens: DEFAULT_TOKENS, expand: a.expand });
    }
    documents.push({ ...card, budget: r.budget, nodes: r.nodes });
    markdown.push(r.markdown);
  }
  if (documents.length === 0) {
    throw new ToolError(
      "DOCUMENT_NOT_FOUND",
      `No document ${missing.map((m) => JSON.stringify(m)).join(", ")}`,
      "Use doc_ids from search results.",
    );
  }
  return { json: { documents, missing: missing.length ? missing : undefined }, markdown };
}

/** `read`: numbered lines. */
export function read(shelf: Shelf, a: ToolArgs<"read">) {
  const id = resolveDoc(shelf, a.doc_id);
  const doc = shelf.catalog.get(id)!;
  const lines = docLines(shelf, id, doc.hash);
  let offset = a.offset;
  if (a.page !== undefined) {
    const pages = doc.pages;
    if (!pages?.length) {
      throw new ToolError(
        "INVALID_ARGUMENT",
        `Document ${id} has no pages`,
        "Use offset instead; page is for PDFs and scans.",
      );
    }
    if (a.page > pages.length) {
      throw new ToolError(
        "INVALID_ARGUMENT",
        `page ${a.page} is past the last page (${pages.length})`,
        `Pages run from 1 to ${pages.length}.`,
      );
    }
    offset = pages[a.page - 1]!;
  }
  const total = lines.length;
  if (offset > Math.max(total, 1)) {
    throw new ToolError(
      "INVALID_ARGUMENT",
      `offset ${offset} is past the end of the document (${total} lines)`,
      `Use an offset from 1 to ${total}.`,
    );
  }
  const end = Math.min(total, offset + a.limit - 1);
  const out = [];
  for (let n = offset; n <= end; n++) {
    const t = lines[n - 1]!;
    out.push({
      n,
      text: t.length > MAX_LINE_CHARS
        ? `${t.slice(0, MAX_LINE_CHARS)}… [line cut: ${t.length} chars]`
        : t,
    });
  }
  return {
    doc_id: id,
    title: doc.card.title,
    path: shownPath(shelf, doc.card.path),
    lines: out,
    offset,
    total_lines: total,
    next_offset: end < total ? end + 1 : null,
  };
}

let grepRunner: GrepRunner | undefined;

/** Stop the grep worker (the CLI calls this before exiting). */
export function closeGrep(): void {
  grepRunner?.close();
  grepRunner = undefined;
}

/** `grep`: regex matches inside one document, with context. */
export async function grep(shelf: Shelf, a: ToolArgs<"grep">) {
  const id = resolveDoc(shelf, a.doc_id);
  const flags = a.case_insensitive ? "i" : "";
  let useFlags = flags + "u";
  try {
    new RegExp(a.pattern, useFlags);
  } catch {
    try {
      new RegExp(a.pattern, flags);
      useFlags = flags;
    } catch (e) {
      throw new ToolError(
        "INVALID_PATTERN",
        `Invalid regular expression ${JSON.stringify(a.pattern)}: ${(e as Error).message}`,
        "Patterns are JavaScript regular expressions; escape special characters with \\.",
      );
    }
  }
  grepRunner ??= new GrepRunner();
  const text = shelf.catalog.text(id) ?? "";
  const r = await grepRunner.run({
    source: a.pattern,
    flags: useFlags,
    text,
    before: a.before ?? a.context,
    after: a.after ?? a.context,
    offset: a.offset,
    limit: a.limit,
    countOnly: a.output_mode === "count",
  });
  const card = shelf.catalog.cards([id]).get(id)!;
  const matches: GrepMatch[] = r.matches;
  return {
    doc_id: id,
    title: card.title,
    path: shownPath(shelf, card.path),
    pattern: a.pattern,
    total_matches: r.total,
    offset: a.offset,
    matches: a.output_mode === "count" ? undefined : matches,
    next_offset: a.output_mode === "count" || a.offset + matches.length >= r.total
      ? null
      : a.offset + matches.length,
  };
}

/** `list_libraries`. */
export function listLibraries(shelf: Shelf) {
  const building = shelf.status.state === "building";
  return {
    libraries: shelf.libraries.map((l) => ({
      name: l.name,
      description: l.description ?? "",
      document_count: shelf.catalog.count(l.name),
      state: building ? "building" : "ready",
      root: shelf.fullPaths ? l.root : undefined,
    })),
  };
}

/** `find_paths`: folders matching keywords. */
export function findPathsTool(shelf: Shelf, a: ToolArgs<"find_paths">) {
  checkLibrary(shelf, a.library);
  return findPaths(shelf.catalog.db, { patterns: a.patterns, library: a.library, limit: a.limit });
}

/** `status`: the skipped files are listed a page at a time (`skipped_offset`, `skipped_limit`). */
export function status(shelf: Shelf, a: ToolArgs<"status">) {
  const s = shelf.status;
  const skipped = shelf.catalog.skipped();
  const indexed = shelf.catalog.count();
  return {
    state: s.state,
    documents_indexed: indexed,
    documents_total: s.state === "building" ? s.progress.total : indexed + skipped.length,
    progress: s.state === "building"
      ? { done: s.progress.done, total: s.progress.total, current: s.progress.current }
      : undefined,
    vectors: shelf.vectors?.status() ??
      { state: "unavailable" as const, model: null, note: "no embedder configured" },
    libraries: shelf.libraries.map((l) => ({
      name: l.name,
      documents: shelf.catalog.count(l.name),
    })),
    skipped_count: skipped.length,
    skipped_offset: a.skipped_offset,
    skipped: skipped.slice(a.skipped_offset, a.skipped_offset + a.skipped_limit),
    started_at: s.started_at,
    finished_at: s.finished_at,
    last_error: s.last_error,
    data_dir: shelf.fullPaths ? shelf.data : undefined,
  };
}
