import { join } from "node:path";
import { distance } from "fastest-levenshtein";
import { assert, assertEquals } from "../tests/assert.ts";
import { openTestShelf } from "../tests/shelf_helper.ts";
import { groundTruth, smallCorpus } from "../tests/corpus.ts";
import { hasCommand } from "../tests/have.ts";
import { haveScanTools, pageText, repeatScan, rFaq, runTool, scanPages } from "../tests/scans.ts";
import { callTool } from "../server/dispatch.ts";
import { closeImageWorkers } from "../extractors/image.ts";
import type { Shelf } from "./shelf.ts";
import { partsOf } from "./_parts.ts";

const SCAN = new URL("../extractors/testdata/scans/r-faq-p6-scan.pdf", import.meta.url).pathname;
const sanitize = { sanitizeOps: false, sanitizeResources: false };
/**
 * The per-file time limit, each scanned page's wall-time limit too: 15 minutes, far more
 * than a page needs on a busy machine (these are no speed tests: at the default 60 s a page
 * ran out of time at load 20-25 on two cores, and its text was missing).
 */
const roomy = { fileTimeoutMs: 900_000 };

/** A library holding the one-page scanned PDF (the R FAQ's page 6 as a JPEG, no text). */
async function scanLibrary(): Promise<{ base: string; lib: string }> {
  const base = await Deno.makeTempDir({ prefix: "shelfmark-ocr-" });
  const lib = join(base, "Scans");
  await Deno.mkdir(lib);
  await Deno.copyFile(SCAN, join(lib, "faq-feedback.pdf"));
  return { base, lib };
}

/** Run an OCR test; the thread's tesseract workers end with it. */
function ocrTest(name: string, fn: () => Promise<void>): void {
  Deno.test({
    name,
    ...sanitize,
    async fn() {
      try {
        await fn();
      } finally {
        await closeImageWorkers();
      }
    },
  });
}

/** Whether every word of a phrase is found by search in the scanned document. */
async function found(
  t: { shelf: Shelf },
  words: string,
  file = "faq-feedback.pdf",
): Promise<boolean> {
  const r = await callTool(t.shelf, "search", { query: words, output_format: "json" });
  return (r.json.results as { path: string }[]).some((h) => h.path.endsWith(file));
}

ocrTest(
  "OcrSync reads a scanned PDF page after the text pass and puts its text in place",
  async () => {
    const { base, lib } = await scanLibrary();
    await using t = await openTestShelf({ ...roomy, base, folders: [lib] });
    await t.shelf.index();
    // Searchable by name at once; the page waits for OCR (state "reading").
    const named = await callTool(t.shelf, "find_documents", {
      query: "faq feedback",
      output_format: "json",
    });
    assert(JSON.stringify(named.json).includes("faq-feedback.pdf"));
    assertEquals(t.shelf.ocrStatus()?.state, "reading");
    assertEquals(t.shelf.ocrStatus()?.pages_waiting, 1);
    const status = await callTool(t.shelf, "status", {});
    assert(status.text.includes("OCR of scanned pages and images: reading"), status.text);
    // Searches are answered while the page is read.
    await callTool(t.shelf, "search", { query: "anything" });

    const s = await t.shelf.ocrDone();
    assertEquals({ done: s?.pages_done, waiting: s?.pages_waiting }, { done: 1, waiting: 0 });
    const id = t.shelf.findDocument("Scans/faq-feedback.pdf")!;
    const page = await t.shelf.readLines(id, { offset: 1, page: 1 });
    const text = page.lines.map((l) => l.text).join("\n");
    assert(text.includes("Feedback via email to R-devel@R-project.org"), text);
    // Every word of a phrase of the page is found by search and grep.
    assert(await found(t, "Windows macOS ports described"));
    const g = await callTool(t.shelf, "grep", {
      pattern: "Windows and macOS ports",
      output_format: "json",
    });
    assert(JSON.stringify(g.json).includes("faq-feedback.pdf"), JSON.stringify(g.json));
    const after = await callTool(t.shelf, "status", {});
    assert(after.text.includes("1 page read, 0 waiting"), after.text);

    // Extracted again in full, the page's text is put back from the catalog: not read again.
    await t.shelf.index(undefined, ["Scans"]);
    const again = (await t.shelf.readLines(id, { offset: 1, page: 1 })).lines.map((l) => l.text)
      .join(
        "\n",
      );
    assertEquals(again, text);
    assertEquals(t.shelf.ocrStatus()?.pages_done, 1);
  },
);

