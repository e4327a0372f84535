/**
 * Hybrid ranking that does no harm to the keyword ranking. Reciprocal-rank fusion alone lets
 * a weak vector model push documents that never say the query's rare word above every
 * document that does (`zstd compression levels` answered with two documents without
 * "zstd" first). Three rules hold the fused ranking to the keyword evidence:
 *
 * 1. **A confident keyword answer keeps its first hit**, and vectors only re-rank among the
 *    keyword candidates: a document found by its vector alone is added after them.
 *    Confident means enough hits and a first hit that matches well (BM25 magnitude of at
 *    least 5, a one-word match scoring 3 to 8 and a good match of a question about 20).
 * 2. **A weak keyword answer** (few hits, or a first hit that matches poorly) is fused as
 *    it is: there vectors may bring new candidates to the top.
 * 3. **Required words are never outranked by documents without them**: a word of the
 *    query that is rare in the library (in at most 1 % of the documents, or in one) or looks like an
 *    identifier (`zstd`, `--long`, `ZSTD_c_windowLog`, `v1.5`). A document may rank above
 *    one holding more of these words only where the keyword ranking put it there too.
 *
 * @module
 */
import { words } from "../core/tokenize.ts";
import type { Hit, ParsedQuery, TermStats } from "../core/types.ts";
import { positiveTerms } from "./query.ts";

/** A first keyword hit scoring below this (`bm25Score`, |BM25| < 5) makes the answer weak. */
export const WEAK_SCORE = 0.5;
/** Fewer keyword hits than this make the answer weak. */
export const MIN_KEYWORD_HITS = 3;
/** A word in at most this share of the documents is rare, hence required. */
export const RARE_SHARE = 0.01;
/** Required words looked up, at most (the rarest first). */
const MAX_REQUIRED = 4;

/**
 * An identifier: letters and digits together, an inner `_`, `.` or `:`, a lower-upper case
 * change, or a leading `-` (a plain number or a hyphenated word is not one).
 */
const IDENTIFIER = /[A-Za-z]\d|\d[A-Za-z]|\w[_.:]\w|[a-z][A-Z]|^--?[A-Za-z]/;

/**
 * The words of a query that a hybrid ranking must respect: identifiers, and words found in
 * at most {@link RARE_SHARE} of the documents or in only one (rarest first, at most four).
 *
 * @param parsed the parsed query
 * @param stats document frequencies of the library
 * @returns the required words, as written in the query
 * @example
 * ```ts
 * import { parseQuery } from "./query.ts";
 * import { requiredWords } from "./hybrid.ts";
 * import assert from "node:assert/strict";
 * const stats = { docCount: () => 1000, df: (w: string) => (w === "zstd" ? 3 : 400) };
 * assert.deepEqual(requiredWords(parseQuery("zstd compression levels"), stats), ["zstd"]);
 * ```
 */
export function requiredWords(parsed: ParsedQuery, stats: TermStats): string[] {
  const n = stats.docCount();
  const found: { word: string; df: number }[] = [];
  for (const term of positiveTerms(parsed)) {
    if (/\s/.test(term.trim())) continue; // phrases are hard constraints already
    const ws = words(term, true);
    if (ws.length !== 1) continue;
    const df = stats.df(ws[0]!);
    const rare = df > 0 && df <= Math.max(1, RARE_SHARE * n);
    if (IDENTIFIER.test(term) || rare) found.push({ word: term, df });
  }
  found.sort((a, b) => a.df - b.df);
  return found.slice(0, MAX_REQUIRED).map((f) => f.word);
}

/** Whether a keyword answer is too weak to be trusted over the vectors (rule 2). */
export function keywordIsWeak(keyword: Hit[]): boolean {
  return keyword.length < MIN_KEYWORD_HITS || (keyword[0]?.score ?? 0) < WEAK_SCORE;
}

/**
 * How many of the required words each document holds, for those holding any.
 *
 * @param ids the documents
 * @param required the required words
 * @param holding the ids, among `ids`, whose text holds one word (the keyword index)
 */
export async function heldWords(
  ids: string[],
  required: string[],
  holding: (ids: string[], word: string) => Promise<string[]>,
): Promise<Map<string, number>> {
  const held = new Map<string, number>();
  if (!ids.length) return held;
  for (const w of required) {
    for (const id of await holding(ids, w)) held.set(id, (held.get(id) ?? 0) + 1);
  }
  return held;
}

/**
 * Hold a fused ranking to the keyword evidence (rules 1–3 of the module).
 *
 * @param fused the fused ranking (reciprocal-rank fusion of keyword and vector hits)
 * @param keyword the keyword ranking
 * @param held how many required words each document holds (absent: none)
 * @returns the same hits, reordered
 * @example
 * ```ts
 * import { guardFusion } from "./hybrid.ts";
 * import assert from "node:assert/strict";
 * const h = (doc_id: string, score = 0.9) => ({ doc_id, score, raw: 0, retriever: "x" });
 * const keyword = [h("a"), h("b"), h("c")];
 * const fused = [h("v"), h("b"), h("a"), h("c")]; // "v" found by its vector alone
 * assert.deepEqual(guardFusion(fused, keyword, new Map()).map((x) => x.doc_id), ["a", "b", "c", "v"]);
 * ```
 */
export function guardFusion(fused: Hit[], keyword: Hit[], held: Map<string, number>): Hit[] {
  const kRank = new Map(keyword.map((h, i) => [h.doc_id, i]));
  let order = fused;
  if (!keywordIsWeak(keyword)) {
    const top = keyword[0]!.doc_id;
    const first = fused.filter((h) => h.doc_id === top);
    const known = fused.filter((h) => h.doc_id !== top && kRank.has(h.doc_id));
    const added = fused.filter((h) => !kRank.has(h.doc_id));
    order = [...first, ...known, ...added];
  }
  if (!held.size) return order;
  // Rule 3: take the first hit not blocked by a later one that holds more required words
  // and that the keyword ranking put above it (or that neither found: vector-only hits).
  // The one holding the most, ranked best by keywords, is never blocked: every round
  // takes one.
  const rest = [...order];
  const out: Hit[] = [];
  const count = (h: Hit) => held.get(h.doc_id) ?? 0;
  const rank = (h: Hit) => kRank.get(h.doc_id) ?? Infinity;
  while (rest.length) {
    const i = rest.findIndex((d) => !rest.some((e) => count(e) > count(d) && rank(e) <= rank(d)));
    out.push(...rest.splice(i, 1));
  }
  return out;
}
