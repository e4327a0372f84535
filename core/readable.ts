/**
 * Lines as they read: the text of Markdown links and images without their targets, and, in
 * documents whose lines are Markdown, without emphasis marks, backslash escapes and code
 * fences. Snippets are cut from readable lines, and copies are told by their readable
 * words (a link target is not part of the text). The document's stored lines stay as
 * written, for `read` and `grep`.
 *
 * @module
 */

/** `![alt](target "title")` and `[text](target "title")`; `[text][ref]`. */
const INLINE_LINK =
  /(!?)\[([^\]\n]*)\]\((?:<[^>\n]*>|[^()\s]*(?:\([^()\s]*\)[^()\s]*)*)(?:\s+(?:"[^"\n]*"|'[^'\n]*'|\([^)\n]*\)))?\s*\)/g;
const REFERENCE_LINK = /\[([^\]\n]+)\]\[[^\]\n]*\]/g;

/** A code fence line (```` ``` ```` or `~~~`, with its language): not text. */
const FENCE = /^\s*(?:`{3,}|~{3,})[\w+#.-]*\s*$/;
/** `*em*`, `**strong**`, `_em_`, `__strong__` (not inside words: `snake_case`, `2*3*4`). */
const EMPHASIS =
  /(?<![\p{L}\p{N}_*\\])(\*{1,3}|_{1,3})(?=[^\s*_])(.+?)(?<=[^\s*_\\])\1(?![\p{L}\p{N}_*])/gu;
/** An inline code span. */
const CODE_SPAN = /`+[^`]*?`+/g;
/** Markdown's backslash escapes (`1\.`, `\_init\_`). */
const ESCAPE = /\\([\\`*_{}\[\]()#+\-.!<>|~])/g;

/** Document types whose lines are Markdown (written so, or converted to it). */
export const MARKUP_TYPES: ReadonlySet<string> = new Set([
  "markdown",
  "html",
  "epub",
  "docx",
  "odt",
  "odp",
  "pptx",
]);

/**
 * A line as it reads: links and images keep their text and lose their targets and titles
 * (`[ssh](ssh.html "SSH")` is `ssh`, an image without alt text goes), for snippets; the
 * document's lines themselves stay as written. With `markup` (a Markdown line, see
 * {@link MARKUP_TYPES}) emphasis marks, backslash escapes and code fences go too: they cost
 * an agent tokens and break verbatim quotes. Plain text keeps its `*` and `\` (a regex, a
 * TeX command).
 *
 * @example
 * ```ts
 * import { readableLine } from "./readable.ts";
 * import assert from "node:assert/strict";
 * assert.equal(readableLine('See [the guide](doc/guide.md "Guide") and ![](x.png).'), "See the guide and .");
 * assert.equal(readableLine("The _`count`_ is **not** 1\\. exact", true), "The `count` is not 1. exact");
 * ```
 */
export function readableLine(line: string, markup = false): string {
  let out = line.includes("](") || line.includes("][")
    ? line.replace(INLINE_LINK, "$2").replace(REFERENCE_LINK, "$1")
    : line;
  if (!markup) return out;
  if (FENCE.test(out)) return "";
  if (!/[*_\\]/.test(out)) return out;
  // Inline code is shown as written (`__init__`, `a\.b`): set aside while the rest is read.
  const code: string[] = [];
  out = out.replace(CODE_SPAN, (c) => `\uE000${code.push(c) - 1}\uE000`);
  out = out.replace(EMPHASIS, "$2").replace(ESCAPE, "$1");
  return code.length ? out.replace(/\uE000(\d+)\uE000/g, (_, i) => code[Number(i)]!) : out;
}
