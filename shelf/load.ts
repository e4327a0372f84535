/**
 * What a file is expected to take in memory while it is extracted and stored (the weight
 * of its type times its size), and which files the indexer runs at once: by the memory it
 * measures, or by a budget of such weighted bytes where it measures none.
 *
 * @module
 */
import { extname } from "node:path";
import type { TreeMeasure } from "../extraction/pool.ts";

/**
 * Weighted bytes (see {@link expectedLoad}) over which a file is large: two large files
 * never run at once. A large PDF or page takes an extraction process tens of times its
 * size, and its text, lines, card and compressed copy take the indexing process several
 * times the text: two of them at once are what made the process tree's peak. Where memory
 * is not measured, also the budget of the files in flight: a file that would take them over
 * waits until the files before it are done (one file always runs, however large).
 */
export const MAX_BYTES_IN_FLIGHT = 4 * 1024 * 1024;
/**
 * How many times its size a file of a type takes to extract, beside a plain text: a DOCX's
 * XML is inflated and parsed into a tree (mammoth: 460 MB for a 0.4 MB file), pdf.js and the
 * HTML converter hold hundreds of times the text of a large file. Images weigh as plain text:
 * the text pass reads only their header (OCR reads them later, in its own process).
 */
const EXTRACTION_WEIGHT: Record<string, number> = {
  ".docx": 12,
  ".pptx": 12,
  ".xlsx": 12,
  ".odt": 12,
  ".odp": 12,
  ".ods": 12,
  ".epub": 4,
  ".pdf": 8,
  ".html": 8,
  ".htm": 8,
  ".xhtml": 8,
};

/**
 * What a file is expected to take while it is extracted and stored, in bytes of plain text
 * (its size times its type's weight): the unit of `Indexer.maxBytesInFlight`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(expectedLoad("big.pdf", 300_000), 2_400_000);
 * assert.equal(expectedLoad("scans/page-1.png", 300_000), 300_000); // OCR comes later
 * assert.equal(expectedLoad("notes/a.md", 300_000), 300_000);
 * ```
 */
export function expectedLoad(path: string, size: number): number {
  return size * (EXTRACTION_WEIGHT[extname(path).toLowerCase()] ?? 1);
}

/** What {@link Room} tells `admit` of the files in flight. */
export interface InFlight {
  /** A large file is in flight. */
  large: boolean;
  /** Weighted bytes (see {@link expectedLoad}) of the smaller files in flight. */
  smallLoad: number;
}

/** A file as {@link Room} weighs it. */
export interface Weighed {
  /** Expected load, in bytes of plain text (see {@link expectedLoad}). */
  load: number;
  /** Its load is over the room's `maxBytes` (see {@link Room}). */
  large: boolean;
}

/**
 * The files an indexer extracts and stores at once: at most `concurrency` of them, and
 * within the memory `admit` measures or, without it, a budget of weighted bytes (see
 * {@link expectedLoad}).
 *
 * A file is large when its weighted load is over `maxBytes` (4 MiB by default: a 0.5 MB
 * PDF or HTML page, a 0.35 MB DOCX, whose extraction is expected to grow a process by more
 * than 44 MiB, see {@link expectedGrowthMb}). Two large files never run at once. The line is
 * where measuring stops being enough: a file grows its process only after it has started,
 * so up to two files may start beside others before the measure sees either grow: `admit`
 * counts what the smaller files in flight are expected to add (see {@link TreeMemory}),
 * and a large file is admitted with room for its own growth and with no other large one
 * unseen.
 *
 * - Without `admit` (nothing measures memory) the weighted bytes in flight stay within
 *   `maxBytes`: a large file runs alone, smaller ones beside each other while their loads
 *   fit.
 * - With `admit` memory decides, not weights: any file starts beside those in flight while
 *   `admit(load, large)` says there is room for it (a large one with room for what it is
 *   expected to add), however many weighted bytes are in flight, so both cores stay busy
 *   on small files and beside a large PDF.
 *
 * One file always starts when none is in flight.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const MB = 2 ** 20;
 * // Measured memory has room: a 2 MB PDF (16 MB weighted) starts beside a small file.
 * let memory = true;
 * const room = new Room(3, 4 * MB, () => memory);
 * const small = room.file("a.md", 1000);
 * room.add(small);
 * const pdf = room.file("big.pdf", 2 * MB);
 * assert.ok(pdf.large && room.fits(pdf));
 * room.add(pdf);
 * // ... but not a second large file; a smaller one goes beside, whatever its weight.
 * assert.equal(room.why(room.file("other.pdf", 2 * MB)), "large");
 * assert.equal(room.fits(room.file("c.html", 400_000)), true);
 * // When the measure says no, nothing more starts.
 * memory = false;
 * assert.equal(room.why(room.file("c.html", 400_000)), "memory");
 * // Without a measure of memory, weighted bytes decide and a large file runs alone.
 * const blind = new Room(3, 4 * MB);
 * blind.add(blind.file("b.html", 300_000)); // 2.4 MB weighted
 * assert.equal(blind.why(blind.file("big.pdf", 2 * MB)), "alone");
 * assert.equal(blind.why(blind.file("c.html", 300_000)), "bytes");
 * assert.equal(blind.fits(blind.file("a.md", 1000)), true);
 * ```
 */
