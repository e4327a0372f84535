import { assertEquals } from "../tests/assert.ts";
import { inlineText, markdownHeadings } from "./_headings_markdown.ts";

const heads = (md: string) =>
  markdownHeadings(md.split("\n")).map((h) => [h.level, h.title, h.line]);

Deno.test("markdownHeadings() reads ATX headings and strips closing hashes", () => {
  assertEquals(heads("# One #\n\n   ## Two ##  \n#Not\n####### Seven\n    # code"), [
    [1, "One", 1],
    [2, "Two", 3],
  ]);
});

Deno.test("markdownHeadings() reads Setext headings but not thematic breaks", () => {
  const md = "Title\nover two lines\n=====\n\ntext\n\n---\n\nSub\n---\n\n- item\n---\n> quote\n---";
  assertEquals(heads(md), [[1, "Title over two lines", 1], [2, "Sub", 9]]);
});

Deno.test("markdownHeadings() skips fenced code", () => {
  const md = "````md\n# not\n```\n# still not\n````\n# yes\n~~~\n# no\n~~~\n\n```\n# unclosed";
  assertEquals(heads(md), [[1, "yes", 6]]);
});

Deno.test("markdownHeadings() skips front matter, HTML comments and indented code", () => {
  const md = "---\ntitle: x\n---\n# A\n\n<!--\n# hidden\n-->\n\n    # code\n+++\n## B";
  assertEquals(heads(md), [[1, "A", 4], [2, "B", 12]]);
  assertEquals(heads("+++\ntitle = 'x'\n+++\n# T"), [[1, "T", 4]]);
});

Deno.test("inlineText() removes inline markup", () => {
  assertEquals(inlineText('The **`fs.read()`** [module](fs.md "t") {#fs}'), "The fs.read() module");
  assertEquals(
    inlineText('![logo](a.png) _snake_case_ a\\*b &amp; <a id="x"></a>c'),
    "logo snake_case a*b & c",
  );
  assertEquals(inlineText("`a **b**`  and   *c*"), "a **b** and c");
});
