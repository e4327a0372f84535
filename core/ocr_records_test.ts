import { assertEquals } from "../tests/assert.ts";
import { testCard } from "../tests/card_fixture.ts";
import { Catalog } from "./catalog.ts";

/** A catalog holding one PDF of `hash`. */
function withPdf(hash: string): { catalog: Catalog; id: string } {
  const catalog = new Catalog(":memory:");
  const card = testCard({ path: "lib/scan.pdf", doc_type: "pdf" });
  catalog.put({ card, outline: [], pages: [1, 2, 3], terms: {}, hash, mtime_ms: 0 }, "a\n\n");
  return { catalog, id: card.doc_id };
}

Deno.test("OcrRecords counts the pages of the content stored now, and forgets the rest", () => {
  const { catalog, id } = withPdf("h1");
  const ocr = catalog.ocr;
  ocr.noteBlank(id, "h1", [2, 3]);
  assertEquals(ocr.counts(), { done: 0, waiting: 2, skipped: 0, failed: 0 });
  assertEquals(ocr.next(), {
    doc_id: id,
    hash: "h1",
    path: "lib/scan.pdf",
    doc_type: "pdf",
    library: "lib",
    pages: [2, 3],
  });
  // Only the types asked for: with image OCR alone, the PDF's pages are not counted.
  assertEquals(ocr.next(["image"]), undefined);
  assertEquals(ocr.counts(["image"]).waiting, 0);
  assertEquals(ocr.next(["pdf"])?.pages, [2, 3]);
  ocr.record(id, "h1", 2, "done", "Read\ntext");
  ocr.record(id, "h1", 3, "skipped");
  assertEquals(ocr.counts(), { done: 1, waiting: 0, skipped: 1, failed: 0 });
  assertEquals(ocr.next(), undefined);
  assertEquals(ocr.texts(id, "h1"), new Map([[2, ["Read", "text"]]]));
  // Read, not yet in the stored text; stored again, it is.
  assertEquals(ocr.unapplied(), [id]);
  ocr.noteBlank(id, "h1", [3]);
  assertEquals(ocr.unapplied(), []);
  // Noting a page again keeps what became of it.
  assertEquals(ocr.counts().skipped, 1);
  // The file changed: pages of the old content no longer count, and are pruned.
  const card = testCard({ path: "lib/scan.pdf", doc_type: "pdf" });
  catalog.put({ card, outline: [], pages: [1], terms: {}, hash: "h2", mtime_ms: 0 }, "");
  assertEquals(ocr.counts(), { done: 0, waiting: 0, skipped: 0, failed: 0 });
  ocr.prune();
  assertEquals(ocr.texts(id, "h1"), new Map());
  catalog.close();
});

Deno.test("OcrRecords.unchecked() lists stored PDFs not yet looked at, once", () => {
  const { catalog, id } = withPdf("h1");
  const [doc] = catalog.ocr.unchecked(10);
  assertEquals({ id: doc?.doc_id, pages: doc?.pages }, { id, pages: [1, 2, 3] });
  catalog.ocr.checked(doc!, [2], false);
  assertEquals(catalog.ocr.unchecked(10), []);
  assertEquals(catalog.ocr.counts().waiting, 1);
  catalog.close();
});