export class Room {
  readonly #concurrency: number;
  readonly #maxBytes: number;
  readonly #admit?: (load: number, large: boolean, inFlight: InFlight) => boolean;
  #files = 0;
  /** Weighted bytes of the files in flight, and of the large ones among them. */
  #bytes = 0;
  #largeBytes = 0;
  #large = 0;

  /**
   * A room with nothing in flight.
   *
   * @param concurrency files at once, at most
   * @param maxBytes weighted bytes over which a file is large; without `admit`, also the
   *   budget of the files in flight
   * @param admit asked before a file starts beside others: is there memory for it, beside
   *   the files in flight?
   */
  constructor(
    concurrency: number,
    maxBytes: number,
    admit?: (load: number, large: boolean, inFlight: InFlight) => boolean,
  ) {
    this.#concurrency = Math.max(1, concurrency);
    this.#maxBytes = maxBytes;
    this.#admit = admit;
  }

  /** How a file of this path and size is weighed. */
  file(path: string, size: number): Weighed {
    const load = expectedLoad(path, size);
    return { load, large: load > this.#maxBytes };
  }

  /** Whether the file may start now (one file always may, when none is in flight). */
  fits(f: Weighed): boolean {
    return this.why(f) === undefined;
  }

  /**
   * Why the file may not start now, or undefined when it may: what a scheduling log
   * records of a wait. `files`: as many files as `concurrency` are in flight; `large`:
   * another large file is; `memory`: `admit` says no. Without `admit`: `alone`, a large
   * file is in flight or this one is large; `bytes`, its load would take the files in flight
   * over the budget.
   */
  why(f: Weighed): "files" | "large" | "memory" | "alone" | "bytes" | undefined {
    if (this.#files === 0) return undefined;
    if (this.#files >= this.#concurrency) return "files";
    if (!this.#admit) {
      if (this.#large > 0 || f.large) return "alone";
      return this.#bytes + f.load <= this.#maxBytes ? undefined : "bytes";
    }
    if (f.large && this.#large > 0) return "large";
    const inFlight = { large: this.#large > 0, smallLoad: this.#bytes - this.#largeBytes };
    return this.#admit(f.load, f.large, inFlight) ? undefined : "memory";
  }

  /** A file starts. */
  add(f: Weighed): void {
    this.#move(f, 1);
  }

  /** A file is done. */
  remove(f: Weighed): void {
    this.#move(f, -1);
  }

  #move(f: Weighed, n: 1 | -1): void {
    this.#files += n;
    this.#bytes += n * f.load;
    if (f.large) {
      this.#large += n;
      this.#largeBytes += n * f.load;
    }
  }
}

/**
 * What a large file is expected to add to the memory of the process tree while it is
 * extracted, in MiB: pdf.js reading a 0.5 MB PDF grows its process by about 30 MiB, a 2 MB
 * one by about 100 MiB, a 10 MB one by about 200 MiB (the cap).
 *
 * @param load the file's {@link expectedLoad}
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(expectedGrowthMb(expectedLoad("a.pdf", 2 ** 20)), 64);
 * assert.equal(expectedGrowthMb(expectedLoad("a.pdf", 50 * 2 ** 20)), 200);
 * ```
 */
export function expectedGrowthMb(load: number): number {
  return Math.min(200, 24 + (5 * load) / 2 ** 20);
}

/**
 * What a smaller (not large) file is expected to add to the process tree while it is
 * extracted, in MiB: five times its weighted MiB (a 50 KB text file next to nothing, a 0.3
 * MB HTML page 12, the largest smaller file 20). It runs in an extraction process that is
 * there anyway, idle or not, with the extractors loaded.
 *
 * @param load the file's {@link expectedLoad}
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(smallGrowthMb(expectedLoad("a.html", 2 ** 20 / 8)), 5);
 * ```
 */
export function smallGrowthMb(load: number): number {
  return (5 * load) / 2 ** 20;
}

/**
 * An extraction process's own memory, MiB, once it has loaded the extractors and read a
 * file: 77 after a text file, 86 at the first second of a full-corpus run.
 */
const LOADED_PROCESS_MB = 80;

/** The limits of {@link TreeMemory}, in MiB as it measures memory. */
export interface TreeLimits {
  /** A large file starts while the memory plus the file's expected growth is within this. */
  largeMb: number;
  /**
   * A smaller file starts while the memory, the growth still reserved for the large file in
   * flight and the smaller files' expected growth are within this.
   */
  smallMb: number;
}

/**
 * The `admit` of an index run (see `Room`) by the memory the process tree uses now, with
 * what the large file in flight is still expected to add reserved for it:
 *
 * - A large file starts while the tree's memory plus its expected growth
 *   ({@link expectedGrowthMb}) is within `largeMb`. Each extraction process's memory then is
 *   its base.
 * - A smaller file starts while the tree's memory, plus what the large file in flight is
 *   still expected to add (its expected growth less what the extraction process that grew
 *   most since the base has grown, never less than nothing), plus the expected growth of the
 *   smaller files in flight and of this one ({@link smallGrowthMb}), is within `smallMb`.
 *
 * A fixed budget for smaller files (the tree within `largeMb`) let them take the room a
 * large file's start had reserved while it had not grown yet, and kept them waiting, with a
 * core idle, once it had: the tree was then over the budget by the large file's own growth.
 * Without a measure (threads, no `/proc`) every file may start.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const MB = 2 ** 20;
 * // The tree's memory and one extraction process (pid 7) that will read the large file.
 * let used = 300, pdfProcess = 80;
 * const measure = () => ({ usedMb: used, processMb: new Map([[7, pdfProcess]]) });
 * const tree = new TreeMemory(measure, { largeMb: 460, smallMb: 500 });
 * const pdf = expectedLoad("big.pdf", 2 * MB); // expected to add 104 MiB
 * assert.equal(tree.admits(pdf, true, { large: false, smallLoad: 0 }), true);
 * tree.largeStarts(pdf);
 * const beside = { large: true, smallLoad: 0 };
 * const text = expectedLoad("a.txt", 10_000);
 * // Early in its growth the large file keeps its room: 400 + 94 <= 500, 420 + 94 > 500.
 * [used, pdfProcess] = [400, 90];
 * assert.equal(tree.admits(text, false, beside), true);
 * used = 420;
 * assert.equal(tree.admits(text, false, beside), false);
 * // Grown as expected, it reserves nothing more: the tree may hold 490.
 * [used, pdfProcess] = [490, 200];
 * assert.equal(tree.admits(text, false, beside), true);
 * // ... with room for the smaller files in flight (3 MiB weighted: 15 MiB expected).
 * assert.equal(tree.admits(text, false, { large: true, smallLoad: 3 * MB }), false);
 * // A second large file needs room for all it is expected to add.
 * assert.equal(tree.admits(pdf, true, beside), false);
 * ```
 */
export class TreeMemory {
  readonly #measure: () => TreeMeasure | undefined;
  readonly #limits: TreeLimits;
  /** The large file in flight: each process's memory when it started, its expected growth. */
  #large?: { base: Map<number, number>; growthMb: number };

  /**
   * @param measure the process tree's memory now (undefined: not measured)
   * @param limits see {@link TreeLimits}
   */
  constructor(measure: () => TreeMeasure | undefined, limits: TreeLimits) {
    this.#measure = measure;
    this.#limits = limits;
  }

  /** A large file of this weighted load starts now. */
  largeStarts(load: number): void {
    const m = this.#measure();
    this.#large = m && { base: m.processMb, growthMb: expectedGrowthMb(load) };
  }

  /** Whether a file may start beside the files in flight (the `admit` of `Room`). */
  admits(load: number, large: boolean, inFlight: InFlight): boolean {
    const m = this.#measure();
    if (!m) return true;
    if (large) return m.usedMb + expectedGrowthMb(load) <= this.#limits.largeMb;
    const small = smallGrowthMb(inFlight.smallLoad + load);
    return m.usedMb + (inFlight.large ? this.#reservedMb(m) : 0) + small <= this.#limits.smallMb;
  }

  /** What the large file in flight is still expected to add. */
  #reservedMb(m: TreeMeasure): number {
    if (!this.#large) return 0;
    let grown = 0;
    for (const [pid, mb] of m.processMb) {
      // A process started since then counts from what one holds with the extractors loaded.
      grown = Math.max(grown, mb - (this.#large.base.get(pid) ?? LOADED_PROCESS_MB));
    }
    return Math.max(0, this.#large.growthMb - grown);
  }
}
