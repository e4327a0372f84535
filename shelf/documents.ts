/**
 * One document as the tools ask for it: found by its id or its path, its card and
 * outline, a range of its numbered lines (from an offset, a section or a page), and
 * where its original file lies on disk.
 *
 * @module
 */
import { findNode, flattenOutline } from "../core/outline.ts";
import { isAbsolute } from "node:path";
import { confinePath, isInside, realPath } from "../core/paths.ts";
import { type Card, type OutlineNode, ToolError } from "../core/types.ts";
import { pageOf } from "../search/passages.ts";
import type { Shelf } from "./shelf.ts";
import { versionOfHash } from "./vault.ts";
import { partsOf } from "./_parts.ts";

/**
 * What a document argument names: an id (16 hex digits or fewer; another machine's in a
 * shared store: `laptop:` before it) or a display path.
 */
function reference(shelf: Shelf, ref: string): { id: string } | { path: string } | undefined {
  const id = ref.trim();
  if (/^(?:[a-z0-9_-]+:)?[0-9a-f]{6,16}$/.test(id)) return { id };
  if (/[/\\\0]/.test(id) || id.startsWith("..")) return { path: storePath(shelf, id) };
  return undefined;
}

/** A display path of another machine's library: `laptop:Papers/...`. */
const OTHER_MACHINE_PATH = /^[a-z0-9_-]+:[^/\\]/;

/**
 * A path argument as the store names it: in a shared PostgreSQL store, another machine's
 * display path (`laptop:Papers/a.md`: no file here to confine) as it is, without a
 * trailing `/`; else confined to the configured libraries.
 *
 * @throws {ToolError} `PATH_OUTSIDE_LIBRARY` for a path outside every library
 */
export function storePath(shelf: Shelf, arg: string): string {
  if (shelf.config.store && OTHER_MACHINE_PATH.test(arg) && !isAbsolute(arg)) {
    return arg.replace(/\/+$/, "");
  }
  return confinePath(arg, shelf.libraries);
}

/**
 * The stored id of a document named by its id or by a path inside a library, or undefined.
 * A path outside every library fails with `PATH_OUTSIDE_LIBRARY`.
 */
export function findDocument(shelf: Shelf, ref: string): string | undefined {
  const r = reference(shelf, ref);
  const catalog = partsOf(shelf).catalog;
  if (r && "id" in r) return catalog.has(r.id) ? r.id : undefined;
  return r && catalog.idByPath(r.path);
}

/**
 * As {@link findDocument}, through the shelf's catalog store (a PostgreSQL store answers
 * without the local catalog's rows). With `check` false an id is returned without looking
 * it up (for a caller whose next read of the store fails on an unknown id anyway).
 */
export async function findStoredDocument(
  shelf: Shelf,
  ref: string,
  check = true,
): Promise<string | undefined> {
  const r = reference(shelf, ref);
  const store = partsOf(shelf).store;
  if (r && "id" in r) {
    return !check || (await store.cards([r.id])).has(r.id) ? r.id : undefined;
  }
  return r && await store.idByPath(r.path);
}

/** The error for a `doc_id` argument that names no stored document. */
export function documentNotFound(arg: string): ToolError {
  return new ToolError(
    "DOCUMENT_NOT_FOUND",
    `No document ${JSON.stringify(arg)}`,
    "Use a doc_id from search results (or a path such as <library>/<folder>/<file>).",
  );
}

/** A document's card and outline. */
export interface DocumentOutline {
  /** Its card (path: `<library>/<path inside it>`). */
  card: Card;
  /** Its table of contents. */
  outline: OutlineNode[];
}

/** The card and outline of a stored document, or undefined: one read of each, together. */
export async function documentOutline(
  shelf: Shelf,
  id: string,
): Promise<DocumentOutline | undefined> {
  const store = partsOf(shelf).store;
  const [head, sections] = await Promise.all([store.head(id), store.sections(id)]);
  return head && sections && { card: head.card, outline: sections.outline };
}

/** Which lines of a document to read. */
export interface ReadRequest {
  /** First line (1-based); ignored with `section` or `page`. */
  offset: number;
  /** Lines to return (default: 200, or the whole section or page). */
  limit?: number;
  /** A page of a paged document (PDF, scans). */
  page?: number;
  /** A range of pages of a paged document: `46-47` (or one page, `46`). */
  pages?: string;
  /** An outline section: its id (`3.2`, `§3.2`) or its heading's text. */
  section?: string;
}

