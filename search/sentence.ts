/**
 * The answering sentence of a hit: the passages' lines are joined into paragraphs (PDF
 * text is broken into lines mid-sentence), split into sentences with `Intl.Segmenter`,
 * and the sentence that best answers the query is chosen, by its words (a BM25 over the
 * candidate sentences, with bonuses for covering more of the query's words and for words
 * that stand together as in the query) or by a sentence model's similarity. Pure: the
 * caller reads the lines and, for the model, embeds the texts.
 *
 * @module
 */
import { plainText, ProseScanner } from "../core/prose.ts";
import { STOP_WORDS } from "../core/tokenize.ts";
import { matchWords } from "./snippet.ts";

/** A line of a document, as `read` numbers it. */
export interface NumberedLine {
  /** Line number (1-based). */
  n: number;
  /** The line's text (Markdown as extracted). */
  text: string;
  /** Its page, in a paged document. */
  page?: number;
}

/** A sentence of a document, where it starts. */
export interface Sentence {
  /** The sentence's plain text on one line. */
  text: string;
  /** The line it starts on. */
  line: number;
  /** The page of that line, in a paged document. */
  page?: number;
}

/** A candidate sentence: a sentence and the paragraph it belongs to. */
export interface Candidate extends Sentence {
  /** The paragraph's number among the lines split (sentences of one paragraph share it). */
  paragraph: number;
}

/** A sentence chosen to answer a query. */
export interface Answer extends Sentence {
  /** Its score (comparable only among the candidates of one choice). */
  score: number;
}

/** Sentences shorter than this are joined to the next one of their paragraph. */
const MIN_SENTENCE = 25;
/** Characters of a paragraph segmented at most (a huge one-line block is cut). */
const MAX_PARAGRAPH = 20_000;

/**
 * A heading numbered like a section (`2.1.2 Startup Files`, two levels at least so that a
 * numbered list item is not one): short, capitalised, without a sentence's full stop.
 */
const NUMBERED_HEADING = /^\d{1,3}(?:\.\d{1,3})+\.?\s+\p{Lu}[^.!?]{0,80}$/u;

/** A list item's start: each item is a paragraph of its own. */
const LIST_ITEM = /^\s*(?:[-*+•]|\d{1,3}[.)])\s/;

const segmenter = new Intl.Segmenter("en", { granularity: "sentence" });

/** A table row's cells as one text (`| a | b |` -> `a; b`), or "" for a rule row. */
function tableRow(line: string): string {
  const t = line.trim();
  if (!t.startsWith("|") || /^\|[\s:|-]*$/.test(t)) return "";
  return t.split("|").map((c) => plainText(c)).filter(Boolean).join("; ");
}

/**
 * The sentences of some lines: paragraphs (runs of prose lines) joined, a word hyphenated
 * across a line break mended, then split with `Intl.Segmenter`; a table row is one sentence;
 * a list item starts a paragraph; headings (Markdown, underlined, or numbered like
 * `4.3.3 Title`), blank lines, fenced code blocks and HTML comments end one and are not
 * sentences (read with `ProseScanner`, as the outline and card builders read them).
 *
 * @param lines consecutive lines of a document
 * @returns the sentences, in order, each with the line and page it starts on
 * @example
 * ```ts
 * import { sentencesOf } from "./sentence.ts";
 * import assert from "node:assert/strict";
 * const s = sentencesOf([
 *   { n: 1, text: "# Setup" },
 *   { n: 2, text: "The server listens on port 8080 by de-" },
 *   { n: 3, text: "fault. Change it in the config file." },
 * ]);
 * assert.deepEqual(s.map((x) => [x.line, x.text]), [
 *   [2, "The server listens on port 8080 by default."],
 *   [3, "Change it in the config file."],
 * ]);
 * ```
 */
