import { join } from "node:path";
import { assert, assertEquals } from "../tests/assert.ts";
import { openTestShelf } from "../tests/shelf_helper.ts";
import { callTool } from "../server/dispatch.ts";
import { closeImageWorkers } from "../extractors/image.ts";
import type { Shelf } from "./shelf.ts";

const SCAN = new URL("../extractors/testdata/scans/r-faq-p6-scan.pdf", import.meta.url).pathname;
const sanitize = { sanitizeOps: false, sanitizeResources: false };

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
async function found(t: { shelf: Shelf }, words: string): Promise<boolean> {
  const r = await callTool(t.shelf, "search", { query: words, output_format: "json" });
  return (r.json.results as { path: string }[]).some((h) => h.path.endsWith("faq-feedback.pdf"));
}

ocrTest(
  "OcrSync reads a scanned PDF page after the text pass and puts its text in place",
  async () => {
    const { base, lib } = await scanLibrary();
    await using t = await openTestShelf({ base, folders: [lib] });
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
    assert(status.text.includes("OCR of scanned PDF pages: reading"), status.text);
    // Searches are answered while the page is read.
    await callTool(t.shelf, "search", { query: "anything" });

    const s = await t.shelf.ocrDone();
    assertEquals({ done: s?.pages_done, waiting: s?.pages_waiting }, { done: 1, waiting: 0 });
    const id = t.shelf.findDocument("Scans/faq-feedback.pdf")!;
    const page = t.shelf.readLines(id, { offset: 1, page: 1 });
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
    assert(after.text.includes("1 pages read, 0 waiting"), after.text);

    // Extracted again in full, the page's text is put back from the catalog: not read again.
    await t.shelf.index(undefined, ["Scans"]);
    const again = t.shelf.readLines(id, { offset: 1, page: 1 }).lines.map((l) => l.text).join(
      "\n",
    );
    assertEquals(again, text);
    assertEquals(t.shelf.ocrStatus()?.pages_done, 1);
  },
);

ocrTest("OcrSync resumes a stopped run on the next index run", async () => {
  const { base, lib } = await scanLibrary();
  await using t = await openTestShelf({ base, folders: [lib] });
  await t.shelf.index();
  // Closing stops the page in progress; it still waits after reopening.
  const shelf = await t.reopen();
  assertEquals(shelf.ocrStatus()?.pages_waiting, 1);
  assertEquals(shelf.ocrStatus()?.pages_done, 0);
  await shelf.index();
  const s = await shelf.ocrDone();
  assertEquals({ done: s?.pages_done, waiting: s?.pages_waiting }, { done: 1, waiting: 0 });
  assert(await found(t, "Windows macOS ports described"));
});

Deno.test({
  name: 'OcrSync is off with "ocr": {"pdf_pages": false}',
  ...sanitize,
  async fn() {
    const { base, lib } = await scanLibrary();
    const data = join(base, "data");
    await Deno.mkdir(data);
    await Deno.writeTextFile(
      join(data, "shelfmark.json"),
      JSON.stringify({ libraries: [{ name: "Scans", path: lib }], ocr: { pdf_pages: false } }),
    );
    await using t = await openTestShelf({ base, data });
    await t.shelf.index();
    assertEquals(t.shelf.ocrStatus(), undefined);
    assertEquals(await t.shelf.ocrDone(), undefined);
    const status = await callTool(t.shelf, "status", {});
    assert(status.text.includes("OCR of scanned PDF pages: off"), status.text);
    assert(!(await found(t, "Windows macOS ports described")));
  },
});
