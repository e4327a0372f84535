import { join } from "node:path";
import { assert, assertEquals, assertRejects } from "../tests/assert.ts";
import { groundTruth, smallCorpus, titleF1, type Truth } from "../tests/corpus.ts";
import { type Extracted, ExtractError } from "../core/extractor.ts";
import {
  followsNumber,
  numberingDepth,
  pdfHeadings,
  type PdfLine,
  sectionNumber,
} from "./_headings_pdf.ts";
import { cleanTitle, pdf } from "./pdf.ts";
import { hasCommand, noteMissing } from "../tests/have.ts";
import { pdftotextPage } from "../tests/pdftotext.ts";

const ex = pdf();
const cache = new Map<string, Promise<Extracted>>();

function extract(dir: string, rel: string): Promise<Extracted> {
  let p = cache.get(rel);
  if (!p) {
    p = Deno.readFile(join(dir, rel)).then((bytes) =>
      ex.extract({ path: rel, extension: ".pdf", bytes })
    );
    cache.set(rel, p);
  }
  return p;
}

async function pdfRows(prefix: string): Promise<[string, Truth[]]> {
  const dir = await smallCorpus();
  const rows = [...(await groundTruth(dir)).values()].filter((r) =>
    r.path.startsWith(prefix) && r.path.endsWith(".pdf") && r.headings
  );
  assert(rows.length > 0, `no ${prefix} PDFs in the corpus`);
  return [dir, rows];
}

/** Tools the comparisons need; a test without its tool is reported as ignored. */
const noPdftotext = noteMissing(
  !(await hasCommand("pdftotext")),
  "pdftotext missing (apt-get install -y poppler-utils): page-40 comparison not run",
);
const noQpdf = noteMissing(
  !(await hasCommand("qpdf")),
  "qpdf missing (apt-get install -y qpdf): encrypted-PDF case not run",
);

/** Numbering-insensitive title: the bookmarks of TeXinfo manuals drop section numbers. */
const unnumbered = (t: string) =>
  t.replace(/^(\d+(\.\d+)*\.?|[A-Z](\.\d+)+|Appendix [A-Z])\s+/, "");

Deno.test("pdf: bookmarks match the ground truth in titles and pages", async () => {
  const [dir, rows] = await pdfRows("pdf-manuals/");
  let f1Sum = 0;
  let matched = 0;
  let pageOk = 0;
  for (const row of rows) {
    const doc = await extract(dir, row.path);
    assertEquals(doc.outlineQuality, "high", row.path);
    const hs = doc.headings ?? [];
    const truth = row.headings!;
    f1Sum += titleF1(hs.map((h) => h.title), truth.map((h) => h.title));
    // Pair headings with the truth in order by title.
    let j = 0;
    for (const t of truth) {
      while (j < hs.length && hs[j]!.title !== t.title) j++;
      if (j >= hs.length) break;
      matched++;
      if (hs[j]!.page === t.page) pageOk++;
      j++;
    }
    for (const h of hs) {
      assert(h.line >= 1 && h.line <= doc.lines.length, `${row.path}: line ${h.line} out of range`);
      if (h.page) {
        const start = doc.pages![h.page - 1]!;
        const end = doc.pages![h.page] ?? doc.lines.length + 1;
        assert(h.line >= start && h.line < end, `${row.path}: "${h.title}" not on page ${h.page}`);
      }
    }
  }
  const f1 = f1Sum / rows.length;
  const pageRate = pageOk / Math.max(matched, 1);
  console.log(
    `bookmarks: ${rows.length} PDFs, mean title F1 ${f1.toFixed(3)}, ` +
      `page exact ${pageOk}/${matched} = ${pageRate.toFixed(3)}`,
  );
  assert(f1 >= 0.98, `mean title F1 ${f1}`);
  assert(pageRate >= 0.95, `page exact rate ${pageRate}`);
});

Deno.test("pdf: bookmark lines point at the heading text", async () => {
  const [dir, rows] = await pdfRows("pdf-manuals/");
  let found = 0;
  let total = 0;
  for (const row of rows) {
    const doc = await extract(dir, row.path);
    for (const h of doc.headings ?? []) {
      total++;
      const norm = (s: string) => s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "");
      if (norm(doc.lines[h.line - 1]!).includes(norm(h.title).slice(0, 20))) found++;
    }
  }
  console.log(`bookmark titles found on their line: ${found}/${total}`);
  assert(found / total >= 0.9, `${found}/${total}`);
});

