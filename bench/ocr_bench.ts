/**
 * `deno run -A bench/ocr_bench.ts [--pages N] [CORPUS_DIR]`: the OCR row of `deno task bench`
 * alone: the R FAQ's pages 7, 9, 12 and 15 (or its first N pages) scanned at 150 dpi and
 * read by the OCR worker process as the server reads them; CER, pages per second per core
 * (CPU of the process tree), peak RSS and PSS of the tree and of the OCR worker.
 *
 * `--index`: index the corpus's libraries beside a scan of those pages (a shelf with
 * extraction processes, as the server runs) and print the time until every text page is
 * searchable (the keyword index; OCR excluded), the time until OCR is done, and the peak
 * PSS of the process tree during each.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { join } from "node:path";
import { pdfScanQuality, treeCpu } from "./formats_bench.ts";
import { TreeSampler } from "./footprint.ts";
import { Shelf } from "../shelf/shelf.ts";
import { rFaq, scanPages } from "../tests/scans.ts";

const args = parseArgs({
  args: Deno.args,
  options: { pages: { type: "string" }, index: { type: "boolean" } },
  allowPositionals: true,
});
const corpus = args.positionals[0] ??
  join(Deno.env.get("HOME") ?? ".", ".cache", "shelfmark", "corpus-small");
const n = Number(args.values.pages ?? 0);
const pages = n > 0 ? Array.from({ length: n }, (_, i) => i + 1) : undefined;
const s = args.values.index ? undefined : await pdfScanQuality(corpus, pages);
if (args.values.index) {
  await indexWithScans(corpus, pages ?? [7, 9, 12, 15]);
} else if (!s) {
  console.log("not measured (needs pdftoppm and img2pdf)");
} else {
  const f = (x: number, d = 2) => x.toFixed(d);
  console.log(
    `OCR of image-only PDF pages: ${s.read}/${s.pages} pages read, CER ${f(s.cer, 3)}, ` +
      `${f(1 / s.cpuSecondsPerPage, 3)} pages/s per core (${
        f(s.cpuSecondsPerPage, 1)
      } CPU s/page, ` +
      `${f(s.wallSecondsPerPage, 1)} s/page wall), peak tree RSS ${f(s.peakMb, 0)} MiB, ` +
      `PSS ${f(s.peakPssMb, 0)} MiB (OCR worker ${f(s.workerPssMb, 0)} MiB, ` +
      `${s.workerStarts} worker start${s.workerStarts === 1 ? "" : "s"})`,
  );
}

/** Index the corpus beside a scan; the text pass's and the OCR's times and peak PSS. */
async function indexWithScans(corpus: string, pages: number[]): Promise<void> {
  const base = await Deno.makeTempDir({ prefix: "shelfmark-ocr-bench-" });
  try {
    const scans = join(base, "Scanned");
    await Deno.mkdir(scans);
    await scanPages(rFaq(corpus), pages, join(scans, "r-faq-scan.pdf"));
    const folders = [...Deno.readDirSync(corpus)].filter((e) => e.isDirectory)
      .map((e) => join(corpus, e.name)).sort();
    const cpu = treeCpu;
    const c0 = cpu();
    let sampler = new TreeSampler(Deno.pid, 100);
    const t0 = performance.now();
    const shelf = await Shelf.open({
      data: join(base, "data"),
      folders: [...folders, scans],
      log: () => {},
      embedder: "none",
    });
    try {
      const progress = await shelf.index();
      const textMs = performance.now() - t0;
      const c1 = cpu();
      const text = sampler.stop();
      sampler = new TreeSampler(Deno.pid, 100);
      const ocr = await shelf.ocrDone();
      const ocrMs = performance.now() - t0;
      const c2 = cpu();
      const during = sampler.stop();
      const f = (x: number, d = 1) => x.toFixed(d);
      const mib = (b: number) => f(b / 2 ** 20, 0);
      console.log(
        `documents indexed: ${progress.indexed} of ${progress.total} files\n` +
          `time until every text page is searchable (keyword index, OCR excluded): ` +
          `${f(textMs / 1000)} s, ${f(c1 - c0)} CPU s of the tree, peak PSS ` +
          `${mib(text.peakTreePss)} MiB (RSS ${mib(text.peakTree)} MiB)\n` +
          `time until OCR is done: ${f(ocrMs / 1000)} s from the start ` +
          `(${ocr?.pages_done ?? 0} pages read, ${ocr?.pages_failed ?? 0} failed, ` +
          `${ocr?.pages_skipped ?? 0} passed over), ${f(c2 - c1)} CPU s of the tree, peak PSS ` +
          `${mib(during.peakTreePss)} MiB (RSS ${mib(during.peakTree)} MiB; at the peak: ` +
          `${during.atPeakPss})`,
      );
    } finally {
      await shelf.close();
    }
  } finally {
    await Deno.remove(base, { recursive: true });
  }
}
