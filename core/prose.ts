/**
 * Prose helpers shared by the outline and card builders: `plainText` strips Markdown
 * markup from a line, `ProseScanner` reads lines in order skipping code and comments,
 * `firstSentence` and `clipWords` shorten a paragraph.
 *
 * @module
 */
import { words } from "./tokenize.ts";

/** A code fence: three backticks or tildes at least (indented: inside a list item). */
const FENCE = /^\s*(`{3,}|~{3,})/;
const TABLE_RULE = /^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/;
const RULE = /^\s*([-=*_])(\s*\1){2,}\s*$/;
const ATX = /^\s{0,3}#{1,6}(\s|$)/;
const TAG_LINE = /^\s*(<\/?[a-zA-Z!?][^>]*>\s*)+$/;
const INLINE = /[[<`*_\\!]/;

/**
 * Reads lines in order and gives the prose of each: `""` inside fenced code
 * blocks and multi-line HTML comments, else {@link plainText}. A fence is closed by
 * a fence of the same character at least as long as the one that opened it (so a
 * block fenced with four backticks can show a three-backtick fence).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const scan = new ProseScanner();
 * assert.deepEqual(["~~~", "x()", "~~~", "Text."].map((l) => scan.next(l)), ["", "", "", "Text."]);
 * ```
 */
export class ProseScanner {
  /** The fence that opened the code block the scanner is in, or "". */
  #fence = "";
  #comment = false;
  #headings: boolean;
  #cache?: LineCache;

  /**
   * @param opts `headings`: give the text of ATX heading lines (`## Title`) instead of `""`;
   *   `cache`: the prose of the document's lines, shared with other scanners of its lines
   */
  constructor(opts: { headings?: boolean; cache?: LineCache } = {}) {
    this.#headings = opts.headings ?? false;
    this.#cache = opts.cache;
  }

  /** Whether the lines read so far end inside a fenced code block or an HTML comment. */
  get skipping(): boolean {
    return this.#fence !== "" || this.#comment;
  }

  /**
   * The part of the next line outside code and comments: the line itself, the text before
   * an HTML comment it opens, or undefined for a fence line and a line inside a code block
   * or a comment.
   *
   * @param line the next line of the document
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * const scan = new ProseScanner();
   * assert.deepEqual(["Text <!-- a", "b -->", "More."].map((l) => scan.visible(l)), [
   *   "Text ",
   *   undefined,
   *   "More.",
   * ]);
   * ```
   */
  visible(line: string): string | undefined {
    if (this.#comment) {
      if (line.includes("-->")) this.#comment = false;
      return undefined;
    }
    const mark = FENCE.exec(line)?.[1];
    if (mark && !this.#fence) {
      this.#fence = mark;
      return undefined;
    }
    if (this.#fence) {
      if (mark?.startsWith(this.#fence) && !line.slice(line.indexOf(mark) + mark.length).trim()) {
        this.#fence = "";
      }
      return undefined;
    }
    const open = line.indexOf("<!--");
    if (open >= 0 && line.indexOf("-->", open + 4) < 0) {
      this.#comment = true;
      return line.slice(0, open);
    }
    return line;
  }

  /**
   * @param line the next line of the document
   * @param index its index in the document (0-based), for the scanner's `cache`
   * @returns its plain prose, or `""`
   */
  next(line: string, index?: number): string {
    const v = this.visible(line);
    if (v === undefined) return "";
    if (this.#headings && ATX.test(v)) {
      return plainText(v.replace(/^\s*#+\s*/, "").replace(/\s+#+\s*$/, ""));
    }
    return index === undefined || !this.#cache ? plainText(v) : this.#cache.prose(index, v);
  }
}

/**
 * The prose and words of a document's lines, computed once for the outline and the card
 * (`core/measure.ts`), which read the same lines with scanners of their own: a line's
 * prose is {@link plainText} of its visible part, its words those of `words` in
 * `core/tokenize.ts`; each is kept with what it was computed from and given again only
 * for the same input, so the results are those of the functions themselves.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const cache = new LineCache();
 * assert.equal(cache.prose(0, "See **this** text."), "See this text.");
 * assert.deepEqual(cache.words(0, "See this text."), ["see", "text"]);
 * assert.deepEqual(cache.words(0, "Quokkas jump"), ["quokkas", "jump"]);
 * ```
 */
export class LineCache {
  readonly #visible: (string | undefined)[] = [];
  readonly #prose: (string | undefined)[] = [];
  readonly #words: (string[] | undefined)[] = [];
  readonly #wordsOf: (string | undefined)[] = [];

  /**
   * @param index the line's index (0-based)
   * @param visible its part outside code and comments
   * @returns `plainText(visible)`
   */
  prose(index: number, visible: string): string {
    if (this.#visible[index] === visible) return this.#prose[index]!;
    const p = plainText(visible);
    this.#visible[index] = visible;
    this.#prose[index] = p;
    return p;
  }

  /**
   * @param index the line's index (0-based)
   * @param prose its prose (what the words are read from)
   * @returns `words(prose)`: the same words as in any text where the line stands whole
   *   between line breaks (a word never spans one)
   */
  words(index: number, prose: string): string[] {
    if (this.#wordsOf[index] === prose) return this.#words[index]!;
    const w = words(prose);
    this.#wordsOf[index] = prose;
    this.#words[index] = w;
    return w;
  }
}

/**
 * The prose of one line with Markdown markup removed, or `""` when the line is
 * not prose (blank, heading, table row, rule, HTML-only, image-only). Code
 * blocks are not recognised here; read lines with {@link ProseScanner} for that.
 *
 * @param line one line of an extracted document
 * @returns the plain text, whitespace collapsed
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(plainText("- See [the guide](g.md) for **details**."), "See the guide for details.");
 * ```
 */
export function plainText(line: string): string {
  if (line.length === 0 || ATX.test(line) || RULE.test(line)) return "";
  const t = line.trimStart();
  if (t.startsWith("|") || (t.includes("|") && TABLE_RULE.test(t)) || TAG_LINE.test(t)) return "";
  let s = t.replace(/^(>\s?)+/, "").replace(/^([-*+•]|\d{1,3}[.)])\s+(\[[ xX]\]\s+)?/, "");
  if (INLINE.test(s)) {
    s = s
      .replace(/!\[[^\]]*\]\([^)]*\)/g, "")
      .replace(/\[\^[^\]]+\]/g, "")
      .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
      .replace(/\[([^\]]+)\]\[[^\]]*\]/g, "$1")
      .replace(/<(https?:[^>\s]+)>/g, "$1")
      .replace(/<!--.*?-->|<\/?[a-zA-Z!][^>]*>/g, "")
      .replace(/`+([^`]*)`+/g, "$1")
      .replace(/(\*\*|__)(?=\S)(.+?)\1/g, "$2")
      .replace(/\*(?=\S)([^*]+)\*/g, "$1")
      .replace(/(^|[\s(])_(?=\S)([^_]+)_(?=[\s).,;:!?]|$)/g, "$1$2")
      .replace(/\\([\\`*_{}[\]()#+\-.!|>])/g, "$1");
  }
  return s.replace(/\s+/g, " ").trim();
}

