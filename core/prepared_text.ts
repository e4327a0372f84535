/**
 * A document's text made ready to store: its fingerprints (`core/fingerprint.ts`) and its
 * blocks of lines, each encoded on its own (`core/text_codec.ts`). An extraction process
 * prepares it (`core/measure.ts`), so that the index process, one thread for every
 * document, only writes it; it crosses as plain data (JSON between processes), the
 * compressed bytes in base64. The catalog and a PostgreSQL store take it with the text
 * ({@link textToStore}) and prepare it themselves when it is not given.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { type Fingerprint, fingerprint } from "./fingerprint.ts";
import { MARKUP_TYPES } from "./readable.ts";
import { encodeText, textBlocks } from "./text_codec.ts";

/** A stored block as plain data: its first line and its text, or its zstd bytes in base64. */
export interface PreparedBlock {
  /** Its first line (1-based). */
  first_line: number;
  /** The block's text, stored as it is (short or incompressible). */
  text?: string;
  /** The block's text compressed by `encodeText`, in base64. */
  zstd?: string;
}

/** A document's text made ready to store, as plain data. */
export interface PreparedText {
  /** `Fingerprint.key` of the text. */
  key: string;
  /** `Fingerprint.minhash` of the text, for texts long enough. */
  minhash?: number[];
  /** The text's blocks (`textBlocks`), each encoded (`encodeText`). */
  blocks: PreparedBlock[];
}

/** What a store writes for a document's text. */
export interface TextToStore {
  /** The text's fingerprints. */
  fingerprint: Fingerprint;
  /** Its blocks, each a string or compressed bytes (see `encodeText`). */
  blocks: { first_line: number; value: string | Uint8Array }[];
  /** Its lines: 0 for an empty text, else one more than its newlines. */
  lines: number;
}

/** The lines of a stored text, as its blocks and passages count them. */
function linesOf(text: string): string[] {
  return text === "" ? [] : text.split("\n");
}

/** How many lines {@link linesOf} gives, without making them. */
function lineCount(text: string): number {
  if (text === "") return 0;
  let n = 1;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) n++;
  return n;
}

/**
 * Prepare a document's text to store: fingerprints and encoded blocks, as plain data.
 *
 * @param text the document's text (lines joined by `\n`, without NUL characters)
 * @param docType its extractor, which says whether the lines are markup (`MARKUP_TYPES`)
 * @returns what {@link textToStore} takes
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { fingerprint } from "./fingerprint.ts";
 * const text = "a line of words\n".repeat(100);
 * const p = prepareText(text, "text");
 * assert.equal(p.key, fingerprint(text).key);
 * assert.deepEqual(JSON.parse(JSON.stringify(p)), p);
 * ```
 */
export function prepareText(text: string, docType: string): PreparedText {
  const fp = fingerprint(text, MARKUP_TYPES.has(docType));
  const blocks = textBlocks(linesOf(text)).map((b): PreparedBlock => {
    const value = encodeText(b.text);
    return typeof value === "string"
      ? { first_line: b.first_line, text: value }
      : { first_line: b.first_line, zstd: Buffer.from(value).toString("base64") };
  });
  const out: PreparedText = { key: fp.key, blocks };
  if (fp.minhash) out.minhash = [...fp.minhash];
  return out;
}

/**
 * What a store writes for a document's text: `prepared` decoded when given, else made from
 * the text (the same values either way).
 *
 * @param text the document's text (without NUL characters)
 * @param docType its extractor
 * @param prepared the same text prepared by {@link prepareText}
 * @returns its fingerprints, encoded blocks and line count
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const text = "a line of words\n".repeat(100);
 * assert.deepEqual(textToStore(text, "text", prepareText(text, "text")), textToStore(text, "text"));
 * ```
 */
export function textToStore(text: string, docType: string, prepared?: PreparedText): TextToStore {
  if (!prepared) {
    const lines = linesOf(text);
    return {
      fingerprint: fingerprint(text, MARKUP_TYPES.has(docType)),
      blocks: textBlocks(lines).map((b) => ({
        first_line: b.first_line,
        value: encodeText(b.text),
      })),
      lines: lines.length,
    };
  }
  const fp: Fingerprint = { key: prepared.key };
  if (prepared.minhash) fp.minhash = Uint32Array.from(prepared.minhash);
  const blocks = prepared.blocks.map((b) => {
    if (b.zstd === undefined) return { first_line: b.first_line, value: b.text ?? "" };
    const bytes = Buffer.from(b.zstd, "base64");
    return {
      first_line: b.first_line,
      value: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length),
    };
  });
  return { fingerprint: fp, blocks, lines: lineCount(text) };
}
