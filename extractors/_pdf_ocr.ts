/**
 * OCR of scanned PDF pages: a page whose area is mostly images is read from its images. The
 * images come from pdf.js without a canvas: the page's operator list names the images it
 * paints (`paintImageXObject`, inline images) and where (the current transformation matrix),
 * and `page.objs` then holds each image decoded to a bitmap (1-bit, grey, RGB or RGBA). A
 * page painted by one image is read from it as it is; a page of several images (strips,
 * tiles, a photo beside a scanned text block), or of one denser than {@link OCR_MAX_DPI},
 * from one grey bitmap of the page with every image at its place ({@link composite}). The bitmap is written as a PNM file (a few bytes
 * of header before the pixels; Leptonica, inside tesseract.js, reads it natively, so nothing
 * is compressed only to be inflated again) and read by the same tesseract worker as image
 * files (`image.ts`).
 *
 * Compositing rather than reading each image alone: a text line cut by a strip's edge would
 * be lost or read twice in halves, and tesseract's layout analysis of the whole page gives
 * the reading order across images, which joining per-image texts could only guess.
 *
 * pdf.js's own rendering would need a canvas (`@napi-rs/canvas`, a native module) and
 * poppler's `pdftoppm` is no dependency of shelfmark: the painted image is also what a
 * scanner produced, at its own resolution, so nothing is lost by not rendering the page.
 *
 * This module runs in the OCR worker process (`_ocr_worker.ts`), never in the server's.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { getDocument, OPS } from "pdfjs-dist/legacy/build/pdf.mjs";
import { inThreadWorker } from "./pdf.ts";
import { MAX_PIXELS, type OcrData, recognizeLines } from "./image.ts";
import { ExtractError } from "../core/extractor.ts";

/**
 * pdf.js's image decoders for JBIG2 and CCITT (1-bit scans) and JPEG 2000, as a folder path
 * (pdf.js reads it with `fs` under Node semantics; it cannot read a `file:` URL).
 */
const WASM_DIR = fileURLToPath(new URL(".", import.meta.resolve("pdfjs-dist/wasm/jbig2.wasm")));

/** Share of a page's area its images must cover for the page to be read by OCR. */
export const IMAGE_SHARE = 0.5;

/** A decoded pdf.js image: `kind` 1 is 1 bit per pixel (1 = white), 2 RGB, 3 RGBA. */
export interface PdfBitmap {
  /** Pixels across. */
  width: number;
  /** Pixels down. */
  height: number;
  /** 1: 1-bit grey (rows padded to bytes), 2: RGB, 3: RGBA. */
  kind: number;
  /** The pixels. */
  data: Uint8Array | Uint8ClampedArray;
}

/**
 * The bitmap as a PNM file: `P4` (1-bit, 1 = black) for 1-bit images, else `P5` (8-bit
 * grey, luma of RGB), which tesseract reads without decompressing anything.
 *
 * @param img a decoded pdf.js image
 * @returns the PNM bytes
 * @example
 * ```ts
 * import { pnm } from "./_pdf_ocr.ts";
 * import assert from "node:assert/strict";
 * const rgb = new Uint8Array([255, 255, 255, 0, 0, 0]);
 * const file = pnm({ width: 2, height: 1, kind: 2, data: rgb });
 * assert.equal(new TextDecoder().decode(file.subarray(0, 11)), "P5\n2 1\n255\n");
 * assert.deepEqual([...file.subarray(11)], [255, 0]);
 * ```
 */
export function pnm(img: PdfBitmap): Uint8Array {
  const { width, height, kind, data } = img;
  const enc = new TextEncoder();
  if (kind === 1) {
    const head = enc.encode(`P4\n${width} ${height}\n`);
    const rowBytes = (width + 7) >> 3;
    const out = new Uint8Array(head.length + rowBytes * height);
    out.set(head);
    for (let i = 0; i < rowBytes * height; i++) out[head.length + i] = ~(data[i] ?? 255) & 255;
    return out;
  }
  const head = enc.encode(`P5\n${width} ${height}\n255\n`);
  const n = width * height;
  const out = new Uint8Array(head.length + n);
  out.set(head);
  const step = kind === 3 ? 4 : 3;
  for (let p = 0, s = 0, o = head.length; p < n; p++, s += step) {
    // Rec. 601 luma, in integers.
    out[o++] = (77 * data[s]! + 150 * data[s + 1]! + 29 * data[s + 2]!) >> 8;
  }
  return out;
}

/** The result of one page: its OCR lines, or why it was not read. */
export type PageOcr =
  | { page: number; lines: string[] }
  | { page: number; skipped: "not_scanned" | "too_large" }
  | { page: number; error: string; reason: string };

