import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import {
  clipSummary,
  estimateTokens,
  NO_OUTLINE,
  renderOutline,
  type ShownNode,
} from "./budget.ts";
import { flattenOutline } from "./outline.ts";
import type { Card, OutlineNode } from "./types.ts";

const CARD: Card = {
  doc_id: "ab12",
  path: "papers/context.md",
  library: "papers",
  doc_type: "markdown",
  title: "Effective context engineering for AI agents",
  language: "en",
  word_count: 5400,
  total_lines: 900,
  abstract: "…",
  keywords: ["context", "agents", "prompt"],
  brief: false,
  outline_quality: "high",
  has_outline: true,
  modified_at: "2026-01-01T00:00:00Z",
  size: 40_000,
};

/** A regular tree: `breadth` children per node, `depth` levels, 10 lines per leaf. */
function tree(breadth: number, depth: number): OutlineNode[] {
  let line = 1;
  const make = (prefix: string, level: number): OutlineNode[] =>
    Array.from({ length: breadth }, (_, i) => {
      const id = prefix ? `${prefix}.${i + 1}` : String(i + 1);
      const start = line;
      line += 10;
      const children = level < depth ? make(id, level + 1) : [];
      const end = line - 1;
      return {
        id,
        title: `Section ${id} about things`,
        level,
        start_line: start,
        end_line: end,
        line_count: end - start + 1,
        summary: `Section ${id} explains one idea in a sentence of moderate length for the reader.`,
        keywords: ["alpha", "beta", "gamma"],
        children,
      };
    });
  return make("", 1);
}

const count = (ns: ShownNode[]) => flattenOutline(ns).length;
const deepest = (ns: ShownNode[]) => Math.max(0, ...flattenOutline(ns).map((n) => n.level));

Deno.test("renderOutline() shows every node within the budget, top-level summaries, in the spec's format", () => {
  const nodes = tree(2, 2);
  nodes[0]!.page = 12;
  const out = renderOutline(CARD, nodes, { maxTokens: 5000 });
  assertEquals(out.budget, "full");
  assertEquals(count(out.nodes), 6);
  const lines = out.markdown.split("\n");
  assert(lines[0]!.includes(CARD.title));
  assert(
    lines.some((l) => l === "[1] Section 1 about things [L1-30, 30 lines, p. 12]"),
    out.markdown,
  );
  assert(lines.some((l) => l === "  [1.2] Section 1.2 about things [L21-30, 10 lines]"));
  assert(lines.some((l) => l.startsWith("  > Section 1 explains")), out.markdown);
  assert(
    !lines.some((l) => l.startsWith("    > Section 1.2 explains")),
    "deeper summaries wait for expand",
  );
  assert(!out.markdown.includes("~ alpha"), "node keywords stay in the JSON answer");
  assert(!out.markdown.includes("[budget]"));
  const expanded = renderOutline(CARD, nodes, { maxTokens: 5000, expand: ["1"] });
  assert(expanded.markdown.split("\n").some((l) => l.startsWith("    > Section 1.2 explains")));
  assertEquals(out.tokens, estimateTokens(out.markdown));
});

Deno.test("renderOutline() drops summaries before levels", () => {
  const nodes = tree(3, 2);
  const full = renderOutline(CARD, nodes, { maxTokens: 100_000 });
  const out = renderOutline(CARD, nodes, { maxTokens: full.tokens - 10 });
  assertEquals(out.budget, "no_summaries");
  assertEquals(count(out.nodes), 12);
  assert(!out.markdown.includes("> ") && !out.markdown.includes("~ alpha"));
  assert(
    flattenOutline(out.nodes).every((n) => n.summary === undefined && n.keywords === undefined),
  );
  assert(out.markdown.includes("[budget] no_summaries"));
  assert(out.tokens <= full.tokens - 10);
});

Deno.test("renderOutline() drops the deepest levels one at a time and says which", () => {
  const nodes = tree(3, 3); // 3 + 9 + 27 nodes
  const full = renderOutline(CARD, nodes, { maxTokens: 100_000 });
  const noSum = renderOutline(CARD, nodes, { maxTokens: full.tokens - 1 });
  assertEquals(noSum.budget, "no_summaries");
  const d2 = renderOutline(CARD, nodes, { maxTokens: Math.floor(noSum.tokens * 0.6) });
  assertEquals(d2.budget, "depth_2");
  assertEquals(deepest(d2.nodes), 2);
  assertEquals(count(d2.nodes), 12);
  assertEquals(d2.nodes[0]!.children[0]!.child_count, 3);
  assertEquals(d2.nodes[0]!.children[0]!.children, []);
  assert(/\[budget\] depth_2: .*expand=\["1\.1"\]/.test(d2.markdown), d2.markdown);
  assert(d2.tokens <= Math.floor(noSum.tokens * 0.6));

  const d1 = renderOutline(CARD, nodes, { maxTokens: 130 });
  assertEquals(d1.budget, "depth_1");
  assertEquals(count(d1.nodes), 3);
  assertEquals(d1.nodes[0]!.child_count, 3);
  assertEquals(d1.hidden_nodes, 36);
  assert(d1.tokens <= 130, `${d1.tokens}`);
});

