/**
 * The PDF extractor, on pdf.js (`npm:pdfjs-dist`), running in the current thread (no pdf.js
 * worker): text rebuilt into lines in reading order page by page, `pages[]` exact, metadata
 * from the info dictionary (XMP `dc:title` as a fallback), bookmarks mapped to pages and
 * lines (`high`), else headings from font sizes, fonts, numbering and the table of contents
 * (`medium` or `none`, see `_headings_pdf.ts`).
 *
 * @module
 */
import { getDocument, PDFWorker } from "pdfjs-dist/legacy/build/pdf.mjs";
import {
  dropParsed,
  type LoadedWorker,
  loadPdfjsWorker,
  type PdfjsWorkerModule,
} from "./_pdfjs_text_patch.ts";
import { fastPorts } from "./_pdf_port.ts";
import { layoutLines, type PageLine, type Run } from "./_pdf_layout.ts";
import { dropRunning } from "./_pdf_running.ts";
import { pdfHeadings, type PdfLine } from "./_headings_pdf.ts";
import {
  type DocMeta,
  type Extracted,
  ExtractError,
  type ExtractInput,
  type Extractor,
  type Heading,
} from "../core/extractor.ts";

/**
 * pdf.js's "worker" code, with the cheaper text builder of `_pdfjs_text_patch.ts` when the
 * installed pdf.js is the one it was written for; it runs in this thread (getDocument also
 * finds it on globalThis). Loaded as the module loads but not awaited there: a Worker whose
 * module is still awaiting at its top level loses the messages posted to it meanwhile
 * (Deno 2.9), and extraction and OCR threads import this module.
 */
const workerLoad: Promise<LoadedWorker> = loadPdfjsWorker().then((w) => {
  (globalThis as unknown as { pdfjsWorker: unknown }).pdfjsWorker ??= w.module;
  return w;
});
// A failure is reported to each extraction that awaits it, not as an unhandled rejection.
workerLoad.catch(() => {});

/** Whether pdf.js runs with the text builder of `_pdfjs_text_patch.ts`, else why not. */
export async function pdfjsTextPatch(): Promise<{ patched: boolean; reason?: string }> {
  const { patched, reason } = await workerLoad;
  return { patched, reason };
}

/** How the documents of an {@link inThreadWorker} are read. */
export interface InThreadWorkerOptions {
  /**
   * Load fonts for text only (the `textOnlyFonts` evaluator option of the patched worker,
   * `_pdfjs_text_patch.ts`): their Type1 fonts carry no font file, so text drawn in them
   * would not show; text content is the same. Ignored by an unpatched worker.
   */
  textOnlyFonts?: boolean;
}

/**
 * A pdf.js "worker" in this thread, connected by a `FastPort` pair instead of pdf.js's
 * structuredClone-based loopback (about a tenth of the CPU time of text extraction). The
 * OCR of scanned pages (`_pdf_ocr.ts`) opens documents the same way. `workerModule` is the
 * worker code to run (the one `loadPdfjsWorker` chose, unless a test compares two).
 */
export async function inThreadWorker(
  workerModule?: PdfjsWorkerModule,
  options: InThreadWorkerOptions = {},
): Promise<{ worker: InstanceType<typeof PDFWorker>; close: () => void }> {
  const code = workerModule ?? (await workerLoad).module;
  const [main, side] = fastPorts();
  code.WorkerMessageHandler.initializeFromPort(side);
  if (options.textOnlyFonts) {
    // getDocument passes a fixed set of evaluator options: the one more is added to the
    // request that opens each document.
    const post = main.postMessage.bind(main);
    main.postMessage = (obj, transfer) => post(withTextOnlyFonts(obj), transfer);
  }
  const worker = new PDFWorker({ port: main as unknown as null, verbosity: 0 });
  return {
    worker,
    close: () => {
      worker.destroy();
      main.terminate();
    },
  };
}

