/**
 * Fingerprints of a document's text, to find copies: the same text in another format
 * (the PDF and its copy without bookmarks, a DOCX made from the Markdown, a copy in
 * another folder). Both work on the text's words alone (letters and digits, lower case),
 * as it reads (`core/readable.ts`: link targets and image references are not its words),
 * so markup, line breaks and punctuation do not tell copies apart.
 *
 * - `key`: a hash of the whole word sequence, for exact copies (an index finds them all).
 * - `minhash`: 64 MinHash values over 5-word shingles, for near copies (the same text
 *   with page headers, hyphenation or a different table layout): the share of equal
 *   values estimates the Jaccard similarity of the two shingle sets.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { readableLine } from "./readable.ts";

/**
 * Version of the fingerprints: stored catalogs with another one compute theirs again
 * (2: the words of the readable text, without link targets).
 */
export const FINGERPRINT_VERSION = "2";
/** MinHash values per document. */
export const MINHASH_SIZE = 64;
/** Words per shingle. */
const SHINGLE = 5;
/** Estimated Jaccard similarity from which two texts are copies. */
export const COPY_SIMILARITY = 0.8;
/** Words of a text read for its MinHash signature. */
const MAX_WORDS = 20_000;
/** Texts with fewer words are never near copies (short pages all look alike). */
const MIN_WORDS = 100;

/** A document's fingerprints. */
export interface Fingerprint {
  /** Hash of the word sequence (hex). */
  key: string;
  /** MinHash signature, or undefined for texts too short to compare. */
  minhash?: Uint32Array;
}

/**
 * Multipliers and offsets of the MinHash family, as unsigned 32-bit integers (fixed:
 * signatures must be comparable forever).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(MINHASH_SEEDS.a.length, MINHASH_SIZE);
 * assert.ok(MINHASH_SEEDS.a.every((x) => x % 2 === 1));
 * ```
 */
export const MINHASH_SEEDS: { a: Uint32Array; b: Uint32Array } = (() => {
  const a = new Uint32Array(MINHASH_SIZE);
  const b = new Uint32Array(MINHASH_SIZE);
  let x = 0x9e3779b9;
  for (let i = 0; i < MINHASH_SIZE; i++) {
    x = (Math.imul(x ^ (x >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    a[i] = x | 1;
    x = (Math.imul(x ^ (x >>> 13), 0x297a2d39) + 0x6d2b79f5) >>> 0;
    b[i] = x;
  }
  return { a, b };
})();
/**
 * The same seeds as signed 32-bit integers: the loop below works on int32 values, which V8
 * keeps unboxed (uint32 values over 2^31 are doubles), for half the CPU with the extraction
 * processes' `--no-turbofan`. The bits, and so the signatures, are the same.
 */
const SEEDS_I32 = { a: new Int32Array(MINHASH_SEEDS.a), b: new Int32Array(MINHASH_SEEDS.b) };
/** Flips the sign bit: int32 values so biased order as the uint32 values of the same bits. */
const BIAS = 0x80000000 | 0;

/** FNV-1a over a string: the shingle's base hash (its 32 bits as a signed integer). */
function fnv(s: string): number {
  let h = 0x811c9dc5 | 0;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h;
}

/**
 * The fingerprints of a text.
 *
 * @param text the document's text
 * @param markup whether its lines are Markdown (`MARKUP_TYPES` of `core/readable.ts`)
 * @returns its exact key and MinHash signature
 * @example
 * ```ts
 * import { fingerprint } from "./fingerprint.ts";
 * import assert from "node:assert/strict";
 * assert.equal(fingerprint("# Hello,  World").key, fingerprint("hello world\n").key);
 * ```
 */
export function fingerprint(text: string, markup = false): Fingerprint {
  // Plain lines change only where they hold a link: most texts are read as they are (a
  // tenth less CPU for the fingerprints of pdf-plain's texts than split, read and joined).
  const readable = markup || text.includes("](") || text.includes("][")
    ? text.split("\n").map((l) => readableLine(l, markup)).join("\n")
    : text;
  const words = readable.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const key = createHash("sha256").update(words.join(" ")).digest("hex").slice(0, 32);
  if (words.length < MIN_WORDS) return { key };
  // Each value biased (see BIAS): the least int32 is the least uint32 of the same bits.
  const min = new Int32Array(MINHASH_SIZE).fill(0x7fffffff);
  const { a, b } = SEEDS_I32;
  // The first words are enough to tell copies, and keep a huge manual cheap.
  const n = Math.min(words.length, MAX_WORDS);
  const wh = new Int32Array(n);
  for (let i = 0; i < n; i++) wh[i] = fnv(words[i]!);
  for (let i = 0; i + SHINGLE <= n; i++) {
    let h = 0x811c9dc5 | 0;
    for (let k = 0; k < SHINGLE; k++) h = Math.imul(h ^ wh[i + k]!, 0x01000193);
    // One shingle in four, chosen by its hash: the same shingles in every document, so
    // signatures stay comparable, for a quarter of the work.
    if ((h & 3) !== 0) continue;
    for (let j = 0; j < MINHASH_SIZE; j++) {
      const v = ((Math.imul(a[j]!, h) + b[j]!) | 0) ^ BIAS;
      if (v < min[j]!) min[j] = v;
    }
  }
  return { key, minhash: Uint32Array.from(min, (v) => (v ^ BIAS) >>> 0) };
}

/**
 * Estimated Jaccard similarity of two signatures (the share of equal values).
 *
 * @example
 * ```ts
 * import { fingerprint, similarity } from "./fingerprint.ts";
 * import assert from "node:assert/strict";
 * const text = Array.from({ length: 300 }, (_, i) => `word${i % 97} line ${i}`).join(" ");
 * assert.ok(similarity(fingerprint(text).minhash!, fingerprint(text + " tail").minhash!) > 0.9);
 * ```
 */
export function similarity(x: Uint32Array, y: Uint32Array): number {
  let same = 0;
  for (let i = 0; i < MINHASH_SIZE; i++) if (x[i] === y[i]) same++;
  return same / MINHASH_SIZE;
}
