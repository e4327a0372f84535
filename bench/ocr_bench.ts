/**
 * `deno run -A bench/ocr_bench.ts [--pages N] [CORPUS_DIR]`: the OCR row of `deno task bench`
 * alone: the R FAQ's pages 7, 9, 12 and 15 (or its first N pages) scanned at 150 dpi and
 * read by the OCR worker process as the server reads them; CER, pages per second per core
 * (CPU of the process tree), peak RSS and PSS of the tree and of the OCR worker.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { join } from "node:path";
import { pdfScanQuality } from "./formats_bench.ts";

const args = parseArgs({
  args: Deno.args,
  options: { pages: { type: "string" } },
  allowPositionals: true,
});
const corpus = args.positionals[0] ??
  join(Deno.env.get("HOME") ?? ".", ".cache", "shelfmark", "corpus-small");
const n = Number(args.values.pages ?? 0);
const pages = n > 0 ? Array.from({ length: n }, (_, i) => i + 1) : undefined;
const s = await pdfScanQuality(corpus, pages);
if (!s) {
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
