/**
 * The extraction side of the pool, shared by the worker thread (`worker.ts`) and the child
 * process (`proc.ts`): builds its own extractor registry (built-ins with the configured OCR
 * languages, plus plugins) and extracts one file per request (see `core/workers.ts`).
 *
 * @module
 */
import process from "node:process";
import { image, isBuiltinImage } from "../extractors/image.ts";
import { extractorsFrom } from "./plugins.ts";
import { ExtractorRegistry } from "../core/registry.ts";
import { withMeasure } from "../core/measure.ts";
import type { ExtractResult } from "../core/types.ts";
import type { ExtractInput, Extractor } from "../core/extractor.ts";
import type { WorkerBody } from "../core/worker_protocol.ts";

/** How the pool starts an extraction worker or process. */
export interface ExtractInit {
  plugins: string[];
  ocrLanguages?: string[];
  /** Folder holding every OCR language's data, found by the pool (see `ocrData`). */
  ocrLangPath?: string;
}

/**
 * One file to extract with its own soft limits, which the pool scales by the file's
 * allowance (a file cut short before gets more time).
 */
export type ExtractRequest = Omit<ExtractInput, "signal"> & {
  /**
   * CPU time (ms) after which extractors are asked to return what they have: the work done
   * for the file, not the time a busy machine makes it wait (see {@link ExtractClock}).
   */
  softMs: number;
  /**
   * Wall time (ms) after which extractors are asked to return what they have all the same,
   * before the pool's hard limit stops the worker and the whole file is lost.
   */
  softWallMs: number;
};

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
 * Whose CPU time the soft deadline counts: `process` in an extraction process, which runs
 * one file at a time (so its CPU time is that file's work, garbage collection and helper
 * threads included), `thread` in a worker thread sharing the process with others.
 */
export type ExtractClock = "process" | "thread";

/** CPU time used so far, in ms, by this process or this thread. */
function cpuMs(clock: ExtractClock): number {
  const u = clock === "process" ? process.cpuUsage() : process.threadCpuUsage();
  return (u.user + u.system) / 1000;
}

/**
 * The soft deadline of one file: a signal that reads as aborted once the file has used
 * `cpu` ms of CPU time or `wall` ms have passed, even inside a long synchronous extractor
 * loop (where timers never get to fire), so extractors that check it between pieces return
 * what they have before the pool's hard limit kills them. `stopped` says whether it was read
 * as aborted: then the extractor left the rest of the file out.
 */
function deadline(
  cpu: number,
  wall: number,
  clock: ExtractClock,
): { signal: AbortSignal; stopped: () => boolean } {
  const cpuEnd = cpuMs(clock) + cpu;
  const wallEnd = Date.now() + wall;
  let stopped = false;
  const signal = new AbortController().signal;
  Object.defineProperty(signal, "aborted", {
    get: () => stopped ||= Date.now() > wallEnd || cpuMs(clock) > cpuEnd,
  });
  return { signal, stopped: () => stopped };
}

/**
 * The extraction side: `start` builds the registry; each request (a file) is answered with
 * the extractor's name and result, measured (`withMeasure`), or undefined when no extractor
 * takes the file. A result cut short by the soft deadline says so (`partial`) and comes back
 * unmeasured. An extractor's error crosses with its name, message and `reason`.
 *
 * @param clock whose CPU time the soft deadline counts
 * @param afterExtract called between a file's extraction and its measure (an extraction
 *   process gives a large file's garbage back there, see `collectIfOver`)
 */
export function extractionWorker(
  clock: ExtractClock,
  afterExtract?: () => void,
): WorkerBody<ExtractInit, ExtractRequest, ExtractResult> {
  const registry = new ExtractorRegistry();
  return {
    async start(init) {
      const list = await hostExtractors(
        init.plugins,
        init.ocrLanguages,
        (m) => console.error(m),
        init.ocrLangPath,
      );
      for (const ex of list) registry.register(ex);
    },
    async handle({ softMs, softWallMs, ...input }) {
      const { signal, stopped } = deadline(softMs, softWallMs, clock);
      // Through the registry, so that a container's document is read by its own extractor.
      const r = await registry.extract({ ...input, signal });
      afterExtract?.();
      // A file cut at its soft deadline goes back at once, unmeasured: its measure step (1.6 s
      // of CPU for 168 of the 569 pieces of a 50 MB page) would run past the cut with nothing
      // to stop it, and at a high load meet the hard limit, which loses the whole file. The
      // index process measures it instead (`Indexer`), as it measures a result it changed.
      if (r && stopped()) return { ...r, partial: "time limit" };
      // Measured here, not in the index process, which is one thread for every document.
      return withMeasure(input.path, r);
    },
  };
}
