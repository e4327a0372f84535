/**
 * Heuristic headings for PDFs without bookmarks: a pure function over the rebuilt lines
 * with their font size, font, page and position, so it can be unit-tested without pdf.js.
 *
 * Candidate headings are short lines clearly larger than the body text, lines starting with
 * a section number that continues the document's sequence (in its form, "2.1" or "2.1."),
 * and body-size lines in their own font that the table of contents lists on their page
 * (`_pdf_contents.ts`). Dropped: running heads and footers, page numbers, the title page,
 * the entries of contents and index pages, numbered code and list lines. Levels come from
 * the distinct font sizes (largest = 1) and numbering depth.
 *
 * @module
 */
import type { Heading, OutlineQuality } from "../core/extractor.ts";
import { ENDS_NUM, readContents } from "./_pdf_contents.ts";
import { bucket, headKey, PAGE_NUM, pageNumberOf, repeatKey, styleKey } from "./_pdf_running.ts";

/** One rebuilt line of a PDF page, as the heading heuristic sees it. */
export interface PdfLine {
  /** The line's text, trimmed. */
  text: string;
  /** 1-based line number in `Extracted.lines`. */
  line: number;
  /** 1-based page. */
  page: number;
  /** Dominant font size (item height) of the line, weighted by characters. */
  size: number;
  /** Whether most of the line's characters are in a bold/black/heavy font. */
  bold: boolean;
  /** Position of the line on its page (0 = first text line). */
  index: number;
  /** Number of text lines on the page. */
  ofPage: number;
  /** Whether a large vertical gap precedes the line. */
  gapBefore: boolean;
  /** Id of the font of most of its characters, stable within a document (absent: unknown). */
  font?: string;
  /** Whether most of its characters are in a fixed-pitch font. */
  mono?: boolean;
  /** The leading runs set in the line's first font, and that font (a run-in heading). */
  lead?: string;
  /** The font of the line's first run. */
  leadFont?: string;
  /** Left edge on the page. */
  x?: number;
  /** Right edge on the page. */
  right?: number;
}

/** Result of the heuristic: headings in document order and how far they can be trusted. */
export interface PdfHeadingResult {
  /** Heuristic headings (empty when `quality` is `none`). */
  headings: Heading[];
  /** `medium` when a consistent set was found, else `none`. */
  quality: OutlineQuality;
}

// A section number, then a title that starts like words do (not with an operator or a
// closing bracket: "1 : b <- {0, 1}" is a numbered line of pseudo-code).
const NUMBERED =
  /^(\d{1,2}(?:\.\d{1,2}){0,4})\.?\s+(\p{Lu}|\p{Lt}|[^\s\d.:;,=)\]}|+*/<>!?%&^~\-–—])/u;
const DOTTED = /^\d{1,2}(?:\.\d{1,2}){0,4}\.\s/;
const LABEL = /^\p{L}+\s+(\d{1,3}|[IVXLC]+|[A-Z])\.?$/u;
const CHAPTER = /^(chapter|appendix|part|section)\s+([0-9]+|[A-Z]|[IVXLC]+)\b/i;
/** Pages on which an edge line in the same text and style makes it a running head. */
const SAME_STYLE_REPEAT = 2;
/** Numbering depth of a heading text (`1` → 1, `2.3` → 2, `Chapter 4` → 1), else 0. */
export function numberingDepth(text: string): number {
  const m = NUMBERED.exec(text);
  if (m) return m[1]!.split(".").length;
  return CHAPTER.test(text) ? 1 : 0;
}

/** The section number a heading text starts with (`2.3 Files` → [2, 3]), else undefined. */
export function sectionNumber(text: string): number[] | undefined {
  const m = NUMBERED.exec(text);
  if (m) return m[1]!.split(".").map(Number);
  const c = CHAPTER.exec(text);
  return c && /^\d+$/.test(c[2]!) ? [Number(c[2])] : undefined;
}