/** `message` with `textOnlyFonts` in its evaluator options when it opens a document. */
function withTextOnlyFonts(message: unknown): unknown {
  const m = message as { action?: unknown; data?: { evaluatorOptions?: object } } | null;
  if (m?.action !== "GetDocRequest" || typeof m.data?.evaluatorOptions !== "object") {
    return message;
  }
  return {
    ...m,
    data: { ...m.data, evaluatorOptions: { ...m.data.evaluatorOptions, textOnlyFonts: true } },
  };
}

type PdfDoc = Awaited<ReturnType<typeof getDocument>["promise"]>;
type TextContent = Awaited<ReturnType<Awaited<ReturnType<PdfDoc["getPage"]>>["getTextContent"]>>;
type TextItem = Extract<TextContent["items"][number], { str: string }>;
interface OutlineItem {
  title: string;
  dest: string | unknown[] | null;
  items: OutlineItem[];
}

const BOLD = /bold|black|heavy|semibold|demi/i;
// Control characters (and Unicode line separators) must never reach a title.
// deno-lint-ignore no-control-regex
const CONTROL_ALL = /[\u0000-\u001f\u007f\u2028\u2029]+/g;

/**
 * Rebuild one page's text items into lines in reading order (see `_pdf_layout.ts`). Each
 * run keeps its font's id (`fontName`, stable within the document) and whether the font is
 * fixed-pitch, for the heading heuristic.
 */
function pageLines(tc: TextContent): PageLine[] {
  const styles = tc.styles as Record<string, { fontFamily?: string }>;
  // Whether each font of the page is bold and fixed-pitch, worked out once per font.
  const looks = new Map<string, { bold: boolean; mono: boolean }>();
  const runs: Run[] = [];
  for (const item of tc.items) {
    // A marked-content item has no `str`.
    const it = item as Partial<TextItem>;
    const str = it.str;
    if (!str || it.height! <= 0 || !str.trim()) continue;
    const t = it.transform!;
    const fontName = it.fontName!;
    let look = looks.get(fontName);
    if (!look) {
      const family = styles[fontName]?.fontFamily ?? "";
      look = { bold: BOLD.test(fontName) || BOLD.test(family), mono: family === "monospace" };
      looks.set(fontName, look);
    }
    runs.push({
      str,
      x: t[4],
      y: t[5],
      w: it.width!,
      h: it.height!,
      bold: look.bold,
      font: fontName,
      mono: look.mono,
    });
  }
  return layoutLines(runs);
}

/** Lower-case letters and digits only, single spaces: for matching titles to lines. */
function norm(s: string): string {
  return s.toLowerCase().normalize("NFKC").replace(/[^\p{L}\p{N}]+/gu, " ").trim();
}

/** A usable document title, or undefined for junk ("untitled", file names). */
export function cleanTitle(raw: unknown): string | undefined {
  if (typeof raw !== "string") return undefined;
  let t = raw.replace(CONTROL_ALL, " ").replace(/\s+/g, " ").trim();
  t = t.replace(/^Microsoft (?:Word|PowerPoint|Excel) - /i, "");
  if (/^[\w ,.()+-]+\.(?:dvi|docx?|pdf|tex|rtf|odt|pptx?|xlsx?|ps|txt|indd|qxd|html?)$/i.test(t)) {
    return undefined;
  }
  if (!t || /^(untitled|no title|title|unknown|document\d*)$/i.test(t) || !/\p{L}/u.test(t)) {
    return undefined;
  }
  return t;
}

/**
 * The title printed on the first page: its largest text (up to three consecutive lines of
 * that size), for PDFs whose metadata names none.
 */
