/**
 * Passages: the sections of a document a search hit points into, and the best of them for
 * a query.
 *
 * A document is cut into passages along its outline (each node's own text, before its
 * first child); where the outline is missing or cannot be trusted (a PDF without
 * bookmarks) along its pages; and otherwise into windows of a few dozen lines. Long
 * sections are cut into windows too, so a passage always fits in one `read`.
 *
 * For a query, passages are scored with BM25 inside the document (a word found in every
 * section of a manual tells less than one found in three), with a bonus for words in the
 * section's title, and the best one shows a snippet from its densest match.
 *
 * @module
 */
import type { Card, OutlineNode, Passage, PassageHit } from "../core/types.ts";
import type { OutlineQuality } from "../core/extractor.ts";
import { hasCJK } from "../core/tokenize.ts";
import { readableLine } from "../core/readable.ts";
import { atWordStart, makeSnippet, matchWords, snippetMatcher, wordScanner } from "./snippet.ts";

/** A document's text with the offset where each line starts. */
export interface LinedText {
  /** The whole text, lines joined by `\n`. */
  text: string;
  /** `starts[i]` is where line `i + 1` starts; `starts[lineCount]` is `text.length + 1`. */
  starts: Int32Array;
}

/**
 * Line offsets of a text (lines split at `\n`).
 *
 * @example
 * ```ts
 * import { linedText } from "./passages.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(linedText("a\nbc").starts, Int32Array.from([0, 2, 5]));
 * ```
 */
export function linedText(text: string): LinedText {
  let n = 1;
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) n++;
  const starts = new Int32Array(n + 1);
  let line = 1;
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) starts[line++] = i + 1;
  starts[n] = text.length + 1;
  return { text, starts };
}

/** Lines `from`..`to` (1-based, inclusive) of a lined text. */
export function linesOf(doc: LinedText, from: number, to: number): string[] {
  return doc.text.slice(doc.starts[from - 1]!, doc.starts[to]! - 1).split("\n");
}

/** What passages are cut from. */
export interface PassageSource {
  /** The outline tree. */
  outline: OutlineNode[];
  /** How far the outline can be trusted. */
  quality: OutlineQuality;
  /** The document type (`pdf`, `image`, ...). */
  docType: string;
  /** First line of each page, for paged documents. */
  pages?: number[];
  /** Number of lines. */
  totalLines: number;
}

/** Lines of a window where there is no better boundary. */
export const WINDOW_LINES = 40;
/** A section longer than this is cut into windows. */
const MAX_LINES = 80;
const K1 = 1.2;
const B = 0.75;
/** Weight of a query word found in the passage's title, relative to one in its text. */
const TITLE_BOOST = 2;
/** Matches read per document at most (a word on every line of a huge file adds nothing). */
const MAX_MATCHES = 20_000;

