/**
 * The outline builder: a flat list of headings becomes a tree of sections with
 * line ranges, a one-sentence summary and a few keywords each. The prose helpers
 * (`plainText`, `ProseScanner`, `firstSentence`, `clipWords`, in core/prose.ts) and
 * the term-scoring helpers (`idfOf`, `topTerms`, …, in core/terms.ts) are re-exported.
 *
 * Linear in the number of lines: every line is looked at once, and keyword
 * counting reads only a bounded sample of each section's own text.
 *
 * In two steps: `measureOutline` (the tree, summaries and sampled words: no corpus
 * statistics, run where the document is extracted, see core/measure.ts) and `rankOutline`
 * (keywords by the corpus statistics, in the index process); `buildOutline` does both.
 *
 * @module
 */
import type { OutlineNode, TermStats } from "./types.ts";
import type { Heading } from "./extractor.ts";
import { words } from "./tokenize.ts";
import { eachWord, firstSentence, LineCache, ProseScanner } from "./prose.ts";
import { idfOf, keywordCandidate, topTerms } from "./terms.ts";

/** Characters of a section's own text read for its keywords, whatever the section size. */
const SAMPLE_TOTAL = 1_500_000;
const SAMPLE_MIN = 400;
const SAMPLE_MAX = 4_000;
const SUMMARY_SCAN = 400;

interface Section {
  node: OutlineNode;
  /** The heading's own text: from the line after it to the line before the next heading. */
  ownEnd: number;
}

/**
 * A section's sampled words: how many were counted, and the counts of those that may be
 * keywords (`keywordCandidate`), in first-seen order, each word by its place in the
 * outline's `words` (numbers cross a process boundary cheaper than strings).
 */
export interface SectionWords {
  /** Words counted in the section's sample (candidates or not). */
  total: number;
  /** Each candidate's place in {@link MeasuredOutline.words}. */
  ids: number[];
  /** Each candidate's count, in the order of `ids`. */
  counts: number[];
}

/**
 * An outline before its keywords ({@link measureOutline}): the tree with its summaries, and
 * each section's sampled words in pre-order (the order of its headings). Plain data: it
 * crosses from an extraction process to the index process, which ranks the keywords
 * against the corpus statistics ({@link rankOutline}).
 */
export interface MeasuredOutline {
  /** The top-level nodes, without keywords. */
  roots: OutlineNode[];
  /** The sampled words of every node, in pre-order (see {@link flattenOutline}). */
  sections: SectionWords[];
  /** Every candidate word of the sections once, which `SectionWords.ids` point into. */
  words: string[];
}

/**
 * Build the outline tree of a document from its headings: {@link measureOutline}, then
 * {@link rankOutline} with `stats`.
 *
 * `level` of a node is its depth in the tree (1 = top), whatever the raw heading
 * levels (they may start at 2 and skip). A node's range runs from its heading to
 * the line before the next heading at the same or a shallower depth, children
 * included. Text before the first heading belongs to no node.
 *
 * `summary` is the first sentence of the section's own prose (before its first
 * sub-heading). `keywords` are the 3 best words of the whole section by
 * `tf · idf(corpus) · idf(sections of this document)`, never words of the title;
 * only a bounded sample of each section's own text is counted (400-4,000
 * characters, 1.5 M per document).
 *
 * @param lines the document's lines
 * @param headings headings in document order (sorted by line if they are not)
 * @param stats corpus document frequencies, to rank keywords by TF-IDF
 * @returns the top-level nodes
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const lines = ["# A", "Intro.", "## B", "Body."];
 * const tree = buildOutline(lines, [
 *   { level: 1, title: "A", line: 1 },
 *   { level: 2, title: "B", line: 3 },
 * ]);
 * assert.equal(tree[0]?.children[0]?.id, "1.1");
 * ```
 */
export function buildOutline(
  lines: string[],
  headings: Heading[],
  stats?: TermStats,
): OutlineNode[] {
  return rankOutline(measureOutline(lines, headings), stats);
}

