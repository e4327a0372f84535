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
 * XML is inflated and parsed into a tree (mammoth: 460 MB for a 0.4 MB file), a page image
 * is OCRed (about 300 MiB whatever its size), pdf.js and the HTML converter hold hundreds of
 * times the text of a large file. Counted against `maxBytesInFlight`, so such files run alone.
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
  ".png": 16,
  ".jpg": 16,
  ".jpeg": 16,
  ".gif": 16,
  ".bmp": 16,
  ".tif": 16,
  ".tiff": 16,
  ".webp": 16,
};

/**
 * What a file is expected to take while it is extracted and stored, in bytes of plain text
 * (its size times its type's weight): the unit of `Indexer.maxBytesInFlight`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(expectedLoad("scans/page-1.png", 300_000), 4_800_000); // runs alone
 * assert.equal(expectedLoad("notes/a.md", 300_000), 300_000);
 * ```
 */
export function expectedLoad(path: string, size: number): number {
  return size * (EXTRACTION_WEIGHT[extname(path).toLowerCase()] ?? 1);
}