/** The page holding a line (1-based), by binary search over first lines of pages. */
export function pageOf(pages: number[] | undefined, line: number): number | undefined {
  if (!pages?.length) return undefined;
  let lo = 0;
  let hi = pages.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (pages[mid]! <= line) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

/** Cut `[start, end]` into windows of at most `MAX_LINES`, each near `WINDOW_LINES`. */
function windows(start: number, end: number, base: Omit<Passage, "start_line" | "end_line">) {
  const out: Passage[] = [];
  const len = end - start + 1;
  if (len <= MAX_LINES) return [{ ...base, start_line: start, end_line: end }];
  const parts = Math.ceil(len / WINDOW_LINES);
  const size = Math.ceil(len / parts);
  for (let s = start; s <= end; s += size) {
    out.push({ ...base, start_line: s, end_line: Math.min(end, s + size - 1) });
  }
  return out;
}

/**
 * The passages of a document, in line order, covering every line once.
 *
 * @param src outline, pages and size of the document
 * @returns its passages
 * @example
 * ```ts
 * import { passagesOf } from "./passages.ts";
 * import assert from "node:assert/strict";
 * const ps = passagesOf({ outline: [], quality: "none", docType: "text", totalLines: 100 });
 * assert.deepEqual(ps.map((p) => [p.start_line, p.end_line]), [[1, 34], [35, 68], [69, 100]]);
 * ```
 */
export function passagesOf(src: PassageSource): Passage[] {
  const total = src.totalLines;
  if (total <= 0) return [];
  const trusted = src.quality === "high" ||
    (src.quality === "medium" && src.docType !== "pdf" && src.docType !== "image");
  const out: Passage[] = [];
  const withPage = (p: Passage): Passage => {
    const page = pageOf(src.pages, p.start_line);
    return page === undefined ? p : { ...p, page };
  };
  if (trusted && src.outline.length) {
    const first = src.outline[0]!.start_line;
    if (first > 1) out.push(...windows(1, first - 1, { title: `Lines 1-${first - 1}` }));
    const walk = (nodes: OutlineNode[], after: number) => {
      nodes.forEach((n, i) => {
        const next = nodes[i + 1]?.start_line ?? after + 1;
        const end = Math.min(n.end_line, next - 1, total);
        const own = n.children.length ? Math.min(n.children[0]!.start_line - 1, end) : end;
        if (own >= n.start_line) {
          out.push(...windows(n.start_line, own, { node_id: n.id, title: n.title }));
        }
        if (n.children.length) walk(n.children, end);
      });
    };
    walk(src.outline, total);
    const last = out.length ? Math.max(...out.map((p) => p.end_line)) : 0;
    if (last < total) {
      out.push(...windows(last + 1, total, { title: `Lines ${last + 1}-${total}` }));
    }
  } else if (src.pages?.length) {
    src.pages.forEach((startLine, i) => {
      const end = Math.min(total, (src.pages![i + 1] ?? total + 1) - 1);
      if (end >= startLine) out.push(...windows(startLine, end, { title: `Page ${i + 1}` }));
    });
    if (src.pages[0]! > 1) out.unshift(...windows(1, src.pages[0]! - 1, { title: "Lines" }));
  } else {
    out.push(...windows(1, total, { title: "Lines" }));
  }
  out.sort((a, b) => a.start_line - b.start_line);
  return contiguous(out, total).map((p) =>
    withPage(p.title === "Lines" ? { ...p, title: `Lines ${p.start_line}-${p.end_line}` } : p)
  );
}

/**
 * Passages (sorted by first line) made to cover lines 1..`total` exactly once: overlaps of
 * an outline that cannot be trusted are cut off, gaps become windows. The catalog stores a
 * document's text as its passages, so every line must belong to one.
 */
function contiguous(sorted: Passage[], total: number): Passage[] {
  const out: Passage[] = [];
  let next = 1;
  const gap = (to: number) => {
    if (to >= next) out.push(...windows(next, to, { title: "Lines" }));
  };
  for (const p of sorted) {
    const start = Math.max(p.start_line, next);
    const end = Math.min(p.end_line, total);
    if (end < start) continue;
    gap(start - 1);
    out.push(
      start === p.start_line && end === p.end_line ? p : { ...p, start_line: start, end_line: end },
    );
    next = end + 1;
  }
  gap(total);
  return out;
}

/**
 * The passages of a stored document: what the catalog stores its text as and the keyword
 * index ranks, one row each (`seq` is the index in this list).
 *
 * @param card its card (outline quality, type)
 * @param outline its outline
 * @param pages first line of each page, for paged formats
 * @param totalLines its number of lines (0 for an empty text)
 * @returns its passages ({@link passagesOf})
 */
export function docPassages(
  card: Pick<Card, "outline_quality" | "doc_type">,
  outline: OutlineNode[],
  pages: number[] | undefined,
  totalLines: number,
): Passage[] {
  return passagesOf({
    outline,
    quality: card.outline_quality,
    docType: card.doc_type,
    pages,
    totalLines,
  });
}

/** The query word a match belongs to: the longest word whose prefix it starts with. */
function wordOf(match: string, words: string[]): number {
  const m = match.toLowerCase();
  for (let i = 0; i < words.length; i++) if (m.startsWith(words[i]!)) return i;
  if (hasCJK(m)) return words.findIndex((w) => m.includes(w));
  return -1;
}

/**
 * The best passages of a document for a query, best first.
 *
 * @param doc the document's text and line offsets ({@link linedText})
 * @param passages its passages ({@link passagesOf})
 * @param terms the query's positive terms (`positiveTerms`)
 * @param limit how many passages to return
 * @param snippetChars length of each snippet
 * @param pages first line of each page (paged documents): a passage's `page` is then the
 *   page of its snippet
 * @param markup whether the lines are Markdown (`MARKUP_TYPES`): snippets then read
 *   without emphasis marks, escapes and fences
 * @returns the passages that hold at least one query word, with snippets
 * @example
 * ```ts
 * import { bestPassages, linedText, passagesOf } from "./passages.ts";
 * import assert from "node:assert/strict";
 * const lines = ["# Intro", "hello", "# Setup", "install the zebra driver", "zebra zebra"];
 * const passages = passagesOf({
 *   outline: [
 *     { id: "1", title: "Intro", level: 1, start_line: 1, end_line: 2, line_count: 2, children: [] },
 *     { id: "2", title: "Setup", level: 1, start_line: 3, end_line: 5, line_count: 3, children: [] },
 *   ],
 *   quality: "high",
 *   docType: "markdown",
 *   totalLines: lines.length,
 * });
 * assert.equal(bestPassages(linedText(lines.join("\n")), passages, ["zebra"])[0]?.node_id, "2");
 * ```
 */
export function bestPassages(
  doc: LinedText,
  passages: Passage[],
  terms: string[],
  limit = 1,
  snippetChars = 160,
  pages?: number[],
  markup = false,
): PassageHit[] {
  const re = snippetMatcher(terms);
  if (!re || !passages.length || limit <= 0) return [];
  const words = matchWords(terms);
  // Count each word's matches per passage, in one regex pass over the whole text (one
  // call per match, not one per line: a long manual has tens of thousands of lines).
  const found = passages.map((): Match[] => []);
  const { text, starts } = doc;
  const lineCount = starts.length - 1;
  let line = 1;
  let p = 0;
  let seen = 0;
  const scan = wordScanner(terms)!;
  for (let m = scan.exec(text); m && seen < MAX_MATCHES; m = scan.exec(text)) {
    if (!atWordStart(text, m.index, m[0])) continue;
    while (line < lineCount && starts[line]! <= m.index) line++;
    while (p < passages.length - 1 && line > passages[p]!.end_line) p++;
    const w = wordOf(m[0], words);
    if (w >= 0) found[p]!.push({ at: m.index, w });
    seen++;
  }
  return scoredHits(
    passages,
    found,
    terms,
    limit,
    (ps) => linesOf(doc, ps.start_line, Math.min(ps.end_line, lineCount)),
    {
      terms,
      snippetChars,
      pages,
      markup,
    },
  );
}

/**
 * The best of some passages of a document for a query, best first, scored like
 * {@link bestPassages} with these passages as the collection: what a search hit shows, when
 * the keyword index gave its passages that match best across the library as candidates (a
 * word found in all of them, such as the document's subject, then tells little).
 *
 * @param candidates passages with their lines
 * @param terms the query's positive terms (`positiveTerms`)
 * @param limit how many passages to return
 * @param o how to cut snippets (length, pages, markup)
 * @returns the candidates that hold at least one query word, with snippets
 * @example
 * ```ts
 * import { chosenPassages } from "./passages.ts";
 * import assert from "node:assert/strict";
 * const at = (start_line: number, lines: string[]) => ({
 *   passage: { title: "Lines", start_line, end_line: start_line + lines.length - 1 },
 *   lines,
 * });
 * const best = chosenPassages([
 *   at(1, ["the zebra manual", "zebra zebra zebra"]),
 *   at(40, ["zebra stripes are counted by the driver"]),
 *   at(90, ["zebra zebra"]),
 * ], ["zebra", "stripes"], 1);
 * assert.equal(best[0]?.start_line, 40);
 * ```
 */
export function chosenPassages(
  candidates: { passage: Passage; lines: string[] }[],
  terms: string[],
  limit = 1,
  o: Omit<SnippetOptions, "terms" | "idf"> = {},
): PassageHit[] {
  const scan = wordScanner(terms);
  if (!scan || !candidates.length || limit <= 0) return [];
  const words = matchWords(terms);
  const found = candidates.map(({ lines }) => {
    const f: Match[] = [];
    const text = lines.join("\n");
    scan.lastIndex = 0;
    for (let m = scan.exec(text); m && f.length < MAX_MATCHES; m = scan.exec(text)) {
      if (!atWordStart(text, m.index, m[0])) continue;
      const w = wordOf(m[0], words);
      if (w >= 0) f.push({ at: m.index, w });
    }
    return f;
  });
  const passages = candidates.map((c) => c.passage);
  const lines = new Map(candidates.map((c) => [c.passage, c.lines]));
  return scoredHits(passages, found, terms, limit, (ps) => lines.get(ps)!, { ...o, terms });
}

/**
 * Passages scored by BM25 with the passages as the collection (`found`: each passage's
 * matches of the query words, in text order), plus the weight of the query words it holds
 * close together ({@link closestWords}), words in a passage's title weighing more; the best
 * `limit` as hits.
 */
function scoredHits(
  passages: Passage[],
  found: Match[][],
  terms: string[],
  limit: number,
  own: (ps: Passage) => string[],
  o: SnippetOptions,
): PassageHit[] {
  const re = snippetMatcher(terms)!;
  const words = matchWords(terms);
  const counts = found.map((f) => {
    const c = new Map<number, number>();
    for (const { w } of f) c.set(w, (c.get(w) ?? 0) + 1);
    return c;
  });
  const df = new Map<number, number>();
  for (const c of counts) for (const w of c.keys()) df.set(w, (df.get(w) ?? 0) + 1);
  const N = passages.length;
  const idf = (w: number) => {
    const d = df.get(w) ?? 0;
    return Math.log(1 + (N - d + 0.5) / (d + 0.5));
  };
  const avg = passages.reduce((s, x) => s + (x.end_line - x.start_line + 1), 0) / N;
  const scored: { i: number; score: number }[] = [];
  passages.forEach((ps, i) => {
    const c = counts[i]!;
    if (!c.size) return;
    const len = ps.end_line - ps.start_line + 1;
    let score = 0;
    for (const [w, tf] of c) {
      score += idf(w) * (tf * (K1 + 1)) / (tf + K1 * (1 - B + B * len / avg));
    }
    if (c.size > 1) score += closestWords(found[i]!, idf);
    re.lastIndex = 0;
    const inTitle = new Set<number>();
    for (const m of ps.title.matchAll(re)) inTitle.add(wordOf(m[0], words));
    for (const w of inTitle) if (w >= 0) score += TITLE_BOOST * idf(w);
    scored.push({ i, score });
  });
  scored.sort((a, b) => b.score - a.score || a.i - b.i);
  const wordIdf = (word: string) => idf(words.indexOf(word));
  return scored.slice(0, limit).map(({ i, score }) => {
    const ps = passages[i]!;
    return passageHit(ps, own(ps), score, { ...o, idf: wordIdf });
  });
}

/** A query word found in a text: where, and which one (its index in `matchWords`). */
interface Match {
  at: number;
  w: number;
}

/**
 * Characters of text that {@link closestWords} looks at together: about the sentence or two
 * a search answer shows.
 */
const SPAN_CHARS = 300;

/**
 * How close a passage's query words stand: the idf of the distinct query words found
 * within {@link SPAN_CHARS} of each other at best, when they are two at least (0
 * otherwise). A passage that answers a question tends to say it in a sentence or two that
 * use several of its words; one that only repeats them in different places (a long
 * section, an index, an example) does not. Counted on the matches the scoring found, so
 * it costs no second pass over the text.
 *
 * @param found the passage's query words, in text order
 * @param idf the weight of each query word
 */
function closestWords(found: Match[], idf: (w: number) => number): number {
  let best = 0;
  const inside = new Map<number, number>();
  let sum = 0;
  let j = 0;
  for (let i = 0; i < found.length; i++) {
    while (j < found.length && found[j]!.at - found[i]!.at < SPAN_CHARS) {
      const w = found[j++]!.w;
      const n = inside.get(w) ?? 0;
      if (!n) sum += idf(w);
      inside.set(w, n + 1);
    }
    if (inside.size > 1) best = Math.max(best, sum);
    const w = found[i]!.w;
    const n = inside.get(w)!;
    if (n === 1) {
      inside.delete(w);
      sum -= idf(w);
    } else inside.set(w, n - 1);
  }
  return best;
}

/** How {@link passageHit} cuts a snippet. */
export interface SnippetOptions {
  /** The query's positive terms (`positiveTerms`). */
  terms: string[];
  /** Weight of a query word (one of `matchWords(terms)`): rarer words weigh more. */
  idf?: (word: string) => number;
  /** Length of the snippet (default 160). */
  snippetChars?: number;
  /** First line of each page (paged documents): the hit's page is its snippet's. */
  pages?: number[];
  /** Whether the lines are Markdown (`MARKUP_TYPES`). */
  markup?: boolean;
}

/**
 * A passage as a search hit shows it: its snippet, the sentence holding the rarest query
 * words (cut from the passage's own lines only), the snippet's line and page.
 *
 * @param ps the passage
 * @param own its lines (`ps.start_line`..`ps.end_line`)
 * @param score its score for the query
 * @param o the query's terms and how to cut
 * @returns the passage with its snippet
 * @example
 * ```ts
 * import { passageHit } from "./passages.ts";
 * import assert from "node:assert/strict";
 * const ps = { title: "Lines 10-11", start_line: 10, end_line: 11 };
 * const hit = passageHit(ps, ["nothing here.", "The zebra sleeps."], 1, { terms: ["zebra"] });
 * assert.equal(hit.line, 11);
 * assert.equal(hit.snippet, "The **zebra** sleeps.");
 * ```
 */
export function passageHit(
  ps: Passage,
  own: string[],
  score: number,
  o: SnippetOptions,
): PassageHit {
  const re = snippetMatcher(o.terms);
  const words = matchWords(o.terms);
  const chars = o.snippetChars ?? 160;
  const lines = own.map((l) => readableLine(l, o.markup ?? false));
  const idf = o.idf;
  const found = re
    ? bestSentence(lines, re, words, idf ? (w) => idf(words[w]!) : () => 1, chars)
    : undefined;
  const hit: PassageHit = {
    ...ps,
    snippet: found?.snippet || (re ? makeSnippet(lines.join("\n"), re, chars) : ""),
    score: Math.round(score * 1000) / 1000,
  };
  if (found) {
    hit.line = ps.start_line + found.line;
    // The page an agent should read: the snippet's, when the passage spans pages.
    const page = pageOf(o.pages, hit.line);
    if (page !== undefined) hit.page = page;
  }
  return hit;
}

/** Sentence ends inside a line: `.`, `!` or `?` before white space and a likely sentence start. */
const SENTENCE_END = /(?<=[.!?])\s+(?=["'(\[*`]?[\p{Lu}\p{N}])/u;
/** Markdown line prefixes that are not text: headings, list bullets, quotes, table pipes. */
const LINE_PREFIX = /^\s*(?:#{1,6}\s+|[*+-]\s+|\d+[.)]\s+|>\s*|\|\s*)/;

/**
 * The sentence of a passage that holds the rarest query words (each distinct word weighs
 * its idf inside the document), completed by the next one when short, cut around its
 * matches when long; matches in `**bold**`.
 */
function bestSentence(
  lines: string[],
  re: RegExp,
  words: string[],
  idf: (w: number) => number,
  maxChars: number,
): { snippet: string; line: number } | undefined {
  const { sentences, lineOf } = sentencesIn(lines);
  let best = -1;
  let bestScore = 0;
  sentences.forEach((sentence, i) => {
    const found = new Set<number>();
    let count = 0;
    re.lastIndex = 0;
    for (const m of sentence.matchAll(re)) {
      const w = wordOf(m[0], words);
      if (w >= 0) found.add(w);
      count++;
    }
    let score = 0.05 * Math.min(count, 10);
    for (const w of found) score += idf(w);
    if (found.size && score > bestScore) {
      bestScore = score;
      best = i;
    }
  });
  if (best < 0) return undefined;
  let text = sentences[best]!.trim();
  for (let j = best + 1; j < sentences.length && text.length < maxChars * 0.6; j++) {
    text += " " + sentences[j]!.trim();
  }
  return { snippet: makeSnippet(text, re, maxChars, true), line: lineOf[best]! };
}

/**
 * The sentences of some lines, with the index of each one's first line: lines wrapped inside
 * a paragraph (PDF, plain text) are joined first, so a sentence is whole; headings, list
 * items, quotes and table rows start blocks of their own.
 */
function sentencesIn(lines: string[]): { sentences: string[]; lineOf: number[] } {
  const sentences: string[] = [];
  /** The index in `lines` of each sentence's first line. */
  const lineOf: number[] = [];
  let para = "";
  let paraLines: { at: number; n: number }[] = [];
  const flush = () => {
    let from = 0;
    for (const x of para.split(SENTENCE_END)) {
      const at = para.indexOf(x, from);
      from = at + x.length;
      if (!x.trim()) continue;
      sentences.push(x);
      let n = paraLines[0]!.n;
      for (const l of paraLines) if (l.at <= at) n = l.n;
      lineOf.push(n);
    }
    para = "";
    paraLines = [];
  };
  lines.forEach((line, n) => {
    const block = LINE_PREFIX.test(line);
    const text = line.replace(LINE_PREFIX, "").trim();
    if (para && (!text || block)) flush();
    if (!text) return;
    paraLines.push({ at: para ? para.length + 1 : 0, n });
    para = para ? `${para} ${text}` : text;
    if (block) flush();
  });
  if (para) flush();
  return { sentences, lineOf };
}
