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
import { pageOf } from "../search/passages.ts";

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
  /**
   * Which line breaks a match may cross (see `wrapOf` in `grep_pattern.ts`): `spaces`, a break inside a
   * paragraph read as a space and a hyphenated line end as the whole word; `hyphens`, the
   * hyphenated line ends only; absent, none.
   */
  wrap?: "spaces" | "hyphens";
  before: number;
  after: number;
  /** Matches to skip in each text. */
  offset: number;
  /** Matches to return from each text. */
  limit: number;
  countOnly: boolean;
  /**
   * Give one match per text, without context: its best line, the one holding the most
   * distinct matched strings (then the most matches; the first on ties).
   */
  best?: boolean;
}

/**
 * One match with its context. No line is given twice: `after` stops before the next
 * matching line and `before` starts after the previous match's `after`, so consecutive
 * matches whose windows touch read as one block.
 */
export interface GrepMatch {
  /** The matching line's number (1-based). */
  line: number;
  /** The last line of a match that crosses line breaks (absent when it is one line). */
  end_line?: number;
  /** The page of `line` in a paged document (PDF, slides, scans). */
  page?: number;
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
export const MAX_LINE = 300;
/** Characters of a best line shown (one line of a list of documents). */
export const BEST_LINE = 160;
/** Matching lines of a text compared for its best line. */
const BEST_OF = 200;
/** Characters of a context line shown. */
export const MAX_CONTEXT = 200;
/** Characters read from the catalog for one job (the job's time limit covers them). */
export const BATCH_CHARS = 8_000_000;

const clip = (s: string) => (s.length > MAX_CONTEXT ? s.slice(0, MAX_CONTEXT) + "…" : s);

/** The lines of a match across line breaks, as one line (cut after the match's start). */
const spanText = (ls: string[]) => {
  const s = ls.map((l) => l.trim()).join(" ");
  return s.length > MAX_LINE ? s.slice(0, MAX_LINE) + "…" : s;
};

/**
 * A long matching line cut to a window of `MAX_LINE` characters around its first match
 * (the match a quarter in, unless it is near an end), at word boundaries, `…` where cut.
 */
export function clipMatch(s: string, re: RegExp, max = MAX_LINE): string {
  if (s.length <= max) return s;
  re.lastIndex = 0;
  const at = re.exec(s)?.index ?? 0;
  let start = Math.max(0, Math.min(at - Math.floor(max / 4), s.length - max));
  let end = start + max;
  if (start > 0) {
    const sp = s.indexOf(" ", start);
    if (sp >= 0 && sp < Math.min(at, start + 20)) start = sp + 1;
  }
  if (end < s.length) {
    const sp = s.lastIndexOf(" ", end);
    if (sp > Math.max(at, end - 20)) end = sp;
  }
  return (start > 0 ? "…" : "") + s.slice(start, end) + (end < s.length ? "…" : "");
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

/** A word broken at a line end (`manu-`) and its rest on the next line (`als`). */
const HYPHEN_END = /\p{L}-\s*$/u;
const LOWER_START = /^\s*\p{Ll}/u;
const BLANK = /^\s*$/;

/**
 * The text with its line breaks joined as `wrap` says, and where each line starts in it.
 * A break left as it is stays a newline, so a match never crosses it.
 */
function joinLines(
  lines: string[],
  wrap: "spaces" | "hyphens",
  keepHyphen: boolean,
): { text: string; starts: number[] } {
  const parts: string[] = [];
  const starts: number[] = [];
  let len = 0;
  let joined = false;
  for (let i = 0; i < lines.length; i++) {
    let piece = joined ? lines[i]!.trimStart() : lines[i]!;
    const next = lines[i + 1];
    let sep = "\n";
    if (next === undefined) sep = "";
    else if (HYPHEN_END.test(piece) && LOWER_START.test(next)) {
      // `manu-` / `als` is `manuals`, unless the pattern spells a hyphen (`memory-mapped`).
      piece = keepHyphen ? piece.trimEnd() : piece.trimEnd().slice(0, -1);
      sep = "";
    } else if (wrap === "spaces" && !BLANK.test(piece) && !BLANK.test(next)) {
      piece = piece.trimEnd();
      sep = " ";
    }
    joined = sep !== "\n";
    starts.push(len);
    parts.push(piece, sep);
    len += piece.length + sep.length;
  }
  return { text: parts.join(""), starts };
}

/** The index of the line holding character `at` (line starts are searched like pages). */
const lineAt = (starts: number[], at: number) => pageOf(starts, at)! - 1;

/**
 * Matches that cross a line break and start on a line without a match of its own: the
 * index of their first line -> the index of their last.
 */
function crossingMatches(
  job: GrepJob,
  lines: string[],
  text: string,
  single: Set<number>,
): Map<number, number> {
  const spans = new Map<number, number>();
  if (!job.wrap || (job.wrap === "hyphens" && !text.includes("-\n"))) return spans;
  const joined = joinLines(lines, job.wrap, job.source.includes("-"));
  const re = regex(job.source, job.flags.includes("g") ? job.flags : job.flags + "g");
  re.lastIndex = 0;
  for (let m = re.exec(joined.text); m; m = re.exec(joined.text)) {
    if (!m[0].length) {
      re.lastIndex++;
      continue;
    }
    const a = lineAt(joined.starts, m.index);
    const b = lineAt(joined.starts, m.index + m[0].length - 1);
    if (b > a && !single.has(a) && !spans.has(a)) spans.set(a, b);
  }
  return spans;
}

/** The index of the line of `hits` holding the most distinct matches (see `GrepJob.best`). */
function bestLine(job: GrepJob, lines: string[], hits: number[]): number | undefined {
  const all = regex(job.source, job.flags.includes("g") ? job.flags : job.flags + "g");
  let best: number | undefined;
  let score = -1;
  for (const i of hits) {
    const found: string[] = [];
    all.lastIndex = 0;
    for (let m = all.exec(lines[i]!); m; m = all.exec(lines[i]!)) {
      if (!m[0].length) all.lastIndex++;
      else found.push(m[0].toLowerCase());
    }
    const s = new Set(found).size * 1000 + Math.min(found.length, 999);
    if (s > score) {
      score = s;
      best = i;
    }
  }
  return best;
}

/** Grep one text. */
function grepText(job: GrepJob, re: RegExp, text: string): GrepResult {
  const lines = text.split("\n");
  const single = new Set<number>();
  for (let i = 0; i < lines.length; i++) {
    re.lastIndex = 0;
    if (re.test(lines[i]!)) single.add(i);
  }
  const spans = crossingMatches(job, lines, text, single);
  const hits = spans.size ? [...single, ...spans.keys()].sort((a, b) => a - b) : [...single];
  const matches: GrepMatch[] = [];
  if (job.countOnly) return { total: hits.length, matches };
  if (job.best) {
    const i = bestLine(job, lines, hits.slice(0, BEST_OF));
    if (i === undefined) return { total: hits.length, matches };
    const end = spans.get(i) ?? i;
    const text = end > i
      ? clipMatch(spanText(lines.slice(i, end + 1)), re, BEST_LINE)
      : clipMatch(lines[i]!, re, BEST_LINE);
    const m: GrepMatch = { line: i + 1, text, before: [], after: [] };
    if (end > i) m.end_line = end + 1;
    return { total: hits.length, matches: [m] };
  }
  const first = Math.min(job.offset, hits.length);
  const last = Math.min(first + job.limit, hits.length);
  /** Index of the last line already given (the previous match's lines or after). */
  let shownTo = -1;
  for (let k = first; k < last; k++) {
    const i = hits[k]!;
    const end = spans.get(i) ?? i;
    const prevEnd = k > 0 ? (spans.get(hits[k - 1]!) ?? hits[k - 1]!) : -1;
    const next = k + 1 < hits.length ? hits[k + 1]! : lines.length;
    const from = Math.max(i - job.before, prevEnd + 1, shownTo + 1);
    const to = Math.min(end + job.after, next - 1);
    const match: GrepMatch = {
      line: i + 1,
      text: end > i ? spanText(lines.slice(i, end + 1)) : clipMatch(lines[i]!, re),
      before: lines.slice(from, i).map(clip),
      after: lines.slice(end + 1, to + 1).map(clip),
    };
    if (end > i) match.end_line = end + 1;
    matches.push(match);
    shownTo = Math.max(end, to);
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
