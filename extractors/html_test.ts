import { join } from "node:path";
import { assert, assertEquals, assertRejects } from "../tests/assert.ts";
import { groundTruth, smallCorpus, titleF1 } from "../tests/corpus.ts";
import { ExtractError } from "../core/extractor.ts";
import { html, stripChrome } from "./html.ts";
import { REOPENED, splitBlocks } from "./_html_split.ts";
import { corpusLinks } from "./_links_check.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const run = (s: string | Uint8Array) =>
  html().extract({
    path: "l/a.html",
    extension: ".html",
    bytes: typeof s === "string" ? enc(s) : s,
  });

Deno.test("html() reads title, author and language from the head", async () => {
  const page = `<!DOCTYPE html><html lang="de"><head><title>Über &amp; mehr</title>
    <meta content="Ann" name="author"><script>var x = "<h1>no</h1>";</script></head>
    <body><h1>Start</h1><p>Text</p></body></html>`;
  const doc = await run(page);
  assertEquals(doc.meta, { title: "Über & mehr", author: "Ann", language: "de" });
  assertEquals(doc.headings, [{ level: 1, title: "Start", line: 1 }]);
});

Deno.test("html() decodes every named character reference in the title and headings", async () => {
  const doc = await run(`<html><head><title>Caf&eacute; &euro; men&uuml;</title></head>
    <body><h1>Mise &agrave; jour</h1><p>Aper&ccedil;u &frac12;</p></body></html>`);
  assertEquals(doc.meta?.title, "Café € menü");
  assertEquals(doc.headings?.map((h) => h.title), ["Mise à jour"]);
  assert(doc.lines.includes("Aperçu ½"), doc.lines.join("\n"));
});

Deno.test("html() drops navigation chrome and permalink anchors", async () => {
  const page = `<body><nav><h2>Menu</h2></nav><div class="related x"><h3>Navigation</h3>
    <div><h3>nested</h3></div></div><div role="search"><h3>Search</h3></div>
    <h1>Real<a class="headerlink" href="#r">¶</a></h1><div class="body"><h2>Kept</h2></div>
    <div class="sphinxsidebar"><h3>Sidebar</h3></div><!-- <h2>comment</h2> --><h2>Last</h2></body>`;
  const doc = await run(page);
  assertEquals(doc.headings?.map((h) => h.title), ["Real", "Kept", "Last"]);
});

Deno.test("html() fences <pre> blocks so their lines are not read as Markdown", async () => {
  const doc = await run("<h1>T</h1><pre><span>Title</span>\n=====\n# x</pre><h2>U</h2>");
  assertEquals(doc.headings?.map((h) => h.title), ["T", "U"]);
  assert(doc.lines.includes("```"));
});

Deno.test("html() honours a declared Latin-1 charset", async () => {
  const head = enc('<html><head><meta charset="ISO-8859-1"></head><body><h1>Gr');
  const bytes = new Uint8Array([...head, 0xfc, 0xdf, 0x65, ...enc("</h1></body></html>")]);
  const doc = await run(bytes);
  assertEquals(doc.headings?.[0]?.title, "Grüße");
});

Deno.test("stripChrome() keeps the content of an element that is never closed", () => {
  assertEquals(stripChrome('<div class="menu"><p>a</p>'), '<div class="menu"><p>a</p>');
  assertEquals(stripChrome("a<nav>b</nav>c"), "a c");
});

Deno.test("splitBlocks() cuts long pages only outside lists and tables", () => {
  const item = "<ul>" + "<li><p>item</p></li>".repeat(50) + "</ul>";
  const page = ("<h2>x</h2><p>" + "word ".repeat(40) + "</p>" + item).repeat(200);
  const pieces = splitBlocks(page, 2_000);
  assertEquals(pieces.join(""), page);
  assert(pieces.length > 10);
  for (const p of pieces) assert(!p.startsWith("<li"), "a piece starts inside a list");
});

Deno.test("html() refuses an empty file with reason empty", async () => {
  const err = await assertRejects(() => run(""));
  assert(err instanceof ExtractError);
  assertEquals(err.reason, "empty");
});

