/**
 * What a file is expected to take in memory while it is extracted and stored: the weight
 * of its type times its size, and the budget of such bytes the indexer runs at once.
 *
 * @module
 */
import { extname } from "node:path";

/**
 * Bytes of the files being extracted and stored at once: a file that would take them over
 * waits until the files before it are done (one file always runs, however large). A large
 * PDF or page takes an extraction process tens of times its size, and its text, lines,
 * card and compressed copy take the indexing process several times the text: two of them
 * at once are what made the process tree's peak.
 */
export const MAX_BYTES_IN_FLIGHT = 4 * 1024 * 1024;
/**
 * How many times its size a file of a type takes to extract, beside a plain text: a DOCX's
 * XML is inflated and parsed into a tree (mammoth: 460 MB for a 0.4 MB file), pdf.js and the
 * HTML converter hold hundreds of times the text of a large file. Images weigh as plain text:
 * the text pass reads only their header (OCR reads them later, in its own process). Counted against `maxBytesInFlight`, so such files run alone.
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
  /** Over the budget of weighted bytes on its own. */
  large: boolean;
  /** Runs with no other file in flight. */
  alone: boolean;
}

/**
 * The files an indexer extracts and stores at once: at most `concurrency` of them, and
 * within a budget of weighted bytes (see {@link expectedLoad}).
 *
 * Without `admit` a file over the budget (a large one) runs alone. With `admit` (which
 * measures memory) the budget only bounds the smaller files: a large file starts beside
 * smaller ones when `admit` says there is room for it, never beside another large file, and
 * smaller files start beside it while `admit` says yes, so both cores stay busy while a
 * large PDF is read.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const MB = 2 ** 20;
 * // Measured memory has room: a 2 MB PDF (16 MB weighted) starts beside a small file.
 * const room = new Room(3, 4 * MB, () => true);
 * const small = room.file("a.md", 1000);
 * room.add(small);
 * const pdf = room.file("big.pdf", 2 * MB);
 * assert.ok(pdf.large && room.fits(pdf));
 * room.add(pdf);
 * // ... but not a second large file; an image (its header read, OCR later) goes beside.
 * assert.equal(room.fits(room.file("other.pdf", 2 * MB)), false);
 * assert.equal(room.fits(room.file("scan.png", 300_000)), true);
 * // Without a measure of memory, a large file runs alone.
 * const blind = new Room(3, 4 * MB);
 * blind.add(blind.file("a.md", 1000));
 * assert.equal(blind.fits(blind.file("big.pdf", 2 * MB)), false);
 * ```
 */
export class Room {
  readonly #concurrency: number;
  readonly #maxBytes: number;
  readonly #admit?: (load: number, large: boolean) => boolean;
  #files = 0;
  /** Weighted bytes of the smaller files in flight (all files without `admit`). */
  #bytes = 0;
  #large = 0;
  #alone = 0;

  /**
   * A room with nothing in flight.
   *
   * @param concurrency files at once, at most
   * @param maxBytes budget of weighted bytes
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
    const large = load > this.#maxBytes;
    return { load, large, alone: large && !this.#admit };
  }

  /** Whether the file may start now (one file always may, when none is in flight). */
  fits(f: Weighed): boolean {
    return this.why(f) === undefined;
  }

  /**
   * Why the file may not start now (`files`, `alone`, `bytes`, `memory`, `large`), or
   * undefined when it may: what a scheduling log records of a wait.
   */
  why(f: Weighed): string | undefined {
    if (this.#files === 0) return undefined;
    if (this.#files >= this.#concurrency) return "files";
    if (this.#alone > 0 || f.alone) return "alone";
    if (!this.#admit) return this.#bytes + f.load <= this.#maxBytes ? undefined : "bytes";
    if (f.large) {
      if (this.#large > 0) return "large";
      return this.#admit(f.load, true) ? undefined : "memory";
    }
    if (this.#bytes + f.load > this.#maxBytes) return "bytes";
    return this.#admit(f.load, false) ? undefined : "memory";
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
    if (f.alone) this.#alone += n;
    if (f.large && this.#admit) this.#large += n;
    else this.#bytes += n * f.load;
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
