/**
 * Name matching for `find_documents`: a query against each document's file name, file
 * name without extension, and title, ranked exact > prefix > contains (case, accents and
 * separators ignored), and on request fuzzy: the fewest edits (insert, delete, substitute,
 * swap two neighbours) turning the query into some part of a name, within a budget that
 * grows with the query's length.
 *
 * @module
 */

/** How a name matched, best first. */
export type MatchKind = "exact" | "prefix" | "contains" | "fuzzy";

/** Ranks of the kinds (lower is better). */
const RANK: Record<MatchKind, number> = { exact: 0, prefix: 1, contains: 2, fuzzy: 3 };

/**
 * A name as matched: accents dropped, lower case, runs of spaces, `_`, `-` and `.` made one
 * space.
 *
 * @example
 * ```ts
 * import { normalizeName } from "./names.ts";
 * import assert from "node:assert/strict";
 * assert.equal(normalizeName("Résumé_2024-final.PDF"), "resume 2024 final pdf");
 * ```
 */
export function normalizeName(s: string): string {
  return s.normalize("NFKD").replace(/\p{M}+/gu, "").toLowerCase().replace(/[\s_.\-]+/g, " ")
    .trim();
}

/**
 * Edits a query of this many characters may need and still match fuzzily: none up to 3,
 * one up to 5, two up to 9, three beyond.
 */
export function editBudget(length: number): number {
  return length <= 3 ? 0 : length <= 5 ? 1 : length <= 9 ? 2 : 3;
}

/** Characters of the query the fuzzy match looks at, at most. */
const MAX_FUZZY_CHARS = 64;

/**
 * The fewest edits (insertion, deletion, substitution, transposition of two neighbours)
 * that turn `q` into some substring of `t` (the optimal string alignment distance), capped
 * at `max + 1`. Queries of up to 32 characters take Hyyrö's bit-parallel form of Myers'
 * algorithm (one pass over `t`, a machine word per column); longer ones the dynamic
 * programme of {@link substringDistanceDP}.
 *
 * @example
 * ```ts
 * import { substringDistance } from "./names.ts";
 * import assert from "node:assert/strict";
 * assert.equal(substringDistance("pyhton", "the python tutorial", 2), 1);
 * ```
 */
export function substringDistance(q: string, t: string, max: number): number {
  const m = q.length;
  if (m === 0) return 0;
  if (m > 32) return substringDistanceDP(q, t, max);
  if (m - max > t.length) return max + 1;
  const peq = peqOf(q);
  const high = 1 << (m - 1);
  let vp = -1; // every vertical difference +1: column 0 is 0, 1, ..., m
  let vn = 0;
  let d0 = 0;
  let pmPrev = 0;
  let score = m;
  let best = m;
  for (let j = 0; j < t.length; j++) {
    const pm = peq.get(t.charCodeAt(j)) ?? 0;
    // Transpositions: a match of q[i] with t[j-1] and of q[i-1] with t[j] (Hyyrö 2002).
    const tr = ((~d0 & pm) << 1) & pmPrev;
    d0 = (((pm & vp) + vp) ^ vp) | pm | vn | tr;
    const hp = vn | ~(d0 | vp);
    const hn = d0 & vp;
    if (hp & high) score++;
    else if (hn & high) score--;
    // Row 0 is all zeros (a match may start anywhere): no carry into bit 0.
    const x = hp << 1;
    vn = x & d0;
    vp = (hn << 1) | ~(x | d0);
    pmPrev = pm;
    if (score < best) best = score;
  }
  return Math.min(best, max + 1);
}

/** For each character of `q`, the bit mask of its positions. */
function peqOf(q: string): Map<number, number> {
  const peq = new Map<number, number>();
  for (let i = 0; i < q.length; i++) {
    const c = q.charCodeAt(i);
    peq.set(c, (peq.get(c) ?? 0) | (1 << i));
  }
  return peq;
}

/**
 * {@link substringDistance} by dynamic programming (Sellers' algorithm with transpositions,
 * rows dropped once every later one must exceed `max`): for queries over 32 characters,
 * and as the reference the bit-parallel form is tested against.
 */