Deno.test("html() finds the headings of the small corpus (mean title F1 >= 0.9)", async () => {
  const dir = await smallCorpus();
  const scores: number[] = [];
  for (const [path, truth] of await groundTruth(dir)) {
    if (!path.startsWith("html/") || !truth.headings) continue;
    const bytes = await Deno.readFile(join(dir, path));
    const doc = await html().extract({ path, extension: ".html", bytes });
    scores.push(
      titleF1((doc.headings ?? []).map((h) => h.title), truth.headings.map((h) => h.title)),
    );
  }
  const mean = scores.reduce((a, b) => a + b, 0) / scores.length;
  console.log(`html/: ${scores.length} docs, mean title F1 ${mean.toFixed(3)}`);
  assert(scores.length > 10, "expected the html library in the small corpus");
  assert(mean >= 0.9, `mean F1 ${mean}`);
});

Deno.test("splitBlocks() cuts one very long list between items and reopens it", () => {
  const items = Array.from({ length: 400 }, (_, i) => `<li>item ${i} ${"x".repeat(40)}</li>`);
  const page = `<p>intro</p><ol start="1">${items.join("")}</ol><p>end</p>`;
  const pieces = splitBlocks(page, 2000);
  assert(pieces.length > 3, `${pieces.length} pieces`);
  for (const p of pieces.slice(1, -1)) {
    assert(p.startsWith('<ol start="1">') || p.startsWith("<li>"), p.slice(0, 30));
  }
  assertEquals(pieces.join("").replaceAll('</ol><ol start="1">', ""), page);
});

/** A table of contents three lists deep (about 200 KB), and its items' Markdown lines. */
function nestedToc(): { page: string; lines: string[] } {
  const lines: string[] = [];
  const item = (name: string, depth: number, kids: () => string) => {
    lines.push(`${"  ".repeat(depth)}* ${name}`);
    return `<li><a href="#${name}">${name}</a>${kids()}</li>`;
  };
  const list = (n: number, f: (i: number) => string) =>
    `<ul>${Array.from({ length: n }, (_, i) => f(i)).join("")}</ul>`;
  const page = list(
    3,
    (a) =>
      item(
        `part${a}`,
        0,
        () =>
          list(200, (b) =>
            item(`chapter${a}x${b}`, 1, () =>
              list(5, (c) =>
                item(`section${a}x${b}x${c}`, 2, () =>
                  "")))),
      ),
  );
  return { page: `<h1>Contents</h1>${page}<p>end</p>`, lines };
}

Deno.test("splitBlocks() cuts nested lists between items, reopening every list and item", () => {
  const { page } = nestedToc();
  const pieces = splitBlocks(page, 2_000);
  assert(pieces.length > 20, `${pieces.length} pieces`);
  for (const p of pieces) assert(p.length < 10_000, `a piece of ${p.length}`);
  const text = (h: string) => h.replace(/<[^>]*>/g, "").replaceAll(REOPENED, "");
  assertEquals(pieces.map(text).join(""), text(page), "every item in one piece, once");
  for (const p of pieces.slice(1, -1)) {
    assert(p.startsWith(`<ul><li><a href="#part`) || p.startsWith(`<ul><li>${REOPENED}<ul>`), p);
    assert(p.endsWith("</ul></li></ul>") || p.endsWith("</li></ul>"), p.slice(-40));
  }
});

Deno.test("html() converts a long nested table of contents with every item at its depth", async () => {
  const { page, lines } = nestedToc();
  assert(page.length > 150_000, `${page.length}`);
  const doc = await run(page);
  const text = doc.lines.filter((l) => l.trim() && l !== "# Contents" && l !== "end");
  assertEquals(text, lines);
  assert(!doc.lines.join("\n").includes(REOPENED));
});

