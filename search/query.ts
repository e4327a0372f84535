/**
 * The search query syntax of the `search` tool, parsed into a small AST once per search
 * (the FTS5 keyword index turns it into a MATCH expression: `stores/fts5_match.ts`).
 *
 * Syntax: plain terms are ranked and need not all match; `"quoted phrase"` must match;
 * `-term` / `-"phrase"` exclude; `+term` requires; `a|b` (also `a | b`) is one group of
 * alternatives, optional unless prefixed with `+` (or excluded with `-`).
 * *
 * @module
 */
import { normalizeFieldFilters } from "../core/fields.ts";
import { bareWord, STOP_WORDS } from "../core/tokenize.ts";
import { type ParsedQuery, type QueryItem, type SearchFilters, ToolError } from "../core/types.ts";
import type { Query } from "../stores/roles.ts";

/**
 * Parse a query in the search syntax. Never throws: stray quotes close at the end of
 * the text, lone prefixes and empty phrases are ignored.
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
 * Build the query every index receives: the text parsed once, the filters' dates
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
  const q: Query = { text, parsed: parseQuery(text), limit, filters: f };
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
