import { join } from "node:path";
import { strToU8, zipSync } from "fflate";
import { zipBomb } from "../tests/zip_bomb.ts";
import { assert, assertEquals, assertRejects } from "../tests/assert.ts";
import { groundTruth, smallCorpus, titleF1 } from "../tests/corpus.ts";
import { ExtractError } from "../core/extractor.ts";
import { docx } from "./docx.ts";
import { corpusLinks } from "./_links_check.ts";
import { cutBeforeText } from "./_deadline_check.ts";

const run = (bytes: Uint8Array, path = "l/a.docx") =>
  docx().extract({ path, extension: ".docx", bytes });

async function corpusFile(rel: string): Promise<Uint8Array> {
  return await Deno.readFile(join(await smallCorpus(), rel));
}

Deno.test("docx() heading F1 over word/ is at least 0.95", async () => {
  const dir = await smallCorpus();
  const truth = await groundTruth(dir);
  const scores: number[] = [];
  let bold = 0;
  for (const [path, row] of truth) {
    if (!path.startsWith("word/") || !path.endsWith(".docx")) continue;
    const doc = await run(await Deno.readFile(join(dir, path)), path);
    const f1 = titleF1(
      (doc.headings ?? []).map((h) => h.title),
      (row.headings ?? []).map((h) => h.title),
    );
    if (path.includes("bold-pseudo-headings")) {
      bold = f1;
      assertEquals(doc.outlineQuality, "medium");
    } else assertEquals(doc.outlineQuality, "high", path);
    scores.push(f1);
  }
  const mean = scores.reduce((a, b) => a + b, 0) / scores.length;
  console.log(
    `docx heading F1: mean ${mean.toFixed(3)} over ${scores.length} files; ` +
      `bold pseudo-headings ${bold.toFixed(3)}`,
  );
  assert(scores.length >= 10, "too few DOCX files with ground truth");
  assert(mean >= 0.95, `mean F1 ${mean}`);
  assert(bold >= 0.9, `bold pseudo-heading F1 ${bold}`);
});

Deno.test("docx() reads metadata from docProps/core.xml, the Title paragraph is no heading", async () => {
  const doc = await run(await corpusFile("word/from-html/python3.11-doc/library_2to3.docx"));
  assertEquals(
    doc.meta?.title,
    "2to3 — Automated Python 2 to 3 code translation — Python 3.11.2 documentation",
  );
  assertEquals(doc.meta?.language, "en");
  assertEquals(doc.meta?.created, "2023-11-14T22:13:20Z");
  assert(!doc.headings?.some((h) => h.title.includes("Python 3.11.2 documentation")));
  assertEquals(doc.headings?.[0]?.title, "2to3 — Automated Python 2 to 3 code translation");
  assertEquals(doc.headings?.[0]?.level, 1);
  const line = doc.lines[doc.headings![0]!.line - 1]!;
  assert(line.startsWith("# 2to3"), line);
  const ja = await run(await corpusFile("word/from-html/apache2-doc/ja_bind.docx"));
  assertEquals(ja.meta?.title, "バインド - Apache HTTP サーバ バージョン 2.4");
  assertEquals(ja.meta?.language, "ja");
});

Deno.test("docx() keeps tables as Markdown tables and code as fenced blocks", async () => {
  const doc = await run(
    await corpusFile("word/edge-cases/tables-postgresql-datatype-numeric.docx"),
  );
  const rows = doc.lines.filter((l) => /^\|.*\|$/.test(l));
  assert(rows.length > 10, `only ${rows.length} table rows`);
  assert(rows.some((l) => /^\|\s*smallint\s*\|\s*2 bytes/.test(l)));
  assert(doc.lines.some((l) => /^\| -+ \|/.test(l)), "no table separator row");
  assert(doc.lines.includes("```"));
});

Deno.test("docx() drops images instead of embedding them", async () => {
  const doc = await run(await corpusFile("word/edge-cases/images-sqlite-atomiccommit.docx"));
  assert(!doc.lines.some((l) => l.includes("base64") || l.includes("data:image")));
  assert(doc.lines.length > 100);
});

Deno.test("docx() refuses a zip bomb with too_large, without inflating it", async () => {
  const bomb = zipBomb("word/document.xml", 310);
  assert(bomb.length < 2_000_000, `bomb is ${bomb.length} bytes`);
  const before = Deno.memoryUsage().rss;
  const err = await assertRejects(() => run(bomb));
  const grown = Deno.memoryUsage().rss - before;
  assert(err instanceof ExtractError, String(err));
  assertEquals(err.reason, "too_large");
  assert(grown < 100 * 1024 * 1024, `memory grew by ${grown} bytes`);
});

