/**
 * node-html-markdown 2.0 without its quadratic handling of the Markdown written so far.
 *
 * - Its `Visitor.appendResult` adds each piece of Markdown to one growing string, then reads
 *   that string's last ten characters to know how many newlines it ends with; reading the
 *   end of a string built by `+=` makes V8 copy the whole string into one flat block, so
 *   every append copied the output so far (11 % of the self time and most of the 22 % of
 *   garbage collection of DOCX and EPUB extraction, `deno run --cpu-prof`).
 * - Its `Visitor.visitNode` gives every element with a `postprocess` step (links, emphasis,
 *   code, list items, table cells) its content as `result.text.substr(start)`, and the
 *   step's answer replaces that content (`appendResult(answer, start)`): both copy the whole
 *   output so far again, once per such element. Converting pages in pieces of 16 KB instead
 *   of 64 KB took 25 % less CPU for the 1,998 pages of the corpus.
 *
 * Here the Markdown written so far is kept as a list of pieces ({@link piecesOf}):
 * {@link fastAppendResult} pushes a piece, cuts back to a position by dropping pieces, and
 * keeps the last ten characters beside them; the content of an element is joined from the
 * pieces after its start ({@link piecesFrom}). `visitNode` is the library's own method with
 * its three reads of `result.text` turned into reads of the pieces (built from its source
 * text, see {@link installVisitNode}). Reading `result.text` joins the pieces, so the
 * Markdown, the whitespace counts and every step's content are the library's.
 *
 * Each method is replaced only when the library's is the one this was written against
 * (its source text matches), so another version of the library keeps its own.
 *
 * @module
 */
import { Visitor } from "node-html-markdown/dist/visitor.js";
import * as nodes from "node-html-markdown/dist/nodes.js";
import * as utilities from "node-html-markdown/dist/utilities.js";
import * as translator from "node-html-markdown/dist/translator.js";
import * as config from "node-html-markdown/dist/config.js";

/** How far back node-html-markdown looks for trailing whitespace. */
const TAIL = 10;
/** The last {@link TAIL} characters of the result, kept on the result object. */
const TAIL_KEY = Symbol("shelfmark.markdownTail");
/** The Markdown written so far as pieces, kept on the result object (see {@link piecesOf}). */
const PIECES_KEY = Symbol("shelfmark.markdownPieces");

/** The Markdown written so far: its pieces, in order, and their total length. */
interface Pieces {
  parts: string[];
  length: number;
}

/** What node-html-markdown keeps of the Markdown written so far. */
interface VisitorResult {
  text: string;
  trailingNewlineStats: { whitespace: number; newLines: number };
  [TAIL_KEY]?: string;
  [PIECES_KEY]?: Pieces;
}

/** The library's method, kept for the test that compares the two. */
export const libraryAppendResult: (
  this: { result: VisitorResult },
  s: string,
  startPos?: number,
  spaceIfRepeatingChar?: boolean,
) => void = Visitor.prototype.appendResult;

/**
 * The pieces of a result's Markdown. The first call moves the text into pieces and makes
 * `result.text` an accessor: reading it joins the pieces (once: they become one), writing
 * it replaces them, so code that reads or writes the text keeps working.
 */
function piecesOf(result: VisitorResult): Pieces {
  const known = result[PIECES_KEY];
  if (known) return known;
  const text = result.text;
  const p: Pieces = { parts: text ? [text] : [], length: text.length };
  result[PIECES_KEY] = p;
  Object.defineProperty(result, "text", {
    configurable: true,
    enumerable: true,
    get(): string {
      const joined = p.parts.join("");
      p.parts = joined ? [joined] : [];
      return joined;
    },
    set(v: string) {
      p.parts = v ? [v] : [];
      p.length = v.length;
      delete result[TAIL_KEY];
    },
  });
  return p;
}

/** The Markdown of `p` from `pos` to the end, joining only the pieces it needs. */
function piecesFrom(p: Pieces, pos: number): string {
  const from = Math.max(0, pos);
  if (from >= p.length) return "";
  let i = p.parts.length;
  let at = p.length;
  while (at > from) at -= p.parts[--i]!.length;
  const first = p.parts[i]!.slice(from - at);
  return i + 1 === p.parts.length ? first : first + p.parts.slice(i + 1).join("");
}

/** Drop the Markdown of `p` from `pos` on. */
function truncatePieces(p: Pieces, pos: number): void {
  if (pos >= p.length) return;
  const to = Math.max(0, pos);
  let at = p.length;
  let last = "";
  while (at > to) {
    last = p.parts.pop()!;
    at -= last.length;
  }
  if (to > at) p.parts.push(last.slice(0, to - at));
  p.length = to;
}

/** The length of the Markdown written so far. */
function textLength(result: VisitorResult): number {
  return result[PIECES_KEY]?.length ?? result.text.length;
}

/** `result.text.substr(pos)`, from the pieces when there are. */
function textFrom(result: VisitorResult, pos: number): string {
  const p = result[PIECES_KEY];
  return p ? piecesFrom(p, pos) : result.text.substr(pos);
}

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
 * `Visitor.appendResult` of node-html-markdown, on the pieces: the text `s` goes at the end
 * (or at `startPos`, dropping what follows), with a space first when
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
  const p = piecesOf(result);
  let tail: string;
  if (startPos !== undefined) {
    truncatePieces(p, startPos);
    tail = piecesFrom(p, p.length - TAIL);
  } else tail = result[TAIL_KEY] ?? piecesFrom(p, p.length - TAIL);
  const add = (spaceIfRepeatingChar && tail.slice(-1) === s[0] ? " " : "") + s;
  if (add) {
    p.parts.push(add);
    p.length += add.length;
  }
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

/** The library's `visitNode`, kept for the test that compares the two. */
export const libraryVisitNode: unknown = Visitor.prototype.visitNode;

/** Reads of the Markdown in the library's `visitNode`, and what reads the pieces instead. */
const VISIT_READS: [string, string, number][] = [
  ["result.text.substr(startPos)", "textFrom(result, startPos)", 1],
  ["result.text.length", "textLength(result)", 3],
];

/** The library's `visitNode` reading the pieces, or undefined when its source is not the expected one. */
function buildVisitNode(): unknown {
  let source = String(libraryVisitNode);
  if (!source.startsWith("visitNode(node, textOnly, metadata) {")) return undefined;
  for (const [from, to, count] of VISIT_READS) {
    const parts = source.split(from);
    if (parts.length !== count + 1) return undefined;
    source = parts.join(to);
  }
  // the only other read of the Markdown would bypass the pieces
  if (source.includes("result.text")) return undefined;
  const make = new Function(
    ...["nodes_1", "utilities_1", "translator_1", "config_1", "textLength", "textFrom"],
    `return function ${source}`,
  );
  const mod = (m: unknown) => (m as { default?: unknown }).default ?? m;
  return make(
    mod(nodes),
    mod(utilities),
    mod(translator),
    mod(config),
    textLength,
    textFrom,
  );
}

/** The `visitNode` reading the pieces, when the library's is the expected one. */
export const fastVisitNode: unknown = appendMatchesLibrary ? buildVisitNode() : undefined;

if (appendMatchesLibrary) Visitor.prototype.appendResult = fastAppendResult;
if (fastVisitNode) (Visitor.prototype as { visitNode: unknown }).visitNode = fastVisitNode;
