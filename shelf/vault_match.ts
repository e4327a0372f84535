/**
 * Finding the text an `edit` replaces: exactly, else after normalizing both sides (Unicode
 * NFC, runs of whitespace, smart quotes and dashes), and when nothing matches, the closest
 * line and the first character that differs, for the error.
 *
 * @module
 */

/** How a text was found. */
export type MatchType = "exact" | "normalized";

/** Where a text occurs in another. */
export type Found =
  | { kind: "one"; start: number; end: number; match: MatchType }
  | { kind: "many"; offsets: number[]; match: MatchType }
  | { kind: "none" };

/** Offsets of every occurrence of `needle` in `hay` (overlapping ones too). */
function occurrences(hay: string, needle: string): number[] {
  const out: number[] = [];
  for (let i = hay.indexOf(needle); i !== -1; i = hay.indexOf(needle, i + 1)) out.push(i);
  return out;
}

const QUOTES: Record<string, string> = {
  "\u2018": "'",
  "\u2019": "'",
  "\u201a": "'",
  "\u201b": "'",
  "\u2032": "'",
  "\u201c": '"',
  "\u201d": '"',
  "\u201e": '"',
  "\u201f": '"',
  "\u2033": '"',
  "\u00ab": '"',
  "\u00bb": '"',
  "\u2010": "-",
  "\u2011": "-",
  "\u2012": "-",
  "\u2013": "-",
  "\u2014": "-",
  "\u2015": "-",
  "\u2212": "-",
};

/** A text normalized, with where each of its characters came from in the original. */
export interface Normalized {
  /** The normalized text. */
  text: string;
  /** Original offset where each normalized character's source begins. */
  from: number[];
  /** Original offset just after it. */
  to: number[];
}

/**
 * Normalize for matching: each base character with its combining marks in NFC, smart
 * quotes and dashes made plain, every run of whitespace one space.
 */
export function normalizeForMatch(s: string): Normalized {
  const out: string[] = [];
  const from: number[] = [];
  const to: number[] = [];
  for (const m of s.matchAll(/\s+|\P{M}\p{M}*|\p{M}+/gsu)) {
    const start = m.index;
    const end = start + m[0].length;
    const piece = /^\s/.test(m[0]) ? " " : (QUOTES[m[0]] ?? m[0].normalize("NFC"));
    for (const ch of piece) {
      out.push(ch);
      from.push(start);
      to.push(end);
    }
  }
  return { text: out.join(""), from, to };
}

/**
 * Where `needle` occurs in `hay`: exactly, else normalized (see {@linkcode normalizeForMatch}).
 *
 * @example
 * ```ts
 * import { findText } from "./vault_match.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(findText("a “quote” here", '"quote"'), {
 *   kind: "one", start: 2, end: 9, match: "normalized",
 * });
 * ```
 */
export function findText(hay: string, needle: string): Found {
  const exact = occurrences(hay, needle);
  if (exact.length === 1) {
    return { kind: "one", start: exact[0]!, end: exact[0]! + needle.length, match: "exact" };
  }
  if (exact.length > 1) return { kind: "many", offsets: exact, match: "exact" };
  const h = normalizeForMatch(hay);
  const n = normalizeForMatch(needle).text;
  // Whitespace at the ends of the needle need not be there in the text.
  const core = n.trim();
  if (!core) return { kind: "none" };
  const at = occurrences(h.text, core);
  if (at.length === 0) return { kind: "none" };
  if (at.length > 1) {
    return { kind: "many", offsets: at.map((i) => h.from[i]!), match: "normalized" };
  }
  const i = at[0]!;
  return { kind: "one", start: h.from[i]!, end: h.to[i + core.length - 1]!, match: "normalized" };
}

/** Where a text that is not there comes closest, for the error. */
export interface Closest {
  /** Offset (in the haystack) of the start of the closest line. */
  lineOffset: number;
  /** Offset of the first character that differs. */
  offset: number;
  /** The needle from a little before its first differing character. */
  expected: string;
  /** The haystack at the same place. */
  found: string;
}

/** Similarity of two short strings: the Dice coefficient of their character pairs. */
function dice(a: string, b: string): number {
  if (a.length < 2 || b.length < 2) return a === b ? 1 : 0;
  const pairs = new Map<string, number>();
  for (let i = 0; i < a.length - 1; i++) {
    const p = a.slice(i, i + 2);
    pairs.set(p, (pairs.get(p) ?? 0) + 1);
  }
  let shared = 0;
  for (let i = 0; i < b.length - 1; i++) {
    const p = b.slice(i, i + 2);
    const c = pairs.get(p) ?? 0;
    if (c > 0) {
      shared++;
      pairs.set(p, c - 1);
    }
  }
  return (2 * shared) / (a.length + b.length - 2);
}

function commonPrefix(a: string, aFrom: number, b: string): number {
  let k = 0;
  while (k < b.length && aFrom + k < a.length && a[aFrom + k] === b[k]) k++;
  return k;
}

const BEFORE = 15;
/** Where an excerpt from `from` ends: at `max`, or at the end of its line when sooner. */
function lineEnd(s: string, from: number, max: number): number {
  const nl = s.indexOf("\n", from);
  return nl === -1 ? Math.min(max, s.length) : Math.min(max, nl);
}
const AFTER = 25;

/**
 * The line where `needle` comes closest to occurring in `hay`, and its first differing
 * character: the line (from its first non-blank character) that shares the longest start
 * with the needle, else the line most like the needle's first line.
 *
 * @example
 * ```ts
 * import { closestMatch } from "./vault_match.ts";
 * import assert from "node:assert/strict";
 * const c = closestMatch("one\nthe cat sat\n", "the cot sat");
 * assert.equal(c.lineOffset, 4);
 * assert.equal(c.offset, 9);
 * ```
 */
export function closestMatch(hay: string, needle: string): Closest {
  const want = needle.replace(/^\s+/, "");
  const lines: number[] = [0];
  for (let i = hay.indexOf("\n"); i !== -1; i = hay.indexOf("\n", i + 1)) lines.push(i + 1);
  let best = { line: 0, at: 0, k: -1 };
  for (const l of lines) {
    let at = l;
    while (at < hay.length && (hay[at] === " " || hay[at] === "\t")) at++;
    const k = commonPrefix(hay, at, want);
    if (k > best.k) best = { line: l, at, k };
  }
  if (best.k < Math.min(4, want.length)) {
    const firstLine = want.split("\n")[0]!.trim();
    let score = -1;
    for (const l of lines) {
      const end = hay.indexOf("\n", l);
      const text = hay.slice(l, end === -1 ? hay.length : end);
      const s = dice(text.trim(), firstLine);
      if (s > score) {
        score = s;
        const at = l + (text.length - text.trimStart().length);
        best = { line: l, at, k: commonPrefix(hay, at, want) };
      }
    }
  }
  const offset = best.at + best.k;
  return {
    lineOffset: best.line,
    offset,
    expected: want.slice(Math.max(0, best.k - BEFORE), best.k + AFTER),
    found: hay.slice(Math.max(best.at, offset - BEFORE), lineEnd(hay, offset, offset + AFTER)),
  };
}
