/**
 * How the catalog stores a document's text: short texts as they are (SQL `TEXT`), longer
 * ones compressed with zstd (SQL `BLOB`), where that saves at least a tenth. On the shared
 * corpus zstd level 3 keeps 29 % of the bytes, costs about 5 ms per MB to compress when a
 * file is indexed and 2-3 ms per MB to read back. The text is kept once, as a document's
 * passages each encoded on its own (the catalog's `passages` table): the FTS5 index is
 * contentless, so a hit's snippet decompresses its passage alone, while `read` and `grep`
 * join the passages back ({@link joinTexts}).
 *
 * @module
 */
import { constants, zstdCompressSync, zstdDecompressSync } from "node:zlib";

/** Texts shorter than this many characters are stored as they are. */
const MIN_CHARS = 512;
/** zstd level: 3 compresses at ~200 MB/s with a ratio close to levels 6-9. */
const LEVEL = 3;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * The value stored for a text: the text itself when short or incompressible, else its
 * UTF-8 bytes compressed with zstd.
 *
 * @param text the document's text (without NUL characters)
 * @returns a string or compressed bytes, for {@link decodeText}
 * @example
 * ```ts
 * import { decodeText, encodeText } from "./text_codec.ts";
 * import assert from "node:assert/strict";
 * const text = "a line of words\n".repeat(100);
 * assert.ok(encodeText(text) instanceof Uint8Array);
 * assert.equal(decodeText(encodeText(text)), text);
 * ```
 */
export function encodeText(text: string): string | Uint8Array {
  if (text.length < MIN_CHARS) return text;
  const raw = encoder.encode(text);
  const packed = zstdCompressSync(raw, { params: { [constants.ZSTD_c_compressionLevel]: LEVEL } });
  if (packed.length > raw.length * 0.9) return text;
  return new Uint8Array(packed.buffer, packed.byteOffset, packed.length);
}

/**
 * A text stored in parts (a document's passages, in line order) back as one string: the
 * parts decoded and joined by `\n`.
 *
 * @param values the stored values of the parts, in order
 * @returns the text
 * @example
 * ```ts
 * import { encodeText, joinTexts } from "./text_codec.ts";
 * import assert from "node:assert/strict";
 * const part = "a line of words\n".repeat(50).trimEnd();
 * assert.equal(joinTexts([encodeText(part), "end"]), part + "\nend");
 * ```
 */
export function joinTexts(values: unknown[]): string {
  return values.map((v) => decodeText(v) ?? "").join("\n");
}

/**
 * A stored text value back as a string (`undefined` stays `undefined`).
 *
 * @param value a value read from the `texts` table
 * @returns the text
 */
export function decodeText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") return value;
  if (value instanceof Uint8Array) return decoder.decode(zstdDecompressSync(value));
  return String(value);
}
