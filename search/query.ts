/**
 * The search query syntax of the `search` tool, parsed into a small AST once per search
 * (the FTS5 keyword index turns it into a MATCH expression: `stores/fts5_match.ts`).
 *
 * Syntax: plain terms are ranked and need not all match; `"quoted phrase"` must match;
 * `-term` / `-"phrase"` exclude; `+term` requires; `a|b` (also `a | b`) is one group of
 * alternatives, optional unless prefixed with `+` (or excluded with `-`).
 *
 * Bounds (what a search costs grows with its words): a unit written twice counts once
 * (`the the the` is `the`; case and punctuation do not make a word new); a query holds at
 * most {@link MAX_QUERY_CHARS} characters and {@link MAX_QUERY_WORDS} words, counting
 * each word of a phrase and of an alternative. Past a bound, {@link prepareQuery}
 * fails with `INVALID_ARGUMENT` naming it. There is no prefix search, so no expansion to
 * bound: `*` is punctuation to the tokenizer, and `a*` searches the word `a`.
 *
 * @module
 */
import process from "node:process";
import { normalizeFieldFilters } from "../core/fields.ts";
import { bareWord, segmentCJK, STOP_WORDS } from "../core/tokenize.ts";
import {
  type ParsedQuery,
  type QueryItem,
  type QueryUnit,
  type SearchFilters,
  ToolError,
} from "../core/types.ts";
import type { Query } from "../stores/roles.ts";

/** Characters a query may hold (the `search` tool's own limit). */
export const MAX_QUERY_CHARS = 2000;
/**
 * Words a query may hold, over its distinct terms, phrases and alternatives (a term or
 * phrase written twice counts once).
 */
export const MAX_QUERY_WORDS = 32;

/** The words the index sees in a text: case-folded, punctuation dropped, CJK segmented. */
function words(text: string): string[] {
  return segmentCJK(text.toLowerCase()).match(/[\p{L}\p{N}\p{Co}\p{M}]+/gu) ?? [];
}

/** What makes two units of one kind (optional, required, excluded) the same search. */
function unitKey(unit: QueryUnit): string {
  return unit.alternatives.map((a) => `${a.kind}:${words(a.text).join(" ")}`).join("|");
}

/**
 * Parse a query in the search syntax. Never throws: stray quotes close at the end of
 * the text, lone prefixes and empty phrases are ignored, and a unit that repeats an
 * earlier one of its kind (same words, whatever their case or punctuation) is left out.
 *
 * @param text the user's query
 * @returns the units, sorted into optional, required and excluded
 * @example
 * ```ts
 * const q = parseQuery('docker "compose file" -swarm +linux a|b');
 * q.required.length; // 2 ("compose file", linux)
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
  const seen = new Set<string>();
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
    const key = `${prefix}${unitKey(unit)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (prefix === "-") out.excluded.push(unit);
    else if (prefix === "+") out.required.push(unit);
    else if (alternatives.length === 1 && first?.kind === "phrase") out.required.push(unit);
    else out.optional.push(unit);
  }
  return out;
}

/** True when the unicode61 tokenizer finds at least one token (letter, number, private use). */
export function hasToken(text: string): boolean {
  return /[\p{L}\p{N}\p{Co}]/u.test(text);
}

