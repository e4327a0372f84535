import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { buildOutline, findNode, flattenOutline } from "./outline.ts";
import { firstSentence, plainText } from "./prose.ts";
import type { OutlineNode, TermStats } from "./types.ts";
import type { Heading } from "./extractor.ts";

/** ATX headings of Markdown lines, skipping code fences. */
function atx(lines: string[]): Heading[] {
  const out: Heading[] = [];
  let code = false;
  lines.forEach((l, i) => {
    if (/^\s{0,3}(```|~~~)/.test(l)) code = !code;
    const m = code ? null : /^(#{1,6})\s+(.*)$/.exec(l);
    if (m) out.push({ level: m[1]!.length, title: m[2]!.trim(), line: i + 1 });
  });
  return out;
}

const DOC = [
  "Preamble text before any heading.", // 1
  "## Getting started", // 2
  "", // 3
  "```sh", // 4
  "deno run main.ts", // 5
  "```", // 6
  "Install the **runtime** first. Then configure it.", // 7
  "#### Deep detail", // 8  (skips level 3)
  "| a | b |", // 9
  "|---|---|", // 10
  "- Bullet text about caching. More.", // 11
  "### Middle", // 12
  "Middle text.", // 13
  "## Second", // 14
  "Last section.", // 15
];

/** Every node's range contains its children's, and siblings tile the parent's range. */
function assertNested(nodes: OutlineNode[], lo: number, hi: number) {
  for (const [i, n] of nodes.entries()) {
    assert(n.start_line >= lo && n.end_line <= hi, `${n.id} inside ${lo}-${hi}`);
    assertEquals(n.line_count, n.end_line - n.start_line + 1);
    const next = nodes[i + 1];
    if (next) assertEquals(n.end_line, next.start_line - 1, `${n.id} ends before ${next.id}`);
    assertEquals(n.id.split(".").length, n.level);
    assertNested(n.children, n.start_line, n.end_line);
  }
}

Deno.test("buildOutline() nests a skipped level and numbers ids by position", () => {
  const tree = buildOutline(DOC, atx(DOC));
  assertEquals(flattenOutline(tree).map((n) => `${n.id}:${n.title}:${n.level}`), [
    "1:Getting started:1",
    "1.1:Deep detail:2",
    "1.2:Middle:2",
    "2:Second:1",
  ]);
});

Deno.test("buildOutline() ranges nest, tile siblings and run to the last line", () => {
  const tree = buildOutline(DOC, atx(DOC));
  assertNested(tree, 2, DOC.length);
  const [first, second] = tree;
  assertEquals([first!.start_line, first!.end_line], [2, 13]);
  assertEquals([second!.start_line, second!.end_line], [14, 15]);
  assertEquals([tree[0]!.children[0]!.start_line, tree[0]!.children[0]!.end_line], [8, 11]);
});

Deno.test("buildOutline() summaries skip code, tables and markup and stop at the first sentence", () => {
  const tree = buildOutline(DOC, atx(DOC));
  assertEquals(tree[0]!.summary, "Install the runtime first.");
  assertEquals(findNode(tree, "1.1")!.summary, "Bullet text about caching.");
  assertEquals(findNode(tree, "2")!.summary, "Last section.");
});

Deno.test("buildOutline() gives no summary to a section without prose", () => {
  const lines = ["# Code only", "```", "x = 1. y = 2.", "```", "| t | u |", "# Next", "Text."];
  const tree = buildOutline(lines, atx(lines));
  assertEquals(tree[0]!.summary, undefined);
  assertEquals(tree[1]!.summary, "Text.");
});

Deno.test("buildOutline() cuts a long sentence at a word boundary with an ellipsis", () => {
  const long = "word ".repeat(80).trim();
  const lines = ["# Long", long];
  const s = buildOutline(lines, atx(lines))[0]!.summary!;
  assert(s.endsWith("…"));
  assert(s.length <= 161);
  assert(!s.includes("wor…"), s);
});

Deno.test("buildOutline() joins a wrapped paragraph before taking its sentence", () => {
  const lines = ["# Wrapped", "The quick brown fox", "jumps over the dog. Another one."];
  assertEquals(
    buildOutline(lines, atx(lines))[0]!.summary,
    "The quick brown fox jumps over the dog.",
  );
});

Deno.test("buildOutline() passes pages through and keeps text before the first heading out", () => {
  const lines = ["intro", "Chapter", "text"];
  const tree = buildOutline(lines, [{ level: 1, title: "Chapter", line: 2, page: 7 }]);
  assertEquals(tree[0]!.page, 7);
  assertEquals(tree[0]!.start_line, 2);
});

Deno.test("buildOutline() keywords leave out title words and stop words", () => {
  const lines = [
    "# Caching layer",
    "The caching layer stores responses. Responses expire; eviction runs when memory is full.",
    "Eviction prefers old responses, and the memory budget bounds eviction and responses.",
  ];
  const kw = buildOutline(lines, atx(lines))[0]!.keywords!;
  assertEquals(kw[0], "responses");
  assert(kw.includes("eviction"));
  assert(!kw.includes("caching") && !kw.includes("layer") && !kw.includes("the"), kw.join());
});

Deno.test("buildOutline() keywords prefer words rare in the corpus when given stats", () => {
  const lines = [
    "# Section",
    "server server server server server zstd zstd zstd config config config config",
  ];
  const common: TermStats = {
    docCount: () => 1000,
    df: (t) => ({ server: 900, config: 800, zstd: 2 } as Record<string, number>)[t] ?? 0,
  };
  assertEquals(buildOutline(lines, atx(lines))[0]!.keywords![0], "server");
  assertEquals(buildOutline(lines, atx(lines), common)[0]!.keywords![0], "zstd");
});

Deno.test("findNode() finds by position path and rejects unknown ids", () => {
  const tree = buildOutline(DOC, atx(DOC));
  assertEquals(findNode(tree, "1.2")!.title, "Middle");
  assertEquals(findNode(tree, "3"), undefined);
  assertEquals(findNode(tree, "1.x"), undefined);
});

Deno.test("plainText() strips links, emphasis, list markers and rejects table rows", () => {
  assertEquals(plainText("- See [the guide](g.md) for **details**."), "See the guide for details.");
  assertEquals(plainText("> quoted `code` and _em_ snake_case"), "quoted code and em snake_case");
  assertEquals(plainText("| a | b |"), "");
  assertEquals(plainText("---"), "");
  assertEquals(plainText("![logo](x.png)"), "");
});

Deno.test("firstSentence() does not stop at abbreviations", () => {
  assertEquals(
    firstSentence("Use tools, e.g. grep and sed. Then read."),
    "Use tools, e.g. grep and sed.",
  );
  assertEquals(firstSentence("これは文です。次の文。"), "これは文です。");
});

Deno.test("buildOutline() builds 5,000 headings over 200,000 lines", () => {
  const lines: string[] = [];
  const headings: Heading[] = [];
  for (let i = 0; i < 5000; i++) {
    const level = 1 + (i % 3);
    lines.push(`${"#".repeat(level)} Section ${i}`);
    headings.push({ level, title: `Section ${i}`, line: lines.length });
    for (let j = 0; j < 39; j++) {
      lines.push(
        `Paragraph ${j} of section ${i} talks about indexing, caching and searching text.`,
      );
    }
  }
  assertEquals(lines.length, 200_000);
  const tree = buildOutline(lines, headings);
  assertEquals(flattenOutline(tree).length, 5000);
  assertNested(tree, 1, lines.length);
});
