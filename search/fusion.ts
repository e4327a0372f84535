/**
 * Reciprocal-rank fusion of the ranked lists of several indexes (keyword, vectors).
 *
 * @module
 */
import type { Hit } from "../core/types.ts";

/**
 * Fuse ranked hit lists with reciprocal-rank fusion: a document scores
 * `sum(1 / (k + rank))` over the lists it appears in (rank 1-based). `raw` is that sum;
 * `score` divides it by the best possible sum, `n / (k + 1)`, where `n` counts the lists
 * that returned something (an empty list, e.g. vectors not ready, does not lower scores).
 * The first snippet seen, in list order, is kept; hits are tagged `"hybrid"`. A document
 * repeated inside one list counts at its first rank only.
 *
 * With `weights`, list `j` adds `weights[j] / (k + rank)` (weighted RRF), and the best
 * possible sum is the total weight of the non-empty lists over `k + 1`.
 *
 * @param lists ranked hits, one list per index, best first
 * @param k rank constant (60 as in the original paper)
 * @param limit maximum number of hits returned
 * @param weights one weight per list (default 1 each)
 * @returns fused hits, best first (ties broken by best single rank, then `doc_id`)
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const a = [{ doc_id: "x", score: 1, raw: -9, retriever: "fts5" }];
 * const b = [{ doc_id: "x", score: 0.8, raw: 0.2, retriever: "lancedb" }];
 * assert.deepEqual(rrf([a, b])[0], { doc_id: "x", score: 1, raw: 2 / 61, retriever: "hybrid" });
 * ```
 */
export function rrf(lists: Hit[][], k = 60, limit = Infinity, weights?: number[]): Hit[] {
  const fused = new Map<string, { hit: Hit; best: number }>();
  const weight = (j: number) => weights?.[j] ?? 1;
  const used = lists.reduce((sum, l, j) => sum + (l.length > 0 ? weight(j) : 0), 0);
  for (const [j, list] of lists.entries()) {
    const seen = new Set<string>();
    list.forEach((h, i) => {
      if (seen.has(h.doc_id)) return;
      seen.add(h.doc_id);
      const add = weight(j) / (k + i + 1);
      const cur = fused.get(h.doc_id);
      if (!cur) {
        const hit: Hit = { doc_id: h.doc_id, score: 0, raw: add, retriever: "hybrid" };
        if (h.snippet) hit.snippet = h.snippet;
        fused.set(h.doc_id, { hit, best: i });
        return;
      }
      cur.hit.raw += add;
      cur.best = Math.min(cur.best, i);
      if (cur.hit.snippet === undefined && h.snippet) cur.hit.snippet = h.snippet;
    });
  }
  const max = used / (k + 1);
  const out = [...fused.values()];
  for (const f of out) f.hit.score = max > 0 ? Math.min(1, f.hit.raw / max) : 0;
  out.sort((a, b) =>
    b.hit.raw - a.hit.raw || a.best - b.best ||
    (a.hit.doc_id < b.hit.doc_id ? -1 : a.hit.doc_id > b.hit.doc_id ? 1 : 0)
  );
  return out.slice(0, Math.max(0, limit)).map((f) => f.hit);
}
