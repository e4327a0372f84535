/**
 * Rendering of the `outline` answer of one document within a token budget.
 *
 * Over `max_tokens`, the outline first loses its summaries and keywords, then its
 * deepest levels one by one down to level 1, then is cut after the nodes that
 * fit; the answer says which. Nodes named in `expand` are always shown in full
 * with their direct children, and do not count against the budget.
 *
 * @module
 */
import { CJK_CHARS } from "./tokenize.ts";
import type { Card, OutlineNode } from "./types.ts";
import { clipWords } from "./prose.ts";

/** What the `outline` tool says when a document has no outline it can trust. */
export const NO_OUTLINE =
  "No reliable outline available. Use read to browse this document line by line.";

/**
 * How the reader asks for more of a cut outline, in the reader's syntax: arguments over
 * MCP, flags at a terminal. The default ({@link ARGUMENT_HINTS}) names MCP arguments.
 */
export interface OutlineHints {
  /**
   * The follow-up that shows node `id` in full or the whole outline within a larger budget
   * than `maxTokens`, e.g. `use expand=["2"] or a larger max_tokens`.
   */
  more(id: string, maxTokens: number): string;
  /** Both ways named, after a cut list: `raise max_tokens or use expand`. */
  raise: string;
}

/** Hints that name the `outline` tool's arguments (its MCP form). */
export const ARGUMENT_HINTS: OutlineHints = {
  more: (id) => `use expand=["${id}"] or a larger max_tokens`,
  raise: "raise max_tokens or use expand",
};

/** How much of the outline was shown. */
export type BudgetStage = "full" | "no_summaries" | `depth_${number}` | "truncated";

/** An outline node as shown; `child_count` is set when some children were hidden. */
export interface ShownNode extends OutlineNode {
  /** Sub-sections shown. */
  children: ShownNode[];
  /** Number of sub-sections the node really has, when fewer are shown. */
  child_count?: number;
}

/** The rendered outline of one document. */
export interface RenderedOutline {
  /** Card header and outline, in Markdown. */
  markdown: string;
  /** The tree as shown: hidden children cut, hidden summaries and keywords left out. */
  nodes: ShownNode[];
  /** Which stage of the budget strategy was needed. */
  budget: BudgetStage;
  /** Estimated tokens of `markdown`. */
  tokens: number;
  /** Number of outline nodes not shown. */
  hidden_nodes: number;
}

/** CJK characters and full-width forms: each about one token. */
const CJK_G = new RegExp(`[${CJK_CHARS}\\uff00-\\uffef]`, "g");

function rawTokens(text: string): number {
  const cjk = text.match(CJK_G)?.length ?? 0;
  return (text.length - cjk) / 4 + cjk;
}

/**
 * A cheap token estimate: a quarter of the characters, one per CJK character.
 *
 * @param text any text
 * @returns estimated tokens, rounded up
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(estimateTokens("abcdefgh"), 2);
 * ```
 */
export function estimateTokens(text: string): number {
  return Math.ceil(rawTokens(text));
}

/** `1 line`, `2 lines`. */
function plural(x: number, noun: string): string {
  return `${x} ${noun}${x === 1 ? "" : "s"}`;
}

/** The compact card header: title, then one line of facts, then keywords. */
function header(card: Card, withKeywords: boolean): string[] {
  const facts = [
    card.path,
    `doc_id ${card.doc_id}`,
    card.doc_type,
    card.language,
    `${card.word_count} words`,
    plural(card.total_lines, "line"),
  ];
  if (card.page_count) facts.push(plural(card.page_count, "page"));
  facts.push(`outline ${card.outline_quality}`);
  if (card.author) facts.splice(1, 0, `by ${card.author}`);
  const out = [`# ${card.title}`, facts.join(" | ")];
  if (withKeywords && card.keywords.length) out.push(`keywords: ${card.keywords.join(", ")}`);
  return out;
}

/** Characters of a summary in the default view; `expand` shows the whole sentence. */
const SUMMARY_CHARS = 100;

/** A summary cut at a word boundary to `max` characters, with `…` when cut. */
export function clipSummary(s: string, max = SUMMARY_CHARS): string {
  return clipWords(s, max);
}

function nodeLines(n: OutlineNode, depth: number, details: boolean, full: boolean): string[] {
  const indent = "  ".repeat(depth - 1);
  const page = n.page !== undefined ? `, p. ${n.page}` : "";
  const out = [
    `${indent}[${n.id}] ${n.title} [L${n.start_line}-${n.end_line}, ${
      plural(n.line_count, "line")
    }${page}]`,
  ];
  if (details && n.summary) out.push(`${indent}  > ${full ? n.summary : clipSummary(n.summary)}`);
  return out;
}

