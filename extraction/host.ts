/**
 * The extraction side of the pool, shared by the worker thread (`worker.ts`) and the child
 * process (`proc.ts`): builds its own extractor registry (built-ins with the configured OCR
 * languages, plus plugins) and extracts one file per request (see `core/workers.ts`).
 *
 * @module
 */
import { image, isBuiltinImage } from "../extractors/image.ts";
import { extractorsFrom } from "./plugins.ts";
import { ExtractorRegistry } from "../core/registry.ts";
import type { ExtractResult } from "../core/types.ts";
import type { ExtractInput, Extractor } from "../core/extractor.ts";
import type { WorkerBody } from "../core/worker_protocol.ts";

/** How the pool starts an extraction worker or process. */
export interface ExtractInit {
  plugins: string[];
  /** Time after which extractors are asked to return what they have. */
  softMs: number;
  ocrLanguages?: string[];
  /** Folder holding every OCR language's data, found by the pool (see `ocrData`). */
  ocrLangPath?: string;
}

/**
 * Built-in extractors with the image extractor set to `ocrLanguages`, then the plugins that
 * loaded (which still override built-ins).
 */
export async function hostExtractors(
  plugins: string[],
  ocrLanguages: string[] | undefined,
  warn: (msg: string) => void,
  ocrLangPath?: string,
): Promise<Extractor[]> {
  const list = await extractorsFrom(plugins, warn);
  if (!ocrLanguages?.length) return list;
  const ocr = image({ languages: ocrLanguages, langPath: ocrLangPath });
  return list.map((ex) => isBuiltinImage(ex) ? ocr : ex);
}

/**
 * A signal that reads as aborted once the soft deadline has passed, even inside a long
 * synchronous extractor loop (where timers never get to fire), so extractors that check
 * it between pieces can return what they have before the pool's hard limit kills them.
 */
function deadline(ms: number): AbortSignal {
  const end = Date.now() + ms;
  const signal = new AbortController().signal;
  Object.defineProperty(signal, "aborted", { get: () => Date.now() > end });
  return signal;
}

/**
 * The extraction side: `start` builds the registry; each request (a file) is answered with
 * the extractor's name and result, or undefined when no extractor takes the file. An
 * extractor's error crosses with its name, message and `reason`.
 */
export function extractionWorker(): WorkerBody<ExtractInit, ExtractInput, ExtractResult> {
  const registry = new ExtractorRegistry();
  let softMs = 50_000;
  return {
    async start(init) {
      softMs = init.softMs;
      const list = await hostExtractors(
        init.plugins,
        init.ocrLanguages,
        (m) => console.error(m),
        init.ocrLangPath,
      );
      for (const ex of list) registry.register(ex);
    },
    handle(input) {
      // Through the registry, so that a container's document is read by its own extractor.
      return registry.extract({ ...input, signal: deadline(softMs) });
    },
  };
}
