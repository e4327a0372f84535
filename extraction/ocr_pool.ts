/**
 * The OCR of scanned PDF pages and image files off the server's process: one long-lived OCR worker (a child
 * process with a memory limit, `proc.ts ocr`, where processes can run; else a worker thread)
 * reads one page per request, reused across pages and documents. A page that runs past its
 * time limit, or a worker that goes over its memory limit or crashes, costs that page (the
 * worker is killed and a fresh one takes the next page); the server never loads pdf.js's
 * page images or tesseract. The worker leaves when idle, and is replaced after a page that
 * left it larger than `recycleMb`, so memory stays bounded over a thousand pages.
 *
 * @module
 */
import type { OcrInit, OcrPageAnswer, OcrPageRequest } from "../extractors/_ocr_worker.ts";
import type { PageOcr } from "../extractors/_pdf_ocr.ts";
import { ExtractError } from "../core/extractor.ts";
import { type Channel, threadChannel, WorkerError, WorkerPool } from "../core/workers.ts";
import { ProcChannel, procConfig, rssOf } from "./proc_channel.ts";

/** Options of an {@link OcrPool}. */
export interface OcrPoolOptions {
  /** Tesseract languages (default `["eng"]`). */
  languages?: string[];
  /** Time limit of one page, ms (the per-file limit, per page). */
  pageTimeoutMs: number;
  /** Memory limit of the OCR process, MiB (default {@link OCR_MEMORY_MB}). */
  memoryMb?: number;
  /** A process larger than this after a page is replaced (default 80 % of `memoryMb`). */
  recycleMb?: number;
  /** The worker leaves after this long without a page (default 10 s). */
  idleMs?: number;
  /** `process`, `thread` or `auto` (default: a process where one can run). */
  isolation?: "auto" | "process" | "thread";
}

/**
 * Memory limit of the OCR process, MiB: a 300 dpi A4 page read by tesseract peaks near
 * 400 MiB resident (pdf.js, the decoded image, tesseract's wasm heap).
 */
export const OCR_MEMORY_MB = 512;

/**
 * Pages lost in a row to the worker's death (crash, memory, time limit) after which the
 * document's other pages are given up with the same error, so a scan that kills every
 * worker does not restart one per page.
 */
export const MAX_LOST_IN_A_ROW = 3;

/** Time a page's request gets beyond the page's own limit (opening the document). */
const OPEN_MS = 30_000;

/** The OCR worker as a pool of one. */
export class OcrPool {
  readonly #workers: WorkerPool<OcrPageRequest, OcrPageAnswer, OcrInit>;
  readonly #timeoutMs: number;
  readonly #channels = new Set<ProcChannel>();
  /** Settles once the languages' data is found. */
  readonly #ready: Promise<void>;
  #documents = 0;
  #started = 0;
  #closed = false;

