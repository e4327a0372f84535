/**
 * The document-to-document part of the link graph ({@link LinkGraph} in `graph.ts`):
 * which documents link to which, how many times, and the row of the first such link, kept
 * both ways in compressed rows (typed arrays: a few bytes per linked pair), with the
 * breadth-first search the `connection` tool follows.
 *
 * Documents are numbered `0 .. n-1`; a pair of documents is the key `from * n + to`.
 *
 * @module
 */

/** Links from one document to another: how many, and the row of the first. */
export type Pair = { count: number; first: number };

/**
 * Adjacency in compressed rows: `ends[start[i] .. start[i+1]]`, with the number of links of
 * each pair and the row of its first link alongside.
 */
interface Csr {
  start: Int32Array;
  ends: Int32Array;
  counts: Int32Array;
  firsts: Float64Array;
}

function csr(n: number, pairs: Map<number, Pair>, reverse: boolean): Csr {
  const start = new Int32Array(n + 1);
  const from = (k: number) => reverse ? k % n : Math.floor(k / n);
  const to = (k: number) => reverse ? Math.floor(k / n) : k % n;
  for (const k of pairs.keys()) start[from(k) + 1]!++;
  for (let i = 0; i < n; i++) start[i + 1]! += start[i]!;
  const fill = start.slice(0, n);
  const ends = new Int32Array(pairs.size);
  const counts = new Int32Array(pairs.size);
  const firsts = new Float64Array(pairs.size);
  for (const [k, p] of pairs) {
    const at = fill[from(k)]!++;
    ends[at] = to(k);
    counts[at] = p.count;
    firsts[at] = p.first;
  }
  return { start, ends, counts, firsts };
}

/**
 * Which of `n` documents link to which, both ways.
 *
 * @example
 * ```ts
 * import { Adjacency } from "./link_adjacency.ts";
 * import assert from "node:assert/strict";
 * // Document 0 links twice to 1 (first at row 7), 1 once to 2 (row 9).
 * const pairs = new Map([
 *   [0 * 3 + 1, { count: 2, first: 7 }],
 *   [1 * 3 + 2, { count: 1, first: 9 }],
 * ]);
 * const adj = new Adjacency(3, pairs);
 * assert.deepEqual(adj.path(2, 0, 3), [2, 1, 0]);
 * assert.equal(adj.firstRow(0, 1), 7);
 * ```
 */
export class Adjacency {
  readonly #out: Csr;
  readonly #in: Csr;

  /**
   * @param n the number of documents
   * @param pairs the linked pairs, by key `from * n + to`
   */
  constructor(n: number, pairs: Map<number, Pair>) {
    this.#out = csr(n, pairs, false);
    this.#in = csr(n, pairs, true);
  }

  /** Linked pairs of documents. */
  get edges(): number {
    return this.#out.ends.length;
  }

  /** The documents linking to `node`, each with its number of links, in no set order. */
  sources(node: number): { node: number; links: number }[] {
    const out: { node: number; links: number }[] = [];
    for (let k = this.#in.start[node]!; k < this.#in.start[node + 1]!; k++) {
      out.push({ node: this.#in.ends[k]!, links: this.#in.counts[k]! });
    }
    return out;
  }

  /** How many documents link to `node`. */
  inDegree(node: number): number {
    return this.#in.start[node + 1]! - this.#in.start[node]!;
  }

  /** How many links point at `node`, all sources together. */
  linksIn(node: number): number {
    let links = 0;
    for (let k = this.#in.start[node]!; k < this.#in.start[node + 1]!; k++) {
      links += this.#in.counts[k]!;
    }
    return links;
  }

  /** The row of the first link of `from` pointing at `to`, or undefined when there is none. */
  firstRow(from: number, to: number): number | undefined {
    for (let k = this.#out.start[from]!; k < this.#out.start[from + 1]!; k++) {
      if (this.#out.ends[k] === to) return this.#out.firsts[k]!;
    }
    return undefined;
  }

  /**
   * The shortest path of documents from `a` to `b` (both included), following links either
   * way (breadth first, outgoing links before incoming ones); undefined when there is none
   * within `maxDepth` steps.
   */
  path(a: number, b: number, maxDepth: number): number[] | undefined {
    const prev = new Int32Array(this.#out.start.length - 1).fill(-1);
    prev[a] = a;
    let level = [a];
    for (let depth = 0; depth < maxDepth && level.length && prev[b] === -1; depth++) {
      const next: number[] = [];
      for (const u of level) {
        for (const g of [this.#out, this.#in]) {
          for (let k = g.start[u]!; k < g.start[u + 1]!; k++) {
            const v = g.ends[k]!;
            if (prev[v] !== -1) continue;
            prev[v] = u;
            next.push(v);
          }
        }
      }
      level = next;
    }
    if (prev[b] === -1) return undefined;
    const path = [b];
    while (path[0] !== a) path.unshift(prev[path[0]!]!);
    return path;
  }
}
