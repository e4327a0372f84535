/**
 * Heading heuristics for plain text: underlined titles (reST, Sphinx, GNU info, AsciiDoc,
 * Setext), man pages (ALL CAPS sections and indented sub-sections), numbered headings
 * (`1.`, `1.2`, `Chapter N`, `Section N`, `Appendix A`), ALL CAPS lines, and, as a last
 * resort, short one-line paragraphs (how `pandoc -t plain` renders Markdown headings).
 * Every strategy is linear in the number of lines.
 *
 * @module
 */
import type { Heading, OutlineQuality } from "./types.ts";

const UNDERLINE = /^([=\-~^*#+"`'.:_<>])\1{2,}\s*$/;
const NUMBERED = /^(?:(\d{1,3}(?:\.\d{1,3}){0,5})\.?|(?:chapter|section|part|appendix)\s+([0-9IVXLC]+|[A-Z]))[.:]?\s+(\S.*)$/i;
const MAN_SECTIONS = new Set(["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "SEE ALSO"]);

const blank = (s: string | undefined) => s === undefined || s.trim() === "";
const clean = (s: string) => s.replace(/\s+/g, " ").trim();

function isCaps(line: string): boolean {
  if (line.length > 70 || /^\s/.test(line)) return false;
  const letters = line.replace(/[^\p{L}]/gu, "");
  return letters.length >= 2 && letters === letters.toUpperCase() &&
    letters !== letters.toLowerCase() && !/[.,;]$/.test(line.trim());
}

function titleLike(t: string): boolean {
  return t.length >= 1 && t.length <= 100 && /\p{L}/u.test(t) && !/^[-*+•|>]\s/.test(t);
}

/** Underlined (and over- and underlined) titles; levels in order of first appearance. */
export function underlined(lines: string[]): Heading[] {
  const styles: string[] = [];
  const out: Heading[] = [];
  for (let i = 0; i + 1 < lines.length; i++) {
    const title = lines[i]!;
    const m = UNDERLINE.exec(lines[i + 1]!);
    if (!m || blank(title) || UNDERLINE.test(title)) continue;
    const t = clean(title);
    const under = lines[i + 1]!.trim().length;
    if (!titleLike(t) || under < Math.max(3, Math.floor(t.length * 0.6))) continue;
    if (under > t.length * 2 + 6 && t.length < 30) continue;
    const over = i > 0 && lines[i - 1]!.trim() === lines[i + 1]!.trim();
    if (!over && !blank(lines[i - 1]) && i > 0) continue;
    if (/^\s{4,}/.test(title)) continue;
    const style = (over ? "o" : "u") + m[1];
    let level = styles.indexOf(style);
    if (level < 0) level = styles.push(style) - 1;
    out.push({ level: level + 1, title: t, line: i + 1 });
    i++;
  }
  return out;
}

/** Man pages rendered by groff: ALL CAPS sections at column 0, sub-sections indented 3. */
export function manPage(lines: string[]): Heading[] {
  const out: Heading[] = [];
  let inSection = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (blank(line)) continue;
    if (!/^\s/.test(line) && isCaps(line) && i > 0) {
      out.push({ level: 1, title: clean(line), line: i + 1 });
      inSection = true;
    } else if (
      inSection && /^ {3}\S/.test(line) && blank(lines[i - 1]) && line.trim().length <= 60 &&
      !/[.,;:]$/.test(line.trim()) && /^ {4,}\S/.test(lines[i + 1] ?? "") &&
      !/^ {3}[-•*+]/.test(line)
    ) {
      out.push({ level: 2, title: clean(line), line: i + 1 });
    }
  }
  return out;
}

/** Numbered headings standing alone between blank lines; level = depth of numbering. */
export function numbered(lines: string[]): Heading[] {
  const out: Heading[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^\s/.test(line) || line.length > 90 || !blank(lines[i - 1])) continue;
    const m = NUMBERED.exec(line);
    if (!m) continue;
    const rest = clean(m[3]!);
    if (!/^[\p{Lu}\p{N}"“‘'`(]/u.test(rest) || /[.,;:]$/.test(rest) || rest.split(" ").length > 12) {
      continue;
    }
    if (!blank(lines[i + 1]) && !UNDERLINE.test(lines[i + 1]!)) continue;
    const level = m[1] ? m[1].split(".").length : 1;
    out.push({ level, title: clean(line), line: i + 1 });
  }
  return out;
}

/** ALL CAPS lines at column 0 standing alone. */
export function capsLines(lines: string[]): Heading[] {
  const out: Heading[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (isCaps(line) && blank(lines[i - 1]) && line.trim().length >= 3) {
      out.push({ level: 1, title: clean(line), line: i + 1 });
    }
  }
  return out;
}

/** Short one-line paragraphs followed by more text: headings as `pandoc -t plain` writes them. */
export function isolatedLines(lines: string[]): Heading[] {
  const out: Heading[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (blank(line) || /^\s/.test(line) || !blank(lines[i - 1]) || !blank(lines[i + 1])) continue;
    const t = clean(line);
    if (t.length > 70 || !titleLike(t) || /[.,;:!]$/.test(t)) continue;
    if (/^(\d+[.)]|[-*+•]|\[\d+\])\s/.test(t) || /^[^\p{L}\p{N}`'"“‘(]/u.test(t)) continue;
    // Something must follow: the next non-blank line.
    let j = i + 1;
    while (j < lines.length && blank(lines[j])) j++;
    if (j >= lines.length) continue;
    out.push({ level: 1, title: t, line: i + 1 });
  }
  return out;
}

/** Emacs Org headings (`* Title`, `** Sub`). */
export function orgHeadings(lines: string[]): Heading[] {
  const out: Heading[] = [];
  lines.forEach((line, i) => {
    const m = /^(\*+)\s+(.+?)\s*(?::[\w@:]+:)?$/.exec(line);
    if (m) out.push({ level: m[1]!.length, title: clean(m[2]!), line: i + 1 });
  });
  return out;
}

function paragraphs(lines: string[]): number {
  let n = 0;
  for (let i = 0; i < lines.length; i++) if (!blank(lines[i]) && blank(lines[i - 1])) n++;
  return n;
}

/**
 * The headings of a plain-text document, by the first strategy that finds a consistent
 * set, with quality `medium`; no headings and `none` when nothing reliable is found.
 */
export function textHeadings(lines: string[]): { headings: Heading[]; quality: OutlineQuality } {
  const medium = (headings: Heading[]) => ({ headings, quality: "medium" as const });
  const head = lines.slice(0, 200).map((l) => l.trim());
  const man = /^\S+\(\d\w*\)\s+.*\S+\(\d\w*\)\s*$/.test(lines[0] ?? "") ||
    head.filter((l) => MAN_SECTIONS.has(l)).length >= 2;
  if (man) {
    const m = manPage(lines);
    if (m.length >= 2) return medium(m);
  }
  const u = underlined(lines);
  if (u.length >= 2 || (u.length === 1 && u[0]!.line <= 5)) return medium(u);
  const n = numbered(lines);
  if (n.length >= 3) {
    const c = capsLines(lines);
    return medium([...n, ...c].sort((a, b) => a.line - b.line));
  }
  const c = capsLines(lines);
  if (c.length >= 2) return medium(c);
  const iso = isolatedLines(lines);
  if (iso.length >= 2 && iso.length <= paragraphs(lines) * 0.4) return medium(iso);
  return { headings: [], quality: "none" };
}