  /** @param opts languages, the time limit per page, the memory limit and isolation */
  constructor(opts: OcrPoolOptions) {
    const languages = opts.languages?.length ? [...opts.languages] : ["eng"];
    this.#timeoutMs = opts.pageTimeoutMs;
    const isolation = opts.isolation ?? "auto";
    const config = isolation === "thread" ? undefined : procConfig();
    if (!config && isolation === "process") {
      throw new Error("OCR processes need a deno checkout and --allow-run");
    }
    const memoryMb = Math.max(128, opts.memoryMb ?? OCR_MEMORY_MB);
    const recycle = (opts.recycleMb ?? Math.floor(memoryMb * 0.8)) * 2 ** 20;
    const init = { languages, found: { missing: [] } } as OcrInit;
    this.#ready = import("../extractors/image.ts").then(({ ocrData }) => {
      // Found here, where writing is allowed (languages of several packages are gathered
      // in one folder); the worker reads only.
      init.found = ocrData(languages);
    });
    this.#workers = new WorkerPool({
      name: "OCR worker",
      connect: (events): Channel => {
        this.#started++;
        if (!config) {
          return threadChannel(new URL("../extractors/_ocr_worker.ts", import.meta.url))(events);
        }
        const ch = new ProcChannel(config, memoryMb, events, "ocr");
        this.#channels.add(ch);
        ch.exited.then(() => this.#channels.delete(ch));
        return ch;
      },
      init,
      timeoutMs: this.#timeoutMs + OPEN_MS,
      startAttempts: 2,
      idleMs: opts.idleMs ?? 10_000,
      retire: (ch) => ch instanceof ProcChannel && (rssOf(ch.pid) ?? 0) > recycle,
    });
  }

  /** Workers started so far (a first one, then one after each recycle, crash or idle stop). */
  get started(): number {
    return this.#started;
  }

  /** Process ids of the OCR processes running now (none with a thread). */
  get pids(): number[] {
    return [...this.#channels].map((c) => c.pid);
  }

  /**
   * Read an image file as page 1: its lines, or why it was not read (as for a PDF page; a
   * file that is no image or over the size limit is an `error` or `too_large`, not thrown).
   *
   * @param bytes the image file (sent with the request)
   * @param signal stops before the request
   */
  image(bytes: Uint8Array, signal?: AbortSignal): AsyncGenerator<PageOcr> {
    return this.#read(bytes, [1], signal, true);
  }

  /**
   * Read the given pages of a PDF, one request each, in order: each page's lines, or why it
   * was not read. Pages past the document's end are left out. A page lost with the worker
   * (time limit, memory limit, crash) is an `error` and the next page goes on in a fresh
   * worker; after {@link MAX_LOST_IN_A_ROW} such pages the rest fail with the same error.
   *
   * @param bytes the PDF (sent to the worker once, and again after a restart)
   * @param pages 1-based pages
   * @param signal stops between pages
   * @throws {ExtractError} `corrupt` or `encrypted` when the PDF cannot be opened
   */
  pages(
    bytes: Uint8Array,
    pages: readonly number[],
    signal?: AbortSignal,
  ): AsyncGenerator<PageOcr> {
    return this.#read(bytes, pages, signal, false);
  }

  /** Pages of a PDF, or page 1 of an image (whose bytes go with every request). */
  async *#read(
    bytes: Uint8Array,
    pages: readonly number[],
    signal: AbortSignal | undefined,
    image: boolean,
  ): AsyncGenerator<PageOcr> {
    await this.#ready;
    const key = `d${++this.#documents}`;
    let lost = 0;
    let lastLoss = "";
    for (const page of pages) {
      if (signal?.aborted || this.#closed) return;
      if (lost >= MAX_LOST_IN_A_ROW) {
        yield { page, error: `given up after ${lost} pages: ${lastLoss}`, reason: "failed" };
        continue;
      }
      let r: OcrPageAnswer;
      try {
        r = await this.#request(
          image
            ? { key, page, timeoutMs: this.#timeoutMs, bytes: bytes.slice(), image }
            : { key, page, timeoutMs: this.#timeoutMs },
        );
        if ("reopen" in r) {
          // A copy each time: the bytes are handed over to the worker.
          r = await this.#request({ key, page, timeoutMs: this.#timeoutMs, bytes: bytes.slice() });
        }
      } catch (e) {
        if (signal?.aborted || this.#closed) return;
        if (!(e instanceof WorkerError)) throw e;
        if (e.kind === "failed") {
          // The worker threw: the document cannot be opened.
          const reason = e.remote?.reason ?? "failed";
          throw new ExtractError(reason, e.detail);
        }
        lost++;
        lastLoss = e.kind === "timeout"
          ? `OCR of a page ran longer than ${this.#timeoutMs} ms`
          : e.detail;
        yield { page, error: lastLoss, reason: e.kind === "timeout" ? "timeout" : e.kind };
        continue;
      }
      if ("reopen" in r || "pages" in r) continue;
      lost = 0;
      yield r;
    }
  }

  #request(req: OcrPageRequest): Promise<OcrPageAnswer> {
    const b = req.bytes;
    return this.#workers.request(req, b ? [b.buffer as ArrayBuffer] : []);
  }

  /** Stop the worker; a page in progress is dropped. */
  close(): void {
    this.#closed = true;
    this.#workers.close();
  }
}