export function sentencesOf(lines: NumberedLine[]): Candidate[] {
  const out: Candidate[] = [];
  let para = "";
  /** Where each joined line starts in `para`. */
  let starts: { at: number; line: NumberedLine }[] = [];
  const flush = () => {
    if (para) split(para.slice(0, MAX_PARAGRAPH), starts, out);
    para = "";
    starts = [];
  };
  const scan = new ProseScanner();
  let prev = "";
  for (const l of lines) {
    const above = prev;
    prev = l.text;
    // A heading underlined (setext, AsciiDoc: `Title` then `~~~~~`) is a heading, not text.
    if (!scan.skipping && isUnderline(l.text, above) && starts.at(-1)?.line.text === above) {
      para = para.slice(0, starts.pop()!.at).trimEnd();
      flush();
      continue;
    }
    // Fenced code and HTML comments are not sentences: they end a paragraph, left out.
    const text = scan.visible(l.text);
    if (text === undefined) {
      flush();
      continue;
    }
    const row = tableRow(text);
    if (row) {
      flush();
      out.push({
        text: row,
        line: l.n,
        page: l.page,
        paragraph: out.length ? out.at(-1)!.paragraph + 1 : 0,
      });
      continue;
    }
    // A numbered heading of a PDF's text ("4.3.3 Ways of Improving Speed") ends a paragraph.
    if (NUMBERED_HEADING.test(text.trim())) {
      flush();
      continue;
    }
    // Markdown escapes left by the extractors (`flag\='c'`) are not text.
    const t = plainText(text).replace(/\\([^\p{L}\p{N}\s])/gu, "$1");
    if (!t || LIST_ITEM.test(text)) flush();
    if (!t) continue;
    if (para && /\p{Ll}[-\u2010\u00ad]$/u.test(para) && /^\p{Ll}/u.test(t)) {
      para = para.slice(0, -1);
    } else if (para) para += " ";
    starts.push({ at: para.length, line: l });
    para += t;
  }
  flush();
  return out;
}

/**
 * Whether a line underlines the one above it as a heading: one character of `= - ~ ^ + \``
 * repeated, about as long as the text above (a code fence is a few marks, or has an info
 * string).
 */
function isUnderline(line: string, above: string): boolean {
  const t = line.trim();
  const a = above.trim();
  return a.length > 0 && /^([=\-~^+`])\1{2,}$/.test(t) && Math.abs(t.length - a.length) <= 2 &&
    !/^([=\-~^+`])\1{2,}$/.test(a);
}

/** Split one paragraph into sentences, short fragments joined to the next. */
function split(para: string, starts: { at: number; line: NumberedLine }[], out: Candidate[]) {
  const paragraph = out.length ? out.at(-1)!.paragraph + 1 : 0;
  let text = "";
  let from = 0;
  const lineAt = (at: number) => {
    let i = 0;
    while (i + 1 < starts.length && starts[i + 1]!.at <= at) i++;
    return starts[i]!.line;
  };
  const push = () => {
    const t = text.trim();
    if (!t) return;
    const l = lineAt(from + (text.length - text.trimStart().length));
    out.push({ text: t, line: l.n, page: l.page, paragraph });
  };
  for (const s of segmenter.segment(para)) {
    if (!text) from = s.index;
    text += s.segment;
    if (text.trim().length >= MIN_SENTENCE) {
      push();
      text = "";
    }
  }
  push();
}

/**
 * Words a question uses to ask for a place in the documents ("which section of the docs
 * explains ..."): they found the document, they are not what its answering sentence says.
 */
const REQUEST_WORDS =
  /(?<![\p{L}\p{N}_])(?:explains?|describes?|docs|documentation|sections?|chapters?|manual|covers)(?![\p{L}\p{N}_])/giu;

/**
 * The query's words as search prefixes, for choosing a sentence: stop words and the words a
 * question asks for a place with ({@link REQUEST_WORDS}) left out, unless nothing else is left.
 *
 * @example
 * ```ts
 * import { queryWords } from "./sentence.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(queryWords(["which chapter of the manual explains undo"]), ["undo"]);
 * ```
 */
export function queryWords(terms: string[]): string[] {
  const all = matchWords(terms);
  const kept = matchWords(terms.map((t) => t.replace(REQUEST_WORDS, " ")))
    .filter((w) => !STOP_WORDS.has(w));
  return kept.length ? kept : all;
}

