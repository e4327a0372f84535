/**
 * The FTS5 MATCH expression of a parsed query (`search/query.ts`), and its split in two
 * for ranking a long question in two phases.
 *
 * Every token reaches FTS5 as a double-quoted string, so no user input (`NEAR`, `AND`,
 * `*`, `:`, `^`, parentheses, stray quotes) can produce an FTS5 syntax error.
 *
 * @module
 */
import { hasCJK, segmentCJK } from "../core/tokenize.ts";
import type { ParsedQuery, QueryItem, QueryUnit } from "../core/types.ts";
import { hasToken, isStopWord } from "../search/query.ts";

/** Quote a text as one FTS5 string (a phrase of its tokens), CJK runs segmented into words. */
function ftsString(text: string): string {
  // deno-lint-ignore no-control-regex -- NUL would cut the string short inside SQLite
  const clean = text.replace(/[\u0000-\u001f\u007f]+/g, " ");
  return `"${segmentCJK(clean).trim().replace(/\s+/g, " ").replaceAll('"', '""')}"`;
}

/**
 * FTS5 form of an optional plain CJK term: the phrase of its words, OR-ed with its words of
 * two characters or more, so a CJK sentence typed without spaces still finds documents
 * that contain only some of its words (the whole phrase ranks higher).
 */
function cjkAlternatives(item: QueryItem): string[] {
  const parts = segmentCJK(item.text).trim().split(/\s+/).filter(hasToken);
  const out = [ftsString(item.text)];
  if (parts.length > 1) {
    for (const p of new Set(parts)) {
      if ([...p].length > 1 || !hasCJK(p)) out.push(ftsString(p));
    }
  }
  return out;
}

function unitExpr(unit: QueryUnit, expandCJK: boolean): string | undefined {
  const alts: string[] = [];
  for (const item of unit.alternatives) {
    if (!hasToken(item.text)) continue;
    if (expandCJK && item.kind === "term" && hasCJK(item.text)) alts.push(...cjkAlternatives(item));
    else alts.push(ftsString(item.text));
  }
  const unique = [...new Set(alts)];
  if (unique.length === 0) return undefined;
  return unique.length === 1 ? unique[0] : `(${unique.join(" OR ")})`;
}

function exprs(units: QueryUnit[], expandCJK = false): string[] {
  return units.map((u) => unitExpr(u, expandCJK)).filter((e): e is string => e !== undefined);
}

/** The optional units that reach the MATCH expression (see {@link toFtsMatch}). */
function optionalUnits(
  parsed: ParsedQuery,
  hasRequired: boolean,
  isCommon?: (word: string) => boolean,
): QueryUnit[] {
  let units = parsed.optional.filter((u) => !u.alternatives.every(isStopWord));
  if (!hasRequired && exprs(units).length === 0) units = parsed.optional;
  if (isCommon) {
    // Words in most documents barely move BM25 but make every document a match: leave
    // them out while enough rarer words remain.
    const rare = units.filter((u) =>
      !u.alternatives.every((a) => a.kind === "term" && isCommon(a.text))
    );
    if (rare.length >= 2 || (rare.length >= 1 && hasRequired)) units = rare;
  }
  return units;
}

/**
 * Build a safe FTS5 MATCH expression from a parsed query.
 *
 * Optional units are OR-ed; required units AND-ed; with both, the optional ones are kept in
 * an OR group that the first required unit always satisfies (`R1 AND R2 AND (R1 OR o1 OR
 * o2)`) so they add to BM25 without being required. Excluded units follow `NOT`. Stop
 * words are dropped from optional plain terms unless that leaves nothing to search;
 * tokens the unicode61 tokenizer reduces to nothing (`*`, `-`, `^`) are dropped.
 *
 * @param parsed the output of `parseQuery` (`search/query.ts`)
 * @returns the MATCH expression, or `undefined` when nothing searchable remains
 * @example
 * ```ts
 * import { parseQuery } from "../search/query.ts";
 * import { toFtsMatch } from "./fts5_match.ts";
 * import assert from "node:assert/strict";
 * assert.equal(toFtsMatch(parseQuery("docker -swarm")), '("docker") NOT "swarm"');
 * ```
 */
