/**
 * The outline builder: a flat list of headings becomes a tree of sections with
 * line ranges, a one-sentence summary and a few keywords each. Also the small
 * prose helpers (`plainText`, `ProseScanner`, `firstSentence`) the card builder shares.
 *
 * Linear in the number of lines: every line is looked at once, and keyword
 * counting reads only a bounded sample of each section's own text.
 *
 * @module
 */
import type { Heading, OutlineNode, TermStats } from "./types.ts";
import { hasCJK, words } from "./tokenize.ts";

const FENCE = /^\s{0,3}(```|~~~)/;
const TABLE_RULE = /^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/;
const RULE = /^\s*([-=*_])(\s*\1){2,}\s*$/;
const ATX = /^\s{0,3}#{1,6}(\s|$)/;
const TAG_LINE = /^\s*(<\/?[a-zA-Z!?][^>]*>\s*)+$/;
const INLINE = /[[<`*_\\!]/;

/**
 * Reads lines in order and gives the prose of each: `""` inside fenced code
 * blocks and multi-line HTML comments, else {@link plainText}.
 *
 * @example
 * ```ts
 * const scan = new ProseScanner();
 * ["~~~", "x()", "~~~", "Text."].map((l) => scan.next(l)); // ["", "", "", "Text."]
 * ```
 */
export class ProseScanner {
  #code = false;
  #comment = false;
  #headings: boolean;

  /** @param opts `headings`: give the text of ATX heading lines (`## Title`) instead of `""` */
  constructor(opts: { headings?: boolean } = {}) {
    this.#headings = opts.headings ?? false;
  }

  /**
   * @param line the next line of the document
   * @returns its plain prose, or `""`
   */
  next(line: string): string {
    if (this.#comment) {
      if (line.includes("-->")) this.#comment = false;
      return "";
    }
    if (FENCE.test(line)) {
      this.#code = !this.#code;
      return "";
    }
    if (this.#code) return "";
    const open = line.indexOf("<!--");
    if (open >= 0 && line.indexOf("-->", open + 4) < 0) {
      this.#comment = true;
      return plainText(line.slice(0, open));
    }
    if (this.#headings && ATX.test(line)) {
      return plainText(line.replace(/^\s*#+\s*/, "").replace(/\s+#+\s*$/, ""));
    }
    return plainText(line);
  }
}

/**
 * The prose of one line with Markdown markup removed, or `""` when the line is
 * not prose (blank, heading, table row, rule, HTML-only, image-only). Code
 * blocks are not recognised here; read lines with {@link ProseScanner} for that.
 *
 * @param line one line of an extracted document
 * @returns the plain text, whitespace collapsed
 * @example
 * ```ts
 * plainText("- See [the guide](g.md) for **details**."); // "See the guide for details."
 * ```
 */
export function plainText(line: string): string {
  if (line.length === 0 || ATX.test(line) || RULE.test(line)) return "";
  const t = line.trimStart();
  if (t.startsWith("|") || (t.includes("|") && TABLE_RULE.test(t)) || TAG_LINE.test(t)) return "";
  let s = t.replace(/^(>\s?)+/, "").replace(/^([-*+•]|\d{1,3}[.)])\s+(\[[ xX]\]\s+)?/, "");
  if (INLINE.test(s)) {
    s = s
      .replace(/!\[[^\]]*\]\([^)]*\)/g, "")
      .replace(/\[\^[^\]]+\]/g, "")
      .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
      .replace(/\[([^\]]+)\]\[[^\]]*\]/g, "$1")
      .replace(/<(https?:[^>\s]+)>/g, "$1")
      .replace(/<!--.*?-->|<\/?[a-zA-Z!][^>]*>/g, "")
      .replace(/`+([^`]*)`+/g, "$1")
      .replace(/(\*\*|__)(?=\S)(.+?)\1/g, "$2")
      .replace(/\*(?=\S)([^*]+)\*/g, "$1")
      .replace(/(^|[\s(])_(?=\S)([^_]+)_(?=[\s).,;:!?]|$)/g, "$1$2")
      .replace(/\\([\\`*_{}[\]()#+\-.!|>])/g, "$1");
  }
  return s.replace(/\s+/g, " ").trim();
}

