/**
 * OCR of scanned PDF pages and image files, in the background after the text pass (as the
 * vectors are): a PDF or an image is searchable by its name and metadata at once, and by the
 * text of its scanned pages once they are read (an image file is one page, left empty by the
 * text pass and read here whole, `ocrImage`). Blank pages (no text layer, or a few stray characters) of each
 * stored PDF are noted in the catalog (`core/ocr_records.ts`); each is then read by OCR
 * (`extractors/_pdf_ocr.ts`: only pages mostly covered by images, the per-file time limit
 * per page, at most `ocr.max_pages` pages of a PDF) in one long-lived OCR worker process
 * with a memory limit (`extraction/ocr_pool.ts`), and its text recorded. The document is then
 * extracted again and the indexer puts each page's text in place of its blank lines
 * ({@link applyOcrPages}), so page numbers, passages and outlines stay right and the
 * keyword index gets the text. A page is read once per content: a restart resumes with the
 * pages still waiting.
 *
 * @module
 */
import { createHash } from "node:crypto";
import type { Catalog } from "../core/catalog.ts";
import type { Extracted } from "../core/extractor.ts";
import { OCR_TYPES, type OcrTodo } from "../core/ocr_records.ts";
import { OcrPool } from "../extraction/ocr_pool.ts";

/** Scanned pages of one PDF read by OCR at most, by default (`ocr.max_pages`). */
export const OCR_MAX_PAGES = 500;
/** A page with at most this many non-blank characters counts as blank (stray marks). */
export const STRAY_CHARS = 16;
/** A document being read is extracted again at least this often (ms), so pages read show. */
const APPLY_MS = 30_000;
/** Stored documents looked at for blank pages per catalog query. */
const CHECK_BATCH = 200;
/** Meta key saying every stored PDF had its blank pages noted (see `OcrSync.#check`). */
const CHECKED_KEY = "ocr_checked";
const CHECKED = "1";

/** Progress of the OCR, for `status`. */
export interface OcrStatus {
  /**
   * `reading` while a run reads pages, `waiting` when pages wait and no run reads them
   * (the next index run starts one), else `idle`; `off` with `ocr.pdf_pages` and
   * `ocr.images` both false. Pages count PDF pages and image files (one page each).
   */
  state: "off" | "reading" | "waiting" | "idle";
  /** Pages read. */
  pages_done: number;
  /** Pages waiting. */
  pages_waiting: number;
  /**
   * Blank pages that are no scans (no image over most of the page, or too large), and
   * images with no text (icons, charts).
   */
  pages_skipped: number;
  /** Pages that failed or ran out of time. */
  pages_failed: number;
  /** Pages read per second in the current or last run. */
  rate?: number;
  /** Last error. */
  error?: string;
}

/** What the OCR needs from the shelf. */
export interface OcrHost {
  /** Tesseract languages. */
  languages?: string[];
  /** The document types read (`pdf`: scanned pages, `image`: image files; default both). */
  types?: readonly string[];
  /** Time limit of one page, ms. */
  pageTimeoutMs: number;
  /** Scanned pages of one PDF read at most (`ocr.max_pages`); the rest are skipped. */
  maxPages?: number;
  /** Where the OCR worker runs (default: a child process with a memory limit, if it can). */
  isolation?: "auto" | "process" | "thread";
  /** The bytes of a document's file, or undefined when it cannot be read. */
  read(todo: OcrTodo): Promise<Uint8Array | undefined>;
  /** Extract a document again (the indexer puts the pages read in place). */
  reextract(docId: string): Promise<void>;
  /** Wait until no index run is in progress (OCR never runs beside the text pass). */
  quiet(): Promise<void>;
  /**
   * Called before pages are read (and again after the pages read so far were put in place):
   * give back idle memory (extraction processes), so they are not resident beside the OCR
   * worker.
   */
  beforeRead?(): void;
  /** Warnings. */
  log(m: string): void;
}