const WORD = /[\p{L}\p{N}_]+/gu;

/** Index of the query word a text word starts with (longest first), or -1. */
function wordIndex(word: string, words: string[]): number {
  return words.findIndex((w) => word.startsWith(w));
}

/** Whether a text holds one of the query's words ({@link queryWords}). */
function holdsWord(text: string, words: string[]): boolean {
  return (text.toLowerCase().match(WORD) ?? []).some((w) => wordIndex(w, words) >= 0);
}

const K1 = 1.2;
const B = 0.5;

/**
 * Lexical scores of candidate sentences for a query: BM25 over the candidates (each one a
 * document of the collection), times the share of the query's distinct words it holds,
 * plus a bonus for each pair of query words next to each other as in the query. Too short
 * a sentence (a caption, a label) is scored down.
 *
 * @param sentences the candidates
 * @param terms the query's positive terms (words and phrases)
 * @returns one score per candidate, 0 for a sentence without a query word
 * @example
 * ```ts
 * import { lexicalScores } from "./sentence.ts";
 * import assert from "node:assert/strict";
 * const [a, b] = lexicalScores([
 *   { text: "Backups run every night at two.", line: 1 },
 *   { text: "Restore a backup with the restore command of the tool.", line: 2 },
 * ], ["how do I restore a backup"]);
 * assert.ok(b! > a!);
 * ```
 */
export function lexicalScores(sentences: Sentence[], terms: string[]): number[] {
  const words = queryWords(terms);
  if (!words.length) return sentences.map(() => 0);
  // The order of the query's words, for adjacency: "reverse proxy" next to each other.
  const order = (terms.join(" ").toLowerCase().match(WORD) ?? []).map((w) => wordIndex(w, words))
    .filter((i) => i >= 0);
  const pairs = new Set<string>();
  for (let i = 1; i < order.length; i++) {
    if (order[i - 1] !== order[i]) pairs.add(`${order[i - 1]} ${order[i]}`);
  }
  const seqs = sentences.map((s) =>
    (s.text.toLowerCase().match(WORD) ?? []).map((w) => wordIndex(w, words))
  );
  const df = new Map<number, number>();
  for (const seq of seqs) for (const w of new Set(seq)) if (w >= 0) df.set(w, (df.get(w) ?? 0) + 1);
  const N = Math.max(sentences.length, 1);
  const idf = (w: number) => {
    const d = df.get(w) ?? 0;
    return Math.log(1 + (N - d + 0.5) / (d + 0.5));
  };
  const avg = seqs.reduce((s, q) => s + q.length, 0) / N || 1;
  const totalIdf = words.reduce((s, _, w) => s + idf(w), 0) || 1;
  return seqs.map((seq, i) => {
    const tf = new Map<number, number>();
    for (const w of seq) if (w >= 0) tf.set(w, (tf.get(w) ?? 0) + 1);
    if (!tf.size) return 0;
    let bm25 = 0;
    let covered = 0;
    for (const [w, f] of tf) {
      bm25 += idf(w) * (f * (K1 + 1)) / (f + K1 * (1 - B + B * seq.length / avg));
      covered += idf(w);
    }
    let adjacent = 0;
    for (let j = 1; j < seq.length; j++) {
      if (pairs.has(`${seq[j - 1]} ${seq[j]}`)) adjacent++;
    }
    const short = sentences[i]!.text.length < 40 ? 0.6 : 1;
    return short * (bm25 * (0.5 + covered / totalIdf) + 0.5 * adjacent);
  });
}

/**
 * Cosine similarities of candidate vectors to a query vector (a sentence model's scores).
 *
 * @param query the query's vector
 * @param vectors one vector per candidate
 * @returns one similarity per candidate
 * @example
 * ```ts
 * import { cosineScores } from "./sentence.ts";
 * import assert from "node:assert/strict";
 * const s = cosineScores(new Float32Array([1, 0]), [new Float32Array([0, 2]), new Float32Array([3, 0])]);
 * assert.deepEqual(s, [0, 1]);
 * ```
 */
