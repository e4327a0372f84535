/**
 * The per-document work of indexing that needs no shared state, done where the document
 * was extracted (an extraction process or worker thread, or in process): the lines made
 * safe to store, the outline with its summaries and sampled words, the card's fields from
 * the text and the document's terms. What reads the corpus statistics (the keywords'
 * ranking) and the writes stay in the index process (`shelf/indexer.ts`, with
 * `rankOutline` and `rankCard`), which is one thread for every document.
 *
 * @module
 */
import type { Extracted } from "./extractor.ts";
import type { ExtractResult } from "./types.ts";
import { measureCard, type MeasuredCard } from "./card.ts";
import { type MeasuredOutline, measureOutline } from "./outline.ts";
import { type PreparedText, prepareText } from "./prepared_text.ts";
import { LineCache } from "./prose.ts";

/** What the measure step gives for an extracted document (plain data, it crosses processes). */
export interface MeasuredDoc {
  /** The outline before its keywords. */
  outline: MeasuredOutline;
  /** The card's fields from the text, and the terms to rank. */
  card: MeasuredCard;
  /** The text's fingerprints and encoded blocks, ready to store. */
  text: PreparedText;
}

/**
 * The lines of an extracted document with each NUL character made U+FFFD: SQLite text ends
 * at a NUL byte, which would cut off the rest of the stored text (GNU info files carry
 * `\0\b[index\0\b]` markers). Sets them on `extracted` and returns them.
 *
 * @param extracted an extractor's result (its `lines` are replaced)
 * @returns the lines
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.deepEqual(storableLines({ lines: ["a\0b", "c"] }), ["a\uFFFDb", "c"]);
 * ```
 */
export function storableLines(extracted: Extracted): string[] {
  const lines = extracted.lines.map((l) => (l.includes("\0") ? l.replaceAll("\0", "\uFFFD") : l));
  extracted.lines = lines;
  return lines;
}

/**
 * Measure an extracted document: its lines made storable ({@link storableLines}, set on
 * `extracted`), its outline without keywords, its card's fields and terms, and its text
 * prepared to store. The index process ranks them against the corpus statistics
 * (`rankOutline`, `rankCard`) and writes them.
 *
 * @param path the file's path, as its card names it
 * @param extracted the extractor's result (its lines are made storable)
 * @param docType the extractor's name (the card's `doc_type`)
 * @returns the measured outline, card and text
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const lines = ["# Setup", "Install the server.", "Then start the server."];
 * const headings = [{ level: 1, title: "Setup", line: 1 }];
 * const m = measureDoc("notes/setup.md", { lines, headings }, "markdown");
 * assert.equal(m.card.fields.title, "Setup");
 * assert.equal(m.outline.roots[0]?.summary, "Install the server.");
 * ```
 */
export function measureDoc(path: string, extracted: Extracted, docType: string): MeasuredDoc {
  const lines = storableLines(extracted);
  // The outline and the card read the same lines: their prose and words are made once.
  const cache = new LineCache();
  const outline = measureOutline(lines, extracted.headings ?? [], cache);
  const quality = outline.roots.length ? (extracted.outlineQuality ?? "high") : "none";
  const card = measureCard({
    path,
    lines,
    extracted,
    outline: outline.roots,
    outline_quality: quality,
  }, cache);
  return { outline, card, text: prepareText(lines.join("\n"), docType) };
}

/**
 * An extraction's result with its document measured ({@link measureDoc}): what every
 * extraction function gives the indexer, in an extraction process, a worker thread or in
 * process alike.
 *
 * @param path the file's path
 * @param result what the extractor gave (undefined: no extractor took the file)
 * @returns the result with `measured`
 */
export function withMeasure(path: string, result: ExtractResult): ExtractResult {
  return result && { ...result, measured: measureDoc(path, result.extracted, result.extractor) };
}
