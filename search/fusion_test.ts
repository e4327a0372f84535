import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import type { Hit } from "../core/types.ts";
import { rrf } from "./fusion.ts";

const hit = (doc_id: string, retriever: string, snippet?: string): Hit =>
  snippet === undefined
    ? { doc_id, score: 0.5, raw: 1, retriever }
    : { doc_id, score: 0.5, raw: 1, retriever, snippet };

Deno.test("rrf() ranks documents found by several retrievers first", () => {
  const fts = [hit("a", "fts5"), hit("b", "fts5"), hit("c", "fts5")];
  const vec = [hit("c", "lancedb"), hit("d", "lancedb"), hit("a", "lancedb")];
  const out = rrf([fts, vec]);
  assertEquals(out.map((h) => h.doc_id), ["a", "c", "b", "d"]);
  assert(out.every((h) => h.retriever === "hybrid"));
  assertEquals(out[0]!.raw, 1 / 61 + 1 / 63);
});

Deno.test("rrf() normalises scores by the best possible sum", () => {
  const out = rrf([[hit("a", "x")], [hit("a", "y")]]);
  assertEquals(out[0]!.score, 1);
  const one = rrf([[hit("a", "x"), hit("b", "x")], [hit("a", "y")]]);
  assertEquals(one[1]!.score, (1 / 62) / (2 / 61));
  assert(one.every((h) => h.score > 0 && h.score <= 1));
});

Deno.test("rrf() ignores empty lists when normalising", () => {
  assertEquals(rrf([[hit("a", "x")], []])[0]!.score, 1);
  assertEquals(rrf([[], []]), []);
});

Deno.test("rrf() keeps the first snippet seen", () => {
  const out = rrf([[hit("a", "x")], [hit("a", "y", "from y")], [hit("a", "z", "from z")]]);
  assertEquals(out[0]!.snippet, "from y");
  assertEquals(rrf([[hit("b", "x")]])[0]!.snippet, undefined);
});

Deno.test("rrf() respects the limit and counts a repeated document once per list", () => {
  const out = rrf([[hit("a", "x"), hit("a", "x"), hit("b", "x"), hit("c", "x")]], 60, 2);
  assertEquals(out.map((h) => h.doc_id), ["a", "b"]);
  assertEquals(out[1]!.raw, 1 / 63);
});

Deno.test("rrf() with weights: a light list nudges documents, the keyword lead stays", () => {
  const filler = ["x1", "x2", "x3", "x4", "x5", "x6", "x7"].map((id) => hit(id, "fts5"));
  const kw = [hit("a", "fts5"), hit("b", "fts5"), ...filler, hit("c", "fts5")];
  const vec = [hit("c", "lancedb"), hit("d", "lancedb")];
  // At equal weights the document in both lists jumps to the top.
  assertEquals(rrf([kw, vec])[0]!.doc_id, "c");
  const weighted = rrf([kw, vec], 60, Infinity, [1, 0.1]);
  assertEquals(weighted.slice(0, 4).map((h) => h.doc_id), ["a", "b", "c", "x1"]);
  assertEquals(weighted.at(-1)!.doc_id, "d");
  assertEquals(weighted[2]!.raw, 1 / 70 + 0.1 / 61);
  // Best possible: first in both lists, i.e. (1 + 0.1) / 61.
  assertEquals(weighted[0]!.score, (1 / 61) / (1.1 / 61));
  assertEquals(rrf([kw, []], 60, Infinity, [1, 0.1])[0]!.score, 1);
});
