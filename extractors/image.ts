/**
 * The image extractor: PNG, JPEG, BMP, WebP and TIFF files, read by OCR with tesseract.js,
 * fully offline. The text pass indexes an image by its name at once (an empty page 1); its
 * text is read later in the OCR worker ({@link ocrImage}, `shelf/ocr.ts`). The wasm core
 * comes from the `tesseract.js-core` npm package (tesseract.js loads it with `require` under
 * Node semantics, never from a CDN) and the language data from the
 * `@tesseract.js-data/<lang>` npm packages in Deno's npm cache (`eng` ships with shelfmark;
 * `image({ languages: ["eng", "deu"] })` reads more). A language whose package is missing is
 * refused with reason `ocr_unavailable` and a message naming the package; nothing is fetched.
 *
 * One tesseract worker per language set is created lazily in each extraction thread and
 * reused for every file. Image dimensions are read from the file header before anything is
 * decoded, so a huge image is refused (`too_large`) without allocating its pixels.
 *
 * @module
 */
import Tesseract from "tesseract.js";
import engData from "@tesseract.js-data/eng";
import { copyFileSync, existsSync, mkdirSync, readdirSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import {
  type Extracted,
  ExtractError,
  type ExtractInput,
  type Extractor,
} from "../core/extractor.ts";
import { imageSize } from "./_image_size.ts";
import { type OcrBlock, ocrText } from "./_ocr_text.ts";

/** Largest image OCR accepts, in pixels (width × height). */
export const MAX_PIXELS = 50_000_000;

/** Options of the image extractor. */
export interface ImageOptions {
  /**
   * Tesseract language codes (`["eng"]` by default). The data of each comes from the npm
   * package `@tesseract.js-data/<lang>` in Deno's npm cache (or `node_modules`), never from
   * the network; only `eng` ships with shelfmark.
   */
  languages?: string[];
  /** Folder holding `<lang>.traineddata.gz` for every language (instead of the packages). */
  langPath?: string;
  /**
   * Read the text by OCR during extraction (default false: the text pass gives an empty
   * page that the background OCR reads, see `shelf/ocr.ts`).
   */
  ocr?: boolean;
}

/** Folder of the packaged `eng` data (best_int, LSTM only), inside Deno's npm cache. */
const ENG_PATH = join(dirname((engData as { langPath: string }).langPath), "4.0.0_best_int");
/** Version folders of `@tesseract.js-data/<lang>` packages: `<DATA_ROOT>/<lang>/<version>`. */
const DATA_ROOT = dirname(dirname(dirname(ENG_PATH)));

/** Where the data of each language was found, or which language packages are missing. */
export type OcrData = { langPath: string } | { missing: string[] };

/** Folder of `<lang>.traineddata.gz` from the npm package `@tesseract.js-data/<lang>`. */
function packageDir(lang: string): string | undefined {
  if (lang === "eng") return ENG_PATH;
  const file = `${lang}.traineddata.gz`;
  const dirs: string[] = [
    join(Deno.cwd(), "node_modules", "@tesseract.js-data", lang, "4.0.0_best_int"),
  ];
  try {
    const versions = readdirSync(join(DATA_ROOT, lang)).sort().reverse();
    for (const v of versions) dirs.push(join(DATA_ROOT, lang, v, "4.0.0_best_int"));
  } catch {
    // not in the npm cache
  }
  return dirs.find((d) => existsSync(join(d, file)));
}

/**
 * Find the traineddata of `languages` offline: in `langPath` when given, else in the
 * `@tesseract.js-data/<lang>` npm packages. Languages from several packages are gathered (by
 * symbolic links, else copies) in one folder under the temporary directory, since tesseract.js
 * reads every language from one folder.
 */
export function ocrData(languages: string[], langPath?: string): OcrData {
  if (langPath) {
    const missing = languages.filter((l) => !existsSync(join(langPath, `${l}.traineddata.gz`)));
    return missing.length ? { missing } : { langPath };
  }
  const dirs = languages.map(packageDir);
  const missing = languages.filter((_, i) => !dirs[i]);
  if (missing.length) return { missing };
  const unique = [...new Set(dirs as string[])];
  if (unique.length === 1) return { langPath: unique[0]! };
  const key = languages.join("+").replace(/[^\w+]/g, "");
  let hash = 0;
  for (const ch of (dirs as string[]).join("\n")) hash = (hash * 31 + ch.charCodeAt(0)) | 0;
  const farm = join(tmpdir(), `shelfmark-ocr-${key}-${(hash >>> 0).toString(36)}`);
  mkdirSync(farm, { recursive: true });
  languages.forEach((l, i) => {
    const to = join(farm, `${l}.traineddata.gz`);
    if (existsSync(to)) return;
    const from = join(dirs[i]!, `${l}.traineddata.gz`);
    try {
      symlinkSync(from, to);
    } catch {
      copyFileSync(from, to);
    }
  });
  return { langPath: farm };
}

/** A clear refusal naming the npm packages that hold the missing languages. */
function missingLanguages(missing: string[], langPath?: string): ExtractError {
  const pkgs = missing.map((l) => `@tesseract.js-data/${l}`).join(", ");
  const where = langPath ? `in ${langPath}` : "in Deno's npm cache or node_modules";
  return new ExtractError(
    "ocr_unavailable",
    `OCR language data not found ${where}: install the npm package ${pkgs} ` +
      `(deno cache ${missing.map((l) => `npm:@tesseract.js-data/${l}`).join(" ")}) ` +
      `or remove ${missing.map((l) => `"${l}"`).join(", ")} from ocr.languages`,
  );
}

/** Image extractors made by `image()`, so a pool can tell the built-in one from a plugin. */
const builtins = new WeakSet<Extractor>();

/** Whether `ex` is an image extractor made by `image()` (not a plugin that replaced it). */
export function isBuiltinImage(ex: Extractor): boolean {
  return builtins.has(ex);
}

const ISO1: Record<string, string> = {
  eng: "en",
  deu: "de",
  fra: "fr",
  spa: "es",
  ita: "it",
  por: "pt",
  nld: "nl",
  rus: "ru",
  pol: "pl",
  swe: "sv",
  dan: "da",
  nor: "no",
  fin: "fi",
  ces: "cs",
  tur: "tr",
  jpn: "ja",
  kor: "ko",
  ara: "ar",
  chi_sim: "zh",
  chi_tra: "zh",
};

type OcrWorker = Awaited<ReturnType<typeof Tesseract.createWorker>>;

/** Lazily created workers of this thread, by language set. */
const workers = new Map<string, Promise<OcrWorker>>();

function ocrWorker(languages: string[], langPath: string): Promise<OcrWorker> {
  const key = `${languages.join("+")}@${langPath}`;
  let w = workers.get(key);
  if (!w) {
    w = Tesseract.createWorker(languages, Tesseract.OEM.LSTM_ONLY, {
      langPath,
      gzip: true,
      cacheMethod: "none",
      // Without a handler tesseract.js rethrows job errors as uncaught exceptions.
      errorHandler: () => {},
    }).then((worker) => {
      idle(worker, 0);
      return worker;
    });
    w.catch(() => workers.delete(key));
    workers.set(key, w);
  }
  return w;
}

/** Jobs running on each OCR worker. */
const busy = new WeakMap<OcrWorker, number>();

/**
 * Count a job in (+1) or out (-1). The OCR thread holds the event loop open only while it
 * has work, so an idle worker never keeps a process or extraction thread from exiting.
 */
function idle(worker: OcrWorker, delta: number): void {
  const n = Math.max(0, (busy.get(worker) ?? 0) + delta);
  busy.set(worker, n);
  const thread = (worker as unknown as { worker?: { ref?: () => void; unref?: () => void } })
    .worker;
  if (n > 0) thread?.ref?.();
  else thread?.unref?.();
}

/** Terminate this thread's OCR workers (tests, shutdown); they are re-created on demand. */
export async function closeImageWorkers(): Promise<void> {
  const all = [...workers.values()];
  workers.clear();
  await Promise.allSettled(all.map(async (w) => (await w).terminate()));
}

/** Drop a worker that may be wedged (timed out), so the next file gets a fresh one. */
function discard(languages: string[], langPath: string, w: Promise<OcrWorker>): void {
  const key = `${languages.join("+")}@${langPath}`;
  if (workers.get(key) === w) workers.delete(key);
  w.then((x) => x.terminate()).catch(() => {});
}

/** Race a promise against an `aborted` flag that may flip without an event. */
function withDeadline<T>(p: Promise<T>, signal: AbortSignal | undefined, onAbort: () => void) {
  if (!signal) return p;
  return new Promise<T>((resolve, reject) => {
    const timer = setInterval(() => {
      if (!signal.aborted) return;
      clearInterval(timer);
      onAbort();
      reject(new ExtractError("timeout", "OCR ran past the time limit"));
    }, 200);
    p.then(resolve, reject).finally(() => clearInterval(timer));
  });
}

const errText = (e: unknown) => String((e as Error)?.message ?? e).replace(/^(Error: )+/, "");

/**
 * Check an image file from its header alone: refused when empty, unreadable, with a zero
 * dimension or over {@link MAX_PIXELS} (nothing is decoded).
 *
 * @throws {ExtractError} `empty`, `corrupt`, `too_large`
 */
function checkImage(bytes: Uint8Array): void {
  if (bytes.length === 0) throw new ExtractError("empty", "file is empty");
  const size = imageSize(bytes);
  if (!size) {
    throw new ExtractError("corrupt", "not a readable PNG, JPEG, BMP, WebP or TIFF header");
  }
  const pixels = size.width * size.height;
  if (pixels > MAX_PIXELS) {
    throw new ExtractError(
      "too_large",
      `${size.format} image is ${size.width}×${size.height} ` +
        `(${(pixels / 1e6).toFixed(0)} megapixels, limit ${MAX_PIXELS / 1e6})`,
    );
  }
  if (size.width === 0 || size.height === 0) {
    throw new ExtractError("corrupt", `${size.format} header gives a zero dimension`);
  }
}

/**
 * OCR an image file (PNG, JPEG, BMP, WebP, TIFF): its header is checked first (see
 * {@link image}), then its text is read on this thread's tesseract worker, icon and chart
 * noise dropped (`ocrText`). The OCR worker process (`_ocr_worker.ts`) reads image files with
 * it in the background after the text pass.
 *
 * @param bytes the file
 * @param opts languages, their data and the time limit
 * @returns the text lines, a blank line between paragraphs
 * @throws {ExtractError} `empty`, `corrupt`, `too_large`, `timeout`, `ocr_unavailable`
 */
export async function ocrImage(bytes: Uint8Array, opts: RecognizeOptions): Promise<string[]> {
  checkImage(bytes);
  return await recognizeLines(bytes, opts);
}

/**
 * The image extractor: one page, no outline. In the text pass (the default) it reads the
 * header only and gives an empty page 1, which waits for OCR in the background
 * (`shelf/ocr.ts`), so an image is found by its name at once; with `ocr: true` it reads the
 * text itself (tests, benches). Language data is looked for either way, so a missing
 * language is refused (`ocr_unavailable`) naming its package.
 *
 * @example
 * ```ts
 * import { image } from "./image.ts";
 * import { ExtractError } from "../core/extractor.ts";
 * import assert from "node:assert/strict";
 *
 * // A file that is no image is refused from its header; nothing is decoded.
 * const bytes = new TextEncoder().encode("not a picture");
 * await assert.rejects(
 *   image().extract({ path: "lib/scan.png", extension: ".png", bytes }),
 *   (e) => e instanceof ExtractError && e.reason === "corrupt",
 * );
 * ```
 */
export function image(options: ImageOptions = {}): Extractor {
  const languages = options.languages?.length ? [...options.languages] : ["eng"];
  const lang = ISO1[languages[0]!] ?? languages[0]!;
  let found: OcrData | undefined;
  const ex: Extractor = {
    name: "image",
    extensions: [".png", ".jpg", ".jpeg", ".bmp", ".webp", ".tif", ".tiff"],
    mimeTypes: ["image/png", "image/jpeg", "image/bmp", "image/webp", "image/tiff"],
    priority: 0,
    async extract(input: ExtractInput): Promise<Extracted> {
      const bytes = input.bytes;
      checkImage(bytes);
      found ??= ocrData(languages, options.langPath);
      if ("missing" in found) throw missingLanguages(found.missing, options.langPath);
      const lines = options.ocr
        ? await recognizeLines(bytes, {
          languages,
          found,
          langPath: options.langPath,
          signal: input.signal,
        })
        : [];
      return {
        lines,
        pages: [1],
        outlineQuality: "none",
        meta: { language: lang },
      };
    },
  };
  builtins.add(ex);
  return ex;
}

/** What {@link recognizeLines} reads with. */
export interface RecognizeOptions {
  /** Tesseract language codes. */
  languages: string[];
  /** Where their data is (from {@link ocrData}). */
  found: OcrData;
  /** Folder the data was asked from (for the message when some is missing). */
  langPath?: string;
  /** Stops the OCR (the worker is dropped, a fresh one serves the next image). */
  signal?: AbortSignal;
}

/**
 * OCR one image (PNG, JPEG, BMP, TIFF, PNM bytes) on this thread's shared tesseract worker
 * for the language set: the image extractor and the OCR of scanned PDF pages use it.
 *
 * @param bytes the encoded image (not transferred: a copy goes to the worker)
 * @param opts languages, their data and the time limit
 * @returns the text lines, a blank line between paragraphs
 * @throws {ExtractError} `timeout`, `ocr_unavailable`, `corrupt`
 */
export async function recognizeLines(
  bytes: Uint8Array,
  opts: RecognizeOptions,
): Promise<string[]> {
  const { languages, found, signal } = opts;
  if (signal?.aborted) throw new ExtractError("timeout", "no time left for OCR");
  if ("missing" in found) throw missingLanguages(found.missing, opts.langPath);
  const langPath = found.langPath;
  const worker = ocrWorker(languages, langPath);
  const drop = () => discard(languages, langPath, worker);
  let w: OcrWorker;
  try {
    w = await withDeadline(worker, signal, drop);
  } catch (e) {
    if (e instanceof ExtractError) throw e;
    throw new ExtractError("ocr_unavailable", `OCR engine failed to start: ${errText(e)}`, {
      cause: e,
    });
  }
  let data: { text: string; blocks: OcrBlock[] | null };
  try {
    // A copy: tesseract.js transfers what it is given to its thread.
    const image = bytes.slice() as unknown as Tesseract.ImageLike;
    idle(w, +1);
    const job = w.recognize(image, {}, { text: true, blocks: true })
      .finally(() => idle(w, -1));
    data = (await withDeadline(job, signal, drop)).data;
  } catch (e) {
    if (e instanceof ExtractError) throw e;
    throw new ExtractError("corrupt", `OCR could not read the image: ${errText(e)}`, {
      cause: e,
    });
  }
  return ocrText(data.blocks, data.text ?? "");
}