export function toFtsMatch(
  parsed: ParsedQuery,
  isCommon?: (word: string) => boolean,
): string | undefined {
  const required = exprs(parsed.required);
  const optional = exprs(optionalUnits(parsed, required.length > 0, isCommon), true);
  const excluded = exprs(parsed.excluded);
  let positive: string;
  if (required.length && optional.length) {
    positive = [...required, `(${[required[0], ...optional].join(" OR ")})`].join(" AND ");
  } else if (required.length) {
    positive = required.join(" AND ");
  } else if (optional.length) {
    positive = optional.join(" OR ");
  } else {
    return undefined;
  }
  if (!excluded.length) return positive;
  const neg = excluded.length === 1 ? excluded[0] : `(${excluded.join(" OR ")})`;
  return `(${positive}) NOT ${neg}`;
}

/** A question's MATCH expression split in two for ranking in two phases. */
export interface TieredMatch {
  /** The rarer optional units, OR-ed: the documents that hold one are the candidates. */
  rare: string;
  /** The other optional units, OR-ed: they add to the candidates' BM25 only (may be empty). */
  common: string;
  /** Number of rare units. */
  rareUnits: number;
  /** The excluded units, OR-ed, when there are any (they follow `NOT`). */
  excluded?: string;
}

/** How many documents the words of a question may match in {@link tieredMatch}. */
export interface TierLimits {
  /** Split only when the units' documents add up to more than this. */
  whole: number;
  /** The rare units' documents add up to at most this (the rarest unit always counts). */
  rare: number;
  /**
   * Common units in more documents than this are left out (FTS5's BM25 gives a word in
   * half the documents or more an IDF of 1e-6: it cannot change the ranking).
   */
  drop?: number;
  /** Rare units taken at least (default 1): more when the rarest match too few documents. */
  minRare?: number;
}

/**
 * Split a question of optional words (no quoted phrase, no `+` unit) into its rarer and
 * its more common words, for ranking in two phases: BM25 is a sum over the query's
 * phrases, so `rare AND common` scores a document exactly as the whole OR does, while the
 * index only visits the documents that hold a rare word. The rarest units are taken while
 * their documents add up to at most `limits.rare`.
 *
 * @param parsed the output of `parseQuery` (`search/query.ts`)
 * @param docs documents an optional unit matches (an estimate)
 * @param limits when to split, and how many documents the rare units may match
 * @param isCommon as in {@link toFtsMatch}
 * @returns the split, or `undefined` when there is nothing to split (a `+` unit or quoted
 *   phrase, fewer than two optional units, or few enough documents to rank them all)
 * @example
 * ```ts
 * import { parseQuery } from "../search/query.ts";
 * import { tieredMatch } from "./fts5_match.ts";
 * import assert from "node:assert/strict";
 * const df: Record<string, number> = { zlib: 3, objects: 900, thousands: 400 };
 * const t = tieredMatch(
 *   parseQuery("thousands of zlib objects"),
 *   (u) => df[u.alternatives[0]!.text] ?? 0,
 *   { whole: 1000, rare: 100 },
 * );
 * assert.equal(t?.rare, '"zlib"');
 * assert.equal(t?.common, '"thousands" OR "objects"');
 * ```
 */
export function tieredMatch(
  parsed: ParsedQuery,
  docs: (unit: QueryUnit) => number,
  limits: TierLimits,
  isCommon?: (word: string) => boolean,
): TieredMatch | undefined {
  if (parsed.required.length) return undefined;
  const units = optionalUnits(parsed, false, isCommon)
    .map((unit) => ({ unit, expr: unitExpr(unit, true) }))
    .filter((u): u is { unit: QueryUnit; expr: string } => u.expr !== undefined);
  if (units.length < 2) return undefined;
  const byDocs = units.map((u) => ({ ...u, n: docs(u.unit) })).sort((a, b) => a.n - b.n);
  if (byDocs.reduce((sum, u) => sum + u.n, 0) <= limits.whole) return undefined;
  let cut = Math.max(1, limits.minRare ?? 1);
  let total = byDocs.slice(0, cut).reduce((sum, u) => sum + u.n, 0);
  while (cut < byDocs.length && total + byDocs[cut]!.n <= limits.rare) total += byDocs[cut++]!.n;
  if (cut >= byDocs.length) return undefined;
  // each part keeps the question's order
  const rare = new Set(byDocs.slice(0, cut).map((u) => u.unit));
  const common = new Set(
    byDocs.slice(cut).filter((u) => u.n <= (limits.drop ?? Infinity)).map((u) => u.unit),
  );
  const part = (set: Set<QueryUnit>) =>
    units.filter((u) => set.has(u.unit)).map((u) => u.expr).join(" OR ");
  const out: TieredMatch = { rare: part(rare), common: part(common), rareUnits: cut };
  const excluded = exprs(parsed.excluded);
  if (excluded.length) out.excluded = excluded.join(" OR ");
  return out;
}