Deno.test("html() keeps the text of links and images in the lines, their targets apart", async () => {
  const doc = await run(`<h1>Intro <a href="#x" title="T">anchor</a></h1>
    <p>See <a href="exceptions.html#FileExistsError" title="FileExistsError">FileExistsError</a>
    and <img src="images/x.png" alt="A diagram"> <img src="data:image/png;base64,AA" alt="dot">
    <img src="deco.png"> <a href="big.png"><img src="small.png" alt="Figure 1"></a>.</p>
    <p><code>[x](y)</code> and <a href="https://e.org/?a=1&amp;b=2"><code>coded</code></a>,
    <a href="https://x.org">https://x.org</a>, <a href="javascript:go()">js</a><a href="#e"></a></p>
    <pre>[kept](as-is.md) <a href="f.html">in code</a></pre>
    <table><tr><th>Name</th><th>What</th></tr><tr><td><a href="a.html">Alpha</a></td><td>1</td></tr>
    </table>`);
  assertEquals(doc.lines.slice(0, 6), [
    "# Intro anchor",
    "",
    "See FileExistsError and A diagram dot Figure 1.",
    "",
    "`[x](y)` and coded, https://x.org, js",
    "",
  ]);
  assert(doc.lines.includes("[kept](as-is.md) in code"), "a code block stays as it was");
  const [head, rule, row] = doc.lines.slice(-3) as [string, string, string];
  assertEquals([head, row].map((l) => l.replace(/ +/g, " ")), ["| Name | What |", "| Alpha | 1 |"]);
  assert(/^\| -+ \| -+ \|$/.test(rule), rule);
  const columns = (l: string) => `${l.length} ${l.indexOf("|", 1)}`;
  assertEquals(columns(head), columns(row), "columns stay aligned");
  assertEquals(columns(rule), columns(row), "columns stay aligned");
  assertEquals(doc.headings, [{ level: 1, title: "Intro anchor", line: 1 }]);
  assertEquals(doc.links, [
    { target: "#x", text: "anchor", line: 1 },
    { target: "exceptions.html#FileExistsError", text: "FileExistsError", line: 3 },
    { target: "images/x.png", text: "A diagram", line: 3 },
    { target: "big.png", text: "Figure 1", line: 3 },
    { target: "small.png", text: "Figure 1", line: 3 },
    { target: "https://e.org/?a=1&b=2", text: "coded", line: 5 },
    { target: "https://x.org", text: "https://x.org", line: 5 },
    { target: "a.html", text: "Alpha", line: 13 },
  ]);
});

Deno.test("html() leaves no link targets in the small corpus's pages, links on their lines", async () => {
  const links = await corpusLinks(html(), (p) => p.startsWith("html/"));
  assert(links > 1000, `${links} links`);
  const dir = await smallCorpus();
  const path = "html/python3.11-doc/library/warnings.html";
  const doc = await run(await Deno.readFile(join(dir, path)));
  assertEquals(doc.lines[0], "# warnings — Warning control");
  assertEquals(doc.links?.[0], { target: "#module-warnings", text: "warnings", line: 1 });
  const stderr = doc.links?.find((l) => l.target === "sys.html#sys.stderr");
  assert(stderr && doc.lines[stderr.line - 1]!.includes("written to sys.stderr, but"));
});

Deno.test("html: text keeps its characters (no Markdown escapes), headings stay headings", async () => {
  const bytes = new TextEncoder().encode(
    `<h1>Conf</h1><p>Set <span>max_connections</span> to 100; a*b, [x], C:\\dir.</p>` +
      `<p>- not a list</p><p># not a heading</p><pre>\\- kept</pre>`,
  );
  const d = await html().extract({ path: "l/a.html", extension: ".html", bytes });
  assertEquals(d.headings?.map((h) => h.title), ["Conf"]);
  assert(d.lines.includes("Set max_connections to 100; a*b, [x], C:\\dir."), d.lines.join("\n"));
  assert(d.lines.includes("- not a list"), d.lines.join("\n"));
  assert(d.lines.includes("# not a heading"), d.lines.join("\n"));
  assert(d.lines.includes("\\- kept"), d.lines.join("\n"));
});