/**
 * Index a library of one page to read, stop (close) during its OCR, reopen: the page still
 * waits; index again and wait for the OCR. The caller disposes of `t`.
 */
async function stopAndResume(base: string, lib: string) {
  const t = await openTestShelf({ ...roomy, base, folders: [lib] });
  await t.shelf.index();
  // Closing stops the page in progress; it still waits after reopening.
  const shelf = await t.reopen();
  assertEquals(shelf.ocrStatus()?.pages_waiting, 1);
  assertEquals(shelf.ocrStatus()?.pages_done, 0);
  await shelf.index();
  const s = await shelf.ocrDone();
  assertEquals({ done: s?.pages_done, waiting: s?.pages_waiting }, { done: 1, waiting: 0 });
  return { t, shelf };
}

ocrTest("OcrSync resumes a stopped run on the next index run", async () => {
  const { base, lib } = await scanLibrary();
  await using t = (await stopAndResume(base, lib)).t;
  assert(await found(t, "Windows macOS ports described"));
});

Deno.test({
  name: 'OcrSync is off with "ocr": {"pdf_pages": false, "images": false}',
  ...sanitize,
  async fn() {
    const { base, lib } = await scanLibrary();
    const data = join(base, "data");
    await Deno.mkdir(data);
    await Deno.writeTextFile(
      join(data, "shelfmark.json"),
      JSON.stringify({
        libraries: [{ name: "Scans", path: lib }],
        ocr: { pdf_pages: false, images: false },
      }),
    );
    await using t = await openTestShelf({ base, data });
    await t.shelf.index();
    assertEquals(t.shelf.ocrStatus(), undefined);
    assertEquals(await t.shelf.ocrDone(), undefined);
    const status = await callTool(t.shelf, "status", {});
    assert(status.text.includes("OCR of scanned pages and images: off"), status.text);
    assert(!(await found(t, "Windows macOS ports described")));
  },
});

/**
 * A PDF of `n` pages, each painted over by one shared white image and no text: a scan's
 * shape with a tiny file (pdf.js rebuilds the missing cross-reference table).
 */
function blankScans(n: number): Uint8Array {
  const kids = Array.from({ length: n }, (_, i) => `${10 + i} 0 R`).join(" ");
  const draw = "q 612 0 0 792 0 0 cm /Im0 Do Q";
  const pixels = `${"FF".repeat(16 * 16)}>`;
  const objs = [
    "1 0 obj <</Type/Catalog/Pages 2 0 R>> endobj",
    `2 0 obj <</Type/Pages/Kids[${kids}]/Count ${n}>> endobj`,
    `4 0 obj <</Length ${draw.length}>> stream\n${draw}\nendstream endobj`,
    "5 0 obj <</Type/XObject/Subtype/Image/Width 16/Height 16/ColorSpace/DeviceGray" +
    `/BitsPerComponent 8/Filter/ASCIIHexDecode/Length ${pixels.length}>> stream\n${pixels}\n` +
    "endstream endobj",
    ...Array.from(
      { length: n },
      (_, i) =>
        `${10 + i} 0 obj <</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Contents 4 0 R` +
        "/Resources<</XObject<</Im0 5 0 R>>>>>> endobj",
    ),
  ];
  return new TextEncoder().encode(
    ["%PDF-1.4", ...objs, "trailer <</Root 1 0 R>>", "%%EOF"].join("\n"),
  );
}

ocrTest("OcrSync: a 1,000-page scan waits in the background, the index does not", async () => {
  const base = await Deno.makeTempDir({ prefix: "shelfmark-ocr-" });
  const lib = join(base, "Big");
  await Deno.mkdir(lib);
  await Deno.writeFile(join(lib, "thousand-scans.pdf"), blankScans(1000));
  await Deno.writeTextFile(join(lib, "note.md"), "# Note\n\nThe quokka sleeps.\n");
  await using t = await openTestShelf({ ...roomy, base, folders: [lib] });
  const p = await t.shelf.index();
  assertEquals(p.indexed, 2);
  // The text pass is over: every page waits for OCR, and searches are answered meanwhile.
  assertEquals(t.shelf.ocrStatus()?.pages_waiting, 1000);
  const r = await callTool(t.shelf, "search", { query: "quokka", output_format: "json" });
  assertEquals((r.json.results as unknown[]).length, 1);
  const named = await callTool(t.shelf, "find_documents", {
    query: "thousand scans",
    output_format: "json",
  });
  assert(JSON.stringify(named.json).includes("thousand-scans.pdf"));
  // Closing stops the run after the page in progress; what was read is kept.
  const shelf = await t.reopen();
  const s = shelf.ocrStatus()!;
  assertEquals(s.pages_waiting + s.pages_skipped + s.pages_done + s.pages_failed, 1000);
  assert(s.pages_waiting > 0);
});