export function cosineScores(query: Float32Array, vectors: Float32Array[]): number[] {
  const norm = (v: Float32Array) => Math.sqrt(v.reduce((s, x) => s + x * x, 0)) || 1;
  const qn = norm(query);
  return vectors.map((v) => {
    let dot = 0;
    for (let i = 0; i < v.length; i++) dot += v[i]! * (query[i] ?? 0);
    return dot / (qn * norm(v));
  });
}

/** Words of the shortest candidate taken as a section's first sentence (see chooseSentence). */
const MIN_LEAD_WORDS = 3;

/**
 * The best-scored sentence, with the next one of its paragraph when both fit in `maxChars`
 * (the sentence or two that answer: a statement is often explained by the next sentence),
 * or with the previous one instead when that scores higher than the next;
 * a sentence longer than `maxChars` is cut to the window holding the most distinct query
 * words. When no candidate scores above 0 but the title of the passage they start with
 * holds a query word, the first candidate of at least {@link MIN_LEAD_WORDS} words: that
 * passage was chosen by its title, and its first sentence says what the section is about (a
 * shorter line, such as a "top" link after a code block, says nothing). Else undefined.
 *
 * @param sentences the candidates, in document order
 * @param scores one score per candidate
 * @param terms the query's positive terms (for cutting a long sentence)
 * @param maxChars the longest answer
 * @param title the title of the passage the candidates start with
 * @example
 * ```ts
 * import { chooseSentence } from "./sentence.ts";
 * import assert from "node:assert/strict";
 * const s = [
 *   { text: "A cat sat down on the mat there.", line: 3, paragraph: 0 },
 *   { text: "It slept all afternoon long.", line: 4, paragraph: 0 },
 * ];
 * assert.deepEqual(chooseSentence(s, [2, 1], ["cat"], 240), {
 *   text: "A cat sat down on the mat there. It slept all afternoon long.",
 *   line: 3,
 *   score: 2,
 * });
 * ```
 */
export function chooseSentence(
  sentences: Candidate[],
  scores: number[],
  terms: string[],
  maxChars: number,
  title = "",
): Answer | undefined {
  let best = -1;
  scores.forEach((s, i) => {
    if (s > 0 && (best < 0 || s > scores[best]!)) best = i;
  });
  const words = queryWords(terms);
  if (best < 0 && holdsWord(title, words)) {
    best = sentences.findIndex((c) => c.text.split(/\s+/).length >= MIN_LEAD_WORDS);
  }
  if (best < 0) return undefined;
  const first = sentences[best]!;
  // The neighbour of its paragraph that fits, the previous one when it scores higher than
  // the next (it holds more of the query: the chosen sentence may go on from it).
  const fits = (o: Candidate | undefined): o is Candidate =>
    !!o && o.paragraph === first.paragraph && first.text.length + 1 + o.text.length <= maxChars;
  const prev = sentences[best - 1];
  const next = sentences[best + 1];
  const before = fits(prev) && scores[best - 1]! > 0 &&
    scores[best - 1]! > (fits(next) ? scores[best + 1]! : 0);
  const s = before ? prev! : first;
  let text = first.text;
  if (before) text = `${prev!.text} ${text}`;
  else if (fits(next)) text = `${text} ${next.text}`;
  const answer: Answer = {
    text: cutAround(text, words, maxChars),
    line: s.line,
    score: scores[best] ?? 0,
  };
  if (s.page !== undefined) answer.page = s.page;
  return answer;
}

/**
 * A text cut to `maxChars` around its query words: the window holding the most distinct
 * ones (earliest on ties), cut at word boundaries, with "…" where text was left out.
 *
 * @param text one line of text
 * @param words the query's words as prefixes ({@link queryWords})
 * @param maxChars the longest result
 * @example
 * ```ts
 * import { cutAround } from "./sentence.ts";
 * import assert from "node:assert/strict";
 * const line = "x ".repeat(100) + "the needle is here " + "y ".repeat(100);
 * const cut = cutAround(line, ["needle"], 40);
 * assert.ok(cut.includes("needle") && cut.length <= 40);
 * ```
 */
