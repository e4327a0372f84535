import { readdirSync } from "node:fs";
import { join } from "node:path";
import { parse } from "node-html-parser";
import { assert, assertEquals } from "../tests/assert.ts";
import { smallCorpus } from "../tests/corpus.ts";
import { parseHtml, parseMatchesLibrary } from "./_html_parse.ts";

/** node-html-markdown's options for node-html-parser. */
const OPTIONS = {
  lowerCaseTagName: true,
  comment: false,
  fixNestedATags: true,
  blockTextElements: { script: false, noscript: false, style: false },
};

interface Node {
  tagName?: string;
  rawAttrs?: string;
  rawText?: string;
  parentNode: Node | null;
  childNodes: Node[];
}

/** A node as plain data: name, attributes or text, whether its children point back, children. */
function shape(node: Node): unknown {
  return [
    node.tagName ?? "#text",
    node.tagName ? node.rawAttrs : node.rawText,
    node.childNodes.map((c) => c.parentNode === node),
    node.childNodes.map(shape),
  ];
}

/** The HTML pages of the small corpus. */
async function pages(): Promise<string[]> {
  const dir = await smallCorpus();
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((p) => p.endsWith(".html")).sort().map((p) => join(dir, p));
}

Deno.test("parseHtml() stands in for node-html-parser 6.1's parse", () => {
  assert(parseMatchesLibrary);
});

Deno.test("parseHtml() builds node-html-parser's tree for pages with unclosed elements", () => {
  const cases = [
    "<div><span>a<b>b</b>c</div>",
    "<h3>one<h3>two</h3>",
    "<div><p>a<p>b<table><tr><td>c<td>d</table><li>e<li>f</div>",
    "<section><div><div><em>deep<strong>er",
    "<ul><li>a<ul><li>b<li>c</ul><li>d</ul><p>tail",
    "<a href=x>one<a href=y>two</a>three",
    "<div><i>x</div><i>y</i><div><i>z</div></div>",
    "",
  ];
  for (const html of cases) {
    const ours = parseHtml(html, OPTIONS) as unknown as Node;
    assertEquals(shape(ours), shape(parse(html, OPTIONS) as unknown as Node), html);
  }
});

Deno.test("parseHtml() builds node-html-parser's tree for every page of the small corpus", async () => {
  const files = await pages();
  assert(files.length > 10, `${files.length} pages`);
  for (const path of files) {
    const html = await Deno.readTextFile(path);
    const ours = parseHtml(html, OPTIONS) as unknown as Node;
    assertEquals(shape(ours), shape(parse(html, OPTIONS) as unknown as Node), path);
  }
});
