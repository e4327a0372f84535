import { existsSync } from "node:fs";
import { join } from "node:path";
import { assert, assertEquals, assertRejects } from "../tests/assert.ts";
import { groundTruth, smallCorpus, titleF1 } from "../tests/corpus.ts";
import { ExtractError } from "../core/extractor.ts";
import { html, stripChrome } from "./html.ts";
import { markdown } from "./markdown.ts";
import { REOPENED, splitBlocks } from "./_html_split.ts";
import { corpusLinks } from "./_links_check.ts";
import { cutBeforeText } from "./_deadline_check.ts";

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

/** The lines and heading titles of a real page, or undefined when it is not on this machine. */
async function realPage(path: string) {
  try {
    const bytes = await Deno.readFile(path);
    return await html().extract({ path, extension: ".html", bytes });
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return undefined;
    throw e;
  }
}

const LIBXSLT = "/usr/share/doc/libxslt1-dev/html/html/libxslt-pattern.html";

Deno.test({
  name: "html() unwraps the layout tables of a libxslt page: headings, menu items apart",
  ignore: !existsSync(LIBXSLT),
  fn: async () => {
    const doc = (await realPage(LIBXSLT))!;
    const titles = doc.headings?.map((h) => h.title) ?? [];
    for (const t of ["Module pattern from libxslt", "Description", "Function: xsltGetTemplate"]) {
      assert(titles.includes(t), `${t} in ${titles.join(" / ")}`);
    }
    for (const item of ["* Main Menu", "* Developer Menu", "* API Menu", "* ChangeLog"]) {
      assert(doc.lines.includes(item), item);
    }
    assert(doc.lines.includes("GNOME2 Logo W3C logo Red Hat Logo"), "images keep apart");
    assert(!doc.lines.includes("Prev"), "the navigation table is chrome");
    const longest = Math.max(...doc.lines.map((l) => l.split(/\s+/).length));
    assert(longest < 100, `a line of ${longest} words`);
    const rows = doc.lines.filter((l) => l.startsWith("|"));
    assert(!rows.some((l) => l.includes("Menu")), "no layout left as a Markdown table");
    assert(
      rows.some((l) => /^\| _style_: +\| an XSLT stylesheet +\|$/.test(l)),
      "data tables stay",
    );
  },
});

Deno.test("html() keeps tables of data as Markdown tables (words apart), unwraps layout tables", async () => {
  const data = `<table><tr><th>Key</th><th>Meaning</th></tr><tr><td>a</td><td><p>one</p>
    <div class="note"><h3>Note</h3><p>careful</p></div></td></tr><tr><td>b</td><td>two</td></tr>
    <tr><td>c</td><td><ul><li>x</li><li>y</li></ul></td></tr></table>
    <table><thead><tr><th>Name</th></tr></thead><tr><td>HTTP_HOST</td></tr><tr><td>HTTP_REFERER</td></tr></table>`;
  const doc = await run(data);
  const rows = doc.lines.filter((l) => l.startsWith("|"));
  assertEquals(rows.length, 9, doc.lines.join("\n"));
  const cells = rows.map((l) => l.replace(/ +/g, " "));
  assert(cells.includes("| a | one Note careful |"), "blocks in a cell keep apart");
  assert(cells.includes("| c | x y |"), "list items in a cell keep apart");
  const layout = await run(`<table role="presentation"><tr><td>a</td><td>b</td></tr>
    <tr><td>c</td><td>d</td></tr></table>
    <table><tr><td>Prev</td><td>Up</td><td>Next</td></tr></table>
    <table width="100%"><tr><td><h1>Title</h1></td></tr><tr><td><table><tr><td>
    <h2>Part</h2><p>Body text.</p></td></tr></table></td></tr></table>
    <table><tr><td><b>Menu</b></td></tr><tr><td><ul><li>Home</li><li>News</li></ul></td></tr></table>`);
  assertEquals(layout.lines.filter((l) => l.trim()), [
    "a",
    "b",
    "c",
    "d",
    "Prev",
    "Up",
    "Next",
    "# Title",
    "## Part",
    "Body text.",
    "**Menu**",
    "* Home",
    "* News",
  ]);
  assertEquals(layout.headings?.map((h) => h.title), ["Title", "Part"]);
});

Deno.test("html() reads the main content of a page that marks one", async () => {
  const doc = await run(`<header><h1>Site docs</h1><ul><li>every module</li></ul></header>
    <div role="main"><h2>Topic</h2><p>Text.</p></div><footer>foot</footer>`);
  assertEquals(doc.lines, ["## Topic", "", "Text."]);
});

Deno.test("html() drops permalink anchors from heading titles", async () => {
  const doc = await run(`<h2>C++ addons<span><a class="mark" href="#c-addons" id="c-addons">#</a>
    </span></h2><h3><a href="#sec">§</a> Section</h3><h3>Pilcrow <a href="#p">&para;</a></h3>
    <h3>Issue <a href="https://e.org/1">§</a></h3><p>Item <a href="#x">#</a></p>`);
  assertEquals(doc.headings?.map((h) => h.title), ["C++ addons", "Section", "Pilcrow", "Issue §"]);
  assert(doc.lines.includes("Item #"), "a permalink sign outside a heading stays");
});