/** Lines read from a document. */
export interface ReadLines {
  /** The document. */
  doc_id: string;
  /** Its title. */
  title: string;
  /** Its path, `<library>/<path inside it>`. */
  path: string;
  /**
   * The lines, numbered from 1 (a line over 2,000 characters is cut), with their page in
   * a paged document.
   */
  lines: { n: number; text: string; page?: number }[];
  /** The first line asked for. */
  offset: number;
  /** Lines of the document. */
  total_lines: number;
  /** The line after the last one returned, or null at the end. */
  next_offset: number | null;
  /** True when the section or pages asked for had more lines than were returned. */
  truncated?: boolean;
  /** The version tag of the file as indexed (`if_match` of the write tools). */
  version: string;
  /** Why the document was extracted only in part (its extractor stopped early), if it was. */
  partial?: string;
  /** The extractor's warnings of a document extracted only in part. */
  warnings?: string[];
  /** Extractions of a document extracted only in part that were cut short. */
  attempts?: number;
}

/** Characters of a line beyond which it is cut. */
export const MAX_LINE_CHARS = 2000;
/** Lines returned when neither a limit nor a section or page bounds the answer. */
const DEFAULT_LIMIT = 200;
/** Lines returned at most. */
export const MAX_READ_LINES = 500;

/** Text compared loosely: case and runs of white space ignored, a leading section mark dropped. */
function loose(s: string): string {
  return s.toLowerCase().replace(/\s+/g, " ").trim();
}

/** The outline node a `section` argument names: its id (`3.2`, `§3.2`) or its heading text. */
function findSection(outline: OutlineNode[], section: string): OutlineNode | undefined {
  const id = section.trim().replace(/^§\s*/, "");
  if (/^\d+(\.\d+)*$/.test(id)) {
    const node = findNode(outline, id);
    if (node) return node;
  }
  const want = loose(section);
  const all = flattenOutline(outline);
  return all.find((n) => loose(n.title) === want) ??
    all.find((n) => loose(n.title).replace(/^[\d.]+\s+/, "") === want.replace(/^[\d.]+\s+/, ""));
}

/** The headings of a document, for a miss: ids and titles, the first levels first. */
function headingList(outline: OutlineNode[]): string {
  const all = flattenOutline(outline).filter((n) => n.level <= 2).slice(0, 30);
  if (!all.length) return "This document has no outline; use offset and limit.";
  return `Sections: ${all.map((n) => `${n.id} ${n.title}`).join("; ")}` +
    (flattenOutline(outline).length > all.length ? "; … (see outline)" : "");
}

/**
 * Numbered lines of a stored document: from an offset, or a section of its outline, or a
 * page. A section or page it does not have, or an offset past its end, is an
 * `INVALID_ARGUMENT` naming what it has. Two reads of the catalog store: the document's
 * head (with its outline when a section is asked for), then the lines.
 */
