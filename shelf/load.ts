/**
 * What a file is expected to take in memory while it is extracted and stored (the weight
 * of its type times its size), and which files the indexer runs at once: by the memory it
 * measures, or by a budget of such weighted bytes where it measures none.
 *
 * @module
 */
import { extname } from "node:path";

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
 * so up to two files may start beside others before the measure sees either grow; two
 * smaller files add at most about 90 MiB, within what the admission threshold keeps below
 * the tree's goal (560 of 600 MiB by default, see {@link admissionMb}), while a
 * large file is admitted with room for its own growth and with no other large one unseen.
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
  readonly #admit?: (load: number, large: boolean) => boolean;
  #files = 0;
  /** Weighted bytes of the files in flight. */
  #bytes = 0;
  #large = 0;

  /**
   * A room with nothing in flight.
   *
   * @param concurrency files at once, at most
   * @param maxBytes weighted bytes over which a file is large; without `admit`, also the
   *   budget of the files in flight
   * @param admit asked before a file starts beside others: is there memory for it?
   */
  constructor(
    concurrency: number,
    maxBytes: number,
    admit?: (load: number, large: boolean) => boolean,
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
    return this.#admit(f.load, f.large) ? undefined : "memory";
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
    if (f.large) this.#large += n;
  }
}

/** The memory goal of indexing when the configuration sets none (`limits.index_memory_mb`). */
export const INDEX_MEMORY_GOAL_MB = 600;

/**
 * What admission keeps below the tree's memory goal: the PSS of the tree's peak over the line
 * admission holds, measured (a large PDF outgrowing {@link expectedGrowthMb}, files started
 * before the measure sees them grow, the executable's pages that `ExtractPool.roomFor` does
 * not count). Full corpus, quiet machine (session 23): line 460, peak 554-556 MiB; line 560,
 * peak 585-596; line 660, peak 623-646. A fixed amount, not a share: what it covers does not
 * grow with the goal.
 */
const ADMISSION_MARGIN_MB = 40;

/**
 * Memory (MiB, about the PSS: see `ExtractPool.roomFor`) of the index process and its
 * extraction processes over which the indexer starts no file beside those in flight (one
 * file always runs), for a memory goal of the tree: the goal less a fixed margin. At the
 * default goal (600) the line is 560: the full corpus peaked at 585-596 MiB PSS on a quiet
 * machine, with both cores busy 87 % of the seconds (at 460, 554-556 MiB and 75-80 %: a
 * large PDF ran alone while smaller files waited for memory, and idle extraction processes
 * were made to collect, which cost them CPU; session 23, docs/benchmarks.md).
 *
 * @param goalMb the goal for the tree's PSS (`limits.index_memory_mb`, at least
 *   `MIN_INDEX_MEMORY_MB` of `core/config.ts`)
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(admissionMb(INDEX_MEMORY_GOAL_MB), 560);
 * assert.equal(admissionMb(900), 860);
 * assert.equal(admissionMb(300), 260); // the least goal a configuration may set
 * ```
 */
export function admissionMb(goalMb: number): number {
  return goalMb - ADMISSION_MARGIN_MB;
}

/**
 * What a large file is expected to add to the memory of the process tree while it is
 * extracted, in MiB: pdf.js reading a 0.5 MB PDF grows its process by about 30 MiB, a 2 MB
 * one by about 100 MiB, a 10 MB one by about 200 MiB (the cap). Measured on the 33 PDFs of
 * 1-7 MB of the full corpus (session 23, a fresh process each): 33-119 MiB at 1-2.7 MB,
 * 137-184 at 3-7 MB. The size predicts it poorly (the pages do better, but are not known
 * before the file is read): this under-estimates 11 of them by up to 39 MiB (long 1.2 MB
 * manuals) and over-estimates short ones by up to 65; fitted lines (48 + 20 MiB per MB) erred
 * less on average but under-estimated more files by more, so it was kept.
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
