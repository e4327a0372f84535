/**
 * Image-only PDFs made from pages of a real PDF, as a scanner makes them: each page rendered
 * at 150 dpi in grey to a JPEG (`pdftoppm`, poppler-utils) and the JPEGs wrapped as PDF pages
 * (`img2pdf`); the original's text layer (`pdftotext`) is the ground truth of their OCR.
 *
 * @module
 */
import { join } from "node:path";
import type { OcrPool } from "../extraction/ocr_pool.ts";
import type { PageOcr } from "../extractors/_pdf_ocr.ts";
import { hasCommand } from "./have.ts";

/** Whether the tools that make scans are installed. */
export async function haveScanTools(): Promise<boolean> {
  for (const cmd of ["pdftoppm", "img2pdf", "pdftotext"]) {
    if (!(await hasCommand(cmd))) return false;
  }
  return true;
}

/** Run a command; its standard output, or an error with its standard error. */
export async function runTool(cmd: string, args: string[]): Promise<string> {
  const r = await new Deno.Command(cmd, { args }).output();
  if (!r.success) throw new Error(`${cmd} failed: ${new TextDecoder().decode(r.stderr)}`);
  return new TextDecoder().decode(r.stdout);
}

/**
 * Make `out`, an image-only PDF of the given pages of `src` (1-based, in that order): 150 dpi
 * grey JPEGs, or with `mono` 200 dpi 1-bit images (img2pdf stores them as CCITT G4, as
 * office scanners do); `dpi` sets another resolution.
 *
 * @param src the PDF to scan
 * @param pages its pages to take
 * @param out the scan to write (its folder holds the page images meanwhile)
 * @param mono 1-bit pages instead of grey ones
 * @param dpi the resolution
 * @returns `out`
 */
export async function scanPages(
  src: string,
  pages: number[],
  out: string,
  mono = false,
  dpi = mono ? 200 : 150,
): Promise<string> {
  const images: string[] = [];
  const kind = mono ? ["-r", `${dpi}`, "-mono"] : ["-r", `${dpi}`, "-gray", "-jpeg"];
  for (const p of pages) {
    const stem = `${out}-p${p}`;
    const range = ["-f", `${p}`, "-l", `${p}`];
    await runTool("pdftoppm", [...kind, ...range, "-singlefile", src, stem]);
    images.push(`${stem}.${mono ? "pbm" : "jpg"}`);
  }
  await runTool("img2pdf", [...images, "-o", out]);
  for (const f of images) await Deno.remove(f);
  return out;
}

/** The text layer of one page of a PDF (`pdftotext -f P -l P`). */
export function pageText(src: string, page: number): Promise<string> {
  return runTool("pdftotext", ["-f", `${page}`, "-l", `${page}`, src, "-"]);
}

/** The R FAQ of the shared small corpus (`corpus` is its folder). */
export function rFaq(corpus: string): string {
  return join(corpus, "pdf-manuals/r-doc-pdf/R-FAQ.pdf");
}

/** One page of `src` rendered at `dpi` in grey to a JPEG, optionally a crop (in pixels). */
async function renderJpeg(
  src: string,
  page: number,
  stem: string,
  dpi: number,
  crop?: { y: number; h: number; w: number },
): Promise<Uint8Array> {
  const box = crop ? ["-x", "0", "-y", `${crop.y}`, "-W", `${crop.w}`, "-H", `${crop.h}`] : [];
  const range = ["-f", `${page}`, "-l", `${page}`];
  await runTool("pdftoppm", [
    "-r",
    `${dpi}`,
    "-gray",
    "-jpeg",
    ...range,
    ...box,
    "-singlefile",
    src,
    stem,
  ]);
  const bytes = await Deno.readFile(`${stem}.jpg`);
  await Deno.remove(`${stem}.jpg`);
  return bytes;
}

/**
 * Make `out`, a one-page image-only PDF of page `page` of `src` cut into horizontal strips
 * (as some scanners and PDF tools store a page), each strip its own image at its place:
 * `cuts` are the strip edges as shares of the page's height (cutting through text lines),
 * `dpi` each strip's resolution (strips may differ). Built with pdf-lib.
 *
 * @returns `out`
 */
export async function stripScan(
  src: string,
  page: number,
  out: string,
  cuts = [0, 0.37, 0.71, 1],
  dpi = [150, 110, 150],
): Promise<string> {
  const { PDFDocument } = await import("pdf-lib");
  const { imageSize } = await import("../extractors/_image_size.ts");
  const full = imageSize(await renderJpeg(src, page, `${out}-full`, 72))!;
  const doc = await PDFDocument.create();
  const sheet = doc.addPage([full.width, full.height]);
  for (let i = 0; i + 1 < cuts.length; i++) {
    const r = dpi[i] ?? 150;
    const s = r / 72;
    const y = Math.round(cuts[i]! * full.height * s);
    const h = Math.round(cuts[i + 1]! * full.height * s) - y;
    const jpg = await doc.embedJpg(
      await renderJpeg(src, page, `${out}-s${i}`, r, { y, h, w: Math.round(full.width * s) }),
    );
    sheet.drawImage(jpg, {
      x: 0,
      y: full.height - (y + h) / s,
      width: full.width,
      height: h / s,
    });
  }
  await Deno.writeFile(out, await doc.save());
  return out;
}

/**
 * Make `out`, an image-only PDF of `count` pages cycling through the scans of `pages` of
 * `src` (150 dpi grey JPEGs, each stored once): a scanned book's page count in a few
 * hundred kilobytes. Built with pdf-lib.
 *
 * @returns `out`
 */
export async function repeatScan(
  src: string,
  pages: number[],
  count: number,
  out: string,
): Promise<string> {
  const { PDFDocument } = await import("pdf-lib");
  const doc = await PDFDocument.create();
  const images = [];
  for (const p of pages) {
    images.push(await doc.embedJpg(await renderJpeg(src, p, `${out}-p${p}`, 150)));
  }
  for (let i = 0; i < count; i++) {
    const img = images[i % images.length]!;
    const w = img.width * 72 / 150;
    const h = img.height * 72 / 150;
    doc.addPage([w, h]).drawImage(img, { x: 0, y: 0, width: w, height: h });
  }
  await Deno.writeFile(out, await doc.save());
  return out;
}

/** Every page `pool` reads of `pages` of a PDF, in order; the pool is closed after. */
export async function ocrAll(
  pool: OcrPool,
  bytes: Uint8Array,
  pages: number[],
): Promise<PageOcr[]> {
  const out: PageOcr[] = [];
  try {
    for await (const r of pool.pages(bytes, pages)) out.push(r);
  } finally {
    pool.close();
  }
  return out;
}