/**
 * The part of {@link buildOutline} that needs no corpus statistics: the tree, each
 * section's summary and the word counts of each section's sample. Linear in the lines.
 *
 * @param lines the document's lines
 * @param headings headings in document order (sorted by line if they are not)
 * @param cache the prose and words of the lines, shared with the card (`core/measure.ts`)
 * @returns the tree without keywords, and the sections' sampled words
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const m = measureOutline(["# Cache", "Cache entries expire."], [{ level: 1, title: "Cache", line: 1 }]);
 * assert.equal(m.roots[0]?.summary, "Cache entries expire.");
 * assert.deepEqual(m.words, ["cache", "entries", "expire"]);
 * assert.deepEqual(m.sections, [{ total: 3, ids: [0, 1, 2], counts: [1, 1, 1] }]);
 * ```
 */
export function measureOutline(
  lines: string[],
  headings: Heading[],
  cache: LineCache = new LineCache(),
): MeasuredOutline {
  const hs = headings.filter((h) => h.line >= 1 && Number.isFinite(h.line));
  if (hs.some((h, i) => i > 0 && h.line < hs[i - 1]!.line)) hs.sort((a, b) => a.line - b.line);
  const total = Math.max(lines.length, hs.at(-1)?.line ?? 0);
  const roots: OutlineNode[] = [];
  const stack: { node: OutlineNode; raw: number }[] = [];
  const sections: Section[] = [];
  const close = (end: number) => {
    const top = stack.pop()!;
    top.node.end_line = Math.max(top.node.start_line, end);
    top.node.line_count = top.node.end_line - top.node.start_line + 1;
  };
  for (let i = 0; i < hs.length; i++) {
    const h = hs[i]!;
    const raw = Number.isFinite(h.level) && h.level >= 1 ? h.level : 1;
    while (stack.length && stack.at(-1)!.raw >= raw) close(h.line - 1);
    const parent = stack.at(-1)?.node;
    const siblings = parent ? parent.children : roots;
    const node: OutlineNode = {
      id: parent ? `${parent.id}.${siblings.length + 1}` : String(siblings.length + 1),
      title: h.title,
      level: stack.length + 1,
      start_line: h.line,
      end_line: h.line,
      line_count: 1,
      children: [],
    };
    if (h.page !== undefined) node.page = h.page;
    siblings.push(node);
    stack.push({ node, raw });
    sections.push({ node, ownEnd: Math.max(h.line, (hs[i + 1]?.line ?? total + 1) - 1) });
  }
  while (stack.length) close(total);

  const sample = Math.min(
    SAMPLE_MAX,
    Math.max(SAMPLE_MIN, Math.floor(SAMPLE_TOTAL / Math.max(1, sections.length))),
  );
  // Nodes are made in heading order, which is the tree's pre-order.
  const ids = new Map<string, number>();
  return {
    roots,
    sections: sections.map((s) => readSection(lines, s, sample, ids, cache)),
    words: [...ids.keys()],
  };
}

/**
 * The part of {@link buildOutline} that reads the corpus statistics: each node's keywords,
 * from its sampled words and its children's, set on the measured tree (which it returns).
 *
 * @param measured what {@link measureOutline} gave (its nodes get their keywords)
 * @param stats corpus document frequencies
 * @returns the top-level nodes
 */
export function rankOutline(measured: MeasuredOutline, stats?: TermStats): OutlineNode[] {
  const { roots, sections, words: names } = measured;
  const own = new Map<OutlineNode, Tally>();
  flattenOutline(roots).forEach((node, i) => {
    const s = sections[i];
    const counts = new Map<string, number>();
    s?.ids.forEach((id, k) => counts.set(names[id]!, s.counts[k]!));
    own.set(node, { total: s?.total ?? 0, counts });
  });
  // Distinctive within the document too: words found in every section weigh less.
  const sectionDf = new Map<string, number>();
  for (const { counts } of own.values()) {
    for (const w of counts.keys()) sectionDf.set(w, (sectionDf.get(w) ?? 0) + 1);
  }
  const corpus = idfOf(stats);
  const local = (w: string) => Math.log((own.size + 1) / ((sectionDf.get(w) ?? 0) + 1)) + 1;
  const weight = (w: string) => corpus(w) * local(w);
  for (const root of roots) rankSubtree(root, own, weight);
  return roots;
}

/** Word counts of a sample: all words counted, and the counts of keyword candidates. */
interface Tally {
  total: number;
  counts: Map<string, number>;
}

