/**
 * Document cards as `search` and `similar` answer them, in JSON and markdown.
 *
 * @module
 */
import { clipWords } from "../../core/prose.ts";
import type { Card, Hit, PassageHit } from "../../core/types.ts";
import type { LineRange, Sentence } from "../../search/sentence.ts";
import type { Shelf } from "../../shelf/shelf.ts";
import { escapeControl, n, type Render, shownPath } from "../tool.ts";
import { lineSpan } from "./_cite.ts";
import { count } from "./_listing.ts";

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
  & {
    relevance: number;
    snippet: string;
    /**
     * The sentence or two of its best passages that best answer the query (first hits
     * only), with the line and page it starts on, to cite, and the lines to read to verify
     * it (its paragraph, bounded).
     */
    answer?: Sentence & LineRange;
    /** The document's best passages for the query (line ranges, pages, snippets). */
    passages?: Omit<PassageHit, "score">[];
    /** Other documents with the same text, collapsed into this one. */
    copies?: { doc_id: string; path: string }[];
  };

/** The hint after a list of documents. */
export function nextStep(render: Render): string {
  return render.cli
    ? "Next: shelfmark read ID --offset L --limit N, or --section §id."
    : "Next: read doc_id offset=L limit=N, or section=§id.";
}

/**
 * Cards of hits as search results (a hit without a snippet shows the abstract's start);
 * `known` cards (the search path's) are not read again.
 */
export function toResults(shelf: Shelf, hits: Hit[], known?: Map<string, Card>): SearchResult[] {
  const cards = known ?? shelf.cards(hits.map((h) => h.doc_id));
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
      passages: h.passages?.map(({ score: _, lines: _l, ...p }) => p),
      copies: h.copies?.map((c) => ({ doc_id: c.doc_id, path: shownPath(shelf, c.path) })),
    });
  }
  return results;
}

function abstractStart(abstract: string): string {
  return clipWords(abstract.replace(/\s+/g, " ").trim(), 200);
}

/** Characters of a snippet in the compact markdown. */
const COMPACT_SNIPPET = 100;

/** The file name without its extension, as words. */
function fileStem(path: string): string {
  const file = path.slice(path.lastIndexOf("/") + 1).replace(/\.[A-Za-z0-9]{1,5}$/, "");
  return file.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim();
}

/** Letters and digits only, lower-cased: for comparing titles. */
function bare(s: string): string {
  return s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim();
}

/** A heading's own section number (`7.4`, `3.1.`, `2)`; not a year) before its words. */
const HEADING_NUMBER = /^(?:\d{1,3}(?:\.\d{1,3})+\.?|\d{1,2}[.)]?)\s+(?=\p{L})/u;

/**
 * `L120-160 p.633 §3.2 Title`: where a passage is. Without `titled` (the compact view),
 * the section is named by its id alone: the snippet shows what it holds, the id is what
 * `read` takes, and `outline` has the titles. A section titled like the document (its top
 * heading, most often) is named by its id alone too: the hit's first line said it. A
 * heading's own number (`7.4 Inline mode`) goes: the id beside it is the one to read by.
 */
export function where(p: Omit<PassageHit, "score">, docTitle: string, titled = true): string {
  const parts = [lineSpan(p.start_line, p.end_line)];
  if (p.page !== undefined) parts.push(`p.${p.page}`);
  if (p.node_id && !titled) parts.push(`§${p.node_id}`);
  else if (p.node_id) {
    const t = bare(p.title);
    const doc = bare(docTitle);
    const same = t === doc || (t.length >= 8 && doc.startsWith(t));
    const title = p.title.replace(HEADING_NUMBER, "");
    parts.push(same ? `§${p.node_id}` : `§${p.node_id} ${escapeControl(clipWords(title, 32))}`);
  }
  return parts.join(" ");
}