Deno.test({
  name: "OcrSync: a real 1,000-page scan is read no further than ocr.max_pages",
  ignore: !(await haveScanTools()), // needs poppler-utils to render the pages
  ...sanitize,
  async fn() {
    const base = await Deno.makeTempDir({ prefix: "shelfmark-ocr-" });
    const lib = join(base, "Books");
    const data = join(base, "data");
    await Deno.mkdir(lib);
    await Deno.mkdir(data);
    // Pages 7 and 12 of the R FAQ scanned at 150 dpi, repeated to 1,000 pages (each image
    // stored once: a small file with a scanned book's page count), beside a note.
    const src = rFaq(await smallCorpus());
    await repeatScan(src, [7, 12], 1000, join(lib, "scanned-book.pdf"));
    await Deno.writeTextFile(join(lib, "note.md"), "# Note\n\nThe quokka sleeps.\n");
    await Deno.writeTextFile(
      join(data, "shelfmark.json"),
      JSON.stringify({
        libraries: [{ name: "Books", path: lib }],
        ocr: { max_pages: 2 },
      }),
    );
    await using t = await openTestShelf({ ...roomy, base, data, workers: 1 });
    const p = await t.shelf.index();
    // The keyword index is done with both files while the scan's pages are still unread.
    assertEquals(p.indexed, 2);
    const during = t.shelf.ocrStatus()!;
    assertEquals(during.state, "reading");
    assertEquals(during.pages_done + during.pages_waiting + during.pages_skipped, 1000);
    const r = await callTool(t.shelf, "search", { query: "quokka", output_format: "json" });
    assertEquals((r.json.results as { path: string }[]).map((h) => h.path), ["Books/note.md"]);
    const s = (await t.shelf.ocrDone())!;
    // Two pages read (in the OCR worker process), the other 998 over the limit.
    assertEquals(
      { done: s.pages_done, waiting: s.pages_waiting, skipped: s.pages_skipped },
      { done: 2, waiting: 0, skipped: 998 },
      s.error,
    );
    assertEquals(s.pages_failed, 0);
    // The pages read are searchable, on their page.
    const id = t.shelf.findDocument("Books/scanned-book.pdf")!;
    const two = (await t.shelf.readLines(id, { offset: 1, page: 2, limit: 1000 })).lines.map((l) =>
      l.text
    );
    const want = (await pageText(src, 12)).split(/\s+/).filter((w) => /^[a-z]{6,}$/i.test(w));
    assert(want.length > 20);
    const got = new Set(two.join(" ").split(/\s+/));
    const missing = want.filter((w) => !got.has(w));
    assert(missing.length <= want.length * 0.05, `missing words: ${missing.join(" ")}`);
  },
});

const tools = (await haveScanTools()) && (await hasCommand("pdfseparate")) &&
  (await hasCommand("pdfunite"));

