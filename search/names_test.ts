import { assert, assertEquals } from "../tests/assert.ts";
import {
  editBudget,
  matchNames,
  namesOf,
  normalizeName,
  substringDistance,
  substringDistanceDP,
} from "./names.ts";

Deno.test("substringDistance: edits to some part of the text, swaps count one", () => {
  assertEquals(substringDistance("python", "the python tutorial", 2), 0);
  assertEquals(substringDistance("pyhton", "the python tutorial", 2), 1);
  assertEquals(substringDistance("pythn", "the python tutorial", 2), 1);
  assertEquals(substringDistance("pythoon", "the python tutorial", 2), 1);
  assertEquals(substringDistance("kitten", "sitting", 3), 2);
  assertEquals(substringDistance("zzzzzz", "the python tutorial", 2), 3, "capped at max + 1");
  assertEquals(substringDistance("long query text", "short", 2), 3);
  assertEquals(substringDistance("", "abc", 1), 0);
});

Deno.test("substringDistance: the bit-parallel form agrees with the dynamic programme", () => {
  let seed = 14;
  const rand = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const word = (n: number) =>
    Array.from({ length: n }, () => "abcd "[Math.floor(rand() * 5)]).join("");
  for (let i = 0; i < 20_000; i++) {
    const q = word(1 + Math.floor(rand() * 32));
    const t = word(Math.floor(rand() * 40));
    const max = Math.floor(rand() * 4);
    assertEquals(substringDistance(q, t, max), substringDistanceDP(q, t, max), `${q} / ${t}`);
  }
  const long = "a".repeat(40);
  assertEquals(substringDistance(long, `xx${long.slice(1)}yy`, 2), 1, "over 32 characters");
});

Deno.test("editBudget grows with the query", () => {
  assertEquals([2, 3, 4, 5, 6, 9, 10, 40].map(editBudget), [0, 0, 1, 1, 2, 2, 3, 3]);
});

Deno.test("matchNames: exact > prefix > contains, whole words first, fuzzy only when asked", () => {
  const m = (q: string, path: string, title = "", fuzzy = false) =>
    matchNames(normalizeName(q), namesOf(path, title), fuzzy);
  assertEquals(m("report", "L/report.pdf")?.kind, "exact");
  assertEquals(m("report.pdf", "L/report.pdf")?.kind, "exact");
  assertEquals(m("report", "L/Report_2023.pdf")?.kind, "prefix");
  assertEquals(m("report", "L/annual-report.pdf")?.kind, "contains");
  assertEquals(m("report", "L/x.md", "The Report")?.on, "title");
  assertEquals(m("reprot", "L/annual-report.pdf"), undefined);
  assertEquals(m("reprot", "L/annual-report.pdf", "", true)?.kind, "fuzzy");
  assertEquals(m("ab", "L/xaxb.md", "", true), undefined, "short queries are never fuzzy");
  const score = (q: string, path: string) => m(q, path)!.score;
  assert(score("report", "L/report-2023.md") < score("report", "L/reporting.md"));
  assert(score("port", "L/a port.md") < score("port", "L/report.md"));
  assert(score("report", "L/report-a.md") < score("report", "L/report-abc.md"));
});
