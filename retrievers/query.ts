/**
 * The search query syntax of the `search` tool, parsed into a small AST and turned into a
 * safe SQLite FTS5 MATCH expression.
 *
 * Syntax: plain terms are ranked and need not all match; `"quoted phrase"` must match;
 * `-term` / `-"phrase"` exclude; `+term` requires; `a|b` (also `a | b`) is one group of
 * alternatives, optional unless prefixed with `+` (or excluded with `-`).
 *
 * Every token reaches FTS5 as a double-quoted string, so no user input (`NEAR`, `AND`,
 * `*`, `:`, `^`, parentheses, stray quotes) can produce an FTS5 syntax error.
 *
 * @module
 */
import { normalizeFieldFilters } from "../core/fields.ts";
import { bareWord, hasCJK, segmentCJK, STOP_WORDS } from "../core/tokenize.ts";
import {
  type ParsedQuery,
  type Query,
  type QueryItem,
  type QueryUnit,
  type SearchFilters,
  ToolError,
} from "../core/types.ts";

/**
 * Parse a query in the search syntax. Never throws: stray quotes close at the end of
 * the text, lone prefixes and empty phrases are ignored.
 *
 * @param text the user's query
 * @returns the units, sorted into optional, required and excluded
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const q = parseQuery('docker "compose file" -swarm +linux a|b');
 * const texts = (units: typeof q.required) =>
 *   units.map((u) => u.alternatives.map((a) => a.text).join("|"));
 * assert.deepEqual(texts(q.required), ["compose file", "linux"]);
 * assert.deepEqual(texts(q.optional), ["docker", "a|b"]);
 * assert.deepEqual(texts(q.excluded), ["swarm"]);
 * ```
 */
