import { join } from "node:path";
import { Zip, ZipDeflate, zipSync } from "fflate";
import { assert, assertEquals, assertRejects } from "../tests/assert.ts";
import { groundTruth, smallCorpus, titleF1 } from "../tests/corpus.ts";
import { ExtractError } from "../core/extractor.ts";
import { epub } from "./epub.ts";
import { corpusLinks } from "./_links_check.ts";
import { cutBeforeText } from "./_deadline_check.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const run = (bytes: Uint8Array, path = "l/b.epub") =>
  epub().extract({ path, extension: ".epub", bytes });

async function corpusFile(rel: string): Promise<Uint8Array> {
  return await Deno.readFile(join(await smallCorpus(), rel));
}

/** Plain text of a line, for comparing it with a heading title. */
const plain = (s: string) => s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim();

Deno.test("epub() heading F1 over ebooks/ is at least 0.95, every entry on its heading line", async () => {
  const dir = await smallCorpus();
  const truth = await groundTruth(dir);
  const scores: string[] = [];
  let sum = 0;
  for (const [path, row] of truth) {
    if (!path.startsWith("ebooks/")) continue;
    const doc = await run(await Deno.readFile(join(dir, path)), path);
    const f1 = titleF1(
      (doc.headings ?? []).map((h) => h.title),
      (row.headings ?? []).map((h) => h.title),
    );
    sum += f1;
    scores.push(`${f1.toFixed(3)} ${path}`);
    assertEquals(doc.outlineQuality, "high");
    for (const h of doc.headings ?? []) {
      const line = doc.lines[h.line - 1] ?? "";
      assert(plain(line).includes(plain(h.title)), `${path}: "${h.title}" -> L${h.line} "${line}"`);
    }
  }
  const mean = sum / scores.length;
  console.log(
    `epub heading F1: mean ${mean.toFixed(3)} over ${scores.length} files\n  ` +
      scores.join("\n  "),
  );
  assert(scores.length >= 5, "too few EPUB files with ground truth");
  assert(mean >= 0.95, `mean F1 ${mean}`);
});

Deno.test("epub() reads OPF metadata and keeps spine order", async () => {
  const doc = await run(await corpusFile("ebooks/shipped/debian-policy.epub"));
  assertEquals(doc.meta, {
    title: "Debian Policy Manual",
    author: "The Debian Policy Mailing List",
    language: "en",
    created: "2022-12-17T02:41:44Z",
  });
  const titles = doc.headings!.map((h) => h.title);
  assertEquals(titles.slice(0, 3), [
    "Debian Policy Manual",
    "About this manual",
    "About this manual",
  ]);
  assertEquals(doc.headings![3], { level: 2, title: "Scope", line: doc.headings![3]!.line });
  const lines = doc.headings!.map((h) => h.line);
  for (let i = 1; i < lines.length; i++) {
    assert(lines[i]! >= lines[i - 1]!, "outline goes backwards");
  }
  const ja = await run(await corpusFile("ebooks/from-html/apache-manual-ja.epub"));
  assertEquals(ja.meta?.language, "ja");
  assert(ja.headings!.some((h) => h.title === "バインド"));
});

/** A minimal EPUB 3 without an NCX, `mimetype` not first, its `dc:title` given as markup. */
function tinyEpub(nav: boolean, title = "Tiny &amp; Book"): Uint8Array {
  const chapter = (t: string, s: string) =>
    enc(`<?xml version="1.0" encoding="UTF-8"?><html xmlns="http://www.w3.org/1999/xhtml">
<head><title>${t}</title></head><body><h1 id="top">${t}</h1><p>Intro of ${t}.</p>
<h2 id="s">${s}</h2><p>Body text.</p></body></html>`);
  return zipSync({
    "META-INF/container.xml": enc(`<?xml version="1.0"?><container version="1.0"
 xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles>
<rootfile full-path="OPS/book.opf" media-type="application/oebps-package+xml"/></rootfiles></container>`),
    "OPS/book.opf": enc(
      `<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0">
<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>${title}</dc:title>
<dc:creator>Ann Author</dc:creator><dc:language>de</dc:language>
<dc:subject>Fiction</dc:subject><dc:subject>Sea &amp; ships</dc:subject></metadata><manifest>
${
        nav
          ? '<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>'
          : ""
      }
<item id="b" href="text/two%20b.xhtml" media-type="application/xhtml+xml"/>
<item id="a" href="text/one.xhtml" media-type="application/xhtml+xml"/></manifest>
<spine><itemref idref="a"/><itemref idref="b"/></spine></package>`,
    ),
    "OPS/nav.xhtml": enc(`<html xmlns:epub="http://www.idpf.org/2007/ops"><body>
<nav epub:type="toc"><ol><li><a href="text/one.xhtml">First chapter</a><ol>
<li><a href="text/one.xhtml#s">Sub one</a></li></ol></li>
<li><a href="text/two%20b.xhtml#top">Second</a></li></ol></nav></body></html>`),
    "OPS/text/one.xhtml": chapter("First", "Sub one"),
    "OPS/text/two b.xhtml": chapter("Second", "Sub two"),
    "mimetype": enc("application/epub+zip"),
  });
}

