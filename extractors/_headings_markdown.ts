/**
 * Markdown headings (ATX `#` and Setext `===`/`---`), skipping front matter, fenced and
 * indented code, and HTML comments/`<pre>` blocks, with titles reduced to plain text.
 *
 * @module
 */
import type { Heading } from "../core/extractor.ts";
import { decodeEntities } from "./_xml.ts";

const ATX = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$/;
const FENCE_OPEN = /^( *)(`{3,}|~{3,})(.*)$/;
const SETEXT = /^ {0,3}(=+|-+)[ \t]*$/;
const THEMATIC = /^ {0,3}(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$/;
const LIST_ITEM = /^ {0,3}(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)/;
const BLOCKQUOTE = /^ {0,3}>/;
const HTML_START = /^ {0,3}<(?:\/?[A-Za-z][A-Za-z0-9-]*(?:[\s/>]|$)|!--|\?|![A-Za-z])/;
const HTML_RAW = /^ {0,3}<(pre|script|style|textarea)(?:[\s>]|$)/i;

/** Length of the leading indentation, tabs counted to the next multiple of 4. */
function indentOf(line: string): number {
  let n = 0;
  for (const ch of line) {
    if (ch === " ") n++;
    else if (ch === "\t") n += 4 - (n % 4);
    else break;
  }
  return n;
}

/** Number of lines of YAML (`---`) or TOML (`+++`) front matter at the top, or 0. */
export function frontMatterLength(lines: string[]): number {
  const first = lines[0]?.trimEnd();
  if (first !== "---" && first !== "+++") return 0;
  for (let i = 1; i < lines.length; i++) {
    const l = lines[i]!.trimEnd();
    if (l === first || (first === "---" && l === "...")) return i + 1;
  }
  return 0;
}

/**
 * Reduce a line of Markdown inline markup to plain text: code spans, emphasis, links,
 * images, autolinks, HTML tags, escapes and entities, and a trailing `{#id}`.
 *
 * @param s Markdown inline text
 * @param html whether `<tag>` is HTML (Markdown written by hand) or text (Markdown
 *   converted from HTML, where every tag is gone and `<fontconfig>` is a word of the text)
 * @returns plain text with whitespace collapsed
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(inlineText("The **`fs`** [module](fs.md) {#fs}"), "The fs module");
 * assert.equal(inlineText("<b>dir</b>"), "dir");
 * assert.equal(inlineText("<dir prefix>", false), "<dir prefix>");
 * ```
 */
export function inlineText(s: string, html = true): string {
  const code: string[] = [];
  const hold = (t: string) => `\uE000${code.push(t) - 1}\uE000`;
  let t = s.replace(/[ \t]*\{#[^}]*\}[ \t]*$/, "");
  t = t.replace(/\\([!-/:-@[-`{-~])/g, (_m, c: string) => hold(c));
  t = t.replace(/(`+)([\s\S]*?[^`])\1(?!`)/g, (_m, _f, c: string) => {
    const inner = /^ .* $/.test(c) && c.trim() ? c.slice(1, -1) : c;
    return hold(inner);
  });
  t = t.replace(/<((?:https?|ftp|mailto):[^\s<>]*)>/gi, (_m, u: string) => hold(u));
  if (html) t = t.replace(/<\/?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?\/?>|<!--[\s\S]*?-->/g, "");
  for (let i = 0; i < 3 && /\]/.test(t); i++) {
    t = t.replace(/!?\[([^\[\]]*)\]\((?:[^()\s]|\([^()]*\))*(?:\s+"[^"]*")?\)/g, "$1");
    t = t.replace(/!?\[([^\[\]]*)\]\[[^\[\]]*\]/g, "$1");
  }
  t = t.replace(/(\*\*|__)(?=\S)([\s\S]*?\S)\1/g, "$2");
  t = t.replace(/~~(?=\S)([\s\S]*?\S)~~/g, "$1");
  t = t.replace(/\*(?=[^\s*])([^*]*?[^\s*])\*/g, "$1").replace(/\*(?=[^\s*])([^*\s])\*/g, "$1");
  t = t.replace(/(^|[^\p{L}\p{N}_])_(?=\S)(.*?\S)_(?![\p{L}\p{N}_])/gu, "$1$2");
  t = decodeEntities(t);
  t = t.replace(/\uE000(\d+)\uE000/g, (_m, i: string) => code[Number(i)] ?? "");
  return t.replace(/\s+/g, " ").trim();
}

/**
 * Headings of a Markdown document: ATX and Setext, outside front matter, fenced and
 * indented code, HTML comments and `<pre>`/`<script>`/`<style>` blocks.
 *
 * @param lines the document's lines
 * @param options `html: false` for Markdown converted from HTML: a `<tag>` in it is text
 *   (no HTML blocks, tags kept in titles; see {@link inlineText})
 * @returns the headings in document order, `line` 1-based
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.deepEqual(markdownHeadings(["# Intro", "", "Usage", "-----"]), [
 *   { level: 1, title: "Intro", line: 1 },
 *   { level: 2, title: "Usage", line: 3 },
 * ]);
 * assert.deepEqual(markdownHeadings(["## <dir>"], { html: false }), [
 *   { level: 2, title: "<dir>", line: 1 },
 * ]);
 * ```
 */
export function markdownHeadings(
  lines: string[],
  options: { html?: boolean } = {},
): Heading[] {
  const html = options.html ?? true;
  const out: Heading[] = [];
  let i = frontMatterLength(lines);
  /** First line of the open plain paragraph (setext candidate), or -1. */
  let para = -1;
  /** True while a paragraph belongs to a list item or blockquote (no setext there). */
  let container = false;
  let prevBlank = true;
  let inList = false;
  /** Inside an HTML block, which runs to the next blank line. */
  let htmlBlock = false;
  for (; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === "") {
      htmlBlock = false;
      para = -1;
      container = false;
      prevBlank = true;
      continue;
    }
    if (htmlBlock) continue;
    const indent = indentOf(line);
    const wasBlank = prevBlank;
    prevBlank = false;
    // fenced code: any indentation inside lists, at most 3 spaces elsewhere
    const fence = FENCE_OPEN.exec(line);
    if (fence && (indent <= 3 || inList) && !(fence[2]![0] === "`" && fence[3]!.includes("`"))) {
      const ch = fence[2]![0]!;
      const len = fence[2]!.length;
      const close = new RegExp(`^ *\\${ch}{${len},}[ \\t]*$`);
      for (i++; i < lines.length && !close.test(lines[i]!); i++);
      para = -1;
      container = false;
      continue;
    }
    // indented code, lazy paragraph continuation, or content of a list item
    if (indent >= 4) continue;
    // HTML comment and raw blocks
    if (html && /^ {0,3}<!--/.test(line)) {
      for (; i < lines.length && !lines[i]!.includes("-->"); i++);
      para = -1;
      continue;
    }
    const raw = html ? HTML_RAW.exec(line) : null;
    if (raw) {
      const end = new RegExp(`</${raw[1]}>`, "i");
      for (; i < lines.length && !end.test(lines[i]!); i++);
      para = -1;
      continue;
    }
    const atx = ATX.exec(line);
    if (atx) {
      let title = (atx[2] ?? "").slice(0, 2000); // a runaway line is not a title
      title = title.replace(/(?:^|[ \t]+)#+[ \t]*$/, "");
      out.push({ level: atx[1]!.length, title: inlineText(title, html), line: i + 1 });
      para = -1;
      container = false;
      inList = false;
      continue;
    }
    const setext = SETEXT.exec(line);
    if (setext && para >= 0 && !container) {
      const title = inlineText(lines.slice(para, i).map((l) => l.trim()).join(" "), html);
      if (title) {
        out.push({ level: setext[1]![0] === "=" ? 1 : 2, title, line: para + 1 });
        para = -1;
        inList = false;
        continue;
      }
    }
    if (THEMATIC.test(line)) {
      para = -1;
      container = false;
      inList = false;
      continue;
    }
    if (LIST_ITEM.test(line) || BLOCKQUOTE.test(line)) {
      para = -1;
      container = true;
      inList = LIST_ITEM.test(line);
      continue;
    }
    if (container) continue; // lazy continuation of a list item or quote
    if (html && HTML_START.test(line) && para < 0) {
      htmlBlock = true;
      continue;
    }
    if (/^ {0,3}\|.*\|[ \t]*$/.test(line) && para < 0) continue; // table row
    if (wasBlank && indent === 0) inList = false;
    if (para < 0) para = i;
  }
  return out;
}
