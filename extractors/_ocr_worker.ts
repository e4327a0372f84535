/**
 * The OCR worker: reads scanned PDF pages and image files one request at a time, in a child process of its
 * own with a memory limit (`extraction/proc.ts ocr`, started by `extraction/ocr_pool.ts`) or,
 * where processes cannot run, in a worker thread (this module, through `serveThread`). pdf.js
 * and tesseract.js never load in the server's process, and a hostile or huge scan that runs
 * out of memory or time takes only this worker down.
 *
 * The worker keeps the last PDF it was sent open, so a document's bytes cross once per
 * worker, not once per page: a request names its document by a key and carries the bytes
 * only when the worker asks for them (`{ reopen: true }`, after a restart).
 *
 * @module
 */
import { ExtractError } from "../core/extractor.ts";
import { type OcrData, ocrImage } from "./image.ts";
import { type PageOcr, PdfScan } from "./_pdf_ocr.ts";
import { serveThread, type WorkerBody } from "../core/worker_protocol.ts";

/** How the pool starts an OCR worker. */
export interface OcrInit {
  /** Tesseract languages. */
  languages: string[];
  /** Where their data is (found by the pool, which may write a folder; see `ocrData`). */
  found: OcrData;
}

/** One page to read. */
export interface OcrPageRequest {
  /** Names the document (the same key, the same bytes). */
  key: string;
  /** 1-based page. */
  page: number;
  /** Time limit of the page, ms. */
  timeoutMs: number;
  /** The PDF, when the worker asked for it (empty or absent otherwise); an image, always. */
  bytes?: Uint8Array;
  /** The bytes are an image file (page 1), not a PDF. */
  image?: boolean;
}

/**
 * A page's result; `{ reopen: true }` asks for the document's bytes; `{ pages }` says the
 * page is past the document's end.
 */
export type OcrPageAnswer = PageOcr | { reopen: true } | { page: number; pages: number };

/**
 * The worker's side: one open document at a time, every page read by one tesseract worker
 * (`image.ts`). A document that cannot be opened throws (`corrupt`, `encrypted`); a page
 * that fails answers with its error.
 */
export function ocrWorkerBody(): WorkerBody<OcrInit, OcrPageRequest, OcrPageAnswer> {
  let init: OcrInit = { languages: ["eng"], found: { missing: [] } };
  let open: { key: string; scan: PdfScan } | undefined;
  return {
    start(i) {
      init = i;
    },
    async handle(req) {
      if (req.image) return await readImage(req, init);
      if (open?.key !== req.key) {
        if (!req.bytes?.length) return { reopen: true };
        await open?.scan.close();
        open = undefined;
        open = { key: req.key, scan: await PdfScan.open(req.bytes) };
      }
      const scan = open.scan;
      if (req.page < 1 || req.page > scan.pages) return { page: req.page, pages: scan.pages };
      return await scan.read(req.page, { ...init, timeoutMs: req.timeoutMs });
    },
  };
}

/** An image file's text, or why it was not read (`too_large` is skipped, as on PDF pages). */
async function readImage(req: OcrPageRequest, init: OcrInit): Promise<PageOcr> {
  const page = req.page;
  try {
    const signal = AbortSignal.timeout(req.timeoutMs);
    return { page, lines: await ocrImage(req.bytes ?? new Uint8Array(), { ...init, signal }) };
  } catch (e) {
    if (e instanceof ExtractError && e.reason === "too_large") {
      return { page, skipped: "too_large" };
    }
    const reason = e instanceof ExtractError ? e.reason : "failed";
    return { page, error: e instanceof Error ? e.message : String(e), reason };
  }
}

serveThread(ocrWorkerBody());
