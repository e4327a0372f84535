/**
 * Semantic snippets: for a hit found by its vector alone (none of the query's words occur
 * in it), the passages nearest to the query by the same embedder, so the hit points into
 * the document rather than at its start.
 *
 * Each passage is embedded as its title and first few hundred characters. A long document
 * has hundreds of passages; at most {@link MAX_PASSAGES}, spread evenly over it, are
 * compared, and a search embeds at most {@link SEMANTIC_PASSAGES} in all, which keeps a
 * semantic search within a few hundred milliseconds.
 *
 * @module
 */
import type { Embedder, Passage, PassageHit } from "../core/types.ts";
import { type LinedText, linesOf, pageOf } from "./passages.ts";
import { readableLine } from "../core/readable.ts";

/** Passages compared per document, at most. */
export const MAX_PASSAGES = 8;
/**
 * Passages embedded per search, at most, spent on its hits found by their vectors alone in
 * rank order: embedding one costs about as much as a whole keyword search (15–30 ms on 2
 * cores).
 */
export const SEMANTIC_PASSAGES = 16;
/** Characters of a passage's text embedded after its title. */
const TEXT_CHARS = 200;

/** Cosine similarity of two vectors. */
function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0, na = 0, nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}

/** At most `n` items, spread evenly over the list (all of them when it is short). */
export function spread<T>(items: T[], n: number): T[] {
  if (items.length <= n) return items;
  return Array.from({ length: n }, (_, i) => items[Math.floor((i * items.length) / n)]!);
}

/** The start of a passage's text as one line, cut at a word boundary. */
function opening(doc: LinedText, p: Passage, chars: number, markup = false): string {
  const last = Math.min(p.end_line, doc.starts.length - 1);
  const text = linesOf(doc, p.start_line, last).map((l) => readableLine(l, markup)).join(" ")
    .replace(/\s+/g, " ")
    .trim();
  if (text.length <= chars) return text;
  const cut = text.lastIndexOf(" ", chars);
  return `${text.slice(0, cut > chars * 0.6 ? cut : chars)}…`;
}

/**
 * The passages of a document nearest to a query vector, best first, each with the start
 * of its text as the snippet.
 *
 * @param embedder the embedder of the vectors
 * @param query the query's vector
 * @param doc the document's text
 * @param passages its passages
 * @param limit passages wanted
 * @param snippetChars snippet length
 * @param opts `pages` (first line of each page, for paged documents), `markup` (the lines
 *   are Markdown), `compared` (passages embedded at most, spread over the document;
 *   {@link MAX_PASSAGES} by default)
 * @returns the nearest passages (score: cosine similarity)
 */
export async function nearestPassages(
  embedder: Embedder,
  query: Float32Array,
  doc: LinedText,
  passages: Passage[],
  limit: number,
  snippetChars: number,
  opts: { pages?: number[]; markup?: boolean; compared?: number } = {},
): Promise<PassageHit[]> {
  const { pages, markup = false } = opts;
  const chosen = spread(passages, opts.compared ?? MAX_PASSAGES);
  if (!chosen.length || limit <= 0) return [];
  const texts = chosen.map((p) =>
    `${p.title}\n${opening(doc, p, TEXT_CHARS)}`.slice(0, embedder.maxChars)
  );
  const vectors = await embedder.embed(texts, "document");
  const scored = chosen.map((p, i) => ({ p, score: cosine(query, vectors[i]!) }))
    .sort((a, b) => b.score - a.score);
  return scored.slice(0, limit).map(({ p, score }) => {
    const hit: PassageHit = {
      ...p,
      snippet: opening(doc, p, snippetChars, markup),
      score: Math.round(score * 1000) / 1000,
      line: p.start_line,
    };
    const page = pageOf(pages, p.start_line);
    if (page !== undefined) hit.page = page;
    return hit;
  });
}
