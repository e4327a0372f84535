/**
 * Term-scoring helpers shared by the outline and card builders: which words may be
 * keywords, a crude singular form, corpus idf, and the best terms of a count table.
 *
 * @module
 */
import type { TermStats } from "./types.ts";
import { hasCJK } from "./tokenize.ts";

/** True when the word may be a keyword: long enough, not a URL or file-name-like token. */
export function keywordCandidate(w: string): boolean {
  if (hasCJK(w)) return w.length >= 2;
  if (w.length < 3 || w.length > 40) return false;
  if (w.startsWith("http") || w.startsWith("www.")) return false;
  if (/\d/.test(w) && !/^\p{L}+[-_]?\d{1,2}$/u.test(w)) return false;
  return !/\.(html?|md|txt|pdf|png|jpe?g|gif|css|js)$/.test(w);
}

/**
 * A crude singular form, so `file` and `files` count as one keyword.
 *
 * @param w a lower-cased word
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(stemKey("libraries"), "library");
 * ```
 */
export function stemKey(w: string): string {
  if (w.length < 4) return w;
  if (w.endsWith("ies")) return `${w.slice(0, -3)}y`;
  if (/(ss|x|ch|sh)es$/.test(w)) return w.slice(0, -2);
  if (w.endsWith("s") && !/(ss|us|is)$/.test(w)) return w.slice(0, -1);
  return w;
}

/**
 * The inverse document frequency of terms, `ln((N+1)/(df+1)) + 1`, memoised so
 * each term asks `stats.df` once; 1 for every term without statistics.
 *
 * @param stats corpus document frequencies, if known
 * @returns a function from a term to its idf
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(idfOf(undefined)("anything"), 1);
 * ```
 */
export function idfOf(stats: TermStats | undefined): (term: string) => number {
  if (!stats) return () => 1;
  const n = stats.docCount();
  const memo = new Map<string, number>();
  return (term) => {
    let v = memo.get(term);
    if (v === undefined) {
      v = Math.log((n + 1) / (stats.df(term) + 1)) + 1;
      memo.set(term, v);
    }
    return v;
  };
}

/**
 * The `k` best terms of a count table by `tf · weight`; terms seen once are kept
 * only when the text is short (under 50 counted words). Linear in the table size.
 *
 * @param counts term counts
 * @param weight the idf of a term (see {@link idfOf})
 * @param exclude terms never to return (the title's words)
 * @param k how many; plural and singular forms count once
 * @param total words counted in all (default: the sum of `counts`, when they are all there)
 */
export function topTerms(
  counts: Map<string, number>,
  weight: (term: string) => number,
  exclude: ReadonlySet<string>,
  k: number,
  total?: number,
): string[] {
  let sum = total ?? 0;
  if (total === undefined) { for (const c of counts.values()) sum += c; }
  const minCount = sum < 50 ? 1 : 2;
  const cap = k * 3;
  const best: [string, number][] = [];
  for (const [w, c] of counts) {
    if (c < minCount) continue;
    if (exclude.has(w) || !keywordCandidate(w)) continue;
    const last = best[cap - 1];
    const entry: [string, number] = [w, c * weight(w)];
    if (last && byScore(entry, last) >= 0) continue;
    let i = best.length;
    while (i > 0 && byScore(entry, best[i - 1]!) < 0) i--;
    best.splice(i, 0, entry);
    if (best.length > cap) best.pop();
  }
  const out: string[] = [];
  const stems = new Set<string>();
  for (const [w] of best) {
    if (out.length >= k) break;
    const key = stemKey(w);
    if (stems.has(key)) continue;
    stems.add(key);
    out.push(w);
  }
  return out;
}

/** Higher score first, then the longer (more specific) word, then alphabetical. */
export function byScore(a: [string, number], b: [string, number]): number {
  return b[1] - a[1] || b[0].length - a[0].length || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
}
