/**
 * The table of contents of a PDF without bookmarks, read from its rebuilt lines: which pages
 * list entries with page numbers (contents, index), and which body-size lines are headings
 * because the contents list them on their page. Pure functions, testable without pdf.js.
 *
 * @module
 */
import type { PdfLine } from "./_headings_pdf.ts";

/** A line ending with a page number (after dot leaders, or a space). */
export const ENDS_NUM = /(?:\.\s*){3,}\s*\S*\d+$|\s(?:\d+|[ivxlc]+)$/;

/** Words of a line tried as the start of a listed title, at most. */
const MAX_WORDS = 12;

/** A title as the contents and the text both print it: no number, leaders or page. */
export function contentsKey(text: string): string {
  return text.toLowerCase()
    .replace(/(?:\s*\.)*\s*(?:\d+|[ivxlc]+)$/, "")
    .replace(/^(?:(?:chapter|appendix|part|section)\s+)?(?:\d+|[a-z])(?:\.\d+)*\.?\s+/, "")
    .replace(/\s+/g, " ").trim();
}

/** What the contents tell about a document's lines. */
export interface Contents {
  /** Whether a page is a listing (contents or index): most of its lines end with a number. */
  listing(page: number): boolean;
  /**
   * The title a line starts with when the contents list it on the line's page (printed page
   * numbers mapped to physical ones), else undefined: the whole line, or for a line in the
   * body font, its leading run in another font (a run-in heading, "Column The column(x)...").
   * Titles that only start the line count once the page mapping is known. The entry is
   * taken: a later line with the same title is not a heading by it.
   */
  titleOf(line: PdfLine, bodyFont: string): string | undefined;
  /** Mark the entry of a heading found otherwise as taken: an entry names one heading. */
  claim(title: string, page: number): void;
}

/**
 * Read the contents of a document.
 *
 * @param lines the rebuilt lines, in order
 * @param pageCount number of pages
 * @param large whether a line is set larger than the body (headings that map the pages)
 */
export function readContents(
  lines: PdfLine[],
  pageCount: number,
  large: (l: PdfLine) => boolean,
): Contents {
  const counts = new Map<number, [number, number]>();
  for (const l of lines) {
    const c = counts.get(l.page) ?? [0, 0];
    c[0]++;
    if (ENDS_NUM.test(l.text)) c[1]++;
    counts.set(l.page, c);
  }
  const listing = (p: number) => {
    const c = counts.get(p);
    return !!c && c[0] >= 5 && c[1] / c[0] >= 0.4;
  };
  const entries = contentsEntries(lines, pageCount, listing);
  const offset = entries.size
    ? pageOffset(lines, entries, (l) => large(l) && !listing(l.page))
    : undefined;
  // Take the entry of `key` listed at `page` (any page, for an exact title, while the page
  // mapping is unknown); false when there is none left.
  const take = (key: string, page: number, exact: boolean) => {
    const pages = entries.get(key);
    if (!pages?.length) return false;
    const i = offset === undefined
      ? (exact ? 0 : -1)
      : pages.findIndex((p) => Math.abs(page - offset - p) <= 1);
    if (i < 0) return false;
    pages.splice(i, 1);
    return true;
  };
  const startOf = (text: string, page: number): string | undefined => {
    const words = text.split(/\s+/).slice(0, MAX_WORDS);
    for (let n = words.length; n >= 1; n--) {
      const head = words.slice(0, n).join(" ");
      if (take(contentsKey(head), page, false)) return head;
    }
    return undefined;
  };
  return {
    listing,
    titleOf(l, bodyFont) {
      if (!entries.size || listing(l.page)) return undefined;
      if (l.font !== bodyFont) {
        if (take(contentsKey(l.text), l.page, true)) return l.text;
        return startOf(l.text, l.page);
      }
      if (l.lead && l.leadFont !== undefined && l.leadFont !== bodyFont) {
        return startOf(l.lead, l.page);
      }
      return undefined;
    },
    claim(title, page) {
      if (entries.size) take(contentsKey(title), page, false);
    },
  };
}

/**
 * The entries of the table of contents (lines ending with a page number), title key to the
 * printed page numbers: the first run of listing pages, when it starts in the first fifth
 * of the document or its first three pages (an index at the end looks the same but lists
 * words, not titles). An entry wrapped over two lines is read whole.
 */
function contentsEntries(
  lines: PdfLine[],
  pageCount: number,
  listing: (page: number) => boolean,
): Map<string, number[]> {
  const out = new Map<string, number[]>();
  let first = 0;
  for (let p = 1; p <= Math.max(3, Math.ceil(pageCount / 5)); p++) {
    if (listing(p)) {
      first = p;
      break;
    }
  }
  if (!first) return out;
  let last = first;
  while (last < pageCount && (listing(last + 1) || listing(last + 2))) last++;
  let pending = "";
  let pendingPage = 0;
  for (const l of lines) {
    if (l.page < first || l.page > last) continue;
    if (!ENDS_NUM.test(l.text)) {
      [pending, pendingPage] = [l.text, l.page];
      continue;
    }
    const printed = Number(/(\d+)$/.exec(l.text)?.[1] ?? NaN);
    const add = (text: string) => {
      const k = contentsKey(text);
      if (k.length < 2) return;
      const list = out.get(k) ?? [];
      list.push(printed);
      out.set(k, list);
    };
    add(l.text);
    if (pending && pendingPage === l.page && !l.gapBefore) add(`${pending} ${l.text}`);
    pending = "";
  }
  return out;
}

/**
 * Physical page minus printed page, from the larger headings found in the contents: the
 * most common difference, if at least two agree.
 */
function pageOffset(
  lines: PdfLine[],
  entries: Map<string, number[]>,
  large: (l: PdfLine) => boolean,
): number | undefined {
  const votes = new Map<number, number>();
  for (const l of lines) {
    if (!large(l)) continue;
    const pages = entries.get(contentsKey(l.text));
    if (pages?.length !== 1 || !Number.isFinite(pages[0])) continue;
    const d = l.page - pages[0]!;
    votes.set(d, (votes.get(d) ?? 0) + 1);
  }
  let best: number | undefined;
  let n = 1;
  for (const [d, v] of votes) if (v > n) [best, n] = [d, v];
  return best;
}
