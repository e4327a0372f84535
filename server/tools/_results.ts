/**
 * Document cards as `search` and `similar` answer them, in JSON and markdown.
 *
 * @module
 */
import { clipWords } from "../../core/outline.ts";
import type { Card, Hit } from "../../core/types.ts";
import type { Shelf } from "../../shelf/shelf.ts";
import { escapeControl, n, shownPath } from "../tool.ts";

/** A search result, as the tool contract names its fields. */
export type SearchResult =
  & Pick<
    Card,
    | "doc_id"
    | "title"
    | "path"
    | "library"
    | "doc_type"
    | "word_count"
    | "total_lines"
    | "has_outline"
    | "outline_quality"
    | "brief"
    | "modified_at"
    | "keywords"
  >
  & { relevance: number; snippet: string };

/** The hint after a list of documents. */
export const NEXT_STEP = "Next: outline doc_ids=[...] to see sections with line ranges, then read.";

/** Cards of hits as search results (a hit without a snippet shows the abstract's start). */
export function toResults(shelf: Shelf, hits: Hit[]): SearchResult[] {
  const cards = shelf.catalog.cards(hits.map((h) => h.doc_id));
  const results: SearchResult[] = [];
  for (const h of hits) {
    const c = cards.get(h.doc_id);
    if (!c) continue;
    results.push({
      doc_id: c.doc_id,
      title: c.title,
      path: shownPath(shelf, c.path),
      library: c.library,
      doc_type: c.doc_type,
      relevance: Math.round(h.score * 1000) / 1000,
      word_count: c.word_count,
      total_lines: c.total_lines,
      has_outline: c.has_outline,
      outline_quality: c.outline_quality,
      brief: c.brief,
      modified_at: c.modified_at,
      keywords: c.keywords,
      snippet: h.snippet ?? abstractStart(c.abstract),
    });
  }
  return results;
}

function abstractStart(abstract: string): string {
  return clipWords(abstract.replace(/\s+/g, " ").trim(), 200);
}

/** Results as numbered markdown cards. */
export function resultsMd(results: SearchResult[]): string[] {
  const out: string[] = [];
  results.forEach((h, i) => {
    out.push("");
    out.push(`${i + 1}. ${escapeControl(h.title)} [${h.doc_id}]`);
    const parts = [
      escapeControl(h.path),
      h.doc_type,
      `${n(h.word_count)} words`,
      `${n(h.total_lines)} lines`,
      h.has_outline ? `outline ${h.outline_quality}` : "no outline",
      `rel ${h.relevance.toFixed(2)}`,
      h.modified_at.slice(0, 10),
    ];
    out.push(`   ${parts.join(" · ")}`);
    if (h.keywords.length) out.push(`   keywords: ${h.keywords.join(", ")}`);
    if (h.snippet) out.push(`   > ${h.snippet}`);
  });
  return out;
}
