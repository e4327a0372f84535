import { join } from "node:path";
import { distance } from "fastest-levenshtein";
import { assert, assertEquals } from "../tests/assert.ts";
import { smallCorpus } from "../tests/corpus.ts";
import { haveScanTools, ocrAll, pageText, rFaq, scanPages, stripScan } from "../tests/scans.ts";
import { OcrPool } from "../extraction/ocr_pool.ts";
import { pdf } from "./pdf.ts";

const HERE = new URL("./testdata/scans/", import.meta.url).pathname;
const sanitize = { sanitizeOps: false, sanitizeResources: false };

/** Character error rate of `got` against `want`, whitespace collapsed. */
function cer(got: string, want: string): number {
  const n = (s: string) => s.replace(/\s+/g, " ").trim();
  return distance(n(got), n(want)) / Math.max(1, n(want).length);
}

/** The pages read by the OCR worker process (`OcrPool`), as the server reads them. */
function ocrPages(bytes: Uint8Array, pages: number[], pageTimeoutMs: number) {
  return ocrAll(new OcrPool({ pageTimeoutMs, isolation: "process" }), bytes, pages);
}

Deno.test({
  name: "OcrPool.pages() reads an image-only page close to its original text layer",
  ...sanitize,
  async fn() {
    const bytes = await Deno.readFile(join(HERE, "r-faq-p6-scan.pdf"));
    // The text pass sees a blank page.
    const text = await pdf().extract({ path: "l/scan.pdf", extension: ".pdf", bytes });
    assertEquals(text.lines, [""]);
    const [r, ...rest] = await ocrPages(bytes, [1, 2], 60_000);
    assertEquals(rest, [], "a page past the end is left out");
    assert(r && "lines" in r, JSON.stringify(r));
    const want = await Deno.readTextFile(join(HERE, "r-faq-p6.txt"));
    const rate = cer(r.lines.join("\n"), want);
    console.log(`  CER ${rate.toFixed(4)} (${r.lines.length} lines)`);
    assert(rate <= 0.03, `CER ${rate}`);
    assert(r.lines.some((l) => l.includes("Feedback via email to R-devel@R-project.org")));
  },
});

Deno.test({
  name: "OcrPool.pages() leaves pages with a text layer and no image alone",
  ...sanitize,
  async fn() {
    const dir = await smallCorpus();
    const bytes = await Deno.readFile(join(dir, "pdf-manuals/r-doc-pdf/R-FAQ.pdf"));
    const got = await ocrPages(bytes, [6], 60_000);
    assertEquals(got, [{ page: 6, skipped: "not_scanned" }]);
  },
});

const tools = await haveScanTools();

/**
 * Scan pages of the corpus's R FAQ (grey JPEGs, or 1-bit CCITT with `mono`), read them back
 * and give each page's CER against its text layer, with the scan's bytes.
 */
async function scanCer(pages: number[], mono: boolean, dpi?: number) {
  const src = rFaq(await smallCorpus());
  const tmp = await Deno.makeTempDir();
  try {
    const bytes = await Deno.readFile(
      await scanPages(src, pages, join(tmp, "scan.pdf"), mono, dpi),
    );
    const t0 = performance.now();
    const got = await ocrPages(bytes, pages.map((_, i) => i + 1), 120_000);
    const secs = (performance.now() - t0) / 1000;
    const rates: number[] = [];
    for (const [i, p] of pages.entries()) {
      const g = got[i];
      assert(g && "lines" in g, JSON.stringify(g));
      rates.push(cer(g.lines.join("\n"), await pageText(src, p)));
      console.log(`  page ${p}: CER ${rates[i]!.toFixed(4)}`);
    }
    console.log(`  ${(pages.length / secs).toFixed(2)} pages/s`);
    return { rates, bytes };
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
}

Deno.test({
  name: "OcrPool.pages() reads dense scanned pages of the corpus with CER <= 0.03",
  ignore: !tools, // needs poppler-utils and img2pdf to make the scans
  ...sanitize,
  async fn() {
    const { rates } = await scanCer([7, 12], false);
    const mean = rates.reduce((a, b) => a + b) / rates.length;
    assert(mean <= 0.03, `mean CER ${mean}`);
  },
});

Deno.test({
  name: "OcrPool.pages() reads a 1-bit CCITT scan (pdf.js's wasm decoders) with CER <= 0.03",
  ignore: !tools, // needs poppler-utils and img2pdf to make the scan
  ...sanitize,
  async fn() {
    const { rates, bytes } = await scanCer([7], true);
    assert(new TextDecoder("latin1").decode(bytes).includes("/CCITTFaxDecode"));
    assert(rates[0]! <= 0.03, `CER ${rates[0]}`);
  },
});

Deno.test({
  name: "OcrPool.pages() reads a page stored as three strips (one cuts text lines) whole",
  ignore: !tools, // needs poppler-utils to render the strips
  ...sanitize,
  async fn() {
    const src = rFaq(await smallCorpus());
    const tmp = await Deno.makeTempDir();
    try {
      // The middle strip at a lower resolution than the others, as tools that assemble
      // pages from pieces store them.
      const file = await stripScan(src, 7, join(tmp, "strips.pdf"));
      const bytes = await Deno.readFile(file);
      const latin = new TextDecoder("latin1").decode(bytes);
      assertEquals(latin.match(/\/Subtype\s*\/Image/g)?.length, 3, "three images on one page");
      const [r, ...rest] = await ocrPages(bytes, [1], 120_000);
      assertEquals(rest, []);
      assert(r && "lines" in r, JSON.stringify(r));
      const rate = cer(r.lines.join("\n"), await pageText(src, 7));
      console.log(`  CER ${rate.toFixed(4)}`);
      // Reading the largest strip alone would miss two thirds of the page.
      assert(rate <= 0.03, `CER ${rate}`);
    } finally {
      await Deno.remove(tmp, { recursive: true });
    }
  },
});

Deno.test({
  name: "OcrPool.pages() reads a 300 dpi scan, reduced to OCR_MAX_DPI, with CER <= 0.03",
  ignore: !tools, // needs poppler-utils and img2pdf to make the scan
  ...sanitize,
  async fn() {
    // At 300 dpi tesseract's memory would pass the OCR worker's limit; reduced, it fits.
    const { rates } = await scanCer([12], false, 300);
    assert(rates[0]! <= 0.03, `CER ${rates[0]}`);
  },
});
