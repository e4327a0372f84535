/**
 * The citation an agent copies from a `grep` or `read` answer: the document's path, its
 * page(s) when it has pages, and the lines (`Library/report.pdf p.47 L2381-2384`).
 *
 * @module
 */

/** Where a cited passage lies: its first and last line and page. */
export interface CitedSpan {
  /** First line (1-based). */
  first: number;
  /** Last line (the first when omitted). */
  last?: number;
  /** Page of the first line (paged documents). */
  page?: number;
  /** Page of the last line (the first page when omitted). */
  lastPage?: number;
}

/** `a` or `a-b` when they differ. */
const range = (a: number, b = a) => (b > a ? `${a}-${b}` : `${a}`);

/**
 * Lines as every answer names them: `L12-40`, or `L12` for one line.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { lineSpan } from "./_cite.ts";
 *
 * assert.equal(lineSpan(12, 40), "L12-40");
 * assert.equal(lineSpan(84, 84), "L84");
 * ```
 */
export function lineSpan(first: number, last = first): string {
  return `L${range(first, last)}`;
}

/**
 * A span's place: `p.47 L2381-2384` (`L12` without pages).
 *
 * @param s the span
 * @returns its page(s) and lines
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { place } from "./_cite.ts";
 *
 * assert.equal(place({ first: 2381, last: 2384, page: 47 }), "p.47 L2381-2384");
 * assert.equal(place({ first: 90, last: 130, page: 3, lastPage: 4 }), "p.3-4 L90-130");
 * assert.equal(place({ first: 12 }), "L12");
 * ```
 */
export function place(s: CitedSpan): string {
  const lines = lineSpan(s.first, s.last);
  return s.page === undefined ? lines : `p.${range(s.page, s.lastPage)} ${lines}`;
}

/**
 * The hint line that cites a span of a document.
 *
 * @param path the document's display path
 * @param s the span
 * @returns `Cite: <path> p.47 L2381-2384`
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { citeHint } from "./_cite.ts";
 *
 * assert.equal(citeHint("Docs/report.pdf", { first: 5, page: 2 }), "Cite: Docs/report.pdf p.2 L5");
 * ```
 */
export function citeHint(path: string, s: CitedSpan): string {
  return `Cite: ${path} ${place(s)}`;
}
