/**
 * Image-only PDFs made from pages of a real PDF, as a scanner makes them: each page rendered
 * at 150 dpi in grey to a JPEG (`pdftoppm`, poppler-utils) and the JPEGs wrapped as PDF pages
 * (`img2pdf`); the original's text layer (`pdftotext`) is the ground truth of their OCR.
 *
 * @module
 */
import { join } from "node:path";
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
 * office scanners do).
 *
 * @param src the PDF to scan
 * @param pages its pages to take
 * @param out the scan to write (its folder holds the page images meanwhile)
 * @param mono 1-bit pages instead of grey ones
 * @returns `out`
 */
export async function scanPages(
  src: string,
  pages: number[],
  out: string,
  mono = false,
): Promise<string> {
  const images: string[] = [];
  const kind = mono ? ["-r", "200", "-mono"] : ["-r", "150", "-gray", "-jpeg"];
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