export function cutAround(text: string, words: string[], maxChars: number): string {
  if (text.length <= maxChars) return text;
  const at: { i: number; w: number }[] = [];
  for (const m of text.toLowerCase().matchAll(WORD)) {
    const w = wordIndex(m[0], words);
    if (w >= 0) at.push({ i: m.index, w });
  }
  const room = maxChars - 2;
  let start = 0;
  let best = -1;
  for (const a of at) {
    const from = Math.max(0, a.i - Math.floor(room / 4));
    const inside = new Set(at.filter((b) => b.i >= from && b.i < from + room - 10).map((b) => b.w));
    if (inside.size > best) {
      best = inside.size;
      start = from;
    }
  }
  start = Math.min(start, Math.max(0, text.length - room));
  if (start > 0) {
    const sp = text.indexOf(" ", start);
    if (sp >= 0 && sp < start + 15) start = sp + 1;
  }
  const head = start > 0 ? "…" : "";
  const rest = text.slice(start);
  if (rest.length + head.length <= maxChars) return head + rest;
  const cut = rest.slice(0, maxChars - head.length - 1);
  const sp = cut.lastIndexOf(" ");
  return `${head}${
    (sp > cut.length * 0.6 ? cut.slice(0, sp) : cut).replace(/[\s,;:.\-–—]+$/, "")
  }…`;
}

/** Lines a read window spans: first and last, inclusive. */
export interface LineRange {
  /** First line (1-based). */
  start_line: number;
  /** Last line, inclusive. */
  end_line: number;
}

/** A line that ends a paragraph: blank, a heading, a rule, a code fence. */
const BREAK = /^\s*(?:$|#{1,6}\s|[-*_]{3,}\s*$|`{3,}|~{3,})/;
/** A heading: where a read window after an answer stops. */
const SECTION = /^\s*#{1,6}\s/;
/** Lines of the paragraph before an answer's line that a window takes at most. */
const WINDOW_BEFORE = 2;

/**
 * The lines to read around an answer: from the start of its paragraph (at most two lines
 * before the answer's line), then on as long as the lines after the answer's line fit in
 * `maxChars` and the window in `maxLines`, across blank lines (in HTML text each paragraph
 * is a line) but not into the next section. What an agent reads to verify an answer: the
 * sentence with what explains it, not the whole passage.
 *
 * @param lines consecutive lines of a document holding the answer's line
 * @param line the answer's line
 * @param maxChars characters of the lines after the answer's line, at most
 * @param maxLines lines of the window, at most
 * @returns the window
 * @example
 * ```ts
 * import { readWindow } from "./sentence.ts";
 * import assert from "node:assert/strict";
 * const lines = ["# Title", "", "First line of the", "paragraph with the", "answer in it.", "",
 *   "Its explanation.", "## Next section", "Other text."].map((text, i) => ({ n: i + 1, text }));
 * assert.deepEqual(readWindow(lines, 4, 600, 15), { start_line: 3, end_line: 7 });
 * assert.deepEqual(readWindow(lines, 4, 20, 15), { start_line: 3, end_line: 5 });
 * ```
 */
export function readWindow(
  lines: NumberedLine[],
  line: number,
  maxChars: number,
  maxLines: number,
): LineRange {
  const i = lines.findIndex((l) => l.n === line);
  if (i < 0) return { start_line: line, end_line: line };
  let a = i;
  while (a > 0 && i - a < WINDOW_BEFORE && !BREAK.test(lines[a - 1]!.text)) a--;
  let b = i;
  let chars = 0;
  while (b + 1 < lines.length && b + 1 - a < maxLines && !SECTION.test(lines[b + 1]!.text)) {
    chars += lines[b + 1]!.text.length + 1;
    if (chars > maxChars) break;
    b++;
  }
  while (b > i && !lines[b]!.text.trim()) b--;
  return { start_line: lines[a]!.n, end_line: lines[b]!.n };
}