/**
 * Whether section number `next` can follow `prev` (the last one accepted): the next sibling
 * at some depth (one skipped number tolerated), or a first child (`2.3` → `2.3.1`; a
 * missed parent tolerated: `2.3` → `2.4.1`). Any start is allowed before the first.
 */
export function followsNumber(prev: number[] | undefined, next: number[]): boolean {
  if (!prev) return next.every((n, i) => i === 0 ? n <= 3 : n <= 2);
  const k = next.length;
  for (let j = 0; j < k; j++) {
    // next[0..j) equal to prev's, next[j] one or two past prev[j] (or the first, 1, when
    // prev stops at depth j), and every deeper part of next a first (1).
    const same = next.slice(0, j).every((n, i) => n === prev[i]);
    if (!same) break;
    const step = j < prev.length ? next[j]! - prev[j]! : next[j]!;
    const ok = j < prev.length ? step >= 1 && step <= 2 : step === 1 || step === 2;
    if (ok && next.slice(j + 1).every((n) => n === 1)) return true;
    if (j >= prev.length) break;
  }
  return false;
}

/** Whether section number `a` comes after `b` (`2.10` after `2.9`, `3` after `2.4`). */
function after(a: number[], b: number[]): boolean {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i] !== b[i]) return a[i]! > b[i]!;
  }
  return a.length > b.length;
}

/**
 * Drop the title page's lines from the candidates: the document's title, authors and date
 * are not sections. On the first page, a candidate before the first line of running text
 * is dropped when its style (size and font) is used by no candidate after that line.
 * A first page with only a few lines, far fewer than the other pages (a cover), loses all
 * its candidates.
 */
function withoutTitlePage<C extends { l: PdfLine; depth: number }>(
  cands: C[],
  lines: PdfLine[],
  pageCount: number,
  body: number,
): C[] {
  if (pageCount < 2) return cands;
  const first = lines.filter((l) => l.page === 1);
  if (first.length === 0) return cands;
  const isCand = new Set(cands.map((c) => c.l));
  // A cover: a first page with a few lines where the other pages have many more.
  const perPage = new Map<number, number>();
  for (const l of lines) perPage.set(l.page, (perPage.get(l.page) ?? 0) + 1);
  const counts = [...perPage.values()].sort((a, b) => a - b);
  const median = counts[Math.floor(counts.length / 2)]!;
  const cover = first.length <= 12 && first.length * 2 < median;
  // First running text: a non-candidate line of several words in the body's size (not a
  // contents entry).
  const bodyAt =
    first.find((l) =>
      !isCand.has(l) && l.text.split(/\s+/).length >= 6 && bucket(l.size) <= body &&
      !ENDS_NUM.test(l.text)
    )?.line ?? first[first.length - 1]!.line;
  const laterStyles = new Set(cands.filter((c) => c.l.line > bodyAt).map((c) => styleKey(c.l)));
  return cands.filter((c) =>
    c.l.page !== 1 ||
    !(cover || (c.l.line < bodyAt && c.depth === 0 && !laterStyles.has(styleKey(c.l))))
  );
}

/**
 * Heuristic headings of a PDF from its lines' font sizes, weight and numbering.
 *
 * @param lines the rebuilt lines of the whole document, in order
 * @param pageCount number of pages (to judge what "repeats on many pages" means)
 */