/** What {@link PdfScan.read} reads a page with. */
export interface ScanPageOptions {
  /** Tesseract languages. */
  languages: string[];
  /** Where their data is (from `ocrData`). */
  found: OcrData;
  /** Time limit of the page, in ms. */
  timeoutMs: number;
}

type PdfDoc = Awaited<ReturnType<typeof getDocument>["promise"]>;
type PdfPage = Awaited<ReturnType<PdfDoc["getPage"]>>;
type ObjStore = { get(name: string, cb: (v: unknown) => void): void };
type Matrix = [number, number, number, number, number, number];

/** An image painted on a page: a named XObject or an inline image, and where it goes. */
interface Placed {
  /** The XObject's name, or the inline image's bitmap. */
  image: string | PdfBitmap;
  /** Its pixels across and down. */
  width: number;
  height: number;
  /** The current transformation matrix: the image's unit square to page space. */
  m: Matrix;
}

/** The images a page paints (operator list, transformation matrices) and the share they cover. */
async function placedImages(page: PdfPage): Promise<{ images: Placed[]; share: number }> {
  const ops = await page.getOperatorList();
  const [x0, y0, x1, y1] = page.view as number[];
  const pageArea = Math.abs((x1! - x0!) * (y1! - y0!)) || 1;
  let m: Matrix = [1, 0, 0, 1, 0, 0];
  const stack: Matrix[] = [];
  const images: Placed[] = [];
  let covered = 0;
  for (let i = 0; i < ops.fnArray.length; i++) {
    const fn = ops.fnArray[i];
    const args = ops.argsArray[i] as unknown[];
    if (fn === OPS.save) stack.push(m);
    else if (fn === OPS.restore) m = stack.pop() ?? [1, 0, 0, 1, 0, 0];
    else if (fn === OPS.transform) {
      const [a, b, c, d, e, f] = args as number[];
      m = [
        a! * m[0] + b! * m[2],
        a! * m[1] + b! * m[3],
        c! * m[0] + d! * m[2],
        c! * m[1] + d! * m[3],
        e! * m[0] + f! * m[2] + m[4],
        e! * m[1] + f! * m[3] + m[5],
      ];
    } else if (fn === OPS.paintImageXObject || fn === OPS.paintInlineImageXObject) {
      const inline = fn === OPS.paintInlineImageXObject;
      const img = inline ? args[0] as PdfBitmap : undefined;
      const [name, width, height] = inline
        ? [img!, img!.width, img!.height]
        : args as [string, number, number];
      covered += Math.abs(m[0] * m[3] - m[1] * m[2]);
      images.push({ image: name, width, height, m });
    }
  }
  return { images, share: Math.min(1, covered / pageArea) };
}

/** The resolution of a placed image on the page, dots per inch (the denser axis). */
function dpi(x: Placed): number {
  const across = Math.hypot(x.m[0], x.m[1]);
  const down = Math.hypot(x.m[2], x.m[3]);
  return 72 * Math.max(across ? x.width / across : 0, down ? x.height / down : 0);
}

/** The decoded image `name` of a page (page objects, or the document's shared ones). */
function bitmap(page: PdfPage, image: string | PdfBitmap): Promise<PdfBitmap> {
  if (typeof image !== "string") return Promise.resolve(image);
  const store = (image.startsWith("g_") ? page.commonObjs : page.objs) as unknown as ObjStore;
  return new Promise((resolve) => store.get(image, (v) => resolve(v as PdfBitmap)));
}

/** The grey level (0–255) of pixel (x, y) of a decoded image. */
function grey(img: PdfBitmap, x: number, y: number): number {
  const d = img.data;
  if (img.kind === 1) {
    const byte = d[y * ((img.width + 7) >> 3) + (x >> 3)]!;
    return (byte >> (7 - (x & 7))) & 1 ? 255 : 0;
  }
  const s = (y * img.width + x) * (img.kind === 3 ? 4 : 3);
  return (77 * d[s]! + 150 * d[s + 1]! + 29 * d[s + 2]!) >> 8;
}

/**
 * Resolution tesseract reads a page at, at most, in dpi: its memory grows with the pixels
 * (a 300 dpi A4 page peaked at 622 MiB resident in the OCR worker, a 150 dpi one at 330 MiB),
 * while body text reads as well at 200 dpi (CER under 0.01 at 150 dpi on the bench's pages).
 * Denser scans are reduced to it, each pixel the average of the source pixels it covers.
 */
export const OCR_MAX_DPI = 200;
const MAX_DENSITY = OCR_MAX_DPI / 72;

