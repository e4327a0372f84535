/**
 * Format measurements for `deno task bench`: PDF pages/second next to `pdftotext` on the
 * same files (in this process, one after another), and DOCX/EPUB documents/second.
 */
import { join } from "node:path";
import process from "node:process";
import { docx } from "../extractors/docx.ts";
import { epub } from "../extractors/epub.ts";
import { pdf } from "../extractors/pdf.ts";
import { closeImageWorkers, image } from "../extractors/image.ts";
import { OcrPool } from "../extraction/ocr_pool.ts";
import { processTree, TreeSampler } from "./footprint.ts";
import { haveScanTools, pageText, rFaq, scanPages } from "../tests/scans.ts";
import type { Extractor } from "../core/extractor.ts";

function files(dir: string, ext: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of Deno.readDirSync(d)) {
      const p = join(d, e.name);
      if (e.isDirectory) walk(p);
      else if (e.name.toLowerCase().endsWith(ext)) out.push(p);
    }
  };
  walk(dir);
  return out.sort();
}

/** Every `step`-th file, up to `n`. */
function spread(list: string[], n: number): string[] {
  const step = Math.max(1, Math.floor(list.length / n));
  return list.filter((_, i) => i % step === 0).slice(0, n);
}

/** CPU time (ms) of this process's finished child processes (Linux), else undefined. */
function childCpuMs(): number | undefined {
  try {
    const stat = Deno.readTextFileSync("/proc/self/stat");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[13]) + Number(f[14])) * 10; // cutime + cstime, in 1/100 s
  } catch {
    return undefined;
  }
}

/**
 * PDF extraction pages/second, and pdftotext's on the same files (each run as its own
 * process, as an indexer would). The extractor first reads `warmup` PDFs of the corpus that
 * are not measured: extraction runs in long-lived workers, so what counts is pdf.js after its
 * code is compiled, not its first few pages. `ratio` is ours / pdftotext's pages per second
 * (wall clock); `cpuRatio` the same in CPU time (this process against pdftotext's), which a
 * busy machine disturbs much less; `cpuMsPerPage` is ours.
 */
export async function pdfSpeed(corpus: string, n = 30, ex: Extractor = pdf(), warmup = 2) {
  const all = files(join(corpus, "pdf-manuals"), ".pdf");
  const list = spread(all, n);
  for (const f of all.filter((f) => !list.includes(f)).slice(0, warmup)) {
    await ex.extract({ path: f, extension: ".pdf", bytes: await Deno.readFile(f) });
  }
  let pages = 0;
  let ours = 0;
  let theirs = 0;
  let cpu = 0;
  const child0 = childCpuMs();
  for (const f of list) {
    const bytes = await Deno.readFile(f);
    const c0 = process.cpuUsage();
    let t = performance.now();
    const doc = await ex.extract({ path: f, extension: ".pdf", bytes });
    ours += performance.now() - t;
    const c = process.cpuUsage(c0);
    cpu += (c.user + c.system) / 1000;
    pages += doc.pages?.length ?? 0;
    t = performance.now();
    await new Deno.Command("pdftotext", { args: [f, "-"], stdout: "null", stderr: "null" }).output()
      .catch(() => undefined);
    theirs += performance.now() - t;
  }
  const child1 = childCpuMs();
  const theirCpu = child0 !== undefined && child1 !== undefined ? child1 - child0 : NaN;
  const oursRate = pages / (ours / 1000);
  const theirRate = pages / (theirs / 1000);
  return {
    files: list.length,
    pages,
    ours: oursRate,
    pdftotext: theirRate,
    ratio: oursRate / theirRate,
    cpuRatio: theirCpu / cpu,
    cpuMsPerPage: cpu / Math.max(1, pages),
  };
}

async function docsPerSecond(ex: Extractor, list: string[], ext: string) {
  const t = performance.now();
  for (const f of list) {
    await ex.extract({ path: f, extension: ext, bytes: await Deno.readFile(f) }).catch(() =>
      undefined
    );
  }
  return list.length / ((performance.now() - t) / 1000);
}

/** DOCX and EPUB documents/second (all of `word/` and `ebooks/`). */
export async function officeSpeed(corpus: string) {
  return {
    docx: await docsPerSecond(docx(), files(join(corpus, "word"), ".docx"), ".docx"),
    epub: await docsPerSecond(epub(), files(join(corpus, "ebooks"), ".epub"), ".epub"),
  };
}

function levenshtein(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(
        prev[j]! + 1,
        cur[j - 1]! + 1,
        prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    prev = cur;
  }
  return prev[b.length]!;
}