Deno.test("renderOutline() truncates hard when level 1 does not fit", () => {
  const nodes = tree(200, 1);
  const out = renderOutline(CARD, nodes, { maxTokens: 300 });
  assertEquals(out.budget, "truncated");
  assert(out.tokens <= 300, `${out.tokens}`);
  const shown = count(out.nodes);
  assert(shown > 5 && shown < 200, `${shown}`);
  assertEquals(out.nodes.map((n) => n.id), Array.from({ length: shown }, (_, i) => String(i + 1)));
  assert(out.markdown.includes(`… ${200 - shown} more nodes; raise max_tokens or use expand`));
  assert(out.markdown.includes("[budget] truncated"));
});

Deno.test("renderOutline() shows an expanded node in full past the budget", () => {
  const nodes = tree(3, 3);
  const out = renderOutline(CARD, nodes, { maxTokens: 130, expand: ["2.3", "9.9"] });
  assertEquals(out.budget, "depth_1");
  const n23 = out.nodes[1]!.children.find((n) => n.id === "2.3")!;
  assert(n23.summary && n23.keywords);
  assertEquals(n23.children.map((c) => c.id), ["2.3.1", "2.3.2", "2.3.3"]);
  assert(n23.children.every((c) => c.summary !== undefined));
  assertEquals(out.nodes[1]!.child_count, 3);
  assert(out.markdown.includes("  [2.3] Section 2.3 about things"));
  assert(out.markdown.includes("    > Section 2.3 explains"));
  assert(out.markdown.includes("      > Section 2.3.1 explains"));
  assert(!out.markdown.includes("[2.2]"));
});

Deno.test("renderOutline() keeps expanded nodes when it truncates", () => {
  const nodes = tree(200, 2);
  const out = renderOutline(CARD, nodes, { maxTokens: 300, expand: ["150"] });
  assertEquals(out.budget, "truncated");
  const ids = out.nodes.map((n) => n.id);
  assert(ids.includes("150") && ids.includes("1") && !ids.includes("149"), ids.join());
  assertEquals(out.nodes.find((n) => n.id === "150")!.children.length, 200);
});

Deno.test("renderOutline() says there is no outline for quality none or no nodes", () => {
  for (
    const [card, nodes] of [[{ ...CARD, outline_quality: "none" as const }, tree(2, 1)], [
      CARD,
      [],
    ]] as const
  ) {
    const out = renderOutline(card, [...nodes], { maxTokens: 2000 });
    assert(out.markdown.endsWith(NO_OUTLINE));
    assertEquals(out.nodes, []);
    assertEquals(out.budget, "full");
  }
});

Deno.test("estimateTokens() counts a quarter per character and one per CJK character", () => {
  assertEquals(estimateTokens(""), 0);
  assertEquals(estimateTokens("abcdefgh"), 2);
  assertEquals(estimateTokens("全文検索"), 4);
});

Deno.test("renderOutline() renders 5,000 nodes within a small and a large budget", () => {
  const nodes = tree(17, 3); // 17 + 289 + 4913
  const small = renderOutline(CARD, nodes, { maxTokens: 2000 });
  const big = renderOutline(CARD, nodes, { maxTokens: 1_000_000 });
  assertEquals(small.budget, "depth_1");
  assert(small.tokens <= 2000);
  assertEquals([big.budget, count(big.nodes)], ["full", 5219]);
});

Deno.test("clipSummary() cuts at a word boundary with an ellipsis, leaves short ones alone", () => {
  assertEquals(clipSummary("Short sentence."), "Short sentence.");
  const long = "This sentence keeps going well past the limit of the default view, so it is cut, " +
    "and the rest waits for expand.";
  const c = clipSummary(long);
  assert(c.length <= 101, c);
  assert(c.endsWith("…") && !c.endsWith(" …") && !c.endsWith(",…"), c);
  assert(long.startsWith(c.slice(0, -1)));
});

Deno.test("renderOutline() writes its hints in the reader's syntax", () => {
  const hints = {
    more: (id: string, max: number) => `use --expand ${id} or --max-tokens ${max * 2}`,
    raise: "raise --max-tokens or use --expand",
  };
  const d1 = renderOutline(CARD, tree(3, 3), { maxTokens: 130, hints });
  assertEquals(d1.budget, "depth_1");
  assert(
    /\[budget\] depth_1: .*use --expand 1 or --max-tokens 260$/.test(d1.markdown),
    d1.markdown,
  );
  const cut = renderOutline(CARD, tree(200, 1), { maxTokens: 300, hints });
  assertEquals(cut.budget, "truncated");
  assert(cut.markdown.includes("more nodes; raise --max-tokens or use --expand"), cut.markdown);
  assert(!/expand=|max_tokens/.test(cut.markdown), cut.markdown);
  assert(cut.tokens <= 300, `${cut.tokens}`);
});
