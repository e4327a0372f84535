/**
 * Running headers, running footers and page numbers of a PDF: lines at the top or bottom
 * edge of pages that repeat from page to page. They are dropped from the body text (every
 * copy: their words, a document or chapter title, stand in the document's own title and
 * headings already, and a copy kept on one arbitrary page would only send grep there), so
 * grep, snippets and passages see the page's own text. Pure functions over rebuilt lines.
 *
 * @module
 */
import type { PageLine } from "./_pdf_layout.ts";

/** A bare page number: "7", "iv", "Page 3", "3 of 40", "- 3 -". */
export const PAGE_NUM =
  /^(?:page\s+)?[-–—]?\s*(?:\d+|[ivxlcdm]+)(?:\s*(?:of|\/)\s*\d+)?\s*[-–—]?$/i;
/** A page number at either end of a line ("abbreviate 7", "8 abbreviate"). */
const PAGE_AT_END = /^(\d+)\s+\S|\S\s+(\d+)$/;
/** Lines from the edge of a page that can belong to its header or footer. */
const BAND_LINES = 2;
/** A header or footer stands apart from the body by a gap of this many font heights. */
const BAND_GAP = 1.3;
/** Copies of a running line sit within this many PDF units of each other, up or down. */
const SAME_PLACE = 3;

/** The number at either end of a line, a page number if it follows the pages. */
export function pageNumberOf(text: string): number | undefined {
  const m = PAGE_AT_END.exec(text);
  return m ? Number(m[1] ?? m[2]) : undefined;
}

/** Key for running headers/footers: case-folded, digits removed, whitespace collapsed. */
export function repeatKey(text: string): string {
  return text.toLowerCase().replace(/[0-9]+/g, "#").replace(/\s+/g, " ").trim();
}

/** Key for a running head: case-folded, without a page number at either end. */
export function headKey(text: string): string {
  return text.toLowerCase().replace(/^\d+\s+|\s+\d+$/g, "").replace(/\s+/g, " ").trim();
}

/** Round a font size to half points so sizes that differ by rounding noise coincide. */
export function bucket(size: number): number {
  return Math.round(size * 2) / 2;
}

/** A line's style: font size (half points) and font. */
export function styleKey(l: { size: number; font?: string }): string {
  return `${bucket(l.size)}|${l.font ?? ""}`;
}

/** The lines of a page's header and footer bands, each with the edge it sits at. */
function bands(page: PageLine[]): { l: PageLine; edge: "top" | "bottom" }[] {
  const byY = [...page].sort((a, b) => b.y - a.y);
  const out: { l: PageLine; edge: "top" | "bottom" }[] = [];
  const take = (edge: "top" | "bottom", seq: PageLine[]): number => {
    // The band ends at the last wide gap within BAND_LINES lines; without one, only a bare
    // page number at the very edge counts.
    for (let i = Math.min(BAND_LINES, seq.length) - 1; i >= 0; i--) {
      const next = seq[i + 1];
      const gap = next ? Math.abs(seq[i]!.y - next.y) : Infinity;
      if (gap > BAND_GAP * Math.max(seq[i]!.size, next?.size ?? 0)) {
        for (const l of seq.slice(0, i + 1)) out.push({ l, edge });
        return i + 1;
      }
    }
    if (!seq[0] || !PAGE_NUM.test(seq[0].text)) return 0;
    out.push({ l: seq[0], edge });
    return 1;
  };
  const top = take("top", byY);
  take("bottom", byY.slice(top).reverse());
  return out;
}