/**
 * The page as one grey bitmap, every image painted at its place (white elsewhere): a page
 * made of strips, tiles or a photo beside a scanned text block is read whole, so a line of
 * text cut by a strip's edge is read as one line, and tesseract's own layout analysis gives
 * the reading order. The resolution is that of the densest image (at most
 * {@link OCR_MAX_DPI}), the pixel count at most {@link MAX_PIXELS}; each pixel takes the
 * source pixel of the last image painted over it (the inverse of the image's matrix, so
 * rotated or flipped images land right), the average of those it covers where the image is
 * denser than the page bitmap.
 *
 * @param view the page's box `[x0, y0, x1, y1]` in points
 * @param parts the images, in painting order, with their bitmaps
 * @returns 8-bit grey pixels, row by row from the page's top
 * @example
 * ```ts
 * import { composite } from "./_pdf_ocr.ts";
 * import assert from "node:assert/strict";
 * // A page 2 pt × 1 pt painted by two 1-pixel RGB images: black on the left, grey on the
 * // right (its matrix moves the unit square 1 pt to the right).
 * const black = { width: 1, height: 1, kind: 2, data: new Uint8Array([0, 0, 0]) };
 * const grey = { width: 1, height: 1, kind: 2, data: new Uint8Array([128, 128, 128]) };
 * const page = composite([0, 0, 2, 1], [
 *   { m: [1, 0, 0, 1, 0, 0], img: black },
 *   { m: [1, 0, 0, 1, 1, 0], img: grey },
 * ]);
 * assert.deepEqual([page.width, page.height, ...page.grey], [2, 1, 0, 128]);
 * ```
 */
export function composite(
  view: readonly number[],
  parts: { m: readonly number[]; img: PdfBitmap }[],
): { width: number; height: number; grey: Uint8Array } {
  const [x0, y0, x1, y1] = view as [number, number, number, number];
  const pw = Math.abs(x1 - x0) || 1;
  const ph = Math.abs(y1 - y0) || 1;
  let density = 0;
  for (const { m, img } of parts) {
    const across = Math.hypot(m[0]!, m[1]!);
    const down = Math.hypot(m[2]!, m[3]!);
    if (across > 0) density = Math.max(density, img.width / across);
    if (down > 0) density = Math.max(density, img.height / down);
  }
  density = Math.min(density || 1, MAX_DENSITY, Math.sqrt(MAX_PIXELS / (pw * ph)));
  const width = Math.max(1, Math.round(pw * density));
  const height = Math.max(1, Math.round(ph * density));
  const out = new Uint8Array(width * height).fill(255);
  const left = Math.min(x0, x1);
  const top = Math.max(y0, y1);
  for (const { m, img } of parts) {
    const [a, b, c, d, e, f] = m as Matrix;
    const det = a * d - b * c;
    if (!det || !img.width || !img.height) continue;
    // The image's corners in canvas pixels: its bounding box.
    const xs: number[] = [];
    const ys: number[] = [];
    for (const [u, v] of [[0, 0], [1, 0], [0, 1], [1, 1]]) {
      xs.push((a * u! + c * v! + e - left) * density);
      ys.push((top - (b * u! + d * v! + f)) * density);
    }
    const cx0 = Math.max(0, Math.floor(Math.min(...xs)));
    const cx1 = Math.min(width, Math.ceil(Math.max(...xs)));
    const cy0 = Math.max(0, Math.floor(Math.min(...ys)));
    const cy1 = Math.min(height, Math.ceil(Math.max(...ys)));
    // Source pixels per canvas pixel (across), averaged when more than one.
    const k = Math.max(1, Math.round(img.width / (Math.hypot(a, b) * density)));
    for (let cy = cy0; cy < cy1; cy++) {
      const py = top - (cy + 0.5) / density - f;
      for (let cx = cx0; cx < cx1; cx++) {
        const px = left + (cx + 0.5) / density - e;
        // Page point to the image's unit square (inverse matrix); row 0 is the top.
        const u = (d * px - c * py) / det;
        const v = (a * py - b * px) / det;
        if (u < 0 || u >= 1 || v < 0 || v >= 1) continue;
        const ix = Math.floor(u * img.width);
        const iy = Math.min(img.height - 1, Math.floor((1 - v) * img.height));
        if (k === 1) {
          out[cy * width + cx] = grey(img, ix, iy);
          continue;
        }
        // Reduced: the average of the k × k source pixels from (ix, iy).
        let sum = 0;
        let n = 0;
        for (let dy = 0; dy < k && iy + dy < img.height; dy++) {
          for (let dx = 0; dx < k && ix + dx < img.width; dx++, n++) {
            sum += grey(img, ix + dx, iy + dy);
          }
        }
        out[cy * width + cx] = Math.round(sum / n);
      }
    }
  }
  return { width, height, grey: out };
}

