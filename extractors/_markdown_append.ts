/**
 * node-html-markdown 2.0 without its quadratic append. Its `Visitor.appendResult` adds each
 * piece of Markdown to one growing string, then reads that string's last ten characters to
 * know how many newlines it ends with; reading the end of a string built by `+=` makes V8
 * copy the whole string into one flat block, so every append copies the output so far (11 %
 * of the self time and most of the 22 % of garbage collection of DOCX and EPUB extraction,
 * `deno run --cpu-prof`). {@link fastAppendResult} does the same from the last ten characters
 * it keeps beside the string, and gives the same text and the same trailing-whitespace
 * counts.
 *
 * It replaces the method only when the library's method is the one it was written against
 * (its source text matches), so another version of the library keeps its own.
 *
 * @module
 */
import { Visitor } from "node-html-markdown/dist/visitor.js";

/** How far back node-html-markdown looks for trailing whitespace. */
const TAIL = 10;
/** The last {@link TAIL} characters of the result, kept on the result object. */
const TAIL_KEY = Symbol("shelfmark.markdownTail");

/** What node-html-markdown keeps of the Markdown written so far. */
interface VisitorResult {
  text: string;
  trailingNewlineStats: { whitespace: number; newLines: number };
  [TAIL_KEY]?: string;
}

/** The library's method, kept for the test that compares the two. */
export const libraryAppendResult: (
  this: { result: VisitorResult },
  s: string,
  startPos?: number,
  spaceIfRepeatingChar?: boolean,
) => void = Visitor.prototype.appendResult;

/** node-html-markdown's `getTrailingWhitespaceInfo`, on the tail alone. */
function trailingWhitespace(tail: string): VisitorResult["trailingNewlineStats"] {
  const res = { whitespace: 0, newLines: 0 };
  for (let i = tail.length - 1; i >= 0; --i) {
    const c = tail[i]!;
    if (!/\s/.test(c)) break;
    ++res.whitespace;
    if (c === "\r" || c === "\n") ++res.newLines;
  }
  return res;
}

/**
 * `Visitor.appendResult` of node-html-markdown, reading only the tail it keeps: the text
 * `s` goes at the end (or at `startPos`, dropping what follows), with a space first when
 * `spaceIfRepeatingChar` and the text ends with the character `s` starts with.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const v = { result: { text: "", trailingNewlineStats: { whitespace: 0, newLines: 0 } } };
 * fastAppendResult.call(v, "*a*");
 * fastAppendResult.call(v, "*b*", undefined, true);
 * fastAppendResult.call(v, "\n\n");
 * assert.equal(v.result.text, "*a* *b*\n\n");
 * assert.deepEqual(v.result.trailingNewlineStats, { whitespace: 2, newLines: 2 });
 * ```
 */
export function fastAppendResult(
  this: { result: VisitorResult },
  s: string,
  startPos?: number,
  spaceIfRepeatingChar?: boolean,
): void {
  if (!s && startPos === undefined) return;
  const { result } = this;
  let tail: string;
  if (startPos !== undefined) {
    result.text = result.text.substr(0, startPos);
    tail = result.text.slice(-TAIL);
  } else tail = result[TAIL_KEY] ?? result.text.slice(-TAIL);
  const add = (spaceIfRepeatingChar && tail.slice(-1) === s[0] ? " " : "") + s;
  result.text += add;
  tail = (add.length >= TAIL ? add : tail + add).slice(-TAIL);
  result[TAIL_KEY] = tail;
  result.trailingNewlineStats = trailingWhitespace(tail);
}

/** The source of the method {@link fastAppendResult} stands in for (whitespace aside). */
const KNOWN_SOURCE = "appendResult(s, startPos, spaceIfRepeatingChar) { " +
  "if (!s && startPos === undefined) return; const { result } = this; " +
  "if (startPos !== undefined) result.text = result.text.substr(0, startPos); " +
  "result.text += (spaceIfRepeatingChar && result.text.slice(-1) === s[0] ? ' ' : '') + s; " +
  "result.trailingNewlineStats = (0, utilities_1.getTrailingWhitespaceInfo)(result.text); }";

const squeeze = (s: string) => s.replace(/\s+/g, " ").replace(/([{;]) /g, "$1 ").trim();

/** Whether the library's method is the one {@link fastAppendResult} was written against. */
export const appendMatchesLibrary: boolean =
  squeeze(String(libraryAppendResult)) === squeeze(KNOWN_SOURCE);

if (appendMatchesLibrary) Visitor.prototype.appendResult = fastAppendResult;