/**
 * The pages' lines without their running headers, footers and page numbers. A line of a
 * page's header or footer band (the lines at its top or bottom edge, set apart from the
 * body by a wide gap, above or below where the body begins or ends on most pages) is dropped when it is a bare page number, when its text (digits
 * ignored) stands at the same edge in the same place on a fifth of the pages (at least 3,
 * at most 8 needed), or when it carries the page number (a number at either end that
 * follows the pages) and stands in the same text and style on another page (a chapter's
 * running head). A table row of three cells or more is never dropped, nor a line larger than
 * the body text (a chapter's "CHAPTER" label). Documents of one
 * page are left as they are. Page boundaries do not move: a page can end up empty.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { PageLine } from "./_pdf_layout.ts";
 * import { dropRunning } from "./_pdf_running.ts";
 *
 * const line = (text: string, y: number): PageLine => ({
 *   text, y, size: 10, bold: false, gapBefore: false, font: "f1", mono: false,
 *   lead: text, leadFont: "f1", x: 50, right: 300, cells: 1,
 * });
 * const steps = [["Warm the pot", "with hot water."], ["Steep the", "leaves."], ["Pour", "the tea."]];
 * const pages = steps.map(([a, b], i) => [
 *   line("The Tea Guide", 780),
 *   line(a!, 700),
 *   line(b!, 688),
 *   line(`${i + 1}`, 40),
 * ]);
 * const kept = dropRunning(pages).map((page) => page.map((l) => l.text));
 * assert.deepEqual(kept, [["Warm the pot", "with hot water."], ["Steep the", "leaves."], [
 *   "Pour",
 *   "the tea.",
 * ]]);
 * ```
 */
export function dropRunning(pages: PageLine[][]): PageLine[][] {
  if (pages.length < 2) return pages;
  // The body's size (the size of most characters): a larger line is a heading, never running.
  const sizes = new Map<number, number>();
  for (const page of pages) {
    for (const l of page) {
      sizes.set(bucket(l.size), (sizes.get(bucket(l.size)) ?? 0) + l.text.length);
    }
  }
  let body = 0;
  let most = -1;
  for (const [size, n] of sizes) if (n > most) [body, most] = [size, n];
  const edge = pages.map((page) => bands(page).filter(({ l }) => bucket(l.size) <= body * 1.15));
  // Where the body begins and ends on most pages: a header stands above that, a footer below
  // (a chapter's "CHAPTER" label, lower on its page than any header, is not one).
  const median = (ys: number[]) => ys.sort((a, b) => a - b)[ys.length >> 1] ?? NaN;
  const bodyTop: number[] = [];
  const bodyBottom: number[] = [];
  pages.forEach((page, p) => {
    const inBand = new Set(edge[p]!.map((b) => b.l));
    const ys = page.filter((l) => !inBand.has(l)).map((l) => l.y);
    if (ys.length) bodyTop.push(Math.max(...ys)), bodyBottom.push(Math.min(...ys));
  });
  const [top, bottom] = [median(bodyTop), median(bodyBottom)];
  // (Without a body line anywhere, nothing is outside it.)
  const outside = (l: PageLine, at: string) => at === "top" ? l.y > top : l.y < bottom;
  const repeatMin = Math.max(3, Math.min(8, Math.ceil(pages.length * 0.2)));
  // Pages and places (baselines) of each key at each edge.
  const seen = new Map<string, { pages: Set<number>; ys: number[] }>();
  const note = (key: string, p: number, y: number) => {
    let s = seen.get(key);
    if (!s) seen.set(key, s = { pages: new Set(), ys: [] });
    s.pages.add(p);
    s.ys.push(y);
  };
  const keys = (l: PageLine, at: string, p: number) => {
    const out = [`${at}\n${repeatKey(l.text)}`];
    const printed = pageNumberOf(l.text);
    if (printed !== undefined) {
      out.push(`${at}\n${headKey(l.text)}\n${styleKey(l)}\n${p - printed}`);
    }
    return out;
  };
  edge.forEach((band, p) => {
    for (const { l, edge: at } of band) for (const k of keys(l, at, p)) note(k, p, l.y);
  });
  const inPlace = (ys: number[], y: number) => {
    const sorted = [...ys].sort((a, b) => a - b);
    return Math.abs(sorted[sorted.length >> 1]! - y) <= SAME_PLACE;
  };
  return pages.map((page, p) => {
    const drop = new Set<PageLine>();
    for (const { l, edge: at } of edge[p]!) {
      if (l.cells >= 3) continue;
      if (PAGE_NUM.test(l.text)) {
        drop.add(l);
        continue;
      }
      if (!outside(l, at)) continue;
      const [repeat, head] = keys(l, at, p).map((k) => seen.get(k));
      if (
        (repeat && repeat.pages.size >= repeatMin && inPlace(repeat.ys, l.y)) ||
        (head && head.pages.size >= 2 && inPlace(head.ys, l.y))
      ) drop.add(l);
    }
    return drop.size ? page.filter((l) => !drop.has(l)) : page;
  });
}
