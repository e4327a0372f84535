import { assert, assertEquals } from "../tests/assert.ts";
import { makeSnippet, readableLine, snippetMatcher } from "./snippet.ts";
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

Deno.test("readableLine: Markdown links and images keep their text, lose targets and titles", () => {
  const cases: [string, string][] = [
    ['See [the guide](doc/guide.md "Guide").', "See the guide."],
    ["![Ratio](doc/images/cr.png 'Compression Ratio') | ![](x.png)", "Ratio | "],
    ["[wiki](https://en.wikipedia.org/wiki/Zstd_(algorithm)) page", "wiki page"],
    ["[spaced](<a file.md>) and [ref][1] and [bare][]", "spaced and ref and bare"],
    ["no links here [1] (2)", "no links here [1] (2)"],
  ];
  for (const [line, want] of cases) assertEquals(readableLine(line), want, line);
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

Deno.test("readableLine: Markdown emphasis, escapes and fences go; code and plain text stay", () => {
  const markup: [string, string][] = [
    ["The _`count`_ is **not** *always* exact", "The `count` is not always exact"],
    ["1.1\\. Installation \\_private\\_ and ***both***", "1.1. Installation _private_ and both"],
    ["```js", ""],
    ["~~~", ""],
    [
      "call `__init__` or `a\\.b`, snake_case_name, 2*3*4",
      "call `__init__` or `a\\.b`, snake_case_name, 2*3*4",
    ],
    ["*'backupcopy'* *'bkc'* string", "'backupcopy' 'bkc' string"],
    ["a * b * c and **", "a * b * c and **"],
  ];
  for (const [line, want] of markup) assertEquals(readableLine(line, true), want, line);
  // Plain text (a PDF, a man page, TeX) keeps its marks: they may be the text.
  assertEquals(
    readableLine("Missing \\right. inserted, use a\\.b *twice*"),
    "Missing \\right. inserted, use a\\.b *twice*",
  );
});