export function pdfHeadings(lines: PdfLine[], pageCount: number): PdfHeadingResult {
  const none: PdfHeadingResult = { headings: [], quality: "none" };
  if (lines.length === 0) return none;

  // Body size: the most common size, weighted by characters.
  const weight = new Map<number, number>();
  for (const l of lines) {
    const b = bucket(l.size);
    weight.set(b, (weight.get(b) ?? 0) + l.text.length);
  }
  let body = 0;
  let best = -1;
  for (const [size, w] of weight) {
    if (w > best) [body, best] = [size, w];
  }
  if (body <= 0) return none;
  // Body font: the most common font at the body size.
  const fontChars = new Map<string, number>();
  for (const l of lines) {
    if (bucket(l.size) !== body) continue;
    fontChars.set(l.font ?? "", (fontChars.get(l.font ?? "") ?? 0) + l.text.length);
  }
  let bodyFont = "";
  best = -1;
  for (const [f, n] of fontChars) if (n > best) [bodyFont, best] = [f, n];

  // Running headers and footers: lines near the top or bottom of a page whose text (digits
  // ignored) repeats on several pages, or on a few pages in the same style (a chapter's
  // running head repeats its title on that chapter's pages only), or that carry the page
  // number (a number following the pages) in a style most pages carry it in at their edge
  // (a running head naming the topic of each page).
  const edgePages = new Map<string, Set<number>>();
  const isEdge = (l: PdfLine) => l.index < 2 || l.index >= l.ofPage - 2;
  const note = (k: string, p: number) => {
    let s = edgePages.get(k);
    if (!s) edgePages.set(k, s = new Set());
    s.add(p);
  };
  for (const l of lines) {
    if (!isEdge(l)) continue;
    note(repeatKey(l.text), l.page);
    note(`${headKey(l.text)}\n${styleKey(l)}`, l.page);
    const printed = pageNumberOf(l.text);
    if (printed !== undefined) note(`\n${styleKey(l)}\n${l.page - printed}`, l.page);
  }
  const repeatMin = Math.max(3, Math.min(8, Math.ceil(pageCount * 0.2)));
  const running = (l: PdfLine) =>
    isEdge(l) && ((edgePages.get(repeatKey(l.text))?.size ?? 0) >= repeatMin ||
      (edgePages.get(`${headKey(l.text)}\n${styleKey(l)}`)?.size ?? 0) >= SAME_STYLE_REPEAT ||
      (pageNumberOf(l.text) !== undefined &&
        (edgePages.get(`\n${styleKey(l)}\n${l.page - pageNumberOf(l.text)!}`)?.size ?? 0) >=
          Math.max(repeatMin, pageCount * 0.6)));

  // Contents and index pages; body-size headings the contents list.
  const contents = readContents(lines, pageCount, (l) => bucket(l.size) >= body * 1.15);
  const tocPage = contents.listing;

  interface Cand {
    l: PdfLine;
    text: string;
    size: number;
    depth: number;
    large: boolean;
    last: number;
  }
  const wraps = (i: number) => {
    const next = lines[i + 1];
    return !!next && next.page === lines[i]!.page && !next.gapBefore && ENDS_NUM.test(next.text);
  };
  let cands: Cand[] = [];
  for (const [i, l] of lines.entries()) {
    if (running(l)) continue;
    const size = bucket(l.size);
    const large = size >= body * 1.15;
    const text = l.text;
    if (text.length < 2 || text.length > 120 || !/\p{L}/u.test(text)) continue;
    if (PAGE_NUM.test(text)) continue;
    const words = text.split(/\s+/).length;
    if (words > 12 || /[.,;]$/.test(text)) continue;
    // A contents or index page keeps only its own title (large, without a page number, and
    // not the first line of an entry that wraps, whose next line has the number).
    if (tocPage(l.page) && !(large && !ENDS_NUM.test(text) && !wraps(i))) continue;
    const depth = numberingDepth(text);
    // Numbered code lines (a listing's line numbers) are fixed-pitch text no larger than the
    // body (CJK fonts are fixed-pitch too, but their headings are larger).
    const code = l.mono && size <= body;
    const numberedOk = depth > 0 && l.gapBefore && !ENDS_NUM.test(text) &&
      size >= body * 0.95 && words >= 2 && !code;
    if (!large && !(l.bold && size >= body * 0.95 && l.gapBefore) && !numberedOk) continue;
    if (ENDS_NUM.test(text) && !large) continue;
    cands.push({ l, text, size, depth, large, last: l.index });
  }
  // A body-size line in its own font (or starting with a run in its own font) is a heading
  // where the contents list it on that page, unless a heading found above took the entry.
  for (const c of cands) contents.claim(c.text, c.l.page);
  const taken = new Set(cands.map((c) => c.l));
  for (const l of lines) {
    const size = bucket(l.size);
    if (taken.has(l) || running(l) || !l.gapBefore || size < body * 0.95) continue;
    if (size >= body * 1.15 || (l.mono && size <= body)) continue;
    const title = contents.titleOf(l, bodyFont);
    if (title) {
      const depth = numberingDepth(title);
      cands.push({ l, text: title, size, depth, large: false, last: l.index });
    }
  }
  cands.sort((a, b) => a.l.line - b.l.line);
  cands = withoutTitlePage(cands, lines, pageCount, body);
  // Section numbers run in sequence and share one form ("2.1" or "2.1."), which the larger
  // headings show: a numbered line of body size out of sequence or in the other form is a
  // list item or a line of code. Larger numbered headings set the sequence.
  const dotted = (c: Cand) => DOTTED.test(c.text);
  const big = cands.filter((c) => c.large && c.depth > 0 && NUMBERED.test(c.text));
  const dots = big.filter(dotted).length;
  const form = big.length < 2 ? undefined : dots * 2 > big.length;
  // A number further on than the sequence expects (headings missed in between) still
  // counts when it is set like the numbered headings of its depth already accepted.
  let lastNumber: number[] | undefined;
  const depthStyle = new Map<number, string>();
  cands = cands.filter((c) => {
    const n = c.depth > 0 ? sectionNumber(c.text) : undefined;
    if (!n) return true;
    if (!c.large) {
      const resumes = !!lastNumber && after(n, lastNumber) &&
        depthStyle.get(n.length) === styleKey(c.l);
      if (!followsNumber(lastNumber, n) && !resumes) return false;
      if (form !== undefined && NUMBERED.test(c.text) && dotted(c) !== form) return false;
    }
    lastNumber = n;
    depthStyle.set(n.length, styleKey(c.l));
    return true;
  });

  // Merge a heading wrapped over consecutive lines of the same size on the same page.
  const merged: Cand[] = [];
  for (const c of cands) {
    const prev = merged[merged.length - 1];
    if (
      prev && prev.l.page === c.l.page && prev.large && c.large && prev.size === c.size &&
      c.l.index === prev.last + 1 && !c.l.gapBefore && c.depth === 0 &&
      prev.text.length + c.text.length < 120
    ) {
      prev.text = `${prev.text} ${c.text}`;
      prev.last = c.l.index;
      continue;
    }
    // A label line ("Chapter 3", "Part II") above its title: one heading, numbered as the
    // sections are ("3 Title", "II Title").
    const label = prev && LABEL.exec(prev.text);
    if (
      label && prev.l.page === c.l.page && prev.large && c.large && c.depth === 0 &&
      c.l.index <= prev.last + 2
    ) {
      prev.text = `${label[1]} ${c.text}`;
      prev.depth = 1;
      prev.last = c.l.index;
      continue;
    }
    merged.push(c);
  }

  const sizes = [...new Set(merged.filter((c) => c.large).map((c) => c.size))].sort((a, b) =>
    b - a
  );
  const sizeLevel = new Map(sizes.map((s, i) => [s, i + 1]));
  const headings: Heading[] = [];
  for (const c of merged) {
    let level = c.large ? sizeLevel.get(c.size)! : sizes.length + 1;
    if (c.depth > 0 && !c.large) level = Math.max(level, c.depth);
    if (c.depth > 1 && c.large) level = Math.max(level, Math.min(c.depth, sizes.length + 1));
    headings.push({ level: Math.min(level, 6), title: c.text, line: c.l.line, page: c.l.page });
  }
  if (headings.length < 3 || headings.length > lines.length / 4) return none;
  // Normalise so the shallowest level used is 1.
  const min = Math.min(...headings.map((h) => h.level));
  for (const h of headings) h.level -= min - 1;
  return { headings, quality: "medium" };
}