/** A snippet without the section's heading at its start (the passage line names it). */
export function afterHeading(snippet: string, heading: string): string {
  const h = bare(heading);
  if (h.length < 3) return snippet;
  // Walk the snippet's words (bold marks are not letters) while they spell the heading.
  let spelled = "";
  let end = 0;
  for (const m of snippet.matchAll(/[\p{L}\p{N}]+/gu)) {
    spelled = spelled ? `${spelled} ${m[0].toLowerCase()}` : m[0].toLowerCase();
    end = m.index + m[0].length;
    if (spelled === h) break;
    if (!h.startsWith(spelled)) return snippet;
  }
  if (spelled !== h) return snippet;
  let rest = snippet.slice(end);
  // A bold mark left open by the heading's last word closes here: drop it.
  if ((rest.match(/\*\*/g)?.length ?? 0) % 2 === 1) rest = rest.replace("**", "");
  rest = rest.replace(/^[\s:.,;—–-]+/, "");
  return rest.replaceAll("**", "").length >= 20 ? rest : snippet;
}

/**
 * A snippet for the compact view: plain text (no bold marks), and when too long, the
 * window of `COMPACT_SNIPPET` characters holding the most distinct matched words (the bold
 * ones), cut at word boundaries.
 */
function shortSnippet(s: string): string {
  const plain = s.replaceAll("**", "");
  if (plain.length <= COMPACT_SNIPPET) return plain;
  // Matches, at their offsets in the plain text.
  const marks: { at: number; word: string }[] = [];
  let removed = 0;
  for (const m of s.matchAll(/\*\*(.+?)\*\*/g)) {
    marks.push({ at: m.index - removed, word: m[1]!.toLowerCase() });
    removed += 4;
  }
  let start = 0;
  let best = -1;
  for (let i = 0; i < marks.length; i++) {
    const from = Math.max(0, marks[i]!.at - 20);
    const inside = marks.filter((m) => m.at >= from && m.at < from + COMPACT_SNIPPET);
    const score = new Set(inside.map((m) => m.word)).size;
    if (score > best) {
      best = score;
      start = from;
    }
  }
  if (start > 0) {
    const sp = plain.indexOf(" ", start);
    start = sp >= 0 && sp < start + 20 ? sp + 1 : start;
  }
  const cut = clipWords(plain.slice(start), COMPACT_SNIPPET);
  return (start > 0 && !plain.startsWith("…", start) ? "…" : "") + cut;
}

/** Characters of a title in the compact view. */
const COMPACT_TITLE = 60;
/** File extensions that already say a document's type (the extractor's name). */
const TYPE_OF_EXTENSION: Record<string, string> = {
  md: "markdown",
  markdown: "markdown",
  mdx: "markdown",
  html: "html",
  htm: "html",
  txt: "text",
  pdf: "pdf",
  docx: "docx",
  epub: "epub",
  pptx: "pptx",
  xlsx: "xlsx",
  odt: "odt",
  ods: "ods",
  odp: "odp",
  rtf: "rtf",
  png: "image",
  jpg: "image",
  jpeg: "image",
  tif: "image",
  tiff: "image",
};

/**
 * Whether a path's extension already says a document's type (`a.pdf` is a pdf): lists
 * then leave the type out.
 *
 * @example
 * ```ts
 * import { extensionSaysType } from "./_results.ts";
 * import assert from "node:assert/strict";
 * assert.ok(extensionSaysType("lib/a.htm", "html"));
 * assert.equal(extensionSaysType("lib/README", "text"), false);
 * ```
 */
export function extensionSaysType(path: string, type: string): boolean {
  const ext = /\.([A-Za-z0-9]+)$/.exec(path)?.[1]?.toLowerCase() ?? "";
  return TYPE_OF_EXTENSION[ext] === type;
}

/** ` · pdf` unless the path's extension says it. */
function typeNote(path: string, type: string): string {
  return extensionSaysType(path, type) ? "" : ` · ${type}`;
}

/** Hits shown with their passages' snippets in the compact view; later ones get one line. */
export const WITH_SNIPPETS = 5;

/**
 * Results as numbered markdown cards. Compact (the default): title (when the file name
 * does not already say it), doc id, path and type on one line (not the size: the answer
 * and the passages name the lines to read, `read` says how many there are), then each passage's
 * line range, page, section and snippet; after the first {@link WITH_SNIPPETS} hits, one
 * line each ending with the best passage's place. Verbose: the whole card, keywords included.
 */