Deno.test("epub() uses the nav document, and falls back to headings without a TOC", async () => {
  const doc = await run(tinyEpub(true));
  assertEquals(doc.meta, {
    title: "Tiny & Book",
    author: "Ann Author",
    language: "de",
    fields: { tags: ["Fiction", "Sea & ships"] },
  });
  const hs = doc.headings!.map((h) => [h.level, h.title, doc.lines[h.line - 1]]);
  assertEquals(hs, [
    [1, "First chapter", "# First"],
    [2, "Sub one", "## Sub one"],
    [1, "Second", "# Second"],
  ]);
  const bare = await run(tinyEpub(false));
  assertEquals(bare.headings!.map((h) => h.title), ["First", "Sub one", "Second", "Sub two"]);
  assertEquals(bare.outlineQuality, "high");
});

Deno.test("epub() refuses a zip bomb, a non-zip and an empty file", async () => {
  const parts: Uint8Array[] = [];
  const zip = new Zip((e, chunk) => {
    if (e) throw e;
    parts.push(chunk);
  });
  const entry = new ZipDeflate("OPS/ch.xhtml", { level: 6 });
  zip.add(entry);
  const mb = new Uint8Array(1 << 20).fill(0x20);
  for (let i = 0; i < 210; i++) entry.push(mb, i === 209);
  zip.end();
  const bomb = new Uint8Array(await new Blob(parts as Uint8Array<ArrayBuffer>[]).arrayBuffer());
  const err = await assertRejects(() => run(bomb));
  assert(err instanceof ExtractError);
  assertEquals(err.reason, "too_large");
  const err2 = await assertRejects(() => run(enc("not an ebook")));
  assert(err2 instanceof ExtractError);
  assertEquals(err2.reason, "corrupt");
  const err3 = await assertRejects(() => run(new Uint8Array(0)));
  assert(err3 instanceof ExtractError);
  assertEquals(err3.reason, "empty");
  const err4 = await assertRejects(() => run(zipSync({ "x.txt": enc("x") })));
  assert(err4 instanceof ExtractError);
  assertEquals(err4.reason, "corrupt");
});

Deno.test("epub() keeps link text in the lines and the links apart, on book lines", async () => {
  const links = await corpusLinks(epub(), (p) => p.endsWith(".epub"));
  assert(links > 1000, `${links} links`);
  const book = await run(await corpusFile("ebooks/shipped/debian-policy.epub"));
  const link = book.links?.find((l) => l.target === "ch-controlfields.xhtml#s-f-dm-upload-allowed");
  assert(link, "a table-of-contents link of a later chapter");
  assert(book.lines[link.line - 1]!.includes("DM-Upload-Allowed"), book.lines[link.line - 1]);
  // a link in the last chapter lands on its line of the book, not of the chapter
  const last = book.links!.at(-1)!;
  assert(book.lines[last.line - 1]!.includes(last.text.split(" ")[0]!), JSON.stringify(last));
});

Deno.test("epub() decodes every named character reference in the book's title", async () => {
  const doc = await run(tinyEpub(true, "Caf&eacute; &euro; men&uuml;"));
  assertEquals(doc.meta?.title, "Café € menü");
});

Deno.test("epub() cut at the soft deadline before its first chapter is a partial book, not empty", async () => {
  await cutBeforeText(epub(), "l/a.epub", await corpusFile("ebooks/shipped/debian-policy.epub"));
});

Deno.test("epub() maps table-of-contents entries to the heading at or after their id", async () => {
  const book = zipSync({
    "META-INF/container.xml": enc(`<container><rootfiles>
<rootfile full-path="book.opf" media-type="application/oebps-package+xml"/></rootfiles></container>`),
    "book.opf": enc(`<package xmlns="http://www.idpf.org/2007/opf" version="3.0"><metadata/>
<manifest><item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>
<item id="a" href="a.xhtml" media-type="application/xhtml+xml"/></manifest>
<spine><itemref idref="a"/></spine></package>`),
    // Labels unlike the headings: only the ids lead to them.
    "nav.xhtml": enc(`<html><body><nav epub:type="toc"><ol><li><a href="a.xhtml#x">Part A</a></li>
<li><a href="a.xhtml#y">Part B</a></li><li><a href="a.xhtml#it's">Part C</a></li>
<li><a href="a.xhtml#gone">Part D</a></li></ol></nav></body></html>`),
    // An id on a heading, on the element around one, with a quote in it, and given twice.
    "a.xhtml": enc(`<html><body><h1 id="x">Alpha</h1><p>One.</p><div id="y"><h2>Beta</h2>
<p>Two.</p></div><h2 id="it's">Gamma</h2><p id="x">Three.</p><h2>Delta</h2><p>Four.</p></body></html>`),
  });
  const doc = await run(book);
  assertEquals(doc.headings!.map((h) => [h.title, doc.lines[h.line - 1]]), [
    ["Part A", "# Alpha"],
    ["Part B", "## Beta"],
    ["Part C", "## Gamma"],
    ["Part D", "## Gamma"],
  ]);
});