/** 8-bit grey pixels as a `P5` PNM file. */
function greyPnm(width: number, height: number, pixels: Uint8Array): Uint8Array {
  const head = new TextEncoder().encode(`P5\n${width} ${height}\n255\n`);
  const out = new Uint8Array(head.length + pixels.length);
  out.set(head);
  out.set(pixels, head.length);
  return out;
}

/** Reject when `signal` aborts (pdf.js work cannot be stopped half-way: it is left behind). */
function beforeAbort<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const stop = () => reject(new ExtractError("timeout", "OCR ran past the time limit"));
    if (signal.aborted) return stop();
    signal.addEventListener("abort", stop, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener("abort", stop));
  });
}

/**
 * An open scanned PDF whose pages are read one at a time by OCR (in the OCR worker process,
 * `_ocr_worker.ts`): a page whose images cover less than {@link IMAGE_SHARE} of it is
 * `not_scanned`; a page painted by one image of at most {@link OCR_MAX_DPI} is read from
 * that image as it is; a page of several images (strips, tiles, photo and text), or of a
 * denser one, from their {@link composite}.
 */
export class PdfScan {
  readonly #doc: PdfDoc;
  readonly #close: () => Promise<void>;

  private constructor(doc: PdfDoc, close: () => Promise<void>) {
    this.#doc = doc;
    this.#close = close;
  }

  /**
   * Open a PDF.
   *
   * @param bytes the PDF (copied)
   * @throws {ExtractError} `corrupt` or `encrypted` when it cannot be opened
   */
  static async open(bytes: Uint8Array): Promise<PdfScan> {
    const port = await inThreadWorker();
    const task = getDocument({
      data: new Uint8Array(bytes), // a copy, and never a Node Buffer (pdf.js refuses one)
      worker: port.worker,
      disableFontFace: true,
      useSystemFonts: false,
      isOffscreenCanvasSupported: false,
      isImageDecoderSupported: false,
      wasmUrl: WASM_DIR,
      verbosity: 0,
    });
    const close = async () => {
      await task.destroy().catch(() => {});
      port.close();
    };
    try {
      return new PdfScan(await task.promise, close);
    } catch (e) {
      await close();
      const encrypted = (e as { name?: string })?.name === "PasswordException";
      throw new ExtractError(
        encrypted ? "encrypted" : "corrupt",
        encrypted ? "PDF is encrypted with a password" : `cannot open PDF: ${String(e)}`,
        { cause: e },
      );
    }
  }

  /** Pages of the document. */
  get pages(): number {
    return this.#doc.numPages;
  }

  /**
   * Read one page by OCR within its time limit.
   *
   * @param p 1-based page number (within {@link pages})
   * @param opts languages, their data, the time limit
   * @returns its lines, or why it was not read (an `error` for a failure or the time limit)
   */
  async read(p: number, opts: ScanPageOptions): Promise<PageOcr> {
    const signal = AbortSignal.timeout(opts.timeoutMs);
    let page: PdfPage | undefined;
    try {
      page = await beforeAbort(this.#doc.getPage(p), signal);
      const { images, share } = await beforeAbort(placedImages(page), signal);
      if (!images.length || share < IMAGE_SHARE) return { page: p, skipped: "not_scanned" };
      let file: Uint8Array;
      const only = images.length === 1 ? images[0]! : undefined;
      if (only && only.width * only.height > MAX_PIXELS) {
        return { page: p, skipped: "too_large" };
      }
      if (only && dpi(only) <= OCR_MAX_DPI * 1.1) {
        // One image at a resolution tesseract reads well: as it is.
        file = pnm(await beforeAbort(bitmap(page, only.image), signal));
      } else {
        const parts = [];
        let pixels = 0;
        for (const x of images) {
          pixels += x.width * x.height;
          if (pixels > 2 * MAX_PIXELS) return { page: p, skipped: "too_large" };
          parts.push({ m: x.m, img: await beforeAbort(bitmap(page, x.image), signal) });
        }
        const c = composite(page.view as number[], parts);
        file = greyPnm(c.width, c.height, c.grey);
      }
      const lines = await recognizeLines(file, {
        languages: opts.languages,
        found: opts.found,
        signal,
      });
      return { page: p, lines };
    } catch (e) {
      const reason = e instanceof ExtractError ? e.reason : "failed";
      return { page: p, error: e instanceof Error ? e.message : String(e), reason };
    } finally {
      page?.cleanup();
    }
  }

  /** Close the document (its pdf.js worker and caches). */
  close(): Promise<void> {
    return this.#close();
  }
}
