/**
 * The extraction side of the pool, shared by the worker thread (`extract_worker.ts`) and the
 * child process (`extract_proc.ts`): builds its own extractor registry (built-ins with the
 * configured OCR languages, plus plugins) and answers one request per message.
 *
 * @module
 */
import { image, isBuiltinImage } from "../extractors/image.ts";
import { extractorsFrom } from "./plugins.ts";
import { ExtractorRegistry } from "../core/registry.ts";
import type { Extracted, ExtractInput, Extractor } from "../core/types.ts";

/** A message to an extraction worker or process. */
export type WorkerRequest =
  | {
    type: "init";
    plugins: string[];
    softMs: number;
    ocrLanguages?: string[];
    /** Folder holding every OCR language's data, found by the pool (see `ocrData`). */
    ocrLangPath?: string;
  }
  | { type: "extract"; id: number; input: ExtractInput };

/** A message from an extraction worker or process. */
export type WorkerReply =
  | { id: 0; ready: true }
  | { id: number; extractor: string; extracted: Extracted }
  | { id: number; none: true }
  | { id: number; error: { reason: string; message: string } };

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
 * A message handler for the extraction side: `init` builds the registry and answers
 * `ready`; `extract` answers with the result, `none`, or the error's reason and message.
 *
 * @param post sends a reply to the pool
 */
export function extractHost(
  post: (reply: WorkerReply) => void,
): (msg: WorkerRequest) => Promise<void> {
  let registry: Promise<ExtractorRegistry> = Promise.resolve(new ExtractorRegistry());
  let softMs = 50_000;
  return async (msg) => {
    if (msg.type === "init") {
      softMs = msg.softMs;
      registry = hostExtractors(
        msg.plugins,
        msg.ocrLanguages,
        (m) => console.error(m),
        msg.ocrLangPath,
      ).then(
        (list) => {
          const r = new ExtractorRegistry();
          for (const ex of list) r.register(ex);
          return r;
        },
      );
      await registry;
      post({ id: 0, ready: true });
      return;
    }
    const { id, input } = msg;
    try {
      const ex = (await registry).select(input);
      if (!ex) {
        post({ id, none: true });
        return;
      }
      const extracted = await ex.extract({ ...input, signal: deadline(softMs) });
      post({ id, extractor: ex.name, extracted });
    } catch (err) {
      const e = err as { name?: string; reason?: unknown; message?: string };
      const reason = e?.name === "ExtractError" && typeof e.reason === "string"
        ? e.reason
        : "failed";
      post({ id, error: { reason, message: String(e?.message ?? err) } });
    }
  };
}