Deno.test({
  name: "OcrSync: a scanned page between text pages is read in place, pages stay right",
  ignore: !tools, // needs poppler-utils and img2pdf to make the document
  ...sanitize,
  async fn() {
    const src = rFaq(await smallCorpus());
    const base = await Deno.makeTempDir({ prefix: "shelfmark-ocr-" });
    const lib = join(base, "Mixed");
    await Deno.mkdir(lib);
    // Pages 5 and 8 of the R FAQ as they are, page 7 as a 150 dpi grey JPEG between them.
    await runTool("pdfseparate", ["-f", "5", "-l", "5", src, join(base, "p5.pdf")]);
    await runTool("pdfseparate", ["-f", "8", "-l", "8", src, join(base, "p8.pdf")]);
    await scanPages(src, [7], join(base, "p7.pdf"));
    const doc = join(lib, "faq-mixed.pdf");
    await runTool("pdfunite", [...["p5.pdf", "p7.pdf", "p8.pdf"].map((f) => join(base, f)), doc]);
    await using t = await openTestShelf({ ...roomy, base, folders: [lib] });
    try {
      await t.shelf.index();
      const id = t.shelf.findDocument("Mixed/faq-mixed.pdf")!;
      const page = async (p: number) =>
        (await t.shelf.readLines(id, { offset: 1, page: p, limit: 1000 })).lines.map((l) => l.text);
      const [one, three] = [await page(1), await page(3)];
      assertEquals(await page(2), [""]);
      assertEquals(t.shelf.ocrStatus()?.pages_waiting, 1);
      const s = await t.shelf.ocrDone();
      assertEquals(
        { done: s?.pages_done, failed: s?.pages_failed },
        { done: 1, failed: 0 },
        s?.error,
      );
      // The text pages keep their lines; the scanned one has its text in its place.
      assertEquals(await page(1), one);
      assertEquals(await page(3), three);
      const two = (await t.shelf.readLines(id, { offset: 1, page: 2, limit: 1000 })).lines;
      const g = await t.shelf.grep(id, { pattern: "statistical computation and graphics" });
      assertEquals(g.total_matches, 1);
      const at = g.matches![0]!.line;
      assert(two.some((l) => l.n === at), `line ${at} is not on page 2`);
      const want = await pageText(src, 7);
      const norm = (x: string) => x.replace(/\s+/g, " ").trim();
      const got = norm(two.map((l) => l.text).join("\n"));
      const cer = distance(got, norm(want)) / norm(want).length;
      assert(cer <= 0.03, `CER ${cer}`);
      assert(await found(t, "statistical computation graphics", "faq-mixed.pdf"));
    } finally {
      await closeImageWorkers();
    }
  },
});

Deno.test("OcrSync puts pages read by a run stopped before it stored them in place", async () => {
  const { base, lib } = await scanLibrary();
  const data = join(base, "data");
  await Deno.mkdir(data);
  const config = (on: boolean) =>
    Deno.writeTextFile(
      join(data, "shelfmark.json"),
      JSON.stringify({ libraries: [{ name: "Scans", path: lib }], ocr: { pdf_pages: on } }),
    );
  await config(false);
  await using t = await openTestShelf({ ...roomy, base, data });
  await t.shelf.index();
  const id = t.shelf.findDocument("Scans/faq-feedback.pdf")!;
  const hash = partsOf(t.shelf).catalog.get(id)!.hash;
  // What a run records for a page read, before it is stopped.
  partsOf(t.shelf).catalog.ocr.record(id, hash, 1, "done", "Quokkas were here\nin the scan");
  await config(true);
  const shelf = await t.reopen();
  await shelf.index();
  const s = await shelf.ocrDone();
  assertEquals({ done: s?.pages_done, waiting: s?.pages_waiting }, { done: 1, waiting: 0 });
  const lines = (await shelf.readLines(id, { offset: 1, page: 1 })).lines.map((l) => l.text);
  assertEquals(lines, ["Quokkas were here", "in the scan"]);
});

Deno.test("OcrSync leaves pages waiting when a language's data is missing", async () => {
  const { base, lib } = await scanLibrary();
  const data = join(base, "data");
  await Deno.mkdir(data);
  await Deno.writeTextFile(
    join(data, "shelfmark.json"),
    JSON.stringify({ libraries: [{ name: "Scans", path: lib }], ocr: { languages: ["xyz"] } }),
  );
  const logged: string[] = [];
  await using t = await openTestShelf({ ...roomy, base, data, log: (m) => logged.push(m) });
  await t.shelf.index();
  const s = await t.shelf.ocrDone();
  assertEquals({ done: s?.pages_done, waiting: s?.pages_waiting }, { done: 0, waiting: 1 });
  assert(s?.error?.includes("@tesseract.js-data/xyz"), s?.error);
  assert(logged.some((m) => m.includes("@tesseract.js-data/xyz")), logged.join("\n"));
});

/** A library holding one scan of the small corpus as an image file, and its true text. */
async function imageLibrary(): Promise<{ base: string; lib: string; data: string }> {
  const base = await Deno.makeTempDir({ prefix: "shelfmark-ocr-" });
  const lib = join(base, "Scans");
  const data = join(base, "data");
  await Deno.mkdir(lib);
  await Deno.mkdir(data);
  await Deno.copyFile(join(await smallCorpus(), "scans", "R-FAQ-p9.png"), join(lib, "quokka.png"));
  return { base, lib, data };
}

/** Phrases of R-FAQ-p9.png's ground truth (six-letter words and longer), for search. */
async function imagePhrase(): Promise<string> {
  const truth = await groundTruth(await smallCorpus());
  const text = truth.get("scans/R-FAQ-p9.png")?.text;
  assert(typeof text === "string", "no ground truth for scans/R-FAQ-p9.png");
  const words = text.split(/\s+/).filter((w) => /^[a-z]{7,}$/.test(w));
  assert(words.length > 10);
  return words.slice(3, 6).join(" ");
}

