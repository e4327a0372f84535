/**
 * Documents as `browse`, `find_documents` and `recent` answer them: a compact card in JSON
 * and one markdown line each.
 *
 * @module
 */
import type { DocEntry } from "../../core/listing.ts";
import { fileName } from "../../shelf/listings.ts";
import type { Shelf } from "../../shelf/shelf.ts";
import { escapeControl, n, shownPath } from "../tool.ts";
import { extensionSaysType } from "./_results.ts";

/** A document in a listing. */
export interface DocCard {
  /** Its id (for read, outline, ...). */
  doc_id: string;
  /** Card title. */
  title: string;
  /** Display path (absolute with `--full-paths`). */
  path: string;
  /** Extractor name. */
  doc_type: string;
  /** Lines `read` can return. */
  total_lines: number;
  /** File size in bytes. */
  size: number;
  /** File modification time, RFC 3339 UTC. */
  modified_at: string;
}

/** The card of a listed document. */
export function docCard(shelf: Shelf, e: DocEntry): DocCard {
  return {
    doc_id: e.doc_id,
    title: e.title,
    path: shownPath(shelf, e.path),
    doc_type: e.doc_type,
    total_lines: e.total_lines,
    size: e.size,
    modified_at: e.modified_at,
  };
}

/**
 * A count with its noun, plural unless one: `1 folder`, `3 folders`.
 *
 * @example
 * ```ts
 * import { count } from "./_listing.ts";
 * import assert from "node:assert/strict";
 * assert.equal(count(1, "edit"), "1 edit");
 * ```
 */
export function count(x: number, noun: string, plural = `${noun}s`): string {
  return `${n(x)} ${x === 1 ? noun : plural}`;
}

/** A size as people read it: `812 B`, `4.2 KB`, `13 MB`. */
export function bytes(size: number): string {
  if (size < 1024) return `${size} B`;
  const units = ["KB", "MB", "GB", "TB"];
  let v = size / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[u]}`;
}

/** Whether the title says more than the file name does (compared as words). */
function titleSaysMore(title: string, file: string): boolean {
  const words = (s: string) => s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim();
  const stem = file.replace(/\.[A-Za-z0-9]{1,5}$/, "");
  return !!title && words(title) !== words(stem);
}

/**
 * One markdown line for a document: `[id] name · Title · type · 12 lines · 4.2 KB · date`,
 * the title only when the file name does not say it, the type only when the extension
 * does not.
 *
 * @param c the document's card
 * @param label what to show for it: its path, or its file name inside a browsed folder
 */
export function docLine(c: DocCard, label: string): string {
  const file = fileName(c.path);
  const parts = [`[${c.doc_id}] ${escapeControl(label)}`];
  if (titleSaysMore(c.title, file)) parts.push(escapeControl(c.title.slice(0, 80)));
  if (!extensionSaysType(file, c.doc_type)) parts.push(c.doc_type);
  parts.push(count(c.total_lines, "line"), bytes(c.size), c.modified_at.slice(0, 10));
  return parts.join(" · ");
}