Deno.test("docx() refuses a non-zip with corrupt and an empty file with empty", async () => {
  const text = new TextEncoder().encode("This is not a Word document.\n".repeat(20));
  const err = await assertRejects(() => run(text));
  assert(err instanceof ExtractError);
  assertEquals(err.reason, "corrupt");
  const truncated = (await corpusFile("word/from-markdown/npm/CONTRIBUTING.docx")).slice(0, 3000);
  const err2 = await assertRejects(() => run(truncated));
  assert(err2 instanceof ExtractError);
  assertEquals(err2.reason, "corrupt");
  const err3 = await assertRejects(() => run(new Uint8Array(0)));
  assert(err3 instanceof ExtractError);
  assertEquals(err3.reason, "empty");
});

Deno.test("docx() refuses a zip that is not a Word document with corrupt", async () => {
  const { zipSync } = await import("fflate");
  const zip = zipSync({ "a.txt": new TextEncoder().encode("hello") });
  const err = await assertRejects(() => run(zip));
  assert(err instanceof ExtractError);
  assertEquals(err.reason, "corrupt");
});

Deno.test("docx() keeps hyperlink text in the lines and the links apart", async () => {
  const links = await corpusLinks(docx(), (p) => p.endsWith(".docx"));
  assert(links > 300, `${links} links`);
  const doc = await run(await corpusFile("word/from-html/python3.11-doc/library_2to3.docx"));
  const print = doc.links?.find((l) => l.target === "functions.html#print");
  assertEquals(print?.text, "print()");
  assert(doc.lines[print!.line - 1]!.includes("grammar to interpret print() as a function."));
});

/** A Word document of these paragraphs (`<w:p>` elements). */
function wordDocument(paragraphs: string): Uint8Array {
  const w = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"`;
  return zipSync({
    "[Content_Types].xml": strToU8("<Types/>"),
    "word/document.xml": strToU8(`<w:document ${w}><w:body>${paragraphs}</w:body></w:document>`),
  });
}

Deno.test("docx() reads runs of texts split word by word as it reads them whole", async () => {
  const r = (text: string, props = "") =>
    `<w:r>${props && `<w:rPr>${props}</w:rPr>`}<w:t xml:space="preserve">${text}</w:t></w:r>`;
  const b = "<w:b/>";
  const i = "<w:i/>";
  // As pandoc writes them: a run per word and space; mammoth converts each run apart.
  const split = wordDocument(
    `<w:p>${r("Steep")}${r(" ")}${r("the")}${r(" ")}${r("green", b)}${r(" ", b)}${r("tea", b)}${
      r(" for", i)
    }${r(" 3 &lt;")}${r(" 4")}<w:r><w:tab/></w:r>${r("minutes.")}</w:p>`,
  );
  const whole = wordDocument(
    `<w:p>${r("Steep the ")}${r("green tea", b)}${r(" for", i)}${
      r(" 3 &lt; 4")
    }<w:r><w:tab/></w:r>${r("minutes.")}</w:p>`,
  );
  const doc = await run(split);
  assertEquals(doc.lines, ["Steep the **green tea** _for_ 3 < 4 minutes."]);
  assertEquals(doc, await run(whole));
});

Deno.test("docx() keeps the runs of a complex-field hyperlink apart and its link whole", async () => {
  const field = (type: string) => `<w:r><w:fldChar w:fldCharType="${type}"/></w:r>`;
  const doc = await run(wordDocument(
    `<w:p><w:r><w:t xml:space="preserve">See </w:t></w:r>${field("begin")}<w:r>` +
      `<w:instrText xml:space="preserve"> HYPERLINK "https://example.com/tea" </w:instrText></w:r>` +
      `${
        field("separate")
      }<w:r><w:t>the</w:t></w:r><w:r><w:t xml:space="preserve"> tea</w:t></w:r>` +
      `${field("end")}<w:r><w:t>.</w:t></w:r></w:p>`,
  ));
  assertEquals(doc.lines, ["See the tea."]);
  assertEquals(doc.links?.map((l) => [l.target, l.text, l.line]), [
    ["https://example.com/tea", "the tea", 1],
  ]);
});

Deno.test("docx() cut at the soft deadline before any text is a partial document, not empty", async () => {
  const bytes = await corpusFile("word/edge-cases/tables-postgresql-datatype-numeric.docx");
  await cutBeforeText(docx(), "l/a.docx", bytes);
});