/** Whether lines hold no more than a few stray characters. */
function blank(lines: readonly string[]): boolean {
  let n = 0;
  for (const l of lines) {
    n += l.replace(/\s+/g, "").length;
    if (n > STRAY_CHARS) return false;
  }
  return true;
}

/**
 * The blank pages of a document: no text, or no more than {@link STRAY_CHARS} characters.
 *
 * @param lines the document's lines
 * @param pages the first line of each page (1-based)
 * @returns 1-based page numbers
 * @example
 * ```ts
 * import { blankPages } from "./ocr.ts";
 * import assert from "node:assert/strict";
 * const lines = ["A title page of the scan", "", "3", "The text layer of page four"];
 * // Page 2 is empty and page 3 holds one stray character: both are blank.
 * assert.deepEqual(blankPages(lines, [1, 2, 3, 4]), [2, 3]);
 * ```
 */
export function blankPages(lines: readonly string[], pages: readonly number[]): number[] {
  const out: number[] = [];
  for (let p = 1; p <= pages.length; p++) {
    const from = pages[p - 1]! - 1;
    const to = p < pages.length ? pages[p]! - 1 : lines.length;
    if (blank(lines.slice(from, to))) out.push(p);
  }
  return out;
}

/**
 * Put the lines read by OCR in place of the blank lines of their pages (pages that have
 * text are kept): `pages` and the headings' lines move with them.
 *
 * @param ex an extracted paged document (changed in place)
 * @param texts the lines read from each page, by 1-based page
 * @example
 * ```ts
 * import { applyOcrPages } from "./ocr.ts";
 * import assert from "node:assert/strict";
 * const ex = {
 *   lines: ["Intro", "", "End"],
 *   pages: [1, 2, 3],
 *   headings: [{ level: 1, title: "End", line: 3, page: 3 }],
 * };
 * applyOcrPages(ex, new Map([[2, ["Scanned", "page"]]]));
 * assert.deepEqual(ex.lines, ["Intro", "Scanned", "page", "End"]);
 * assert.deepEqual(ex.pages, [1, 2, 4]);
 * assert.equal(ex.headings[0]!.line, 4);
 * ```
 */
export function applyOcrPages(ex: Extracted, texts: ReadonlyMap<number, string[]>): void {
  const pages = ex.pages;
  if (!pages?.length || !texts.size) return;
  const out: string[] = [];
  const starts: number[] = [];
  const shift: number[] = [];
  const replaced: boolean[] = [];
  for (let p = 1; p <= pages.length; p++) {
    const from = pages[p - 1]! - 1;
    const to = p < pages.length ? pages[p]! - 1 : ex.lines.length;
    const own = ex.lines.slice(from, to);
    const read = texts.get(p);
    starts.push(out.length + 1);
    shift.push(out.length - from);
    const swap = !!read?.length && blank(own);
    replaced.push(swap);
    out.push(...(swap ? read! : own));
  }
  for (const h of ex.headings ?? []) {
    let k = 0;
    while (k + 1 < pages.length && pages[k + 1]! <= h.line) k++;
    h.line = replaced[k] ? starts[k]! : h.line + shift[k]!;
  }
  ex.lines = out;
  ex.pages = starts;
}

/** Reads the scanned pages of stored PDFs and image files in the background. */
export class OcrSync {
  readonly #catalog: Catalog;
  readonly #host: OcrHost;
  readonly #stop = new AbortController();
  #running?: Promise<void>;
  #again = false;
  #rate?: number;
  #error?: string;
  /** The OCR worker, started when a page waits. */
  #pool?: OcrPool;

  /**
   * @param catalog the catalog (documents, their text, the OCR records)
   * @param host reading files, extracting again, waiting for index runs
   */
  constructor(catalog: Catalog, host: OcrHost) {
    this.#catalog = catalog;
    this.#host = host;
  }