Deno.test("pdf: headings of PDFs without bookmarks come from font sizes", async () => {
  const [dir, rows] = await pdfRows("pdf-plain/");
  let strict = 0;
  let lenient = 0;
  for (const row of rows) {
    const doc = await extract(dir, row.path);
    assertEquals(doc.outlineQuality, "medium", row.path);
    const found = (doc.headings ?? []).map((h) => h.title);
    const truth = row.headings!.map((h) => h.title);
    strict += titleF1(found, truth);
    lenient += titleF1(found.map(unnumbered), truth.map(unnumbered));
    for (const h of doc.headings ?? []) assert(h.level >= 1 && h.page! >= 1);
  }
  strict /= rows.length;
  lenient /= rows.length;
  console.log(
    `heuristic headings: ${rows.length} PDFs, mean title F1 ${lenient.toFixed(3)} ` +
      `(section numbers ignored), ${strict.toFixed(3)} strict`,
  );
  assert(lenient >= 0.9, `heuristic F1 ${lenient}`);
});

Deno.test("pdf: without bookmarks, the title page, contents entries, running heads and list items are not headings", async () => {
  const dir = await smallCorpus();
  const doc = await extract(dir, "pdf-plain/bash-doc/bashref.pdf");
  const hs = doc.headings ?? [];
  const titles = hs.map((h) => h.title);
  // Page 1 is the title page (title, edition, authors).
  assertEquals(hs.filter((h) => h.page === 1), []);
  // Before the first chapter: the contents' own title, none of its entries (one of which
  // wraps: "Appendix B Major Differences From / The Bourne Shell ... 171").
  assertEquals(titles.slice(0, titles.indexOf("1 Introduction")), ["Table of Contents"]);
  // Running heads ("Chapter 3: Basic Shell Features 14") are not headings.
  assert(!titles.some((t) => /^Chapter \d+:/.test(t)), "a running head became a heading");
  // Numbered lines out of the section sequence are list items: the test builtin's
  // "0 arguments" ... "3 arguments", the licence's "0. PREAMBLE", "1. APPLICABILITY ...".
  const items = titles.filter((t) => /^[0-3] arguments?$|^\d+\. [A-Z]{4}/.test(t));
  assertEquals(items, []);
  for (const t of ["3.1.2.1 Escape Character", "6.4 Bash Conditional Expressions"]) {
    assert(titles.includes(t), `missing "${t}"`);
  }
  // Each heading's line lies on its page.
  for (const h of hs) {
    const start = doc.pages![h.page! - 1]!;
    const end = doc.pages![h.page!] ?? doc.lines.length + 1;
    assert(h.line >= start && h.line < end, `"${h.title}" not on page ${h.page}`);
    assert(doc.lines[h.line - 1]!.startsWith(h.title.split(" ")[0]!), `"${h.title}" line`);
  }
});