const ABBREV = new Set(
  ("e.g i.e etc vs cf fig figs no nos mr mrs ms dr st approx incl resp ca vgl bzw usw z.b " +
    "d.h u.a s p pp vol ch sec eq al ref").split(" "),
);
const SENTENCE_END = /[.!?](?=["'”’)\]]*(\s|$))|[。！？]/g;

/**
 * The first sentence of a paragraph, or its first ~`max` characters cut at a
 * word boundary and ended with "…". Common abbreviations (`e.g.`, `Fig.`) and
 * initials do not end a sentence.
 *
 * @param text a paragraph of plain text
 * @param max the longest result, in characters (160)
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(firstSentence("Use e.g. grep. Then read."), "Use e.g. grep.");
 * ```
 */
export function firstSentence(text: string, max = 160): string {
  SENTENCE_END.lastIndex = 0;
  for (const m of text.matchAll(SENTENCE_END)) {
    const end = m.index + 1;
    if (end > max + 1) break;
    if (m[0] === ".") {
      const before = /(\S+)$/.exec(text.slice(0, m.index))?.[1]?.toLowerCase() ?? "";
      const bare = before.replace(/^[("'“‘[]+/, "");
      if (ABBREV.has(bare) || /^\p{L}$/u.test(bare)) continue;
      if (bare.length <= 3 && /^\s+\p{Ll}/u.test(text.slice(end))) continue;
    }
    return text.slice(0, end).trim();
  }
  return clipWords(text, max);
}

/**
 * A text cut to at most `max` characters at a word boundary (when one lies in the last
 * 40 %), trailing punctuation dropped, ended with "…"; a text that fits is returned as is.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(clipWords("one two three", 9), "one two…");
 * ```
 */
export function clipWords(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const space = cut.lastIndexOf(" ");
  const head = space > max * 0.6 ? cut.slice(0, space) : cut;
  return `${head.replace(/[\s,;:.\-–—…]+$/, "")}…`;
}

/**
 * Call `each` with every word of prose lines joined by line breaks and cut at `limit`
 * characters, in order: the words `words` of `core/tokenize.ts` gives for that text (a word
 * never spans a line break, so each whole line's words are its own, from `cache` when it
 * has them), without making the text.
 *
 * @param prose the prose lines
 * @param indexes the index of each one in the document (for `cache`)
 * @param limit where the joined text is cut
 * @param cache the document's line cache
 * @param each called with each word
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { words } from "./tokenize.ts";
 * const prose = ["Alpha beta", "gamma delta"];
 * const seen: string[] = [];
 * eachWord(prose, [0, 1], 14, new LineCache(), (w) => seen.push(w));
 * assert.deepEqual(seen, words(prose.join("\n").slice(0, 14)));
 * ```
 */
export function eachWord(
  prose: readonly string[],
  indexes: readonly number[],
  limit: number,
  cache: LineCache,
  each: (word: string) => void,
): void {
  let start = 0;
  for (let k = 0; k < prose.length && start < limit; k++) {
    const p = prose[k]!;
    const ws = start + p.length <= limit
      ? cache.words(indexes[k]!, p)
      : words(p.slice(0, limit - start));
    for (const w of ws) each(w);
    start += p.length + 1;
  }
}