const ABBREV = new Set(
  ("e.g i.e etc vs cf fig figs no nos mr mrs ms dr st approx incl resp ca vgl bzw usw z.b " +
    "d.h u.a s p pp vol ch sec eq al ref").split(" "),
);
const SENTENCE_END = /[.!?](?=["'”’)\]]*(\s|$))|[。！？]/g;

/**
 * The first sentence of a paragraph, or its first ~`max` characters cut at a
 * word boundary and ended with "…". Common abbreviations (`e.g.`, `Fig.`) and
 * initials do not end a sentence.
 *
 * @param text a paragraph of plain text
 * @param max the longest result, in characters (160)
 * @example
 * ```ts
 * firstSentence("Use e.g. grep. Then read."); // "Use e.g. grep."
 * ```
 */
export function firstSentence(text: string, max = 160): string {
  SENTENCE_END.lastIndex = 0;
  for (const m of text.matchAll(SENTENCE_END)) {
    const end = m.index + 1;
    if (end > max + 1) break;
    if (m[0] === ".") {
      const before = /(\S+)$/.exec(text.slice(0, m.index))?.[1]?.toLowerCase() ?? "";
      const bare = before.replace(/^[("'“‘[]+/, "");
      if (ABBREV.has(bare) || /^\p{L}$/u.test(bare)) continue;
      if (bare.length <= 3 && /^\s+\p{Ll}/u.test(text.slice(end))) continue;
    }
    return text.slice(0, end).trim();
  }
  return clipWords(text, max);
}

/**
 * A text cut to at most `max` characters at a word boundary (when one lies in the last
 * 40 %), trailing punctuation dropped, ended with "…"; a text that fits is returned as is.
 *
 * @example
 * ```ts
 * clipWords("one two three", 9); // "one two…"
 * ```
 */
export function clipWords(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const space = cut.lastIndexOf(" ");
  const head = space > max * 0.6 ? cut.slice(0, space) : cut;
  return `${head.replace(/[\s,;:.\-–—…]+$/, "")}…`;
}

/** True when the word may be a keyword: long enough, not a URL or file-name-like token. */
export function keywordCandidate(w: string): boolean {
  if (hasCJK(w)) return w.length >= 2;
  if (w.length < 3 || w.length > 40) return false;
  if (w.startsWith("http") || w.startsWith("www.")) return false;
  if (/\d/.test(w) && !/^\p{L}+[-_]?\d{1,2}$/u.test(w)) return false;
  return !/\.(html?|md|txt|pdf|png|jpe?g|gif|css|js)$/.test(w);
}

/**
 * A crude singular form, so `file` and `files` count as one keyword.
 *
 * @param w a lower-cased word
 * @example
 * ```ts
 * stemKey("libraries"); // "library"
 * ```
 */
export function stemKey(w: string): string {
  if (w.length < 4) return w;
  if (w.endsWith("ies")) return `${w.slice(0, -3)}y`;
  if (/(ss|x|ch|sh)es$/.test(w)) return w.slice(0, -2);
  if (w.endsWith("s") && !/(ss|us|is)$/.test(w)) return w.slice(0, -1);
  return w;
}

/**
 * The inverse document frequency of terms, `ln((N+1)/(df+1)) + 1`, memoised so
 * each term asks `stats.df` once; 1 for every term without statistics.
 *
 * @param stats corpus document frequencies, if known
 * @returns a function from a term to its idf
 * @example
 * ```ts
 * idfOf(undefined)("anything"); // 1
 * ```
 */
export function idfOf(stats: TermStats | undefined): (term: string) => number {
  if (!stats) return () => 1;
  const n = stats.docCount();
  const memo = new Map<string, number>();
  return (term) => {
    let v = memo.get(term);
    if (v === undefined) {
      v = Math.log((n + 1) / (stats.df(term) + 1)) + 1;
      memo.set(term, v);
    }
    return v;
  };
}

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
 * Build the outline tree of a document from its headings.
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
 * const lines = ["# A", "Intro.", "## B", "Body."];
 * const tree = buildOutline(lines, [
 *   { level: 1, title: "A", line: 1 },
 *   { level: 2, title: "B", line: 3 },
 * ]);
 * tree[0]?.children[0]?.id; // "1.1"
 * ```
 */
export function buildOutline(
  lines: string[],
  headings: Heading[],
  stats?: TermStats,
): OutlineNode[] {
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
  const own = new Map<OutlineNode, Map<string, number>>();
  for (const s of sections) own.set(s.node, readSection(lines, s, sample));
  // Distinctive within the document too: words found in every section weigh less.
  const sectionDf = new Map<string, number>();
  for (const counts of own.values()) {
    for (const w of counts.keys()) sectionDf.set(w, (sectionDf.get(w) ?? 0) + 1);
  }
  const corpus = idfOf(stats);
  const local = (w: string) => Math.log((own.size + 1) / ((sectionDf.get(w) ?? 0) + 1)) + 1;
  const weight = (w: string) => corpus(w) * local(w);
  for (const root of roots) rankSubtree(root, own, weight);
  return roots;
}

/** Scan a section's own text once: set its summary, return word counts of a sample. */
function readSection(lines: string[], s: Section, sample: number): Map<string, number> {
  const node = s.node;
  const scan = new ProseScanner();
  let para = "";
  let summaryDone = false;
  let text = "";
  const last = Math.min(s.ownEnd, lines.length);
  for (let n = node.start_line + 1; n <= last; n++) {
    const line = lines[n - 1]!;
    const p = scan.next(line);
    if (!summaryDone) {
      if (p && para.length < 400 && !(para && /^\s*([-*+]|\d{1,3}[.)])\s/.test(line))) {
        para = para ? `${para} ${p}` : p;
      } else if (para) summaryDone = true;
      if (n - node.start_line > SUMMARY_SCAN && !para) summaryDone = true;
    }
    if (p && text.length < sample) text += `${p}\n`;
    if (summaryDone && text.length >= sample) break;
  }
  if (para) node.summary = firstSentence(para);
  const counts = new Map<string, number>();
  for (const w of words(text.slice(0, sample))) counts.set(w, (counts.get(w) ?? 0) + 1);
  return counts;
}

/** Post-order: merge children's counts into the node's own (small into large), pick keywords. */
function rankSubtree(
  node: OutlineNode,
  own: Map<OutlineNode, Map<string, number>>,
  weight: (term: string) => number,
): Map<string, number> {
  let acc = own.get(node) ?? new Map<string, number>();
  for (const child of node.children) {
    let c = rankSubtree(child, own, weight);
    if (c.size > acc.size) [acc, c] = [c, acc];
    for (const [w, k] of c) acc.set(w, (acc.get(w) ?? 0) + k);
  }
  const kw = topTerms(acc, weight, new Set(words(node.title, true)), 3);
  if (kw.length) node.keywords = kw;
  return acc;
}

/**
 * The `k` best terms of a count table by `tf · weight`; terms seen once are kept
 * only when the text is short (under 50 counted words). Linear in the table size.
 *
 * @param counts term counts
 * @param weight the idf of a term (see {@link idfOf})
 * @param exclude terms never to return (the title's words)
 * @param k how many; plural and singular forms count once
 */
export function topTerms(
  counts: Map<string, number>,
  weight: (term: string) => number,
  exclude: ReadonlySet<string>,
  k: number,
): string[] {
  let sum = 0;
  for (const c of counts.values()) sum += c;
  const minCount = sum < 50 ? 1 : 2;
  const cap = k * 3;
  const best: [string, number][] = [];
  for (const [w, c] of counts) {
    if (c < minCount) continue;
    if (exclude.has(w) || !keywordCandidate(w)) continue;
    const last = best[cap - 1];
    const entry: [string, number] = [w, c * weight(w)];
    if (last && byScore(entry, last) >= 0) continue;
    let i = best.length;
    while (i > 0 && byScore(entry, best[i - 1]!) < 0) i--;
    best.splice(i, 0, entry);
    if (best.length > cap) best.pop();
  }
  const out: string[] = [];
  const stems = new Set<string>();
  for (const [w] of best) {
    if (out.length >= k) break;
    const key = stemKey(w);
    if (stems.has(key)) continue;
    stems.add(key);
    out.push(w);
  }
  return out;
}

/** Higher score first, then the longer (more specific) word, then alphabetical. */
export function byScore(a: [string, number], b: [string, number]): number {
  return b[1] - a[1] || b[0].length - a[0].length || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
}

/**
 * The nodes of a tree in pre-order (a node before its children).
 *
 * @param nodes top-level nodes
 * @example
 * ```ts
 * const tree = buildOutline(["# A", "## B", "# C"], [
 *   { level: 1, title: "A", line: 1 },
 *   { level: 2, title: "B", line: 2 },
 *   { level: 1, title: "C", line: 3 },
 * ]);
 * flattenOutline(tree).map((n) => n.id); // ["1", "1.1", "2"]
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
 * const tree = buildOutline(["# A", "## B"], [
 *   { level: 1, title: "A", line: 1 },
 *   { level: 2, title: "B", line: 2 },
 * ]);
 * findNode(tree, "1.1")?.title; // "B"
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