/** A stop word, also with punctuation around it (`it?`, `¿Cómo`, `(the`). */
export function isStopWord(item: QueryItem): boolean {
  return item.kind === "term" && STOP_WORDS.has(bareWord(item.text));
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
 * positiveTerms(parseQuery('+nginx "reverse proxy" -apache')); // ["nginx", "reverse proxy"]
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
 * normalizeTime("2026-01-05", true); // "2026-01-05T23:59:59.999Z"
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
 * Check a query against the bounds on its size ({@link MAX_QUERY_CHARS},
 * {@link MAX_QUERY_WORDS}).
 *
 * @param text the query as given
 * @param parsed its parsed form (repeated units already left out)
 * @throws {ToolError} `INVALID_ARGUMENT` naming the bound that is passed
 * @example
 * ```ts
 * import { checkQuerySize, parseQuery } from "./query.ts";
 * import assert from "node:assert/strict";
 * const many = Array.from({ length: 40 }, (_, i) => `word${i}`).join(" ");
 * assert.throws(() => checkQuerySize(many, parseQuery(many)), /at most 32 words/);
 * checkQuerySize("the ".repeat(400), parseQuery("the ".repeat(400))); // one word: fine
 * ```
 */
export function checkQuerySize(text: string, parsed: ParsedQuery): void {
  if (text.length > MAX_QUERY_CHARS) {
    throw new ToolError(
      "INVALID_ARGUMENT",
      `query is ${text.length} characters long; a query holds at most ${MAX_QUERY_CHARS}`,
      "Search for the few words that matter; use grep to find a long exact text.",
    );
  }
  // Each distinct term or phrase counts its words (a phrase's repeated words too: each is
  // matched).
  const items = new Map<string, number>();
  for (const unit of [...parsed.required, ...parsed.optional, ...parsed.excluded]) {
    for (const item of unit.alternatives) {
      const w = words(item.text);
      items.set(`${item.kind}:${w.join(" ")}`, w.length);
    }
  }
  const count = [...items.values()].reduce((sum, n) => sum + n, 0);
  if (count > MAX_QUERY_WORDS) {
    throw new ToolError(
      "INVALID_ARGUMENT",
      `query has ${count} words; a query holds at most ${MAX_QUERY_WORDS} words`,
      "Search for the few words that matter, or split the question into several queries.",
    );
  }
}

/**
 * Build the query every index receives: the text parsed once, the filters' dates
 * normalised once (a bare date as an upper bound means the end of that day), the
 * types lower-cased and the front-matter field filters folded.
 *
 * @param text the query in the search syntax
 * @param limit maximum number of hits wanted
 * @param filters the filters as the caller gave them
 * @param snippets how many of the top hits get a snippet (default: all)
 * @returns the query
 * @throws {ToolError} `INVALID_ARGUMENT` for a date that is not one, or a query past the
 *   bounds of {@link checkQuerySize}
 * @example
 * ```ts
 * import { prepareQuery } from "./query.ts";
 * const q = prepareQuery("lemur -fruit", 5, { modified_before: "2024-01-31" });
 * q.filters.modified_before; // "2024-01-31T23:59:59.999Z"
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
  const parsed = parseQuery(text);
  checkQuerySize(text, parsed);
  const q: Query = { text, parsed, limit, filters: f };
  if (snippets !== undefined) q.snippets = snippets;
  return q;
}

/**
 * The text of a query to embed: its phrases and terms, without operators or excluded words.
 *
 * @example
 * ```ts
 * import { parseQuery, queryText } from "./query.ts";
 * queryText(parseQuery('+nginx "reverse proxy" -apache')); // "nginx reverse proxy"
 * ```
 */
export function queryText(parsed: ParsedQuery): string {
  return positiveTerms(parsed).join(" ").trim();
}

/**
 * Run `fn`, adding the CPU time it takes (ms, user + system, of the whole process) to
 * `stages[stage]` when `stages` is given: what `bench/search_cpu.ts --slowest` prints per
 * stage. A promise is timed until it settles.
 *
 * @param stages CPU ms per stage, or undefined to only run `fn`
 * @param stage the stage's name
 * @param fn the work
 * @returns what `fn` returns
 * @example
 * ```ts
 * import { stageCpu } from "./query.ts";
 * import assert from "node:assert/strict";
 * const stages: Record<string, number> = {};
 * assert.equal(stageCpu(stages, "sum", () => 1 + 1), 2);
 * assert.equal(await stageCpu(stages, "later", () => Promise.resolve(3)), 3);
 * assert.deepEqual(Object.keys(stages), ["sum", "later"]);
 * ```
 */
export function stageCpu<T>(
  stages: Record<string, number> | undefined,
  stage: string,
  fn: () => T,
): T {
  if (!stages) return fn();
  const c0 = process.cpuUsage();
  const add = () => {
    const c = process.cpuUsage(c0);
    stages[stage] = (stages[stage] ?? 0) + (c.user + c.system) / 1000;
  };
  let out: T;
  try {
    out = fn();
  } catch (e) {
    add();
    throw e;
  }
  if (out instanceof Promise) return out.finally(add) as T;
  add();
  return out;
}
