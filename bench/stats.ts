/**
 * Small helpers the benchmarks share: percentiles, medians and folder sizes.
 *
 * @module
 */
import { join } from "node:path";

/**
 * The p-th percentile (nearest rank) of a list of numbers; NaN for an empty list.
 *
 * @example
 * ```ts
 * import { pct } from "./stats.ts";
 * import assert from "node:assert/strict";
 * assert.equal(pct([5, 1, 3, 2, 4], 50), 3);
 * ```
 */
export function pct(xs: number[], p: number): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}

/**
 * The median of a list of numbers (the mean of the middle two for an even count); NaN for an
 * empty list.
 *
 * @example
 * ```ts
 * import { median } from "./stats.ts";
 * import assert from "node:assert/strict";
 * assert.equal(median([5, 1, 3]), 3);
 * assert.equal(median([4, 1, 3, 2]), 2.5);
 * ```
 */
export function median(xs: number[]): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Bytes of every file under a folder (0 when it does not exist). */
export function dirSize(dir: string): number {
  let total = 0;
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync(dir)];
  } catch {
    return 0;
  }
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.isDirectory) total += dirSize(p);
    else if (e.isFile) total += Deno.statSync(p).size;
  }
  return total;
}
