/**
 * OCR of scanned PDF pages: a page whose area is mostly images is read from its largest
 * image. The image comes from pdf.js without a canvas: the page's operator list names the
 * images it paints (`paintImageXObject`) and where (the current transformation matrix), and
 * `page.objs` then holds each image decoded to a bitmap (1-bit, grey, RGB or RGBA). The
 * bitmap is written as a PNM file (a few bytes of header before the pixels; Leptonica,
 * inside tesseract.js, reads it natively, so nothing is compressed only to be inflated
 * again) and read by the same tesseract worker as image files (`image.ts`).
 *
 * pdf.js's own rendering would need a canvas (`@napi-rs/canvas`, a native module) and
 * poppler's `pdftoppm` is no dependency of shelfmark: the painted image is also what a
 * scanner produced, at its own resolution, so nothing is lost by not rendering the page.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { getDocument, OPS } from "pdfjs-dist/legacy/build/pdf.mjs";
import { inThreadWorker } from "./pdf.ts";
import { MAX_PIXELS, type OcrData, ocrData, recognizeLines } from "./image.ts";
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

/** Options of {@link ocrPdfPages}. */
export interface PdfOcrOptions {
  /** Tesseract languages (default `["eng"]`). */
  languages?: string[];
  /** Time limit of each page, in ms (the per-file limit applies per page). */
  pageTimeoutMs: number;
  /** Stops between pages (and the page in progress). */
  signal?: AbortSignal;
}

type PdfPage = Awaited<ReturnType<Awaited<ReturnType<typeof getDocument>["promise"]>["getPage"]>>;
type ObjStore = { get(name: string, cb: (v: unknown) => void): void };

/** The largest image a page paints, with the share of the page its images cover. */
async function largestImage(
  page: PdfPage,
): Promise<{ name: string; width: number; height: number; share: number } | undefined> {
  const ops = await page.getOperatorList();
  const [x0, y0, x1, y1] = page.view as number[];
  const pageArea = Math.abs((x1! - x0!) * (y1! - y0!)) || 1;
  let m = [1, 0, 0, 1, 0, 0];
  const stack: number[][] = [];
  let covered = 0;
  let best: { name: string; width: number; height: number; area: number } | undefined;
  for (let i = 0; i < ops.fnArray.length; i++) {
    const fn = ops.fnArray[i];
    const args = ops.argsArray[i] as unknown[];
    if (fn === OPS.save) stack.push(m);
    else if (fn === OPS.restore) m = stack.pop() ?? [1, 0, 0, 1, 0, 0];
    else if (fn === OPS.transform) {
      const [a, b, c, d, e, f] = args as number[];
      m = [
        a! * m[0]! + b! * m[2]!,
        a! * m[1]! + b! * m[3]!,
        c! * m[0]! + d! * m[2]!,
        c! * m[1]! + d! * m[3]!,
        e! * m[0]! + f! * m[2]! + m[4]!,
        e! * m[1]! + f! * m[3]! + m[5]!,
      ];
    } else if (fn === OPS.paintImageXObject) {
      const [name, width, height] = args as [string, number, number];
      const area = Math.abs(m[0]! * m[3]! - m[1]! * m[2]!);
      covered += area;
      if (!best || area > best.area) best = { name, width, height, area };
    }
  }
  if (!best) return undefined;
  return { ...best, share: Math.min(1, covered / pageArea) };
}

/** The decoded image `name` of a page (page objects, or the document's shared ones). */
function bitmap(page: PdfPage, name: string): Promise<PdfBitmap> {
  const store = (name.startsWith("g_") ? page.commonObjs : page.objs) as unknown as ObjStore;
  return new Promise((resolve) => store.get(name, (v) => resolve(v as PdfBitmap)));
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
 * OCR the given pages of a PDF, one at a time on one shared tesseract worker, each within
 * its own time limit: pages whose images cover less than {@link IMAGE_SHARE} of them are
 * `not_scanned`; a page that fails or runs out of time is an `error` and the next page
 * goes on.
 *
 * @param bytes the PDF
 * @param pages 1-based page numbers
 * @param opts languages, the time limit per page, a stop signal
 * @returns each page's result, in the order asked
 * @throws {ExtractError} `corrupt` or `encrypted` when the PDF cannot be opened
 */
export async function* ocrPdfPages(
  bytes: Uint8Array,
  pages: number[],
  opts: PdfOcrOptions,
): AsyncGenerator<PageOcr> {
  const languages = opts.languages?.length ? opts.languages : ["eng"];
  const found: OcrData = ocrData(languages);
  const port = inThreadWorker();
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
  try {
    let doc;
    try {
      doc = await task.promise;
    } catch (e) {
      const encrypted = (e as { name?: string })?.name === "PasswordException";
      throw new ExtractError(
        encrypted ? "encrypted" : "corrupt",
        encrypted ? "PDF is encrypted with a password" : `cannot open PDF: ${String(e)}`,
        { cause: e },
      );
    }
    for (const p of pages) {
      if (opts.signal?.aborted) return;
      if (p < 1 || p > doc.numPages) continue;
      const signal = AbortSignal.any([
        AbortSignal.timeout(opts.pageTimeoutMs),
        ...(opts.signal ? [opts.signal] : []),
      ]);
      let page: PdfPage | undefined;
      try {
        page = await beforeAbort(doc.getPage(p), signal);
        const img = await beforeAbort(largestImage(page), signal);
        if (!img || img.share < IMAGE_SHARE) {
          yield { page: p, skipped: "not_scanned" };
          continue;
        }
        if (img.width * img.height > MAX_PIXELS) {
          yield { page: p, skipped: "too_large" };
          continue;
        }
        const file = pnm(await beforeAbort(bitmap(page, img.name), signal));
        const lines = await recognizeLines(file, { languages, found, signal });
        yield { page: p, lines };
      } catch (e) {
        if (opts.signal?.aborted) return;
        const reason = e instanceof ExtractError ? e.reason : "failed";
        yield { page: p, error: e instanceof Error ? e.message : String(e), reason };
      } finally {
        page?.cleanup();
      }
    }
  } finally {
    await task.destroy().catch(() => {});
    port.close();
  }
}
