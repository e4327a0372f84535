/**
 * How the catalog stores a document's text: short texts as they are (SQL `TEXT`), longer
 * ones compressed with zstd (SQL `BLOB`), where that saves at least a tenth. On the shared
 * corpus zstd level 3 keeps 29 % of the bytes, costs about 5 ms per MB to compress when a
 * file is indexed and 2-3 ms per MB to read back. The text is kept once, in blocks of
 * whole lines each encoded on its own (the catalog's `text_blocks` table,
 * {@link textBlocks}): the FTS5 indexes are contentless, so a hit's passages decompress
 * only the blocks holding their lines, while `read` and `grep` join the blocks back
 * ({@link joinTexts}).
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

/** Characters of lines a stored block holds, about (a longer line is a block of its own). */
export const BLOCK_CHARS = 32 * 1024;

/** A block of a document's stored text: whole lines, from `first_line` (1-based). */
export interface TextBlock {
  /** Its first line. */
  first_line: number;
  /** Its lines, joined by `\n`. */
  text: string;
}

/**
 * A document's lines cut into blocks of about {@link BLOCK_CHARS} characters, each of whole
 * lines: what the catalog compresses one by one, so a search hit decompresses only the
 * block(s) holding its passage. Measured on the shared corpus (121 MB of text, zstd level
 * 3): blocks of 8 KB keep 44.3 MB, 16 KB 41.5, 32 KB 39.6, 64 KB 38.2, whole texts 36.0.
 * A text without lines is one empty block.
 *
 * @param lines the document's lines
 * @returns its blocks, in line order
 * @example
 * ```ts
 * import { BLOCK_CHARS, textBlocks } from "./text_codec.ts";
 * import assert from "node:assert/strict";
 * const line = "x".repeat(BLOCK_CHARS / 2);
 * const blocks = textBlocks([line, line, line, "end"]);
 * assert.deepEqual(blocks.map((b) => b.first_line), [1, 3]);
 * assert.equal(blocks.map((b) => b.text).join("\n"), [line, line, line, "end"].join("\n"));
 * assert.deepEqual(textBlocks([]), [{ first_line: 1, text: "" }]);
 * ```
 */
export function textBlocks(lines: string[]): TextBlock[] {
  const out: TextBlock[] = [];
  let from = 0;
  let chars = 0;
  for (let i = 0; i < lines.length; i++) {
    chars += lines[i]!.length + 1;
    if (chars >= BLOCK_CHARS || i === lines.length - 1) {
      out.push({ first_line: from + 1, text: lines.slice(from, i + 1).join("\n") });
      from = i + 1;
      chars = 0;
    }
  }
  return out.length ? out : [{ first_line: 1, text: "" }];
}

/**
 * A text stored in blocks ({@link textBlocks}, in line order) back as one string: the
 * blocks decoded and joined by `\n`.
 *
 * @param values the stored values of the blocks, in order
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
 * @param value a value read from the `text_blocks` table
 * @returns the text
 */
export function decodeText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") return value;
  if (value instanceof Uint8Array) return decoder.decode(zstdDecompressSync(value));
  return String(value);
}