  /** Progress for `status`. */
  status(): OcrStatus {
    const c = this.#catalog.ocr.counts(this.#types);
    return {
      state: this.#running ? "reading" : c.waiting ? "waiting" : "idle",
      pages_done: c.done,
      pages_waiting: c.waiting,
      pages_skipped: c.skipped,
      pages_failed: c.failed,
      rate: this.#rate,
      error: this.#error,
    };
  }

  /** Read what waits, in the background (joins the run in progress). */
  kick(): void {
    if (this.#stop.signal.aborted) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = this.#run().catch((e) => {
      this.#error = (e as Error)?.message ?? String(e);
      this.#host.log(`shelfmark: ocr: ${this.#error}`);
    }).finally(() => {
      this.#running = undefined;
      if (this.#again && !this.#stop.signal.aborted) {
        this.#again = false;
        this.kick();
      }
    });
  }

  /** Wait until no page waits (or the run stops). */
  async idle(): Promise<void> {
    while (this.#running) await this.#running;
  }

  /** Stop after the page in progress. */
  async close(): Promise<void> {
    this.#stop.abort();
    this.#pool?.close();
    await this.#running?.catch(() => {});
  }

  /** The document types read. */
  get #types(): readonly string[] {
    return this.#host.types ?? OCR_TYPES;
  }

  /** Process ids of the OCR worker processes running now (for measurements). */
  get pids(): number[] {
    return this.#pool?.pids ?? [];
  }

  /**
   * The documents with pages read but not in their stored text (a run stopped before it put
   * them in place). Once, the blank pages of PDFs stored before the indexer noted them.
   */
  #check(): string[] {
    const ocr = this.#catalog.ocr;
    ocr.prune();
    if (this.#catalog.getMeta(CHECKED_KEY) !== CHECKED) {
      let cursor = "";
      for (;;) {
        const docs = ocr.unchecked(CHECK_BATCH, cursor);
        if (!docs.length) break;
        cursor = docs[docs.length - 1]!.doc_id;
        this.#catalog.transaction(() => {
          for (const d of docs) {
            const text = this.#catalog.text(d.doc_id) ?? "";
            const pages = d.pages.length ? blankPages(text.split("\n"), d.pages) : [];
            const read = pages.length ? ocr.texts(d.doc_id, d.hash) : new Map();
            ocr.checked(d, pages, pages.some((p) => read.has(p)));
          }
        });
      }
      this.#catalog.setMeta(CHECKED_KEY, CHECKED);
    }
    return ocr.unapplied();
  }

  async #run(): Promise<void> {
    const signal = this.#stop.signal;
    const started = performance.now();
    let read = 0;
    // Images read and not yet in their stored text are put in place together (one
    // extraction process for all, not one started beside the OCR worker per image): when
    // nothing else waits, and at least every APPLY_MS.
    let batched = -Infinity;
    while (!signal.aborted) {
      await this.#host.quiet();
      if (signal.aborted) return;
      let todo = this.#catalog.ocr.next(this.#types);
      if (!todo || performance.now() - batched > APPLY_MS) {
        const unapplied = this.#check();
        // The OCR worker leaves before the extraction process that puts the text in place
        // starts (the two are not resident together).
        if (!todo && unapplied.length) this.#closePool();
        for (const id of unapplied) {
          if (signal.aborted) return;
          await this.#host.reextract(id);
        }
        batched = performance.now();
        todo = this.#catalog.ocr.next(this.#types);
      }
      if (!todo) return;
      const ocr = this.#catalog.ocr;
      const bytes = await this.#host.read(todo);
      const hash = bytes && createHash("sha256").update(bytes).digest("hex");
      if (!bytes || hash !== todo.hash) {
        // Gone or changed since it was indexed: the next index run stores it afresh.
        for (const p of todo.pages) ocr.record(todo.doc_id, todo.hash, p, "failed");
        continue;
      }
      const pages = this.#withinLimit(todo);
      if (!pages.length) continue;
      this.#host.beforeRead?.();
      // pdf.js and tesseract.js run in the OCR worker process, started when a page waits.
      this.#pool ??= new OcrPool({
        languages: this.#host.languages,
        pageTimeoutMs: this.#host.pageTimeoutMs,
        isolation: this.#host.isolation,
      });
      let applied = performance.now();
      let fresh = 0;
      let unavailable = false;
      const seen = new Set<number>();
      try {
        const results = todo.doc_type === "image"
          ? this.#pool.image(bytes, signal)
          : this.#pool.pages(bytes, pages, signal);
        for await (const r of results) {
          if ("error" in r && r.reason === "ocr_unavailable") {
            // No page can be read (language data missing): they wait for a later run.
            this.#error = r.error;
            this.#host.log(`shelfmark: ocr: ${r.error}`);
            unavailable = true;
            break;
          }
          seen.add(r.page);
          if ("lines" in r && r.lines.length) {
            ocr.record(todo.doc_id, todo.hash, r.page, "done", r.lines.join("\n"));
            fresh++;
            read++;
            this.#rate = read / ((performance.now() - started) / 1000);
          } else if ("error" in r) {
            ocr.record(todo.doc_id, todo.hash, r.page, "failed", r.error);
            this.#error = `${todo.path} page ${r.page}: ${r.error}`;
          } else {
            ocr.record(todo.doc_id, todo.hash, r.page, "skipped");
          }
          if (fresh && performance.now() - applied > APPLY_MS) {
            await this.#host.reextract(todo.doc_id);
            // The extraction process that put them in place leaves before the next page.
            this.#host.beforeRead?.();
            applied = performance.now();
            fresh = 0;
          }
          // Searches and index runs go first: the next page waits for an index run that
          // started meanwhile (its extraction processes and the OCR worker are not both busy).
          await new Promise((res) => setTimeout(res, 0));
          await this.#host.quiet();
        }
      } catch (e) {
        // The PDF cannot be opened (corrupt, encrypted): its pages are not read.
        this.#error = `${todo.path}: ${(e as Error)?.message ?? e}`;
        for (const p of pages) {
          if (!seen.has(p)) ocr.record(todo.doc_id, todo.hash, p, "failed", this.#error);
        }
      }
      if (unavailable) {
        if (fresh) await this.#host.reextract(todo.doc_id);
        return;
      }
      // Pages the PDF does not have (it was stored with more) wait no longer.
      if (!signal.aborted) {
        for (const p of pages) {
          if (!seen.has(p)) ocr.record(todo.doc_id, todo.hash, p, "skipped");
        }
      }
      if (fresh && !signal.aborted && todo.doc_type !== "image") {
        // Nothing else waits: the OCR worker leaves before the extraction process that puts
        // the pages in place starts (the two are not resident together).
        if (!ocr.next(this.#types)) this.#closePool();
        await this.#host.reextract(todo.doc_id);
      }
    }
  }

  /** Stop the OCR worker (a new one starts when a page waits). */
  #closePool(): void {
    this.#pool?.close();
    this.#pool = undefined;
  }

  /**
   * The waiting pages of `todo` that `maxPages` leaves to read: a document's pages past it
   * (counting those read, skipped or failed before) are skipped, so a scan with a thousand
   * pages is read no further than the limit.
   */
  #withinLimit(todo: OcrTodo): number[] {
    const max = this.#host.maxPages;
    if (max === undefined) return todo.pages;
    const room = Math.max(0, max - this.#catalog.ocr.handled(todo.doc_id, todo.hash));
    const over = todo.pages.slice(room);
    if (over.length) {
      this.#catalog.transaction(() => {
        for (const p of over) {
          this.#catalog.ocr.record(
            todo.doc_id,
            todo.hash,
            p,
            "skipped",
            `over ocr.max_pages (${max})`,
          );
        }
      });
    }
    return todo.pages.slice(0, room);
  }
}