Deno.test({
  name:
    "pdf: copies of the small corpus's manuals without bookmarks (qpdf) get headings close to the bookmarks",
  ignore: noQpdf,
}, async () => {
  const dir = await smallCorpus();
  const rows = [...(await groundTruth(dir)).values()].filter((r) =>
    r.path.startsWith("pdf-manuals/") && r.headings?.length
  );
  assert(rows.length > 0);
  const tmp = await Deno.makeTempDir();
  try {
    let sum = 0;
    for (const row of rows) {
      const out = join(tmp, "copy.pdf");
      const r = await new Deno.Command("qpdf", {
        args: ["--empty", "--pages", join(dir, row.path), "1-z", "--", out],
      }).output();
      assert(r.success, `qpdf failed on ${row.path}`);
      const doc = await ex.extract({
        path: out,
        extension: ".pdf",
        bytes: await Deno.readFile(out),
      });
      assertEquals(doc.outlineQuality, "medium", row.path);
      const f1 = titleF1(
        (doc.headings ?? []).map((h) => unnumbered(h.title)),
        row.headings!.map((h) => unnumbered(h.title)),
      );
      console.log(`  ${row.path} without bookmarks: heading F1 ${f1.toFixed(3)}`);
      assert(f1 >= 0.85, `${row.path}: F1 ${f1}`);
      sum += f1;
    }
    assert(sum / rows.length >= 0.9, `mean F1 ${sum / rows.length}`);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("pdf: pages[] is increasing and has one entry per page", async () => {
  const dir = await smallCorpus();
  const rows = [...(await groundTruth(dir)).values()].filter((r) =>
    /^pdf-(manuals|plain)\//.test(r.path) && typeof r.pages === "number"
  );
  assert(rows.length > 0);
  for (const row of rows) {
    const doc = await extract(dir, row.path);
    assertEquals(doc.pages!.length, row.pages, row.path);
    assertEquals(doc.pages![0], 1);
    for (let i = 1; i < doc.pages!.length; i++) {
      assert(doc.pages![i]! > doc.pages![i - 1]!, `${row.path}: pages[${i}]`);
    }
    assert(doc.pages![doc.pages!.length - 1]! <= doc.lines.length);
    for (const l of doc.lines) assert(!/[\n\r]/.test(l), `${row.path}: newline inside a line`);
  }
});

Deno.test({
  name: "pdf: text of page 40 lies within that page's lines (checked against pdftotext)",
  ignore: noPdftotext,
}, async () => {
  const dir = await smallCorpus();
  const rel = "pdf-manuals/bash-doc/bashref.pdf";
  const out = await new Deno.Command("pdftotext", {
    args: ["-f", "40", "-l", "40", join(dir, rel), "-"],
    stdout: "piped",
  }).output();
  assert(out.success);
  // Phrases of poppler's page 40: lines of 4+ plain words, away from the page edges.
  const popLines = new TextDecoder().decode(out.stdout).split("\n").map((l) => l.trim())
    .filter((l) => /^[A-Za-z][A-Za-z ,]{25,}$/.test(l) && l.split(" ").length >= 4);
  assert(popLines.length >= 3, "no usable phrase on page 40");
  const doc = await extract(dir, rel);
  const [from, to] = [doc.pages![39]!, doc.pages![40]!];
  const squash = (s: string) => s.replace(/\s+/g, " ").trim();
  for (const phrase of popLines.slice(1, 4)) {
    const want = squash(phrase).split(" ").slice(0, 4).join(" ");
    const at = doc.lines.findIndex((l, i) => i + 1 >= from && i + 1 < to && l.includes(want));
    assert(at >= 0, `"${want}" not found on lines [${from}, ${to})`);
  }
});

Deno.test("pdf: a truncated PDF is refused as corrupt, without a hang", async () => {
  const dir = await smallCorpus();
  const bytes = await Deno.readFile(join(dir, "pdf-manuals/r-doc-pdf/R-data.pdf"));
  const cut = bytes.slice(0, Math.floor(bytes.length * 0.3));
  // pdf.js 6.5 rejects these files ("Invalid PDF structure": the page tree lies in the
  // missing part), so the extractor reports `corrupt`, without crashing (or hanging).
  const cutErr = await assertRejects(() =>
    ex.extract({ path: "x/cut.pdf", extension: ".pdf", bytes: cut })
  );
  assert(cutErr instanceof ExtractError, `unexpected ${cutErr}`);
  assertEquals(cutErr.reason, "corrupt");
  const junk = new TextEncoder().encode("%PDF-1.4\nthis is not a pdf at all\n");
  const e = await assertRejects(() =>
    ex.extract({ path: "x/junk.pdf", extension: ".pdf", bytes: junk })
  );
  assert(e instanceof ExtractError);
  assertEquals(e.reason, "corrupt");
});

Deno.test("pdf: an empty PDF is refused with reason empty", async () => {
  const empty = await assertRejects(() =>
    ex.extract({ path: "x/e.pdf", extension: ".pdf", bytes: new Uint8Array() })
  );
  assert(empty instanceof ExtractError);
  assertEquals(empty.reason, "empty");
});

Deno.test({
  name: "pdf: an encrypted PDF (made with qpdf) is refused with reason encrypted",
  ignore: noQpdf,
}, async () => {
  const dir = await smallCorpus();
  const tmp = await Deno.makeTempDir();
  try {
    const out = join(tmp, "enc.pdf");
    const r = await new Deno.Command("qpdf", {
      args: [
        "--encrypt",
        "user",
        "owner",
        "256",
        "--",
        join(dir, "pdf-manuals/r-doc-pdf/R-data.pdf"),
        out,
      ],
    }).output();
    assert(r.success, "qpdf failed");
    const bytes = await Deno.readFile(out);
    const e = await assertRejects(() =>
      ex.extract({ path: "x/enc.pdf", extension: ".pdf", bytes })
    );
    assert(e instanceof ExtractError, String(e));
    assertEquals(e.reason, "encrypted");
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("pdf: an aborted signal returns a partial result with a warning", async () => {
  const dir = await smallCorpus();
  const bytes = await Deno.readFile(join(dir, "pdf-manuals/r-doc-pdf/R-FAQ.pdf"));
  let calls = 0;
  const signal = new AbortController().signal;
  Object.defineProperty(signal, "aborted", { get: () => ++calls > 5 });
  const doc = await ex.extract({ path: "x/a.pdf", extension: ".pdf", bytes, signal });
  assertEquals(doc.pages!.length, 5);
  assert(doc.warnings?.some((w) => /stopped at page 6/.test(w)));
});

Deno.test("pdf: metadata and title cleaning", async () => {
  const dir = await smallCorpus();
  const doc = await extract(dir, "pdf-manuals/developers-reference/developers-reference.pdf");
  assertEquals(doc.meta?.title, "Debian Developer's Reference");
  assertEquals(cleanTitle("Microsoft Word - Annual report.doc"), undefined);
  assertEquals(cleanTitle("Microsoft Word - Annual report"), "Annual report");
  assertEquals(cleanTitle("thesis.dvi"), undefined);
  assertEquals(cleanTitle("  Untitled "), undefined);
  assertEquals(cleanTitle("R Data Import/Export"), "R Data Import/Export");
});

Deno.test("headings_pdf: sizes give levels, running headers and page numbers are dropped", () => {
  assertEquals(numberingDepth("2.3 Files"), 2);
  assertEquals(numberingDepth("Chapter 4: Shells"), 1);
  assertEquals(numberingDepth("Bash is a shell"), 0);
  // Section numbers in sequence: a next sibling, a first child, a return to a parent's level.
  assertEquals(sectionNumber("2.3 Files"), [2, 3]);
  assertEquals(sectionNumber("1 : b <- {0, 1}"), undefined);
  for (
    const [prev, next, ok] of [
      [[2, 3], [2, 4], true],
      [[2, 3], [2, 3, 1], true],
      [[2, 3, 4], [3], true],
      [[2, 3], [1], false],
      [[2, 3], [2, 3, 5], false],
      [[4, 1], [7], false],
    ] as [number[], number[], boolean][]
  ) assertEquals(followsNumber(prev, next), ok, `${prev} ${next}`);
  const lines: PdfLine[] = [];
  let n = 0;
  for (let p = 1; p <= 6; p++) {
    const rows: [string, number, boolean][] = [
      [`Chapter ${p}: Basics ${p + 3}`, 10, false],
      ...(p % 2
        ? [[`${p} Big Part ${"ABCDEF"[p - 1]}`, 17, true] as [string, number, boolean]]
        : []),
      [`${p}.1 Small part ${"abcdef"[p - 1]}`, 14, true],
      ["Body text goes on and on in this paragraph for a while.", 10, true],
      ["more body text that is long enough to be body text here", 10, false],
      ["and yet more body text that is long enough to be body text", 10, false],
      ["and the last line of body text on this page of the document", 10, false],
      [String(p + 3), 10, true],
    ];
    rows.forEach(([text, size, gapBefore], index) =>
      lines.push({
        text,
        line: ++n,
        page: p,
        size,
        bold: false,
        index,
        ofPage: rows.length,
        gapBefore,
      })
    );
  }
  const { headings, quality } = pdfHeadings(lines, 6);
  assertEquals(quality, "medium");
  assertEquals(headings.map((h) => [h.level, h.title]).slice(0, 3), [
    [1, "1 Big Part A"],
    [2, "1.1 Small part a"],
    [2, "2.1 Small part b"],
  ]);
  assertEquals(headings.length, 9);
  assertEquals(pdfHeadings([], 0).quality, "none");
});

// Layout test files made with LibreOffice from corpus text (testdata/layout/, rebuilt by
// make_layout_pdfs.sh): the sources are the ground truth.
const layoutDir = new URL("./testdata/layout/", import.meta.url);
const layoutPdf = async (name: string) => {
  const bytes = await Deno.readFile(new URL(name, layoutDir));
  return await ex.extract({ path: name, extension: ".pdf", bytes });
};

Deno.test("pdf: a two-column page is read column by column, each paragraph whole", async () => {
  const source = await Deno.readTextFile(new URL("two-columns.fodt", layoutDir));
  const paragraphs = [...source.matchAll(/<text:p text:style-name="Body">(.*?)<\/text:p>/g)]
    .map((m) => flat(decodeXml(m[1]!)));
  assert(paragraphs.length > 15, `${paragraphs.length} paragraphs in the source`);
  const doc = await layoutPdf("two-columns.pdf");
  // Compared without white space and hyphens: a line broken after a hyphen ("x86 64-" /
  // "unknown", "Unix-" / "like" joined to "Unixlike") is not a paragraph broken by the layout.
  const text = flat(doc.lines.join(""));
  let from = 0;
  for (const p of paragraphs) {
    const at = text.indexOf(p, from);
    assert(at >= 0, `paragraph missing, split or out of order: "${p.slice(0, 60)}…"`);
    from = at + p.length;
  }
  assertEquals(doc.lines[0], "R Basics, in Two Columns", "the full-width title first");
});

Deno.test("pdf: running headers and 'Page N of M' footers are dropped, pages stay", async () => {
  const doc = await layoutPdf("two-columns.pdf");
  const pages = doc.pages ?? [];
  assertEquals(pages.length, 3);
  const edge = doc.lines.filter((l) => /Frequently Asked Questions|^Page \d+ of \d+$/.test(l));
  assertEquals(edge, []);
  if (!noPdftotext) {
    const file = new URL("two-columns.pdf", layoutDir).pathname;
    for (const [i, start] of pages.entries()) {
      const page = squash(await pdftotextPage(file, i + 1));
      assert(page.includes(squash("Frequently Asked Questions")), "the header is in the PDF");
      const end = pages[i + 1] ?? doc.lines.length + 1;
      const lines = doc.lines.slice(start - 1, end - 1).filter((l) => l.length > 20);
      assert(lines.length > 30);
      // pdftotext joins a word broken at a line end: compare without the hyphen.
      const on = (l: string) => page.includes(squash(l.replace(/-$/, "")));
      assertEquals(lines.filter((l) => !on(l)), [], `page ${i + 1}`);
    }
  }
});

Deno.test("pdf: table rows come out as rows, their cells in order joined by ' | '", async () => {
  const source = await Deno.readTextFile(new URL("tables.html", layoutDir));
  const rows = [...source.matchAll(/<tr>\s*((?:<td>.*?<\/td>\s*)+)<\/tr>/g)].map((m) =>
    [...m[1]!.matchAll(/<td>(.*?)<\/td>/g)].map((c) => decodeXml(c[1]!)).join(" | ")
  );
  assertEquals(rows.length, 30);
  const doc = await layoutPdf("tables.pdf");
  let from = 0;
  for (const row of rows) {
    const at = doc.lines.indexOf(row, from);
    assert(at >= 0, `row "${row}" not a line (in order) of:\n${doc.lines.join("\n")}`);
    from = at + 1;
  }
  // The prose between the tables stays prose.
  assert(doc.lines.some((l) => l.startsWith("Many of these are available") && !l.includes("|")));
});

/** Text of an XML/HTML element's content: tags out, the five entities decoded. */
function decodeXml(s: string): string {
  return s.replace(/<[^>]*>/g, "").replace(/&lt;/g, "<").replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"').replace(/&#x27;|&apos;/g, "'").replace(/&amp;/g, "&");
}

/** Text without white space and hyphens, for comparing a paragraph with lines. */
const flat = (s: string) => squash(s).replaceAll("-", "");

/** Text compared with pdftotext's: NFKC, no white space. */
const squash = (s: string) => s.normalize("NFKC").replace(/\s+/g, "");

Deno.test("pdf: letting pdf.js drop what it parsed after every page changes nothing", async () => {
  // The default drops every 50 pages; dropping after each page parses everything again
  // (pages, resources, page-tree nodes) on every page, in PDFs with and without bookmarks.
  const dir = await smallCorpus();
  const dropping = pdf({ dropEvery: 1 });
  const keeping = pdf({ dropEvery: 0 });
  for (
    const rel of [
      "pdf-manuals/r-doc-pdf/R-FAQ.pdf",
      "pdf-manuals/bash-doc/bashref.pdf",
      "nested/Home/Documents/manual without bookmarks.pdf",
    ]
  ) {
    const bytes = await Deno.readFile(join(dir, rel));
    const kept = await keeping.extract({ path: rel, extension: ".pdf", bytes });
    const dropped = await dropping.extract({ path: rel, extension: ".pdf", bytes });
    assert(kept.pages!.length > 20, `${rel}: ${kept.pages!.length} pages`);
    assertEquals(dropped, kept, rel);
  }
});