export async function readLines(shelf: Shelf, id: string, r: ReadRequest): Promise<ReadLines> {
  const store = partsOf(shelf).store;
  // (the outline is read only when a section is asked for)
  const [doc, sections] = await Promise.all([
    store.head(id),
    r.section === undefined ? undefined : store.sections(id),
  ]);
  if (!doc) throw documentNotFound(id);
  const stated = doc.card.total_lines;
  let offset = r.offset;
  /** The last line the section or page asked for. */
  let last: number | undefined;
  if (r.section !== undefined) {
    const outline = sections?.outline ?? [];
    const node = findSection(outline, r.section);
    if (!node) {
      throw new ToolError(
        "INVALID_ARGUMENT",
        `No section ${JSON.stringify(r.section)} in ${id}`,
        headingList(outline),
      );
    }
    offset = node.start_line;
    last = node.end_line;
  } else if (r.page !== undefined || r.pages !== undefined) {
    [offset, last] = pageLines(id, doc.pages, r, stated);
  }
  if (offset > Math.max(stated, 1)) {
    throw new ToolError(
      "INVALID_ARGUMENT",
      `offset ${offset} is past the end of the document (${stated} lines)`,
      `Use an offset from 1 to ${stated}.`,
    );
  }
  const limit = r.limit ?? (last !== undefined ? last - offset + 1 : DEFAULT_LIMIT);
  const want = Math.min(stated, last ?? stated, offset + Math.min(limit, MAX_READ_LINES) - 1);
  const read = want < offset ? [] : await store.lines(id, offset, want) ?? [];
  // one empty line is an empty text (stored as such: no line to show)
  const total = stated === 1 && read.length === 1 && read[0] === "" ? 0 : stated;
  const end = Math.min(want, total);
  const out: ReadLines["lines"] = [];
  const pages = doc.pages?.length ? doc.pages : undefined;
  for (let n = offset; n <= end; n++) {
    const t = read[n - offset] ?? "";
    const line: ReadLines["lines"][number] = {
      n,
      text: t.length > MAX_LINE_CHARS
        ? `${t.slice(0, MAX_LINE_CHARS)}… [line cut: ${t.length} chars]`
        : t,
    };
    if (pages) line.page = pageOf(pages, n);
    out.push(line);
  }
  return {
    doc_id: id,
    title: doc.card.title,
    path: doc.card.path,
    lines: out,
    offset,
    total_lines: total,
    next_offset: end < total ? end + 1 : null,
    ...(last !== undefined && end < Math.min(last, total) ? { truncated: true } : {}),
    version: versionOfHash(doc.hash),
    // A document extracted only in part says so (why, and where its extractor stopped).
    ...(doc.card.partial
      ? { partial: doc.card.partial, warnings: doc.card.warnings, attempts: doc.card.attempts }
      : {}),
  };
}

/** A page range argument: `46-47` or `46`. */
const PAGE_RANGE = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/;

/**
 * The first and last line of the page or pages a read asks for.
 *
 * @throws {ToolError} `INVALID_ARGUMENT` for a document without pages, a page past its
 * last, a range that runs backwards, or `page` and `pages` together
 */
function pageLines(
  id: string,
  pages: number[] | undefined,
  r: ReadRequest,
  total: number,
): [number, number] {
  if (r.page !== undefined && r.pages !== undefined) {
    throw new ToolError(
      "INVALID_ARGUMENT",
      "page and pages do not go together",
      "Give page for one page, or pages for a range (46-47).",
    );
  }
  if (!pages?.length) {
    throw new ToolError(
      "INVALID_ARGUMENT",
      `Document ${id} has no pages`,
      "Use offset instead; page and pages are for PDFs, slides and scans.",
    );
  }
  let first = r.page ?? 0;
  let last = first;
  if (r.pages !== undefined) {
    const m = PAGE_RANGE.exec(r.pages);
    if (!m) {
      throw new ToolError(
        "INVALID_ARGUMENT",
        `pages ${JSON.stringify(r.pages)} is not a page range`,
        "Give one page (46) or a range (46-47).",
      );
    }
    first = Number(m[1]);
    last = Number(m[2] ?? m[1]);
    if (first < 1 || last < first) {
      throw new ToolError(
        "INVALID_ARGUMENT",
        `pages ${JSON.stringify(r.pages)} runs backwards or starts before page 1`,
        `Give a range from low to high, within 1-${pages.length}.`,
      );
    }
  }
  if (last > pages.length) {
    throw new ToolError(
      "INVALID_ARGUMENT",
      `page ${last} is past the last page (${pages.length})`,
      `Pages run from 1 to ${pages.length}.`,
    );
  }
  return [pages[first - 1]!, (pages[last] ?? total + 1) - 1];
}

/** Where a document's original file is, or why it cannot be served. */
export type DocumentFile =
  | { ok: true; path: string; name: string }
  | { ok: false; error: "not_found" | "gone" };

/**
 * The real path of a document's original file (symlinks resolved), provided it still lies
 * inside its library's root.
 */
export function documentFile(shelf: Shelf, id: string): DocumentFile {
  const card = partsOf(shelf).catalog.has(id)
    ? partsOf(shelf).catalog.cards([id]).get(id)
    : undefined;
  if (!card) return { ok: false, error: "not_found" };
  const [name, ...rest] = card.path.split("/");
  const lib = shelf.libraries.find((l) => l.name === name);
  const root = lib && realPath(lib.root);
  const real = root && rest.length ? realPath([lib.root, ...rest].join("/")) : undefined;
  if (!root || !real || !isInside(root, real)) return { ok: false, error: "gone" };
  return { ok: true, path: real, name: rest[rest.length - 1]! };
}