export function firstPageTitle(info: PdfLine[]): string | undefined {
  const first = info.filter((l) => l.page === 1 && /\p{L}{2}/u.test(l.text));
  if (!first.length) return undefined;
  const max = Math.max(...first.map((l) => l.size));
  const start = first.findIndex((l) => l.size >= max * 0.95);
  const parts: string[] = [];
  for (let i = start; i < first.length && parts.length < 3 && first[i]!.size >= max * 0.95; i++) {
    parts.push(first[i]!.text);
  }
  const t = parts.join(" ").replace(/\s+/g, " ").trim();
  return t && t.length <= 200 ? t : undefined;
}

async function readMeta(doc: PdfDoc): Promise<DocMeta | undefined> {
  try {
    const { info, metadata } = await doc.getMetadata();
    const dict = (info ?? {}) as Record<string, unknown>;
    const meta: DocMeta = {};
    const title = cleanTitle(dict.Title) ?? cleanTitle(metadata?.get("dc:title"));
    if (title) meta.title = title;
    const author = typeof dict.Author === "string" ? dict.Author.replace(/\s+/g, " ").trim() : "";
    if (author) meta.author = author;
    const created = typeof dict.CreationDate === "string" ? pdfDate(dict.CreationDate) : undefined;
    if (created) meta.created = created;
    const lang = typeof dict.Language === "string" ? dict.Language.trim() : "";
    if (lang) meta.language = lang;
    // Keywords (the `tags` front-matter field of a PDF), separated by commas or semicolons.
    const tags = typeof dict.Keywords === "string"
      ? dict.Keywords.split(/[,;]/).map((t) => t.trim()).filter(Boolean)
      : [];
    if (tags.length) meta.fields = { tags };
    return Object.keys(meta).length ? meta : undefined;
  } catch {
    return undefined;
  }
}