/** Most summaries shown by default; more come through `expand`. */
const MAX_SUMMARIES = 12;

/**
 * How deep the default view shows summaries: the top level (the level under a single
 * root), unless that is more than `MAX_SUMMARIES` nodes.
 */
function summaryDepth(nodes: OutlineNode[]): number {
  let depth = nodes.length === 1 ? 2 : 1;
  const count = (ns: OutlineNode[], d: number): number =>
    d > depth ? 0 : ns.reduce((s, n) => s + 1 + count(n.children, d + 1), 0);
  while (depth > 0 && count(nodes, 1) > MAX_SUMMARIES) depth--;
  return depth;
}

interface View {
  details: boolean;
  /** Deepest level whose summaries `details` shows (deeper ones appear through `expand`). */
  detailDepth?: number;
  depth: number;
  /** Raw tokens available to nodes that are not expanded (truncation only). */
  room?: number;
  /** Give up once the nodes cost more raw tokens than this (`over` is then set). */
  abort?: number;
  /** Whether expanded nodes count toward `abort`. */
  countForced?: boolean;
}

interface Drawn {
  lines: string[];
  nodes: ShownNode[];
  /** Raw tokens of lines of nodes not forced by `expand`. */
  cost: number;
  shown: number;
  /** Nodes of the view cut by truncation. */
  cut: number;
  /** First node cut by truncation, or first shown node with hidden children. */
  hint?: string;
  /** Raw tokens of the lines of expanded nodes. */
  forcedCost: number;
  /** True when drawing stopped at `abort`. */
  over: boolean;
}

/**
 * Render the outline answer of one document within `maxTokens`.
 *
 * @param card the document's card (for the header)
 * @param nodes the document's outline
 * @param opts `maxTokens` per document; `expand`: node ids shown in full with
 *   their direct children even past the budget (unknown ids are ignored); `hints`: how the
 *   answer says to ask for more (default {@link ARGUMENT_HINTS})
 * @returns the Markdown, the tree as shown, the budget stage and the token estimate
 * @example
 * ```ts
 * import { buildOutline } from "./outline.ts";
 * import { buildCard } from "./card.ts";
 * import assert from "node:assert/strict";
 * const lines = ["# Guide", "How to start.", "## Install", "Run the installer."];
 * const headings = [
 *   { level: 1, title: "Guide", line: 1 },
 *   { level: 2, title: "Install", line: 3 },
 * ];
 * const outline = buildOutline(lines, headings);
 * const { card } = buildCard({
 *   doc_id: "g1", path: "docs/guide.md", library: "docs", doc_type: "markdown",
 *   lines, extracted: { lines, headings }, outline, outline_quality: "high",
 *   modified_at: "2026-01-01T00:00:00Z", size: 60,
 * });
 * const out = renderOutline(card, outline, { maxTokens: 2000, expand: ["1.1"] });
 * assert.equal(out.budget, "full"); // else "no_summaries", "depth_1" or "truncated"
 * ```
 */
