import { assert, assertEquals } from "../tests/assert.ts";
import { makeSnippet, snippetMatcher } from "./snippet.ts";
import { bestPassages, linedText, passagesOf } from "./passages.ts";

Deno.test("makeSnippet() picks the window with the most distinct query words", () => {
  const text = "Wombats dig. ".repeat(40) + "Here wombats and burrows meet in one sentence. " +
    "Filler text. ".repeat(40);
  const s = makeSnippet(text, snippetMatcher(["wombat", "burrows"])!);
  assert(s.includes("**wombats** and **burrows**"), s);
  assert(s.length <= 210, `${s.length}`);
  assert(s.startsWith("…") && s.endsWith("…"));
});

Deno.test("makeSnippet() matches word beginnings, so inflected forms are found", () => {
  const s = makeSnippet("The file was downloaded yesterday.", snippetMatcher(["downloading"])!);
  assertEquals(s, "The file was **downloaded** yesterday.");
});

Deno.test("makeSnippet() finds nothing when no word matches", () => {
  assertEquals(makeSnippet("Nothing relevant here.", snippetMatcher(["zebra"])!), "");
  assertEquals(snippetMatcher(["", "-"]), undefined);
});

Deno.test("makeSnippet() matches latin words at word starts only, CJK words anywhere", () => {
  const re = snippetMatcher(["id", "数据库"])!;
  assertEquals(makeSnippet("We provide the id.", re), "We provide the **id**.");
  assertEquals(makeSnippet("使用数据库备份", re), "使用**数据库**备份");
});

Deno.test("bestPassages: the snippet of a Markdown passage reads without link targets", () => {
  const lines = [
    "# Speed",
    'Compression speed is shown in [the benchmark table](doc/bench.md "Benchmarks") below.',
  ];
  const passages = passagesOf({ outline: [], quality: "none", docType: "markdown", totalLines: 2 });
  const [best] = bestPassages(linedText(lines.join("\n")), passages, ["benchmark"]);
  assert(best, "a passage");
  assert(!best.snippet.includes("doc/bench.md") && best.snippet.includes("table"), best.snippet);
});