/** OCR seconds per page and character error rate on `n` scans, against the ground-truth text. */
export async function ocrQuality(corpus: string, truth: Map<string, { text?: string }>, n = 6) {
  const ex = image({ ocr: true });
  const list = spread(
    [...files(join(corpus, "scans"), ".png"), ...files(join(corpus, "scans"), ".jpg")].sort(),
    n,
  );
  const norm = (s: string) => s.replace(/\s+/g, " ").trim();
  let secs = 0;
  let cer = 0;
  let pages = 0;
  for (const f of list) {
    const want = truth.get(f.slice(corpus.length + 1))?.text;
    if (!want) continue;
    const t = performance.now();
    const doc = await ex.extract({
      path: f,
      extension: f.slice(f.lastIndexOf(".")),
      bytes: await Deno.readFile(f),
    });
    secs += (performance.now() - t) / 1000;
    const got = norm(doc.lines.join("\n"));
    cer += levenshtein(got, norm(want)) / Math.max(1, norm(want).length);
    pages++;
  }
  await closeImageWorkers();
  return { pages, secondsPerPage: secs / Math.max(1, pages), cer: cer / Math.max(1, pages) };
}

/**
 * CPU seconds of this process and its children: live ones, and those that exited (the OCR
 * worker is replaced when it grows, and leaves when done), Linux.
 */
export function treeCpu(): number {
  const f = Deno.readTextFileSync("/proc/self/stat").split(") ")[1]!.split(" ");
  const reaped = (Number(f[13]) + Number(f[14])) / 100; // cutime + cstime
  return reaped + processTree(Deno.pid).reduce((sum, p) => sum + p.cpu, 0);
}

/**
 * OCR of image-only PDF pages as the server does it: the R FAQ's `pages` scanned at 150 dpi
 * (grey JPEGs), read one after another by the OCR worker process (`OcrPool`). CER against
 * the text layer; CPU seconds per page of the process tree (this process and the OCR
 * worker's); peak RSS and PSS of the tree (sampled every 100 ms), of which the OCR worker's.
 * Undefined without pdftoppm and img2pdf.
 */
export async function pdfScanQuality(corpus: string, pages = [7, 9, 12, 15]) {
  if (!(await haveScanTools())) return undefined;
  const src = rFaq(corpus);
  const tmp = await Deno.makeTempDir();
  try {
    const bytes = await Deno.readFile(await scanPages(src, pages, join(tmp, "scan.pdf")));
    const norm = (s: string) => s.replace(/\s+/g, " ").trim();
    // The text layers first: pdftotext's processes are no part of the OCR's figures.
    const wants: string[] = [];
    for (const p of pages) wants.push(norm(await pageText(src, p)));
    let cer = 0;
    let read = 0;
    const cpu0 = treeCpu();
    const sampler = new TreeSampler(Deno.pid, 100);
    const t0 = performance.now();
    const pool = new OcrPool({ pageTimeoutMs: 300_000 });
    let cpu1 = cpu0;
    let starts = 0;
    try {
      let i = 0;
      for await (const r of pool.pages(bytes, pages.map((_, k) => k + 1))) {
        const want = wants[i++]!;
        const got = "lines" in r ? norm(r.lines.join("\n")) : "";
        if ("lines" in r) read++;
        cer += levenshtein(got, want) / Math.max(1, want.length);
      }
      cpu1 = treeCpu();
      starts = pool.started;
    } finally {
      pool.close();
    }
    const secs = (performance.now() - t0) / 1000;
    const fp = sampler.stop();
    const ocrPss = Object.entries(fp.peakByNamePss).filter(([k]) => !k.endsWith("@0"))
      .reduce((m, [, v]) => Math.max(m, v), 0);
    return {
      pages: pages.length,
      read,
      cer: cer / pages.length,
      cpuSecondsPerPage: (cpu1 - cpu0) / pages.length,
      wallSecondsPerPage: secs / pages.length,
      peakMb: fp.peakTree / 2 ** 20,
      peakPssMb: fp.peakTreePss / 2 ** 20,
      workerPssMb: ocrPss / 2 ** 20,
      workerStarts: starts,
    };
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
}

if (import.meta.main) {
  // `deno run -A bench/formats_bench.ts CORPUS`: DOCX and EPUB documents/second alone.
  const corpus = Deno.args[0];
  if (!corpus) throw new Error("usage: deno run -A bench/formats_bench.ts CORPUS_DIR");
  const s = await officeSpeed(corpus);
  console.log(`DOCX / EPUB extraction: ${s.docx.toFixed(1)} / ${s.epub.toFixed(1)} documents/s`);
}
