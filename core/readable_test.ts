import { assertEquals } from "../tests/assert.ts";
import { readableLine } from "./readable.ts";

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
