/**
 * Links of documents, kept apart from their lines: the targets of links and images that
 * the HTML conversion leaves out of the text ({@link LinkSink}, used by the HTML extractor
 * and so by EPUB and DOCX), and the links of Markdown files, whose text stays as the
 * author wrote it ({@link markdownLinks}).
 *
 * @module
 */
import type { Link } from "../core/extractor.ts";
import { frontMatterLength, inlineText } from "./_headings_markdown.ts";

/** Marks where a link starts in converted text: `\uFDD0<index in base 36>\uFDD1`. */
const TOKEN = /\uFDD0([0-9a-z]+)\uFDD1/g;
/** Noncharacters used by the marks; never part of a document. */
const MARK_CHARS = /[\uFDD0\uFDD1]/g;

/**
 * Collects the links of one conversion: the converter writes a mark before each link's
 * text instead of its target ({@link LinkSink.mark}); {@link LinkSink.take} removes the
 * marks from the finished lines and says on which line each link's text stands.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const sink = new LinkSink();
 * const line = `See ${sink.mark("a.html#x", "the manual")}.`;
 * assert.deepEqual(sink.take([line]), {
 *   lines: ["See the manual."],
 *   links: [{ target: "a.html#x", text: "the manual", line: 1 }],
 * });
 * ```
 */
export class LinkSink {
  #found: { target: string; text: string }[] = [];

  /**
   * Remove the characters the marks are made of from a source text, so a document
   * cannot forge a mark.
   */
  static clean(source: string): string {
    return source.includes("\uFDD0") || source.includes("\uFDD1")
      ? source.replace(MARK_CHARS, "\uFFFD")
      : source;
  }

  /**
   * The converted text of a link (or an image's alt text), preceded by a mark that
   * remembers the target. A link without visible text is not recorded.
   *
   * @param target the `href` or `src`, as written
   * @param content the Markdown the link's text became (marks of nested links allowed)
   * @returns the content with the mark before it
   */
  mark(target: string, content: string): string {
    const text = inlineText(content.replace(TOKEN, ""));
    if (!text || !target.trim()) return content;
    const n = this.#found.push({ target: target.trim(), text }) - 1;
    return `\uFDD0${n.toString(36)}\uFDD1${content}`;
  }

  /**
   * Remove the marks from converted lines and return the links in the order they stand,
   * each with its 1-based line. In a table row the characters removed are added back as
   * padding before the next cell border, so the columns stay aligned.
   *
   * @param lines converted lines with marks
   * @returns the lines without marks, and the links
   */
  take(lines: string[]): { lines: string[]; links: Link[] } {
    const links: Link[] = [];
    const out = lines.map((line, i) => {
      if (!line.includes("\uFDD0")) return line;
      for (const m of line.matchAll(TOKEN)) {
        const found = this.#found[parseInt(m[1]!, 36)];
        if (found) links.push({ ...found, line: i + 1 });
      }
      return line.trimStart().startsWith("|") ? repad(line) : line.replace(TOKEN, "");
    });
    return { lines: out, links };
  }
}

/** A table row without its marks, each cell padded by what its marks took. */
function repad(row: string): string {
  let out = "";
  let pad = 0;
  let last = 0;
  for (const m of row.matchAll(/\uFDD0[0-9a-z]+\uFDD1|(?<!\\)\|/g)) {
    out += row.slice(last, m.index);
    last = m.index + m[0].length;
    if (m[0] === "|") {
      out += " ".repeat(pad) + "|";
      pad = 0;
    } else pad += m[0].length;
  }
  return out + row.slice(last);
}