Deno.test("html() leaves no escape before the dot after a number, in any line", async () => {
  const doc = await run(
    "<h1>2. Advantages</h1><ul><li>3. Third</li><li>- dash</li></ul><h2>6.1. Pure</h2>" +
      "<p>Removed in Python 3.12. See 2.</p><p>Kept: 1\\. <code>4\\. x</code></p>",
  );
  assertEquals(doc.lines, [
    "# 2. Advantages",
    "",
    "* 3. Third",
    "* - dash",
    "",
    "## 6.1. Pure",
    "",
    "Removed in Python 3.12. See 2.",
    "",
    "Kept: 1\\. `4\\. x`",
  ]);
  assertEquals(doc.headings?.map((h) => h.title), ["2. Advantages", "6.1. Pure"]);
});

const NODE_API = "/usr/share/doc/nodejs/api";

Deno.test({
  name: "html() outlines Node.js pages as their Markdown copies do, without permalink signs",
  ignore: !existsSync(join(NODE_API, "addons.html")),
  fn: async () => {
    const scores: number[] = [];
    for (const name of ["addons", "fs", "events", "stream", "url"]) {
      const page = await realPage(join(NODE_API, `${name}.html`));
      const md = join(NODE_API, `${name}.md`);
      if (!page || !existsSync(md)) continue;
      const copy = await markdown().extract({
        path: md,
        extension: ".md",
        bytes: await Deno.readFile(md),
      });
      const titles = page.headings?.map((h) => h.title) ?? [];
      assert(titles.length > 5, `${name}: ${titles.length} headings`);
      assert(!titles.some((t) => /[#¶§]$/.test(t)), titles.join(" / "));
      assert(!titles.some((t) => /^Node\.js .* documentation$/.test(t)), "the site's heading");
      scores.push(titleF1(titles, copy.headings?.map((h) => h.title) ?? []));
    }
    assert(scores.length > 0);
    const mean = scores.reduce((a, b) => a + b, 0) / scores.length;
    assert(mean >= 0.95, `mean title F1 against the .md copies ${mean}`);
  },
});

Deno.test("html() keeps the data tables of the small corpus as tables", async () => {
  const dir = await smallCorpus();
  const memory = await run(await Deno.readFile(join(dir, "html/python3.11-doc/c-api/memory.html")));
  assert(memory.lines.some((l) => /^\| Release build +\| "pymalloc" +\| malloc /.test(l)));
  const mpm = await run(await Deno.readFile(join(dir, "html/apache2-doc/en/mod/mpm_common.html")));
  assert(mpm.lines.filter((l) => /^\| Syntax: +\|/.test(l)).length > 10, "directive tables");
});

const FONTCONFIG = "/usr/share/doc/fontconfig/fontconfig-user.html";

Deno.test("html() keeps the text of a heading that looks like a tag", async () => {
  const doc = await run("<h3>&lt;fontconfig&gt;</h3><p>Root &lt;b&gt;</p><h3>&lt;dir&gt; x</h3>");
  assertEquals(doc.headings?.map((h) => h.title), ["<fontconfig>", "<dir> x"]);
});

Deno.test({
  name: "html() titles every heading of the fontconfig manual",
  ignore: !existsSync(FONTCONFIG),
  fn: async () => {
    const titles = (await realPage(FONTCONFIG))!.headings?.map((h) => h.title) ?? [];
    assert(titles.length > 40, `${titles.length} headings`);
    assertEquals(titles.filter((t) => !/[\p{L}\p{N}]/u.test(t)), [], "titles without a word");
    assert(titles.includes('<dir prefix="default" salt="">'), titles.join(" / "));
  },
});

/** A soft deadline that has passed from its `k`-th read on (as `extraction/host.ts` reads one). */
function passesAtRead(k: number): AbortSignal & { reads: number } {
  const signal = Object.assign(new AbortController().signal, { reads: 0 });
  Object.defineProperty(signal, "aborted", { get: () => ++signal.reads >= k });
  return signal;
}

/** A page of `n` sections, about 60 characters and 4 tags each. */
const longPage = (n: number) =>
  Array.from({ length: n }, (_, i) => `<h2>Part ${i}</h2><p>quokka number ${i} here</p>\n`).join(
    "",
  );

Deno.test("html() stops at the soft deadline while it scans a long page, before converting it", async () => {
  // 16,000 tags in 4 pieces: the passes over the page (chrome, pieces) read the deadline
  // every 1,024 tags; before, only the conversion did, between pieces, so a 50 MB page
  // took seconds of CPU past the deadline before its first read.
  const bytes = enc(longPage(4000));
  const doc = await cutBeforeText(html(), "l/long.html", bytes, passesAtRead(2));
  assertEquals(doc.warnings, ["time limit reached before the page was converted"]);
});

Deno.test("html() cut at the soft deadline gives the start of the page", async () => {
  const bytes = enc(longPage(4000));
  const count = passesAtRead(Infinity);
  const whole = await html().extract({
    path: "l/long.html",
    extension: ".html",
    bytes,
    signal: count,
  });
  assert(whole.lines.length > 12_000);
  const cuts = new Set<number>();
  // the last 4 reads come before the 4 pieces: cut in the passes, between pieces, never
  for (const k of [2, count.reads - 2, count.reads - 1, count.reads + 1]) {
    const signal = passesAtRead(k);
    const doc = await html().extract({ path: "l/long.html", extension: ".html", bytes, signal });
    assertEquals(doc.lines, whole.lines.slice(0, doc.lines.length));
    assertEquals(doc.headings, whole.headings!.slice(0, doc.headings!.length));
    if (doc.lines.length < whole.lines.length) assert(/time limit/.test(doc.warnings![0]!));
    cuts.add(doc.lines.length);
  }
  assertEquals(cuts.size, 4, [...cuts].join(" "));
  assert(cuts.has(0) && cuts.has(whole.lines.length));
});
