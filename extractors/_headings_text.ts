/**
 * Heuristic headings of plain text: man pages rendered by groff, underlined titles
 * (reST, AsciiDoc, Sphinx text, GNU info), Org `*` headings, numbered and ALL CAPS
 * titles, and short stand-alone lines (pandoc's plain text).
 *
 * @module
 */
import type { Heading, OutlineQuality } from "../core/extractor.ts";
import { markdownHeadings } from "./_headings_markdown.ts";

/** Headings found in plain text and how far to trust them. */
export interface TextOutline {
  /** Headings in document order (empty when quality is `none`). */
  headings: Heading[];
  /** `medium` when a consistent set of headings was found, else `none`. */
  quality: OutlineQuality;
}

/** Options of `textHeadings`. */
export interface TextHeadingOptions {
  /** Read Org-mode `*` headings (for `.org` files). */
  org?: boolean;
}

const RULE = /^([=\-~^*#+."'`:_])\1{2,}[ \t]*$/;
const MAN_HEADER = /^(\S+)\(([0-9A-Za-z]+)\)\s.*\s\1\(\2\)\s*$/;
const NUMBERED =
  /^(?:(\d{1,3}(?:\.\d{1,3}){0,5})\.?|(?:Chapter|CHAPTER|Section|SECTION|Part|PART)\s+(\d+|[IVXLC]+)(?:\.(\d+))*[.:]?|(?:Appendix|APPENDIX)\s+[A-Z](?:\.\d+)*[.:]?)\s+\S/;
const VIM_TAGS = /(?:\s+\*[^*\s]+\*)+\s*$/;
const MAX_TITLE = 100;
const TAGS_ONLY = /^\s*(?:\*[^*\s]+\*\s*)+$/;
/** A line ending in a function word introduces what follows; it is not a title. */
const DANGLING = /\s(?:a|an|the|and|or|with|of|to|for|in|on|by|from|as|is|are|like|following)$/i;
/** Underlined titles may be longer: the underline is evidence enough. */
const MAX_UNDERLINED = 250;

const blank = (s: string | undefined) => s === undefined || s.trim() === "";

function clean(title: string): string {
  return title.replace(VIM_TAGS, "").replace(/\s+/g, " ").trim();
}

/** True for lines that look like rows of a table, aligned columns or code. */
function tabular(s: string): boolean {
  return /\t|\S {3,}\S|\|/.test(s.trim()) || /[{};]\s*$|^\s*[<>$%]|=>|==/.test(s);
}

/** Share of letters and digits among the non-space characters. */
function wordy(s: string): number {
  const chars = s.replace(/\s/g, "");
  if (!chars) return 0;
  const letters = chars.match(/[\p{L}\p{N}]/gu)?.length ?? 0;
  return letters / chars.length;
}

/** Display width: CJK and other wide characters count twice. */
function width(s: string): number {
  let w = 0;
  for (const ch of s) {
    w += /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\uff00-\uff60]/.test(ch) ? 2 : 1;
  }
  return w;
}

/** Man pages (groff output): `.SH` at column 0, `.SS` indented by 3 spaces. */
function manHeadings(lines: string[]): Heading[] | undefined {
  const first = lines.findIndex((l) => !blank(l));
  if (first < 0 || !MAN_HEADER.test(lines[first]!)) return undefined;
  let last = lines.length - 1;
  while (last > first && blank(lines[last])) last--;
  const footer = last > first && /\S\s{2,}\S.*\s{2,}\S/.test(lines[last]!) ? last : last + 1;
  const out: Heading[] = [];
  for (let i = first + 1; i < footer; i++) {
    const l = lines[i]!;
    if (/^\S/.test(l) && l.length <= MAX_TITLE) {
      out.push({ level: 1, title: clean(l), line: i + 1 });
    } else if (
      /^ {3}\S/.test(l) && out.length && blank(lines[i - 1]) && l.length <= 80 &&
      !/[.,;:]\s*$/.test(l) && !tabular(l.slice(3))
    ) {
      out.push({ level: 2, title: clean(l), line: i + 1 });
    }
  }
  return out;
}

/** Underlined (and over- and underlined) titles; levels by first appearance of each style. */
function underlined(lines: string[]): Heading[] {
  const styles: string[] = [];
  const out: Heading[] = [];
  for (let i = 0; i + 1 < lines.length; i++) {
    const title = lines[i]!;
    const under = RULE.exec(lines[i + 1]!);
    if (!under || blank(title) || RULE.test(title)) continue;
    const over = i > 0 && lines[i - 1]!.trimEnd() === lines[i + 1]!.trimEnd();
    const text = over ? title.trim() : title.trimEnd();
    if (!over && /^\s/.test(text)) continue;
    if (!over && !(blank(lines[i - 1]) || /^\[.*\]\s*$/.test(lines[i - 1]!) || i === 0)) continue;
    const w = width(text);
    const u = lines[i + 1]!.trimEnd().length;
    if (w > MAX_UNDERLINED || u < 3 || u < w * 0.6 || u > w * 2 + 2) continue;
    if (wordy(text) < 0.4 || /^[-*+•] |^[$%>#] /.test(text)) continue;
    const style = (over ? "over" : "") + under[1];
    let level = styles.indexOf(style) + 1;
    if (!level) level = styles.push(style);
    out.push({ level, title: clean(text), line: i + 1 });
    i++;
  }
  return out;
}

/**
 * Org-mode headings: `*`, `**`, ... at column 0 followed by a space; tags removed.
 *
 * @param lines the document's lines
 * @returns the headings, level = number of stars
 */
export function orgHeadings(lines: string[]): Heading[] {
  const out: Heading[] = [];
  lines.forEach((l, i) => {
    const m = /^(\*+)\s+(.+?)(?:\s+:[\w@#%:]+:)?\s*$/.exec(l);
    if (m) out.push({ level: m[1]!.length, title: clean(m[2]!), line: i + 1 });
  });
  return out;
}

/** The level a numbered title implies (`1.2.3 Title` → 3), or 0 when it is not one. */
function numberedLevel(s: string): number {
  const m = NUMBERED.exec(s);
  if (!m) return 0;
  if (m[1]) return m[1].split(".").length;
  return 1;
}

const ALL_CAPS = /^(?=.*\p{Lu}.*\p{Lu})[\p{Lu}\p{N}][\p{Lu}\p{N} &/,()'’:-]*$/u;

/**
 * Stand-alone titles: numbered (`1.2 Title`, `Chapter 3`), ALL CAPS at column 0 and,
 * when `loose`, any short line between blank lines that does not read as a sentence.
 */
function standalone(lines: string[], loose: boolean): Heading[] {
  const out: Heading[] = [];
  let fence = false;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    if (/^\s*(```|~~~)/.test(raw)) fence = !fence;
    if (fence || raw.length > 200 || blank(raw)) continue;
    const prev = lines[i - 1];
    if (!(blank(prev) || RULE.test(prev!) && prev!.length >= 40)) continue;
    // a line holding only Vim help tags (`*E455*`) belongs to the title above it
    const next = TAGS_ONLY.test(lines[i + 1] ?? "") ? "" : lines[i + 1];
    const text = clean(raw);
    if (
      !text || text.length > 80 || text.split(" ").length > 12 || tabular(raw.replace(VIM_TAGS, ""))
    ) {
      continue;
    }
    const level = numberedLevel(text);
    const caps = ALL_CAPS.test(text);
    // column 0, except numbered titles indented a little and centred ALL CAPS titles
    const indent = raw.length - raw.trimStart().length;
    if (indent > 0 && !(level && indent <= 4) && !(caps && blank(next))) continue;
    const rest = level ? text.replace(/^\S+\s+/, "") : text;
    const shortTitle = level > 0 && rest.split(" ").length <= 4 &&
      /^\p{Lu}[^.!?`/]*\.$/u.test(rest);
    if (wordy(text) < 0.6 || /^[-*+•>#[(|"'`]\s?/.test(text)) continue;
    if (/[.,;:]$/.test(text) && !shortTitle) continue;
    if (level && blank(next) || level && RULE.test(next ?? "")) {
      if (/[.!?]\s+\S/.test(rest)) continue; // a sentence goes on: numbered paragraph
      out.push({ level, title: text, line: i + 1 });
    } else if (caps && text.length >= 3 && (blank(next) || /^\s+\S/.test(next!))) {
      out.push({ level: 1, title: text, line: i + 1 });
    } else if (
      loose && blank(next) && !/^\d+[.)]\s/.test(text) && /^[\p{L}\p{N}]/u.test(text) &&
      !/^[A-Z][A-Z0-9_]+\(/.test(text) && !DANGLING.test(text)
    ) {
      out.push({ level: 1, title: text, line: i + 1 });
    }
  }
  return out;
}

/**
 * Find headings in plain text. Tries, in order: man page layout, Org headings (when asked),
 * underlined titles, numbered and ALL CAPS titles, then short stand-alone lines.
 *
 * @param lines the document's lines
 * @param options format hints
 * @returns the headings (1-based `line`) and the outline quality
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(textHeadings(["Intro", "=====", "", "text", "", "Usage", "-----", "more"]).headings.length, 2);
 * ```
 */
export function textHeadings(lines: string[], options: TextHeadingOptions = {}): TextOutline {
  const accept = (h: Heading[] | undefined, min = 2): TextOutline | undefined =>
    h && h.length >= min ? { headings: h, quality: "medium" } : undefined;
  const found = accept(manHeadings(lines)) ??
    (options.org ? accept(orgHeadings(lines), 1) : undefined) ??
    accept(bestOf(lines), 1);
  if (!found) return { headings: [], quality: "none" };
  return { headings: distinguishRepeats(found.headings, lines), quality: found.quality };
}

/** A release name or version (`bash-5.2-rc4`, `v1.6.0`, `12.2.0`) or an ISO date. */
const VERSION =
  /\b[A-Za-z][\w+]*(?:-[A-Za-z][\w+]*)*-\d+(?:\.\d+)+[\w.+~-]*|\bv?\d+\.\d+(?:\.\d+)*[a-z]?\b|\b\d{4}-\d\d-\d\d\b/;

/**
 * The first version or date in the nearest paragraph above line index `end` (exclusive)
 * that names one, looking no higher than line index `start`, and where that paragraph
 * starts.
 */
function versionAbove(
  lines: string[],
  end: number,
  start: number,
): { tag: string; line: number } | undefined {
  let para: string[] = [];
  for (let l = end - 1; l >= start - 1; l--) {
    const line = l >= start ? lines[l] : undefined;
    if (line !== undefined && !blank(line)) {
      para.unshift(line);
      continue;
    }
    const m = VERSION.exec(para.join(" "));
    if (m) return { tag: m[0], line: l + 1 };
    para = [];
  }
  return undefined;
}

/**
 * Headings whose title repeats (`1. Changes to Bash` once per release of a change log)
 * carry what tells them apart. The headings fall into runs, a new run starting where a
 * title comes again; each run is tagged with the version or date named on the nearest
 * line above its first heading (`This document details the changes between this version,
 * bash-5.2-rc4, ...`), and its repeated titles get that tag: `1. Changes to Bash
 * (bash-5.2-rc4)`. Titles stay as they are when no such line sets the runs apart.
 *
 * @param headings headings in document order
 * @param lines the document's lines
 * @returns the headings, repeated titles completed
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const lines = ["Release foo-1.1", "", "Fixes", "", "a.", "Release foo-1.0", "", "Fixes", "", "b."];
 * const out = distinguishRepeats([{ level: 1, title: "Fixes", line: 3 }, { level: 1, title: "Fixes", line: 8 }], lines);
 * assert.deepEqual(out.map((h) => h.title), ["Fixes (foo-1.1)", "Fixes (foo-1.0)"]);
 * ```
 */
export function distinguishRepeats(headings: Heading[], lines: string[]): Heading[] {
  const count = new Map<string, number>();
  for (const h of headings) count.set(h.title, (count.get(h.title) ?? 0) + 1);
  if (![...count.values()].some((n) => n > 1)) return headings;
  const tags: (string | undefined)[] = [];
  let run = new Set<string>();
  let runStart = 0;
  let tag: string | undefined;
  headings.forEach((h, i) => {
    if (i === 0 || run.has(h.title)) {
      run = new Set();
      // the release line sits just above the run, or above a few headings that opened it
      // without repeating (a release with no "Contributors" before one that has them)
      const found = versionAbove(lines, h.line - 1, headings[i - 1]?.line ?? 0) ??
        versionAbove(lines, h.line - 1, headings[runStart]?.line ?? 0);
      tag = found?.tag;
      let first = i;
      while (found && first > 0 && headings[first - 1]!.line - 1 > found.line) first--;
      for (let j = first; j < i; j++) {
        tags[j] = tag;
        run.add(headings[j]!.title);
      }
      runStart = first;
    }
    run.add(h.title);
    tags.push(tag);
  });
  // A tag is worth adding only when it sets apart the headings of that title.
  const kinds = new Map<string, Set<string | undefined>>();
  headings.forEach((h, i) => kinds.set(h.title, (kinds.get(h.title) ?? new Set()).add(tags[i])));
  return headings.map((h, i) =>
    tags[i] && count.get(h.title)! > 1 && kinds.get(h.title)!.size > 1
      ? { ...h, title: `${h.title} (${tags[i]})` }
      : h
  );
}

/**
 * Underlined titles unless numbered/ALL CAPS titles are clearly more numerous; loose
 * stand-alone lines when they outnumber everything else by far.
 */
function bestOf(lines: string[]): Heading[] {
  const under = underlined(lines);
  const strict = standalone(lines, false);
  let best = under.length && under.length * 2 >= strict.length ? under : strict;
  // Markdown written to a .txt file: `#` titles set off by blank lines, not comment blocks
  const atx = markdownHeadings(lines).filter((h) =>
    /^#{1,6}\s/.test(lines[h.line - 1]!) && blank(lines[h.line - 2]) &&
    !/^#/.test(lines[h.line] ?? "")
  );
  if (atx.length >= 2 && atx.length >= best.length) return atx;
  if (best.length === 1 && best === under) return best;
  const loose = looseTitles(lines);
  if (loose.length > 3 * Math.max(best.length, 1)) best = loose;
  return best.length >= 2 ? best : [];
}

/**
 * Short stand-alone lines as titles, kept only when they look like an outline: several
 * of them, a minority of all paragraphs, and most paragraphs wrapped prose.
 */
function looseTitles(lines: string[]): Heading[] {
  const titles = standalone(lines, true);
  let paragraphs = 0;
  for (let i = 0; i < lines.length; i++) {
    if (!blank(lines[i]) && blank(lines[i - 1])) paragraphs++;
  }
  if (titles.length < 2 || titles.length > paragraphs * 0.5) return [];
  return titles;
}

/** A first line that names the file's kind, not its subject ("README"). */
const FILE_WORD =
  /^(read ?me|news|changes|change ?log|todo|install|copying|licen[cs]e|authors|thanks)$/i;

/** Columns of a line's indent, tabs to the next multiple of 8. */
function indentWidth(s: string): number {
  let col = 0;
  for (const ch of s) {
    if (ch === "\t") col = col - (col % 8) + 8;
    else if (ch === " ") col++;
    else break;
  }
  return col;
}

/**
 * The title a plain-text document opens with, when its headings miss it: the first line,
 * centred (indented 8 columns or more: `\t       The X Resize, Rotate and Reflect
 * Extension`) or set off by a blank line before a first heading that is numbered
 * (`1. Introduction`). Undefined when the first line is a heading itself, reads as a
 * sentence, or is not mostly words.
 *
 * @param lines the document's lines
 * @param headings the headings found in them
 * @returns the title, or undefined
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const lines = ["\t\tThe Foo Protocol", "", "1. Introduction", "", "Foo is a protocol."];
 * assert.equal(leadTitle(lines, [{ level: 1, title: "1. Introduction", line: 3 }]), "The Foo Protocol");
 * ```
 */
export function leadTitle(lines: string[], headings: Heading[]): string | undefined {
  const first = lines.findIndex((l) => !blank(l));
  if (first < 0 || first > 20) return undefined;
  const next = headings[0]?.line;
  if (next !== undefined && next <= first + 1) return undefined;
  // deno-lint-ignore no-control-regex -- terminal bold and underline escapes, on purpose
  const raw = lines[first]!.replace(/\x1b\[[0-9;]*m/g, "");
  // centred: indented 8 columns or more, well past the text that follows (a list
  // indented by a tab throughout has no centred title)
  const indents = lines.slice(first, first + 200).filter((l) => !blank(l)).slice(0, 40)
    .map(indentWidth).sort((a, b) => a - b);
  const usual = indents[Math.floor(indents.length / 2)] ?? 0;
  const centred = indentWidth(raw) >= 8 && indentWidth(raw) >= usual + 4 &&
    !/\S {3,}\S/.test(raw.trim());
  const beforeNumbered = next !== undefined && numberedLevel(headings[0]!.title) > 0 &&
    blank(lines[first + 1]) && indentWidth(raw) === 0;
  if (!centred && !beforeNumbered) return undefined;
  const title = clean(raw);
  if (title.length < 3 || title.length > MAX_TITLE || title.split(" ").length > 15) {
    return undefined;
  }
  if (FILE_WORD.test(title)) return undefined;
  if (wordy(title) < 0.6 || /[.,;:]$|^[-*+•>#[(|"'`]|@|:\/\//.test(title)) return undefined;
  if (DANGLING.test(title) || /[.!?]\s+\S/.test(title)) return undefined;
  // a long line of mostly lower-case words is a sentence ("The HTML version ... can be
  // found in the python3-dev package"), not a title
  const words = title.split(" ");
  const capital = words.filter((w) => /^\P{Ll}/u.test(w)).length;
  if (words.length > 8 && capital * 2 < words.length) return undefined;
  return title;
}