const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const REF_DEF = /^ {0,3}\[((?:[^\\\[\]]|\\.){1,999})\]:[ \t]*(?:<([^<>\n]*)>|(\S+))/;
const LIST_ITEM = /^ {0,3}(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)/;
const AUTOLINK =
  /<([A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*|[\w.!#$%&'*+/=?^`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?)>/y;
const WIKI = /(!?)\[\[([^\[\]|\n]+?)(?:\|([^\[\]\n]*?))?\]\]/y;

/** A reference label as matched (case folded, whitespace collapsed). */
const label = (s: string) => s.trim().replace(/\s+/g, " ").toLowerCase();

/**
 * The code spans of a paragraph, paired left to right as CommonMark pairs them: the
 * position of each opening backtick run -> the index just past its closing run.
 */
function codeSpans(s: string): Map<number, number> {
  const spans = new Map<number, number>();
  if (!s.includes("`")) return spans;
  const runs = [...s.matchAll(/`+/g)].map((m) => ({ at: m.index, len: m[0].length }));
  /** Per run length, the indices of the runs of that length and the next one to try. */
  const byLen = new Map<number, { list: number[]; next: number }>();
  runs.forEach((r, k) => {
    const e = byLen.get(r.len) ?? { list: [], next: 0 };
    e.list.push(k);
    byLen.set(r.len, e);
  });
  for (let k = 0; k < runs.length;) {
    const r = runs[k]!;
    const same = byLen.get(r.len)!;
    while (same.next < same.list.length && same.list[same.next]! <= k) same.next++;
    const close = same.list[same.next];
    if (close === undefined) {
      k++;
      continue;
    }
    spans.set(r.at, runs[close]!.at + r.len);
    k = close + 1;
  }
  return spans;
}

/** Where scanning goes on after the backtick run at `i`: past its code span, or past the run. */
function afterTicks(s: string, i: number, spans: Map<number, number>): number {
  const end = spans.get(i);
  if (end !== undefined) return end;
  let j = i;
  while (s[j] === "`") j++;
  return j;
}

/** Longest link text looked at: a `[` with no `]` nearer than this is plain text. */
const MAX_TEXT = 4000;

/** Index of the `]` closing the `[` at `i` (brackets balanced, code spans skipped), or -1. */
function closeBracket(s: string, i: number, spans: Map<number, number>): number {
  let depth = 0;
  const stop = Math.min(s.length, i + MAX_TEXT);
  for (let j = i; j < stop; j++) {
    const c = s[j];
    if (c === "\\") j++;
    else if (c === "`") j = afterTicks(s, j, spans) - 1;
    else if (c === "[") depth++;
    else if (c === "]" && --depth === 0) return j;
  }
  return -1;
}

/** The destination of an inline link whose `(` is at `i`, and the index past its `)`. */
function destination(s: string, i: number): { target: string; end: number } | undefined {
  let j = i + 1;
  const ws = () => {
    while (j < s.length && /[ \t\n]/.test(s[j]!)) j++;
  };
  ws();
  let target: string;
  if (s[j] === "<") {
    const close = s.indexOf(">", j);
    if (close < 0 || s.slice(j, close).includes("\n")) return undefined;
    target = s.slice(j + 1, close);
    j = close + 1;
  } else {
    const from = j;
    let depth = 0;
    for (; j < s.length; j++) {
      const c = s[j]!;
      if (c === "\\") j++;
      else if (c === "(") depth++;
      else if (c === ")") {
        if (depth === 0) break;
        depth--;
      } else if (/\s/.test(c)) break;
    }
    target = s.slice(from, j);
  }
  ws();
  const q = s[j];
  if (q === '"' || q === "'" || q === "(") {
    const close = s.indexOf(q === "(" ? ")" : q, j + 1);
    if (close < 0) return undefined;
    j = close + 1;
    ws();
  }
  return s[j] === ")" ? { target, end: j + 1 } : undefined;
}

/**
 * The links of a Markdown document, in order: inline links and images `[text](target)`,
 * reference links `[text][ref]`, `[text][]` and `[ref]` with their definitions, autolinks
 * `<https://…>`, and wiki links `[[Note]]`, `[[Note|alias]]`, `[[Note#Heading]]`,
 * `![[embed]]`. Front matter, fenced and indented code, code spans and HTML comments are
 * skipped. Targets are kept as written; `text` is the link's text as plain text (an
 * image's alt text, a wiki link's alias or else its target); `line` is where it starts.
 *
 * @param lines the document's lines
 * @returns the links
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.deepEqual(markdownLinks(["See [the guide](guide.md#setup) and [[Notes|my notes]]."]), [
 *   { target: "guide.md#setup", text: "the guide", line: 1 },
 *   { target: "Notes", text: "my notes", line: 1 },
 * ]);
 * ```
 */
export function markdownLinks(lines: string[]): Link[] {
  const defs = new Map<string, string>();
  /** Runs of text lines outside code: first line (0-based) and the lines. */
  const blocks: { first: number; lines: string[] }[] = [];
  let block: { first: number; lines: string[] } | undefined;
  let prevBlank = true;
  let inList = false;
  for (let i = frontMatterLength(lines); i < lines.length; i++) {
    const line = lines[i]!;
    const fence = FENCE.exec(line);
    const blank = !line.trim();
    const indented = /^(?: {4}|\t)/.test(line);
    if (fence && !(fence[1]![0] === "`" && fence[2]!.includes("`"))) {
      const close = new RegExp(`^ {0,3}${fence[1]![0]}{${fence[1]!.length},}[ \\t]*$`);
      for (i++; i < lines.length && !close.test(lines[i]!); i++);
      block = undefined;
      prevBlank = true;
      continue;
    }
    if (blank || (indented && prevBlank && !inList)) {
      // a paragraph ends; an indented line after a blank one outside a list is code
      if (!blank) {
        for (; i + 1 < lines.length && /^(?: {4}|\t)|^\s*$/.test(lines[i + 1]!); i++);
      }
      block = undefined;
      prevBlank = true;
      continue;
    }
    if (!indented) inList = LIST_ITEM.test(line) || (inList && !prevBlank);
    prevBlank = false;
    const def = REF_DEF.exec(line);
    if (def) {
      const key = label(def[1]!);
      if (!defs.has(key)) defs.set(key, def[2] ?? def[3]!);
      block = undefined;
      continue;
    }
    if (!block) blocks.push(block = { first: i, lines: [] });
    block.lines.push(line);
  }
  const links: Link[] = [];
  for (const b of blocks) scanInline(b.lines.join("\n"), b.first, defs, links);
  return links;
}

/** Find the links of one paragraph `s` whose first line is `first` (0-based). */
function scanInline(s: string, first: number, defs: Map<string, string>, out: Link[]): void {
  const spans = codeSpans(s);
  const breaks = [...s.matchAll(/\n/g)].map((m) => m.index);
  const lineAt = (pos: number) => {
    let lo = 0;
    let hi = breaks.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (breaks[mid]! < pos) lo = mid + 1;
      else hi = mid;
    }
    return first + 1 + lo;
  };
  const add = (target: string, text: string, at: number) => {
    if (target.trim()) out.push({ target: target.trim(), text, line: lineAt(at) });
  };
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === "\\") i++;
    else if (c === "`") i = afterTicks(s, i, spans) - 1;
    else if (c === "<") {
      if (s.startsWith("<!--", i)) {
        const end = s.indexOf("-->", i + 4);
        i = end < 0 ? s.length : end + 2;
        continue;
      }
      AUTOLINK.lastIndex = i;
      const m = AUTOLINK.exec(s);
      if (m) {
        add(m[1]!, m[1]!, i);
        i = AUTOLINK.lastIndex - 1;
      }
    } else if (c === "[") {
      const at = s[i - 1] === "!" ? i - 1 : i;
      WIKI.lastIndex = at;
      const wiki = s[i + 1] === "[" ? WIKI.exec(s) : null;
      if (wiki) {
        // in a table the alias pipe is escaped: `[[Note\|alias]]`
        const note = wiki[2]!.replace(/\\$/, "");
        add(note, wiki[3]?.trim() || note.trim(), at);
        i = WIKI.lastIndex - 1;
        continue;
      }
      const close = closeBracket(s, i, spans);
      if (close < 0) continue;
      const inner = s.slice(i + 1, close);
      let end = -1;
      let target: string | undefined;
      if (s[close + 1] === "(") {
        const dest = destination(s, close + 1);
        if (dest) ({ target, end } = dest);
      }
      if (target === undefined && s[close + 1] === "[") {
        const stop = s.indexOf("]", close + 2);
        const ref = stop < 0 ? undefined : s.slice(close + 2, stop);
        if (ref !== undefined && !ref.includes("[")) {
          target = defs.get(label(ref || inner));
          if (target !== undefined) end = stop + 1;
        }
      }
      if (target === undefined && !inner.startsWith("^")) {
        target = defs.get(label(inner));
        if (target !== undefined) end = close + 1;
      }
      if (target === undefined) continue; // plain brackets: look inside them
      add(target, inlineText(inner), at);
      scanInline(inner, lineAt(i + 1) - 1, defs, out); // an image inside a link
      i = end - 1;
    }
  }
}