export function parseQuery(text: string): ParsedQuery {
  const out: ParsedQuery = { optional: [], required: [], excluded: [] };
  const s = text.normalize("NFC");
  let i = 0;
  const skipSpace = () => {
    while (i < s.length && /\s/.test(s[i]!)) i++;
  };
  const readItem = (): QueryItem | undefined => {
    if (s[i] === '"') {
      const end = s.indexOf('"', i + 1);
      const stop = end < 0 ? s.length : end;
      const body = s.slice(i + 1, stop).trim();
      i = end < 0 ? s.length : end + 1;
      return body ? { kind: "phrase", text: body } : undefined;
    }
    const start = i;
    while (i < s.length && !/\s/.test(s[i]!) && s[i] !== "|") i++;
    const body = s.slice(start, i);
    return body ? { kind: "term", text: body } : undefined;
  };
  while (true) {
    skipSpace();
    if (i >= s.length) break;
    let prefix = "";
    // `-word` excludes and `+word` requires; `--option` and `-1` are plain terms.
    if (
      (s[i] === "+" || s[i] === "-") && /^[+-](?:["\p{L}_]|\d+[\p{L}_])/u.test(s.slice(i, i + 3))
    ) {
      prefix = s[i++]!;
    } else if (s[i] === "+" || s[i] === "-") {
      while (s[i] === "+" || s[i] === "-") i++;
    }
    const alternatives: QueryItem[] = [];
    const first = readItem();
    if (first) alternatives.push(first);
    while (true) {
      const save = i;
      skipSpace();
      if (s[i] !== "|") {
        i = save;
        break;
      }
      i++;
      skipSpace();
      const alt = i < s.length ? readItem() : undefined;
      if (alt) alternatives.push(alt);
    }
    if (alternatives.length === 0) continue;
    const unit = { alternatives };
    if (prefix === "-") out.excluded.push(unit);
    else if (prefix === "+") out.required.push(unit);
    else if (alternatives.length === 1 && first?.kind === "phrase") out.required.push(unit);
    else out.optional.push(unit);
  }
  return out;
}

/** True when the unicode61 tokenizer finds at least one token (letter, number, private use). */
function hasToken(text: string): boolean {
  return /[\p{L}\p{N}\p{Co}]/u.test(text);
}

/** Quote a text as one FTS5 string (a phrase of its tokens), CJK runs segmented into words. */
function ftsString(text: string): string {
  // deno-lint-ignore no-control-regex -- NUL would cut the string short inside SQLite
  const clean = text.replace(/[\u0000-\u001f\u007f]+/g, " ");
  return `"${segmentCJK(clean).trim().replace(/\s+/g, " ").replaceAll('"', '""')}"`;
}

/** A stop word, also with punctuation around it (`it?`, `¿Cómo`, `(the`). */
function isStopWord(item: QueryItem): boolean {
  return item.kind === "term" && STOP_WORDS.has(bareWord(item.text));
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
 * @param parsed the output of {@link parseQuery}
 * @returns the MATCH expression, or `undefined` when nothing searchable remains
 * @example
 * ```ts
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
 * @param parsed the output of {@link parseQuery}
 * @param docs documents an optional unit matches (an estimate)
 * @param limits when to split, and how many documents the rare units may match
 * @param isCommon as in {@link toFtsMatch}
 * @returns the split, or `undefined` when there is nothing to split (a `+` unit or quoted
 *   phrase, fewer than two optional units, or few enough documents to rank them all)
 * @example
 * ```ts
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

/**
 * The positive (optional and required) terms and phrases of a query, as written, for
 * highlighting and path matching. Items the tokenizer reduces to nothing are left out, and
 * stop words too unless nothing else remains.
 *
 * @param parsed the output of {@link parseQuery}
 * @returns distinct texts, required ones first
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.deepEqual(positiveTerms(parseQuery('+nginx "reverse proxy" -apache')), ["nginx", "reverse proxy"]);
 * ```
 */
export function positiveTerms(parsed: ParsedQuery): string[] {
  const all = [...parsed.required, ...parsed.optional].flatMap((u) => u.alternatives)
    .filter((item) => hasToken(item.text));
  const kept = all.filter((item) => !isStopWord(item));
  return [...new Set((kept.length ? kept : all).map((item) => item.text))];
}

/**
 * Turn an ISO date (`2026-01-05`) or RFC 3339 timestamp into the stored `modified_at`
 * form (`2026-01-05T00:00:00.000Z`). A date alone means the start of that day UTC, or its
 * last millisecond when `endOfDay` is set; a time without offset is taken as UTC.
 *
 * @param value the date as given by the caller
 * @param endOfDay whether a date alone means the end of the day (upper bounds)
 * @param name the argument's name, for the error message
 * @returns the normalised timestamp
 * @throws {ToolError} `INVALID_ARGUMENT` when the value is not a date
 * @example
 * ```ts
 * import { normalizeTime } from "./query.ts";
 * import assert from "node:assert/strict";
 * assert.equal(normalizeTime("2026-01-05", true), "2026-01-05T23:59:59.999Z");
 * ```
 */
export function normalizeTime(value: string, endOfDay = false, name = "date"): string {
  const v = value.trim();
  let ms = NaN;
  if (/^\d{4}-\d{2}-\d{2}$/.test(v)) {
    ms = Date.parse(`${v}T00:00:00.000Z`) + (endOfDay ? 86_400_000 - 1 : 0);
  } else if (
    /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:?\d{2})?$/.test(v)
  ) {
    const hasZone = /([Zz]|[+-]\d{2}:?\d{2})$/.test(v);
    ms = Date.parse(v.replace(" ", "T") + (hasZone ? "" : "Z"));
  }
  if (Number.isNaN(ms)) {
    throw new ToolError(
      "INVALID_ARGUMENT",
      `${name} ${JSON.stringify(value)} is not an ISO date or RFC 3339 time`,
      "Use an ISO date such as 2026-01-05 or an RFC 3339 time such as 2026-01-05T14:00:00Z.",
    );
  }
  return new Date(ms).toISOString();
}

/**
 * Build the query every retriever receives: the text parsed once, the filters' dates
 * normalised once (a bare date as an upper bound means the end of that day), the
 * types lower-cased and the front-matter field filters folded.
 *
 * @param text the query in the search syntax
 * @param limit maximum number of hits wanted
 * @param filters the filters as the caller gave them
 * @param snippets how many of the top hits get a snippet (default: all)
 * @returns the query
 * @throws {ToolError} `INVALID_ARGUMENT` for a date that is not one
 * @example
 * ```ts
 * import { prepareQuery } from "./query.ts";
 * import assert from "node:assert/strict";
 * const q = prepareQuery("lemur -fruit", 5, { modified_before: "2024-01-31" });
 * assert.equal(q.filters.modified_before, "2024-01-31T23:59:59.999Z");
 * ```
 */
export function prepareQuery(
  text: string,
  limit: number,
  filters: SearchFilters = {},
  snippets?: number,
): Query {
  const f: SearchFilters = {};
  if (filters.doc_types?.length) f.doc_types = filters.doc_types.map((t) => t.toLowerCase());
  if (filters.library !== undefined) f.library = filters.library;
  if (filters.path_glob) f.path_glob = filters.path_glob;
  if (filters.modified_after) {
    f.modified_after = normalizeTime(filters.modified_after, false, "modified_after");
  }
  if (filters.modified_before) {
    f.modified_before = normalizeTime(filters.modified_before, true, "modified_before");
  }
  if (filters.fields && Object.keys(filters.fields).length) {
    f.fields = normalizeFieldFilters(filters.fields);
  }
  const q: Query = { text, parsed: parseQuery(text), limit, filters: f };
  if (snippets !== undefined) q.snippets = snippets;
  return q;
}