export function renderOutline(
  card: Card,
  nodes: OutlineNode[],
  opts: { maxTokens: number; expand?: string[]; hints?: OutlineHints },
): RenderedOutline {
  const max = Math.max(1, opts.maxTokens);
  const hints = opts.hints ?? ARGUMENT_HINTS;
  if (card.outline_quality === "none" || nodes.length === 0) {
    const markdown = [...header(card, true), "", NO_OUTLINE].join("\n");
    return {
      markdown,
      nodes: [],
      budget: "full",
      tokens: estimateTokens(markdown),
      hidden_nodes: 0,
    };
  }

  const byId = new Map<string, { node: OutlineNode; parent?: string }>();
  let total = 0;
  let maxDepth = 1;
  const index = (ns: OutlineNode[], depth: number, parent?: string) => {
    for (const n of ns) {
      total++;
      maxDepth = Math.max(maxDepth, depth);
      byId.set(n.id, { node: n, parent });
      index(n.children, depth + 1, n.id);
    }
  };
  index(nodes, 1);

  const forced = new Set<string>();
  const detailed = new Set<string>();
  for (const id of opts.expand ?? []) {
    const hit = byId.get(id.trim());
    if (!hit) continue;
    detailed.add(hit.node.id);
    for (const c of hit.node.children) {
      forced.add(c.id);
      detailed.add(c.id);
    }
    for (let p: string | undefined = hit.node.id; p !== undefined; p = byId.get(p)?.parent) {
      forced.add(p);
    }
  }

  const draw = (view: View): Drawn => {
    const d: Drawn = {
      lines: [],
      nodes: [],
      cost: 0,
      shown: 0,
      cut: 0,
      forcedCost: 0,
      over: false,
    };
    let stopped = false;
    const walk = (src: OutlineNode[], depth: number, out: ShownNode[]) => {
      for (const n of src) {
        if (d.over) return;
        const isForced = forced.has(n.id);
        if (depth > view.depth && !isForced) continue;
        const details = (view.details && depth <= (view.detailDepth ?? Infinity)) ||
          detailed.has(n.id);
        const ls = nodeLines(n, depth, details, detailed.has(n.id));
        const c = ls.reduce((s, l) => s + rawTokens(l) + 0.25, 0);
        if (!isForced) {
          if (view.room !== undefined && (stopped || d.cost + c > view.room)) {
            stopped = true;
            d.cut++;
            d.hint ??= n.id;
            continue;
          }
          d.cost += c;
        } else d.forcedCost += c;
        if (
          view.abort !== undefined && d.cost + (view.countForced ? d.forcedCost : 0) > view.abort
        ) {
          d.over = true;
          return;
        }
        d.lines.push(...ls);
        d.shown++;
        const shown: ShownNode = { ...n, children: [] };
        if (!details) {
          delete shown.summary;
          delete shown.keywords;
        }
        out.push(shown);
        walk(n.children, depth + 1, shown.children);
        if (shown.children.length < n.children.length) {
          shown.child_count = n.children.length;
          if (view.room === undefined) d.hint ??= n.id;
        }
      }
    };
    walk(nodes, 1, d.nodes);
    return d;
  };

  const finish = (
    head: string[],
    d: Drawn,
    budget: BudgetStage,
    tail: string[],
  ): RenderedOutline => {
    const markdown = [...head, "", ...d.lines, ...tail].join("\n");
    return {
      markdown,
      nodes: d.nodes,
      budget,
      tokens: estimateTokens(markdown),
      hidden_nodes: total - d.shown,
    };
  };
  const cost = (ls: string[]) => ls.reduce((s, l) => s + rawTokens(l) + 0.25, 0);
  const expandHint = (id: string | undefined) => hints.more(id ?? nodes[0]!.id, max);

  const fullHead = header(card, true);
  const full = draw({
    details: true,
    detailDepth: summaryDepth(nodes),
    depth: Infinity,
    abort: max - cost(fullHead) - 0.25,
    countForced: true,
  });
  if (!full.over) {
    const fullAnswer = finish(fullHead, full, "full", []);
    if (fullAnswer.tokens <= max) return fullAnswer;
  }

  const probe = [
    "[budget] truncated: only the first 99999 of 99999 nodes shown; " + expandHint("9.9.9"),
  ];
  const head = cost(fullHead) + cost(probe) + 1 <= max ? fullHead : header(card, false);
  const fits = (d: Drawn, tail: string[]) =>
    Math.ceil(cost(head) + 0.25 + d.cost + cost(tail)) <= max;

  const abort = max - cost(head) - 0.25;
  const flat = draw({ details: false, depth: Infinity, abort });
  const withSummary = flattenFirst(nodes, (n) => Boolean(n.summary || n.keywords?.length));
  const flatTail = [
    `[budget] no_summaries: summaries and keywords hidden; ${expandHint(withSummary)}`,
  ];
  if (!flat.over && fits(flat, flatTail)) return finish(head, flat, "no_summaries", flatTail);

  for (let depth = maxDepth - 1; depth >= 1; depth--) {
    const d = draw({ details: false, depth, abort });
    const tail = [
      `[budget] depth_${depth}: levels below ${depth} hidden; ${expandHint(d.hint)}`,
    ];
    if (!d.over && fits(d, tail)) return finish(head, d, `depth_${depth}`, tail);
  }

  const room = max - cost(head) - 0.25 - cost(probe) -
    cost([`… 99999 more nodes; ${hints.raise}`]);
  const d = draw({ details: false, depth: 1, room: Math.max(0, room) });
  const tail = [
    `… ${d.cut} more nodes; ${hints.raise}`,
    `[budget] truncated: only the first ${d.shown} of ${total} nodes shown; ${expandHint(d.hint)}`,
  ];
  return finish(head, d, "truncated", tail);
}

/** Id of the first node in pre-order that satisfies `test`. */
function flattenFirst(nodes: OutlineNode[], test: (n: OutlineNode) => boolean): string | undefined {
  for (const n of nodes) {
    if (test(n)) return n.id;
    const inner = flattenFirst(n.children, test);
    if (inner) return inner;
  }
  return undefined;
}