export function substringDistanceDP(q: string, t: string, max: number): number {
  const m = Math.min(q.length, MAX_FUZZY_CHARS);
  const n = t.length;
  if (m === 0) return 0;
  if (m - max > n) return max + 1;
  let prev2 = new Int32Array(n + 1);
  let prev = new Int32Array(n + 1); // row 0: a match may start anywhere
  let cur = new Int32Array(n + 1);
  let prevMin = 0;
  for (let i = 1; i <= m; i++) {
    cur[0] = i;
    let rowMin = i;
    const qi = q.charCodeAt(i - 1);
    for (let j = 1; j <= n; j++) {
      const tj = t.charCodeAt(j - 1);
      let d = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (qi === tj ? 0 : 1));
      if (
        i > 1 && j > 1 && qi === t.charCodeAt(j - 2) && q.charCodeAt(i - 2) === tj
      ) d = Math.min(d, prev2[j - 2]! + 1);
      cur[j] = d;
      if (d < rowMin) rowMin = d;
    }
    // Later rows can only fall below max + 1 from a row at most max (or the one before).
    if (rowMin > max && prevMin >= max) return max + 1;
    prevMin = rowMin;
    [prev2, prev, cur] = [prev, cur, prev2];
  }
  let best = max + 1;
  for (let j = 0; j <= n; j++) if (prev[j]! < best) best = prev[j]!;
  return best;
}

/**
 * How well a match at `at` of `length` characters sits on word boundaries: 0 whole words,
 * 1 starting a word, 2 otherwise.
 */
function boundaries(t: string, at: number, length: number): number {
  const starts = at === 0 || t[at - 1] === " ";
  const ends = at + length === t.length || t[at + length] === " ";
  return starts ? (ends ? 0 : 1) : 2;
}

/** The names of a document to match against, normalised. */
export interface Names {
  /** File name with its extension. */
  name: string;
  /** File name without its extension. */
  stem: string;
  /** Title. */
  title: string;
}

/** The names of a document at `path` with `title`, normalised. */
export function namesOf(path: string, title: string): Names {
  const file = path.slice(path.lastIndexOf("/") + 1);
  const dot = file.lastIndexOf(".");
  return {
    name: normalizeName(file),
    stem: normalizeName(dot > 0 ? file.slice(0, dot) : file),
    title: normalizeName(title),
  };
}

/** How one document matched. */
export interface NameMatch {
  /** The kind of match. */
  kind: MatchKind;
  /** Which name matched: the file name or the title. */
  on: "name" | "title";
  /** Edits needed (fuzzy matches; 0 otherwise). */
  distance: number;
  /** Sort key: lower is better (kind, then word start, distance, length of the name). */
  score: number;
}

/**
 * How a normalised query matches a document's names, or undefined when it does not.
 *
 * @param q the query, normalised ({@link normalizeName})
 * @param names the document's names
 * @param fuzzy whether to try an approximate match when the exact kinds fail
 * @example
 * ```ts
 * import { matchNames, namesOf } from "./names.ts";
 * import assert from "node:assert/strict";
 * const names = namesOf("Lib/Annual-Report-2023.pdf", "Report");
 * assert.equal(matchNames("annual report", names, false)?.kind, "prefix");
 * ```
 */
export function matchNames(q: string, names: Names, fuzzy: boolean): NameMatch | undefined {
  let best: NameMatch | undefined;
  const consider = (
    kind: MatchKind,
    on: "name" | "title",
    target: string,
    distance: number,
    words: number,
  ) => {
    // Kind first, then whole words over a word's start over inside a word, fewer edits,
    // a shorter (closer) name.
    const score = RANK[kind] * 1e6 + words * 2.5e5 + distance * 1e4 +
      Math.min(target.length, 9999);
    if (!best || score < best.score) best = { kind, on, distance, score };
  };
  const targets: ["name" | "title", string][] = [
    ["name", names.stem],
    ["name", names.name],
    ["title", names.title],
  ];
  for (const [on, t] of targets) {
    if (!t) continue;
    if (t === q) consider("exact", on, t, 0, 0);
    else if (t.startsWith(q)) consider("prefix", on, t, 0, boundaries(t, 0, q.length));
    else {
      let words = 3;
      for (let at = t.indexOf(q, 1); at > 0 && words > 0; at = t.indexOf(q, at + 1)) {
        words = Math.min(words, boundaries(t, at, q.length));
      }
      if (words < 3) consider("contains", on, t, 0, words);
    }
  }
  if (best || !fuzzy) return best;
  const budget = editBudget(q.length);
  if (budget === 0) return undefined;
  // The file name holds its stem: its distance is never more.
  for (const [on, t] of targets.slice(1)) {
    if (!t) continue;
    const d = substringDistance(q, t, budget);
    if (d <= budget) consider("fuzzy", on, t, d, 0);
  }
  return best;
}
