/**
 * Giving garbage back between pieces of work. V8 lets a heap grow to several times what was
 * live at its last full collection before it collects again: an indexing process whose live
 * heap is 25 MB sat at 250 MB of garbage, and an extraction process keeps the garbage of its
 * last large file. A {@link HeapTrimmer} runs V8's full collection (which also returns the
 * freed pages to the system) between files, once the heap has grown well past what was live
 * after the last one; it costs tens of milliseconds each time and never fails a file (it sets
 * no limit).
 *
 * The collection is V8's `gc()`, reached as Node does it (`--expose-gc` set through
 * `node:v8`, the function taken from a fresh `node:vm` context); where that is refused,
 * trimming does nothing.
 *
 * @module
 */
import v8 from "node:v8";
import vm from "node:vm";

let collector: (() => void) | null | undefined;

/**
 * V8's full garbage collection as a function, or undefined where it cannot be had.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const collect = fullCollection();
 * assert.ok(collect === undefined || typeof collect === "function");
 * collect?.();
 * ```
 */
export function fullCollection(): (() => void) | undefined {
  if (collector === undefined) {
    try {
      v8.setFlagsFromString("--expose-gc");
      const gc = vm.runInNewContext("gc");
      collector = typeof gc === "function" ? gc as () => void : null;
    } catch {
      collector = null;
    }
  }
  return collector ?? undefined;
}

/**
 * V8's last-resort full collection, the one it runs under memory pressure: besides the
 * garbage it hands back the pages V8 pooled for reuse (an isolate's heap, a stopped
 * worker's), which a regular collection keeps until V8's memory reducer runs, and that
 * runs only while a process is allocating. Falls back to the regular collection.
 *
 * @returns whether a collection ran
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(typeof lastResortCollection(), "boolean");
 * ```
 */
export function lastResortCollection(): boolean {
  const gc = fullCollection() as ((opts?: Record<string, string>) => void) | undefined;
  if (!gc) return false;
  try {
    gc({ type: "major", execution: "sync", flavor: "last-resort" });
  } catch {
    gc();
  }
  return true;
}

/**
 * V8's last-resort collection ({@link lastResortCollection}) when the heap has grown past
 * `overMb` MiB (V8's total heap size), else nothing. An extraction process calls it between
 * a file's extraction and its measure: what a large PDF's extraction leaves (pdf.js's pages,
 * fonts and text items, most of them garbage by then) would otherwise stay resident under
 * the measure and the answer, which then grow the process further. The five largest PDFs
 * of the full corpus (`bench/cut_pdf.ts`): the extraction process's peak PSS 303-413 MiB
 * without, 235-320 MiB with (`refman.pdf`, 2,415 pages: 379, then 274). It costs about
 * 0.1 s, so small files are left alone.
 *
 * @returns whether a collection ran
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(collectIfOver(1e6), false); // a heap under 1 TiB is left alone
 * ```
 */
export function collectIfOver(overMb: number): boolean {
  if (v8.getHeapStatistics().total_heap_size < overMb * 2 ** 20) return false;
  return lastResortCollection();
}

/** When a {@link HeapTrimmer} collects. */
export interface HeapTrimmerOptions {
  /** Collect once the heap holds this many MiB more than after the last collection (64). */
  growthMb?: number;
  /** Never collect below this heap size in MiB (96). */
  floorMb?: number;
}

/**
 * When to collect between the pieces of one large file (a DOCX body, a long HTML page): only
 * once the heap is over 192 MiB. A collection also makes V8 collect more often afterwards, so
 * trimming a modest heap costs CPU and does not lower the process tree's peak, which large
 * files running alone make. Measured on the word, ebooks and html libraries
 * (`bench/footprint.ts -- deno run -A server/cli.ts index --no-vectors ...`): with the
 * default floor of 96 MiB, 102 s of CPU; with 160, 90 s; with 224, 82–86 s; peak PSS 514–581
 * MiB in every case (noise).
 */
export const PIECE_TRIM: HeapTrimmerOptions = { growthMb: 64, floorMb: 192 };

/**
 * Collects the garbage when the heap has grown past the live size of the last collection
 * by `growthMb` (and is over `floorMb`); call {@link HeapTrimmer.trim} between pieces of work.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const heap = new HeapTrimmer({ growthMb: 64 });
 * // after each file:
 * heap.trim();
 * assert.equal(heap.trim(), false); // a heap under `floorMb` is left alone
 * ```
 */
export class HeapTrimmer {
  readonly #growth: number;
  readonly #floor: number;
  #live = 0;
  /** Collections run so far. */
  collections = 0;

  /** @param opts how much growth triggers a collection */
  constructor(opts: HeapTrimmerOptions = {}) {
    this.#growth = (opts.growthMb ?? 64) * 2 ** 20;
    this.#floor = (opts.floorMb ?? 96) * 2 ** 20;
  }

  /** Collect now if the heap grew enough; true when it collected. */
  trim(): boolean {
    const { total_heap_size: total } = v8.getHeapStatistics();
    if (total < this.#floor || total < this.#live + this.#growth) return false;
    const gc = fullCollection();
    if (!gc) return false;
    gc();
    this.collections++;
    this.#live = v8.getHeapStatistics().used_heap_size;
    return true;
  }
}