ocrTest(
  "OcrSync reads image files after the text pass: by name at once, by text after",
  async () => {
    const { base, lib } = await imageLibrary();
    const phrase = await imagePhrase();
    // A second image (a JPEG): images read one after the other are put in place together.
    const jpeg = join(await smallCorpus(), "scans", "developers-reference-p14.jpg");
    await Deno.copyFile(jpeg, join(lib, "second.jpg"));
    await using t = await openTestShelf({ ...roomy, base, folders: [lib] });
    const p = await t.shelf.index();
    assertEquals(p.indexed, 2);
    // The text pass stored it with no text, found by name; its page waits for OCR.
    const named = await callTool(t.shelf, "find_documents", {
      query: "quokka",
      output_format: "json",
    });
    assert(JSON.stringify(named.json).includes("Scans/quokka.png"), JSON.stringify(named.json));
    const id = t.shelf.findDocument("Scans/quokka.png")!;
    assertEquals(partsOf(t.shelf).catalog.text(id), "");
    assertEquals(t.shelf.ocrStatus()?.pages_waiting, 2);
    assert(!(await found(t, phrase, "quokka.png")), phrase);

    const s = await t.shelf.ocrDone();
    assertEquals(
      { done: s?.pages_done, waiting: s?.pages_waiting },
      { done: 2, waiting: 0 },
      s?.error,
    );
    const second = partsOf(t.shelf).catalog.text(t.shelf.findDocument("Scans/second.jpg")!)!;
    assert(second.split("\n").length > 20, second);
    assert(await found(t, phrase, "quokka.png"), phrase);
    const text = partsOf(t.shelf).catalog.text(id)!;
    assert(text.split("\n").length > 20, text);
    const status = await callTool(t.shelf, "status", {});
    assert(status.text.includes("2 pages read, 0 waiting"), status.text);

    // Indexed again in full, the text comes back from the catalog: the image is not read again.
    await t.shelf.index(undefined, ["Scans"]);
    assertEquals(partsOf(t.shelf).catalog.text(id), text);
    assertEquals(t.shelf.ocrStatus()?.pages_waiting, 0);
    assertEquals(t.shelf.ocrStatus()?.pages_done, 2);
  },
);

ocrTest("OcrSync resumes a stopped image run; a finished image is not read again", async () => {
  const { base, lib } = await imageLibrary();
  const phrase = await imagePhrase();
  const resumed = await stopAndResume(base, lib);
  await using t = resumed.t;
  let shelf = resumed.shelf;
  assert(await found({ shelf }, phrase, "quokka.png"), phrase);
  const id = shelf.findDocument("Scans/quokka.png")!;
  const hash = partsOf(shelf).catalog.get(id)!.hash;
  // The text recorded for the image is what the document holds after the next runs.
  const mark = "Quokkas marked this record";
  partsOf(shelf).catalog.ocr.record(id, hash, 1, "done", mark);
  shelf = await t.reopen();
  await shelf.index(undefined, ["Scans"]);
  const s = await shelf.ocrDone();
  assertEquals({ done: s?.pages_done, waiting: s?.pages_waiting }, { done: 1, waiting: 0 });
  assertEquals(partsOf(shelf).catalog.text(id), mark);
});

Deno.test({
  name: 'OcrSync with "ocr": {"images": false} leaves images unread, PDF pages still read',
  ...sanitize,
  async fn() {
    const { base, lib, data } = await imageLibrary();
    await Deno.copyFile(SCAN, join(lib, "faq-feedback.pdf"));
    await Deno.writeTextFile(
      join(data, "shelfmark.json"),
      JSON.stringify({ libraries: [{ name: "Scans", path: lib }], ocr: { images: false } }),
    );
    await using t = await openTestShelf({ ...roomy, base, data });
    try {
      await t.shelf.index();
      const s = await t.shelf.ocrDone();
      // The PDF's page is read and counted; the image is neither.
      assertEquals({ done: s?.pages_done, waiting: s?.pages_waiting }, { done: 1, waiting: 0 });
      assert(await found(t, "Windows macOS ports described"));
      assertEquals(partsOf(t.shelf).catalog.text(t.shelf.findDocument("Scans/quokka.png")!), "");
    } finally {
      await closeImageWorkers();
    }
  },
});
