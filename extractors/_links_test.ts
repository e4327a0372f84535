import { assertEquals } from "../tests/assert.ts";
import { LinkSink, markdownLinks } from "./_links.ts";

const pairs = (lines: string[]) => markdownLinks(lines).map((l) => [l.line, l.target, l.text]);

Deno.test("markdownLinks() finds inline links, images, autolinks and wiki links", () => {
  const md = [
    "# Title with [a link](a.md#top)",
    "",
    'See [the *guide*](guide.md "Guide") and ![a logo](img/logo.png) or <https://x.org/a>.',
    "Notes: [[Wiki Link|alias]], [[Note#Heading]], ![[embed.png]] and [[Plain]].",
    "[![badge](badge.svg)](https://ci.example/build) [paren](https://w.org/A_(b)) [x]()",
  ];
  assertEquals(pairs(md), [
    [1, "a.md#top", "a link"],
    [3, "guide.md", "the guide"],
    [3, "img/logo.png", "a logo"],
    [3, "https://x.org/a", "https://x.org/a"],
    [4, "Wiki Link", "alias"],
    [4, "Note#Heading", "Note#Heading"],
    [4, "embed.png", "embed.png"],
    [4, "Plain", "Plain"],
    [5, "https://ci.example/build", "badge"],
    [5, "badge.svg", "badge"],
    [5, "https://w.org/A_(b)", "paren"],
  ]);
});

Deno.test("markdownLinks() reads wiki links with headings, aliases, embeds and table escapes", () => {
  const md = [
    "| note | link |",
    "| --- | --- |",
    "| a | [[Note#Heading|shown]] and [[Folder/Note\\|in a table]] |",
    "![[Note#^block]] [[ spaced name ]] [[not closed",
  ];
  assertEquals(pairs(md), [
    [3, "Note#Heading", "shown"],
    [3, "Folder/Note", "in a table"],
    [4, "Note#^block", "Note#^block"],
    [4, "spaced name", "spaced name"],
  ]);
});

Deno.test("markdownLinks() resolves reference links through their definitions", () => {
  const md = [
    "Read [the spec][spec], [Spec][] and [spec] but not [unknown] or [^1].",
    "",
    "[spec]: <docs/spec.md#s2> 'The spec'",
    "[^1]: a footnote",
  ];
  assertEquals(pairs(md), [
    [1, "docs/spec.md#s2", "the spec"],
    [1, "docs/spec.md#s2", "Spec"],
    [1, "docs/spec.md#s2", "spec"],
  ]);
});

Deno.test("markdownLinks() skips code, front matter and comments; links may span lines", () => {
  const md = [
    "---",
    "see: '[no](front.md)'",
    "---",
    "Code `[x](y)` and ``[a](b) ` c`` stay code; `[[not]]` too.",
    "",
    "```md",
    "[in](fence.md)",
    "```",
    "",
    "    [indented](code.md)",
    "",
    "- item",
    "    [nested](list.md)",
    "<!-- [hidden](c.md) --> A [link that",
    "wraps](wrap.md) and \\[escaped](e.md).",
  ];
  assertEquals(pairs(md), [
    [13, "list.md", "nested"],
    [14, "wrap.md", "link that wraps"],
  ]);
});

Deno.test("markdownLinks() stays linear on unclosed brackets and backticks", () => {
  const line = "[a `b ".repeat(40_000);
  assertEquals(markdownLinks([line, line]), []);
});

Deno.test("LinkSink marks links, then removes the marks and keeps table columns aligned", () => {
  const sink = new LinkSink();
  const a = sink.mark("x.html#a", "alpha");
  const b = sink.mark("#b", "**beta**");
  const img = sink.mark("i.png", `${sink.mark("big.png", "pic")}`);
  const lines = [
    `# Head ${a}`,
    `| ${b}${" ".repeat(2)} | c |`,
    `| ${"-".repeat(b.length + 2)} | - |`,
    `text ${img}`,
    "`code [x](y)`",
  ];
  const { lines: out, links } = sink.take(lines);
  assertEquals(out[0], "# Head alpha");
  assertEquals(out[1]!.length, lines[1]!.length);
  assertEquals(out[1]!.indexOf(" | c"), out[2]!.indexOf(" | -"));
  assertEquals(out[3], "text pic");
  assertEquals(out[4], "`code [x](y)`");
  assertEquals(links, [
    { target: "x.html#a", text: "alpha", line: 1 },
    { target: "#b", text: "beta", line: 2 },
    { target: "i.png", text: "pic", line: 4 },
    { target: "big.png", text: "pic", line: 4 },
  ]);
  assertEquals(LinkSink.clean("a\uFDD0b\uFDD1c"), "a\uFFFDb\uFFFDc");
});
