import { assert, assertEquals } from "../tests/assert.ts";
import type { OutlineNode } from "../core/types.ts";
import { bestPassages, chosenPassages, linedText, pageOf, passagesOf } from "./passages.ts";

function node(id: string, title: string, start: number, end: number, children: OutlineNode[] = []) {
  return {
    id,
    title,
    level: id.split(".").length,
    start_line: start,
    end_line: end,
    line_count: end - start + 1,
    children,
  };
}

Deno.test("passagesOf() cuts along the outline: each node's own text, before its children", () => {
  const outline = [
    node("1", "Intro", 3, 10, [node("1.1", "Background", 6, 10)]),
    node("2", "Usage", 11, 20),
  ];
  const ps = passagesOf({ outline, quality: "high", docType: "markdown", totalLines: 22 });
  assertEquals(ps.map((p) => [p.node_id, p.start_line, p.end_line]), [
    [undefined, 1, 2],
    ["1", 3, 5],
    ["1.1", 6, 10],
    ["2", 11, 20],
    [undefined, 21, 22],
  ]);
  assertEquals(ps[0]!.title, "Lines 1-2");
});

Deno.test("passagesOf() cuts a long section into windows that each fit one read", () => {
  const ps = passagesOf({
    outline: [node("1", "Everything", 1, 200)],
    quality: "high",
    docType: "markdown",
    totalLines: 200,
  });
  assertEquals(ps.length, 5);
  assert(ps.every((p) => p.node_id === "1" && p.end_line - p.start_line < 80));
  assertEquals(ps[0]!.start_line, 1);
  assertEquals(ps.at(-1)!.end_line, 200);
});

Deno.test("passagesOf() uses pages where a PDF's outline is heuristic, and windows without either", () => {
  const pdf = passagesOf({
    outline: [node("1", "Guessed heading", 1, 30)],
    quality: "medium",
    docType: "pdf",
    pages: [1, 12, 25],
    totalLines: 30,
  });
  assertEquals(pdf.map((p) => [p.title, p.start_line, p.end_line, p.page]), [
    ["Page 1", 1, 11, 1],
    ["Page 2", 12, 24, 2],
    ["Page 3", 25, 30, 3],
  ]);
  const plain = passagesOf({ outline: [], quality: "none", docType: "text", totalLines: 100 });
  assertEquals(plain.map((p) => [p.start_line, p.end_line]), [[1, 34], [35, 68], [69, 100]]);
  assertEquals(plain[1]!.title, "Lines 35-68");
});

Deno.test("pageOf() finds the page of a line", () => {
  assertEquals(pageOf([1, 12, 25], 1), 1);
  assertEquals(pageOf([1, 12, 25], 24), 2);
  assertEquals(pageOf([1, 12, 25], 99), 3);
  assertEquals(pageOf(undefined, 5), undefined);
});

Deno.test("bestPassages() prefers the section where the rare words are dense, not the first mention", () => {
  const lines = [
    "# Overview",
    "The server stores data. Compression is mentioned here once.",
    "# Storage",
    "The server writes pages to disk.",
    "# Compression",
    "Compression levels range from 1 to 19; higher compression levels are slower.",
    "Use --fast for negative compression levels.",
  ];
  const outline = [
    node("1", "Overview", 1, 2),
    node("2", "Storage", 3, 4),
    node("3", "Compression", 5, 7),
  ];
  const ps = passagesOf({
    outline,
    quality: "high",
    docType: "markdown",
    totalLines: lines.length,
  });
  const doc = linedText(lines.join("\n"));
  const best = bestPassages(doc, ps, ["compression", "levels"], 2);
  assertEquals(best[0]!.node_id, "3");
  assertEquals([best[0]!.start_line, best[0]!.end_line], [5, 7]);
  assert(/levels\*\*/.test(best[0]!.snippet), best[0]!.snippet);
  assertEquals(best[1]!.node_id, "1");
  assertEquals(bestPassages(doc, ps, ["zebra"]), []);
});

Deno.test("linedText() finds where each line starts", () => {
  assertEquals([...linedText("a\nbc\n").starts], [0, 2, 5, 6]);
  assertEquals([...linedText("").starts], [0, 1]);
});

Deno.test("chosenPassages() prefers the passage that says the query's words close together", () => {
  const at = (start_line: number, lines: string[]) => ({
    passage: { title: "Lines", start_line, end_line: start_line + lines.length - 1 },
    lines,
  });
  const filler = "Pieces are dried on open racks for a day before anything else is done to them.";
  // The first passage repeats the words apart (an example, a list); the second says them
  // together once.
  const apart = at(1, [
    "The kiln is loaded from the front.",
    ...Array(5).fill(filler),
    "Glaze recipes are listed in the appendix.",
    ...Array(5).fill(filler),
    "Clean the kiln shelves each week.",
    ...Array(5).fill(filler),
    "Glaze buckets are stirred before use.",
  ]);
  // As long as the first, so that BM25 alone prefers it (each word twice).
  const together = at(40, [
    ...Array(10).fill(filler),
    "A glaze crawls in the kiln when the bisque is dusty.",
    ...Array(10).fill(filler),
  ]);
  const best = chosenPassages([apart, together], ["glaze", "kiln"], 1);
  assertEquals(best[0]?.start_line, 40);
});