/** `D:20230120164927Z` -> `2023-01-20T16:49:27Z` (undefined when unparsable). */
function pdfDate(s: string): string | undefined {
  const m = /^D:(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?/.exec(s);
  if (!m) return undefined;
  const [, y, mo = "01", d = "01", h, mi = "00", se = "00"] = m;
  return h ? `${y}-${mo}-${d}T${h}:${mi}:${se}Z` : `${y}-${mo}-${d}`;
}

/** Resolve the outline to flat headings with 1-based pages (page undefined if unresolvable). */
async function outlineEntries(
  doc: PdfDoc,
): Promise<{ level: number; title: string; page?: number }[]> {
  const outline = (await doc.getOutline()) as OutlineItem[] | null;
  if (!outline?.length) return [];
  const flat: { level: number; title: string; dest: OutlineItem["dest"] }[] = [];
  const walk = (items: OutlineItem[], level: number) => {
    for (const it of items) {
      const title = (it.title ?? "").replace(CONTROL_ALL, " ").replace(/\s+/g, " ").trim();
      if (title) flat.push({ level, title, dest: it.dest });
      if (it.items?.length) walk(it.items, title ? level + 1 : level);
    }
  };
  walk(outline, 1);
  const byRef = new Map<string, Promise<number | undefined>>();
  const pageOf = async (dest: OutlineItem["dest"]): Promise<number | undefined> => {
    try {
      const explicit = typeof dest === "string" ? await doc.getDestination(dest) : dest;
      const target = Array.isArray(explicit) ? explicit[0] : undefined;
      if (typeof target === "number") return target + 1;
      if (!target || typeof target !== "object") return undefined;
      const ref = target as { num: number; gen: number };
      const key = `${ref.num}R${ref.gen}`;
      let p = byRef.get(key);
      if (!p) {
        p = doc.getPageIndex(ref).then((i) => i + 1, () => undefined);
        byRef.set(key, p);
      }
      return await p;
    } catch {
      return undefined;
    }
  };
  const pages = await Promise.all(flat.map((f) => pageOf(f.dest)));
  return flat.map((f, i) => ({ level: f.level, title: f.title, page: pages[i] }));
}

/** Place bookmarks on lines: the first line of their page where the title appears. */
function placeBookmarks(
  entries: { level: number; title: string; page?: number }[],
  lines: string[],
  pages: number[],
): Heading[] {
  const normCache = new Map<number, string>();
  const normLine = (i: number) => {
    let n = normCache.get(i);
    if (n === undefined) normCache.set(i, n = norm(lines[i]!));
    return n;
  };
  const out: Heading[] = [];
  let prevLine = 1;
  let prevPage = 0;
  for (const e of entries) {
    if (e.page === undefined || e.page < 1 || e.page > pages.length) {
      out.push({ level: e.level, title: e.title, line: prevLine });
      continue;
    }
    const start = pages[e.page - 1]! - 1;
    const end = e.page < pages.length ? pages[e.page]! - 1 : lines.length;
    const t = norm(e.title);
    const find = (from: number): number => {
      if (!t) return -1;
      for (
        const test of [
          (n: string) => n === t,
          (n: string) => n.startsWith(t) || (n.length >= 8 && t.startsWith(n)),
          (n: string) => n.includes(t),
        ]
      ) {
        for (let i = from; i < end; i++) if (test(normLine(i))) return i;
      }
      return -1;
    };
    let at = e.page === prevPage ? find(prevLine - 1) : -1;
    if (at < 0) at = find(start);
    const line = at >= 0 ? at + 1 : Math.min(start + 1, Math.max(lines.length, 1));
    out.push({ level: e.level, title: e.title, line, page: e.page });
    prevLine = line;
    prevPage = e.page;
  }
  return out;
}

function isPasswordError(e: unknown): boolean {
  return !!e && typeof e === "object" && (e as { name?: string }).name === "PasswordException";
}

/**
 * Pages read between two drops of what pdf.js parsed for them (see {@link PdfOptions}).
 * The extraction process's peak PSS (`bench/cut_pdf.ts`, load 16-24) on `source3.pdf`
 * (1,611 pages): 328 MiB never dropping, 287 every 200 pages, 271-286 every 50; on
 * `refman.pdf` (2,415): 307, 287, 276-280. Objects parsed again cost no measurable CPU
 * (the fonts are kept).
 */
const DROP_EVERY = 50;

/** Options of the {@link pdf} extractor. */
export interface PdfOptions {
  /**
   * Pages read between two requests to the pdf.js worker to let go of the pages read and of
   * the objects it parsed (`dropParsed` of `_pdfjs_text_patch.ts`), which it otherwise keeps
   * until the document is closed: a large PDF's extraction then holds less memory, and its
   * text is the same. 0 never asks; with the library's own worker (a pdf.js the patches were
   * not written for) it is never asked either. Default 50.
   */
  dropEvery?: number;
}

/**
 * The PDF extractor.
 *
 * @example
 * ```ts
 * import { pdf } from "./pdf.ts";
 * import assert from "node:assert/strict";
 *
 * // A one-page PDF written by hand (pdf.js rebuilds the missing cross-reference table).
 * const page = "BT /F1 12 Tf 20 150 Td (Steep the tea.) Tj ET";
 * const bytes = new TextEncoder().encode([
 *   "%PDF-1.4",
 *   "1 0 obj <</Type/Catalog/Pages 2 0 R>> endobj",
 *   "2 0 obj <</Type/Pages/Kids[3 0 R]/Count 1>> endobj",
 *   "3 0 obj <</Type/Page/Parent 2 0 R/MediaBox[0 0 300 200]/Contents 4 0 R" +
 *   "/Resources<</Font<</F1 5 0 R>>>>>> endobj",
 *   `4 0 obj <</Length ${page.length}>> stream\n${page}\nendstream endobj`,
 *   "5 0 obj <</Type/Font/Subtype/Type1/BaseFont/Helvetica>> endobj",
 *   "trailer <</Root 1 0 R>>",
 *   "%%EOF",
 * ].join("\n"));
 * const doc = await pdf().extract({ path: "lib/a.pdf", extension: ".pdf", bytes });
 * assert.deepEqual(doc.lines, ["Steep the tea."]);
 * assert.deepEqual(doc.pages, [1]); // the first line of each page
 * ```
 */
export function pdf(options: PdfOptions = {}): Extractor {
  const dropEvery = options.dropEvery ?? DROP_EVERY;
  return {
    name: "pdf",
    extensions: [".pdf"],
    mimeTypes: ["application/pdf"],
    priority: 0,
    async extract(input: ExtractInput): Promise<Extracted> {
      if (input.bytes.length === 0) throw new ExtractError("empty", "file is empty");
      // pdf.js may transfer (detach) the buffer it is given: hand it a copy, a plain
      // Uint8Array (it refuses a Node Buffer, which a read in this thread gives).
      const port = await inThreadWorker(undefined, { textOnlyFonts: true });
      const task = getDocument({
        data: new Uint8Array(input.bytes),
        worker: port.worker,
        disableFontFace: true,
        useSystemFonts: false,
        verbosity: 0,
      });
      try {
        let doc: PdfDoc;
        try {
          doc = await task.promise;
        } catch (e) {
          if (isPasswordError(e)) {
            throw new ExtractError("encrypted", "PDF is encrypted with a password", { cause: e });
          }
          const msg = e instanceof Error ? e.message : String(e);
          throw new ExtractError("corrupt", `cannot open PDF: ${msg}`, { cause: e });
        }
        const warnings: string[] = [];
        const lines: string[] = [];
        const pages: number[] = [];
        const info: PdfLine[] = [];
        const n = doc.numPages;
        const read: PageLine[][] = [];
        const dropping = dropEvery > 0 && (await workerLoad).patched;
        for (let p = 1; p <= n; p++) {
          if (input.signal?.aborted) {
            warnings.push(`extraction stopped at page ${p} of ${n} (time limit)`);
            break;
          }
          let rows: PageLine[] = [];
          try {
            const page = await doc.getPage(p);
            rows = pageLines(await page.getTextContent());
            page.cleanup();
            if (dropping && p % dropEvery === 0 && p < n) await dropParsed(doc, p);
          } catch (e) {
            warnings.push(`page ${p}: ${e instanceof Error ? e.message : String(e)}`);
          }
          read.push(rows);
        }
        // Running headers, footers and page numbers need every page: they are dropped here.
        for (const [i, rows] of dropRunning(read).entries()) {
          const p = i + 1;
          pages.push(lines.length + 1);
          if (rows.length === 0) {
            lines.push("");
            continue;
          }
          rows.forEach((r, idx) => {
            if (r.gapBefore && idx > 0) lines.push("");
            info.push({
              text: r.text,
              line: lines.length + 1,
              page: p,
              size: r.size,
              bold: r.bold,
              index: idx,
              ofPage: rows.length,
              gapBefore: r.gapBefore,
              font: r.font,
              mono: r.mono,
              lead: r.lead,
              leadFont: r.leadFont,
              x: r.x,
              right: r.right,
            });
            lines.push(r.text);
          });
        }
        const meta = await readMeta(doc);
        let headings: Heading[] = [];
        let outlineQuality: Extracted["outlineQuality"] = "none";
        let entries: Awaited<ReturnType<typeof outlineEntries>> = [];
        try {
          entries = await outlineEntries(doc);
        } catch (e) {
          warnings.push(`outline unreadable: ${e instanceof Error ? e.message : String(e)}`);
        }
        if (entries.length) {
          headings = placeBookmarks(entries, lines, pages);
          outlineQuality = "high";
        } else {
          const h = pdfHeadings(info, n);
          headings = h.headings;
          outlineQuality = h.quality;
        }
        const out: Extracted = { lines, pages, headings, outlineQuality };
        const title = meta?.title ?? firstPageTitle(info);
        if (meta || title) out.meta = { ...meta, title };
        if (warnings.length) out.warnings = warnings;
        return out;
      } finally {
        await task.destroy().catch(() => {});
        port.close();
      }
    },
  };
}