/**
 * Scan a section's own text once: set its summary, return the words of a sample (new
 * candidate words get the next place in `ids`).
 */
function readSection(
  lines: string[],
  s: Section,
  sample: number,
  ids: Map<string, number>,
  cache: LineCache,
): SectionWords {
  const node = s.node;
  const scan = new ProseScanner({ cache });
  let para = "";
  let summaryDone = false;
  // The sample: prose lines (and their indexes) up to `sample` characters, line breaks counted.
  const text: string[] = [];
  const at: number[] = [];
  let size = 0;
  const last = Math.min(s.ownEnd, lines.length);
  for (let n = node.start_line + 1; n <= last; n++) {
    const line = lines[n - 1]!;
    const p = scan.next(line, n - 1);
    if (!summaryDone) {
      if (p && para.length < 400 && !(para && /^\s*([-*+]|\d{1,3}[.)])\s/.test(line))) {
        para = para ? `${para} ${p}` : p;
      } else if (para) summaryDone = true;
      if (n - node.start_line > SUMMARY_SCAN && !para) summaryDone = true;
    }
    if (p && size < sample) {
      text.push(p);
      at.push(n - 1);
      size += p.length + 1;
    }
    if (summaryDone && size >= sample) break;
  }
  if (para) node.summary = firstSentence(para);
  const counts = new Map<string, number>();
  let total = 0;
  eachWord(text, at, sample, cache, (w) => {
    total++;
    // Only candidates can be keywords: the others count in the total alone.
    if (keywordCandidate(w)) counts.set(w, (counts.get(w) ?? 0) + 1);
  });
  const out: SectionWords = { total, ids: [], counts: [] };
  for (const [w, c] of counts) {
    let id = ids.get(w);
    if (id === undefined) ids.set(w, id = ids.size);
    out.ids.push(id);
    out.counts.push(c);
  }
  return out;
}

/** Post-order: merge children's counts into the node's own (small into large), pick keywords. */
function rankSubtree(
  node: OutlineNode,
  own: Map<OutlineNode, Tally>,
  weight: (term: string) => number,
): Tally {
  let acc = own.get(node) ?? { total: 0, counts: new Map<string, number>() };
  for (const child of node.children) {
    let c = rankSubtree(child, own, weight);
    if (c.counts.size > acc.counts.size) [acc, c] = [c, acc];
    for (const [w, k] of c.counts) acc.counts.set(w, (acc.counts.get(w) ?? 0) + k);
    acc.total += c.total;
  }
  const kw = topTerms(acc.counts, weight, new Set(words(node.title, true)), 3, acc.total);
  if (kw.length) node.keywords = kw;
  return acc;
}

/**
 * The nodes of a tree in pre-order (a node before its children).
 *
 * @param nodes top-level nodes
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const tree = buildOutline(["# A", "## B", "# C"], [
 *   { level: 1, title: "A", line: 1 },
 *   { level: 2, title: "B", line: 2 },
 *   { level: 1, title: "C", line: 3 },
 * ]);
 * assert.deepEqual(flattenOutline(tree).map((n) => n.id), ["1", "1.1", "2"]);
 * ```
 */
export function flattenOutline(nodes: OutlineNode[]): OutlineNode[] {
  const out: OutlineNode[] = [];
  const walk = (ns: OutlineNode[]) => {
    for (const n of ns) {
      out.push(n);
      walk(n.children);
    }
  };
  walk(nodes);
  return out;
}

/**
 * The node with this id (`"2.3.1"`), found by walking its position path.
 *
 * @param nodes top-level nodes
 * @param id a node id
 * @returns the node, or `undefined` for an unknown id
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const tree = buildOutline(["# A", "## B"], [
 *   { level: 1, title: "A", line: 1 },
 *   { level: 2, title: "B", line: 2 },
 * ]);
 * assert.equal(findNode(tree, "1.1")?.title, "B");
 * ```
 */
export function findNode(nodes: OutlineNode[], id: string): OutlineNode | undefined {
  let level = nodes;
  let found: OutlineNode | undefined;
  for (const part of id.trim().split(".")) {
    if (!/^\d+$/.test(part)) return undefined;
    found = level[Number(part) - 1];
    if (!found) return undefined;
    level = found.children;
  }
  return found;
}