export function resultsMd(results: SearchResult[], verbose = false): string[] {
  if (verbose) return verboseMd(results);
  const out: string[] = [];
  /** The words of each answer shown, by hit number. */
  const said: { hit: number; words: Set<string> }[] = [];
  results.forEach((h, i) => {
    const title = escapeControl(h.title);
    const showTitle = title.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim() !==
      fileStem(h.path);
    out.push(
      `${i + 1}. ${showTitle ? `${clipWords(title, COMPACT_TITLE)} ` : ""}[${h.doc_id}] ${
        escapeControl(h.path)
      }${typeNote(h.path, h.doc_type)}${copies(h)}`,
    );
    if (i >= WITH_SNIPPETS) {
      // Further down the list, where the best passage is is enough to choose by.
      const p = h.passages?.[0];
      if (p) out[out.length - 1] += ` · ${where(p, h.title, false)}`;
    } else if (h.answer) {
      const words = answerWords(h.answer.text);
      const same = said.find((s) => sameWords(words, s.words));
      said.push({ hit: i + 1, words });
      const text = same ? `(as in ${same.hit}.)` : escapeControl(h.answer.text);
      out.push(`   ${answerPlace(h.answer, h.passages?.[0])}: ${text}`);
      for (const p of h.passages?.slice(1) ?? []) {
        out.push(
          `   ${where(p, h.title, false)}: ${shortSnippet(afterHeading(p.snippet, p.title))}`,
        );
      }
    } else if (h.passages?.length) {
      for (const p of h.passages) {
        out.push(
          `   ${where(p, h.title, false)}: ${shortSnippet(afterHeading(p.snippet, p.title))}`,
        );
      }
    } else if (h.snippet) {
      out.push(`   > ${shortSnippet(h.snippet)}`);
    }
  });
  return out;
}

/** The distinct words (three letters or more) of an answer. */
function answerWords(text: string): Set<string> {
  return new Set(text.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? []);
}

/**
 * Whether an answer says what an earlier one said: nearly all (80 %) of its words are the
 * earlier one's (the same sentence in another format of a document: HTML and reST, a
 * manual's two editions), so it is shown as `(as in 3.)`, not read twice.
 */
function sameWords(words: Set<string>, earlier: Set<string>): boolean {
  if (words.size < 3) return false;
  let shared = 0;
  for (const w of words) if (earlier.has(w)) shared++;
  return shared >= 0.8 * words.size;
}

/**
 * `L131-138 p.4 §3.2`: the lines to read around an answer (its paragraph, from the
 * answer's own line or just before it), its page, and the section of the passage holding it.
 */
function answerPlace(a: Sentence & LineRange, p: Omit<PassageHit, "score"> | undefined): string {
  const parts = [lineSpan(a.start_line, a.end_line)];
  if (a.page !== undefined) parts.push(`p.${a.page}`);
  if (p?.node_id && p.start_line <= a.line && a.line <= p.end_line) parts.push(`§${p.node_id}`);
  return parts.join(" ");
}

/** ` · +2 copies` */
function copies(h: SearchResult): string {
  const k = h.copies?.length ?? 0;
  return k ? ` · +${k} ${k === 1 ? "copy" : "copies"}` : "";
}

/** The whole card of each result. */
function verboseMd(results: SearchResult[]): string[] {
  const out: string[] = [];
  results.forEach((h, i) => {
    out.push("");
    out.push(`${i + 1}. ${escapeControl(h.title)} [${h.doc_id}]`);
    const parts = [
      escapeControl(h.path),
      h.doc_type,
      `${n(h.word_count)} words`,
      count(h.total_lines, "line"),
      h.has_outline ? `outline ${h.outline_quality}` : "no outline",
      `rel ${h.relevance.toFixed(2)}`,
      h.modified_at.slice(0, 10),
    ];
    if (h.copies?.length) {
      parts.push(`copies: ${h.copies.map((c) => escapeControl(c.path)).join(", ")}`);
    }
    out.push(`   ${parts.join(" · ")}`);
    if (h.keywords.length) out.push(`   keywords: ${h.keywords.join(", ")}`);
    if (h.passages?.length) {
      for (const p of h.passages) out.push(`   ${where(p, h.title)}: ${p.snippet}`);
    } else if (h.snippet) out.push(`   > ${h.snippet}`);
  });
  return out;
}
