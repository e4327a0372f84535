/**
 * Worker that runs a grep, so a catastrophic regular expression can be stopped by
 * terminating the worker instead of hanging the server (the entry module of the thread
 * `GrepRunner` starts).
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import { openReadOnly, textReader } from "../core/catalog_sql.ts";
import { serveThread } from "../core/worker_protocol.ts";

/**
 * A grep job: one pattern over the texts of one or more documents, given (`texts`) or read
 * by the worker from the catalog file (`file` and `ids`), so big scans neither copy every
 * text between threads nor keep the main thread busy reading.
 */
export interface GrepJob {
  source: string;
  flags: string;
  /** One text per document. */
  texts?: string[];
  /** The catalog file to read the texts of `ids` from (instead of `texts`). */
  file?: string;
  /**
   * Documents to grep, read from `file` in order until {@link BATCH_CHARS} characters are
   * read (at least one): the answer has one result per id read.
   */
  ids?: string[];
  /**
   * A substring every matching line contains (see `requiredLiteral`): texts without it
   * are not split into lines at all.
   */
  literal?: string;
  before: number;
  after: number;
  /** Matches to skip in each text. */
  offset: number;
  /** Matches to return from each text. */
  limit: number;
  countOnly: boolean;
}

/**
 * One match with its context. No line is given twice: `after` stops before the next
 * matching line and `before` starts after the previous match's `after`, so consecutive
 * matches whose windows touch read as one block.
 */
export interface GrepMatch {
  /** The matching line's number (1-based). */
  line: number;
  /** The matching line (a long one cut to a window around the match, `…` where cut). */
  text: string;
  /** Context lines before it (each cut to 200 characters). */
  before: string[];
  /** Context lines after it (each cut to 200 characters). */
  after: string[];
}

/** What one text gave: every match counted, those asked for with their context. */
export interface GrepResult {
  total: number;
  matches: GrepMatch[];
}

/** Characters of a matching line shown (a window around the match in longer lines). */
export const MAX_LINE = 500;
/** Characters of a context line shown. */
export const MAX_CONTEXT = 200;
/** Characters read from the catalog for one job (the job's time limit covers them). */
export const BATCH_CHARS = 8_000_000;

const clip = (s: string) => (s.length > MAX_CONTEXT ? s.slice(0, MAX_CONTEXT) + "…" : s);

/** A long matching line cut to a window that shows where it matches. */
function clipMatch(s: string, re: RegExp): string {
  if (s.length <= MAX_LINE) return s;
  re.lastIndex = 0;
  const at = re.exec(s)?.index ?? 0;
  if (at < MAX_LINE - 100) return s.slice(0, MAX_LINE) + "…";
  const start = Math.min(at - 100, s.length - MAX_LINE);
  return "…" + s.slice(start, start + MAX_LINE) + (start + MAX_LINE < s.length ? "…" : "");
}

// Module-level state, here only: this module is the entry of the grep worker thread (one
// per `GrepRunner`, owned by a Shelf), so the compiled patterns and the catalog handle
// below belong to that thread and end with it. Nothing else may import this module's
// state: the main thread imports only its types.
const compiled = new Map<string, RegExp>();
function regex(source: string, flags: string): RegExp {
  const key = `${flags}/${source}`;
  let re = compiled.get(key);
  if (!re) {
    if (compiled.size > 16) compiled.clear();
    re = new RegExp(source, flags);
    compiled.set(key, re);
  }
  return re;
}

/** Escape a text for use as a regular expression. */
export function escapeRegex(s: string): string {
  return s.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&");
}

/** Grep one text. */
function grepText(job: GrepJob, re: RegExp, text: string): GrepResult {
  const lines = text.split("\n");
  const hits: number[] = [];
  for (let i = 0; i < lines.length; i++) {
    re.lastIndex = 0;
    if (re.test(lines[i]!)) hits.push(i);
  }
  const matches: GrepMatch[] = [];
  if (job.countOnly) return { total: hits.length, matches };
  const first = Math.min(job.offset, hits.length);
  const last = Math.min(first + job.limit, hits.length);
  /** Index of the last line already given (the previous match's line or after). */
  let shownTo = -1;
  for (let k = first; k < last; k++) {
    const i = hits[k]!;
    const prev = k > 0 ? hits[k - 1]! : -1;
    const next = k + 1 < hits.length ? hits[k + 1]! : lines.length;
    const from = Math.max(i - job.before, prev + 1, shownTo + 1);
    const to = Math.min(i + job.after, next - 1);
    matches.push({
      line: i + 1,
      text: clipMatch(lines[i]!, re),
      before: lines.slice(from, i).map(clip),
      after: lines.slice(i + 1, to + 1).map(clip),
    });
    shownTo = Math.max(i, to);
  }
  return { total: hits.length, matches };
}

let catalog:
  | { file: string; db: DatabaseSync; text: (id: string) => string | undefined }
  | undefined;

/** The reader of texts of a catalog file (one handle, reopened when the file changes). */
function reader(file: string): (id: string) => string | undefined {
  if (catalog?.file !== file) {
    catalog?.db.close();
    catalog = undefined;
    const { db } = openReadOnly(file);
    // Texts read through a memory map: about twice as fast as through reads (the file only
    // grows: SQLite never shrinks it without VACUUM, which shelfmark does not run).
    db.exec("PRAGMA mmap_size = 1073741824");
    catalog = { file, db, text: textReader(db) };
  }
  return catalog.text;
}

/** Run a job: one result per text (or per id read), in order (exported for direct testing). */
export function runGrep(job: GrepJob): GrepResult[] {
  const re = regex(job.source, job.flags);
  const pre = job.literal ? regex(escapeRegex(job.literal), job.flags) : undefined;
  const one = (text: string) =>
    pre && !pre.test(text) ? { total: 0, matches: [] } : grepText(job, re, text);
  if (job.texts) return job.texts.map(one);
  const text = reader(job.file!);
  const out: GrepResult[] = [];
  let chars = 0;
  for (const id of job.ids ?? []) {
    if (chars >= BATCH_CHARS) break;
    const t = text(id) ?? "";
    chars += t.length;
    out.push(one(t));
  }
  return out;
}

serveThread({ handle: runGrep });
