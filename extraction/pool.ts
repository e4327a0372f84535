/**
 * Extraction off the main thread: a pool of workers (one per core, at most four) that
 * extract files in parallel with a per-file time limit and a memory limit. A worker that runs
 * past the time limit, goes over its memory limit or crashes is terminated and replaced; the
 * file is skipped with reason `timeout`, `out_of_memory` or `crashed`, and the server's
 * thread stays free to answer requests.
 *
 * Workers are child processes (`deno run` with a V8 heap limit, watched for their resident
 * size on Linux) when this module runs from a checkout under the `deno` executable with
 * permission to run it; otherwise (compiled binary, remote module, no `--allow-run`) they
 * are worker threads, which have a time limit but no memory limit.
 *
 * @module
 */
import type { WorkerReply, WorkerRequest } from "./host.ts";
import { image, isBuiltinImage, ocrData } from "../extractors/image.ts";
import { ProcChannel, procConfig } from "./proc_channel.ts";
import type { ExtractorRegistry } from "../core/registry.ts";
import { type Extracted, ExtractError, type ExtractInput, type Extractor } from "../core/types.ts";

/** What extraction gives back: the extractor's name and its result, or undefined (no extractor). */
export type ExtractResult = { extractor: string; extracted: Extracted } | undefined;

/** Extracts one file. */
export type ExtractFn = (input: ExtractInput) => Promise<ExtractResult>;

/** Options of the pool. */
export interface PoolOptions {
  /** Number of workers (default: cores, at most 4). */
  workers?: number;
  /** Time limit of one file (default 60 s). */
  timeoutMs?: number;
  /** Extractor plugin modules each worker loads. */
  plugins?: string[];
  /**
   * Tesseract languages of the image (OCR) extractor, e.g. `["eng", "deu"]` (default
   * `["eng"]`). Each needs the npm package `@tesseract.js-data/<lang>` in Deno's npm cache.
   */
  ocrLanguages?: string[];
  /** Memory limit of one extraction process in MiB (default 1024). */
  memoryMb?: number;
  /**
   * `process` (memory-bounded child processes), `thread` (worker threads, no memory bound)
   * or `auto` (default: processes where they can run, else threads).
   */
  isolation?: "auto" | "process" | "thread";
}

/** Options of in-process extraction. */
export interface InProcessOptions {
  /** Tesseract languages of the built-in image extractor (default `["eng"]`). */
  ocrLanguages?: string[];
}

interface Job {
  id: number;
  input: ExtractInput;
  resolve: (r: ExtractResult) => void;
  reject: (e: unknown) => void;
}

/** One worker: a thread or a child process behind the same two calls. */
interface Conn {
  post(msg: WorkerRequest, bytes?: Uint8Array): void;
  terminate(): void;
}

interface Slot {
  worker: Conn;
  /** Set once the worker has loaded its extractors. */
  ready: boolean;
  job?: Job;
  timer?: ReturnType<typeof setTimeout>;
}

/**
 * Extraction in the current thread, through a registry (no isolation). With `ocrLanguages`,
 * the built-in image extractor reads those languages (a plugin that replaced it is kept).
 */
export function inProcess(registry: ExtractorRegistry, opts: InProcessOptions = {}): ExtractFn {
  const langs = opts.ocrLanguages?.length ? opts.ocrLanguages : undefined;
  let ocr: Extractor | undefined;
  return async (input) => {
    let ex = registry.select(input);
    if (!ex) return undefined;
    if (langs && isBuiltinImage(ex)) ex = ocr ??= image({ languages: langs });
    return { extractor: ex.name, extracted: await ex.extract(input) };
  };
}

/** A pool of extraction workers. */
export class ExtractPool {
  /** Number of workers. */
  readonly size: number;
  /** Time limit of one file in ms. */
  readonly timeoutMs: number;
  /** Memory limit of one worker in MiB, when workers are processes. */
  readonly memoryMb?: number;
  #plugins: string[];
  #ocrLanguages?: string[];
  #ocrLangPath?: string;
  #config?: string;
  #slots: Slot[] = [];
  #queue: Job[] = [];
  #next = 1;
  #closed = false;
  /** Workers that died before they were ready, in a row. */
  #startFailures = 0;
  /** Why the pool gave up starting workers. */
  #broken?: string;

  /** @param opts pool size, limits, plugins, OCR languages and isolation */
  constructor(opts: PoolOptions = {}) {
    this.size = Math.max(1, opts.workers ?? Math.min(4, navigator.hardwareConcurrency || 2));
    this.timeoutMs = opts.timeoutMs ?? 60_000;
    this.#plugins = opts.plugins ?? [];
    this.#ocrLanguages = opts.ocrLanguages?.length ? [...opts.ocrLanguages] : undefined;
    if (this.#ocrLanguages) {
      // Found here, where writing is allowed (languages from several packages are gathered
      // in one folder); a missing language is reported by the extractor for each image.
      try {
        const found = ocrData(this.#ocrLanguages);
        if ("langPath" in found) this.#ocrLangPath = found.langPath;
      } catch {
        // Left to each worker, which says what is wrong for every image.
      }
    }
    const isolation = opts.isolation ?? "auto";
    if (isolation !== "thread") {
      this.#config = procConfig();
      if (!this.#config && isolation === "process") {
        throw new Error("extraction processes need a deno checkout and --allow-run");
      }
    }
    if (this.#config) this.memoryMb = Math.max(128, opts.memoryMb ?? 1024);
  }

  /** `process` or `thread`: how this pool isolates extraction. */
  get isolation(): "process" | "thread" {
    return this.#config ? "process" : "thread";
  }

  #spawn(): Slot {
    const slot = { ready: false } as Slot;
    const init: WorkerRequest = {
      type: "init",
      plugins: this.#plugins,
      softMs: Math.floor(this.timeoutMs * 0.8),
      ocrLanguages: this.#ocrLanguages,
      ocrLangPath: this.#ocrLangPath,
    };
    let ch: ProcChannel | undefined;
    if (this.#config) {
      try {
        ch = new ProcChannel(this.#config, this.memoryMb!, {
          message: (m) => this.#done(slot, m as WorkerReply),
          exit: (reason, message) => this.#fail(slot, new ExtractError(reason, message)),
        });
      } catch (e) {
        // The executable cannot be started after all: use threads from now on.
        console.error(`shelfmark: extraction processes unavailable (${e}); using threads`);
        this.#config = undefined;
      }
    }
    if (ch) {
      const proc = ch;
      slot.worker = { post: (m, b) => proc.send(m, b), terminate: () => proc.kill() };
    } else {
      const worker = new Worker(new URL("./worker.ts", import.meta.url).href, {
        type: "module",
      });
      worker.onmessage = (e: MessageEvent<WorkerReply>) => this.#done(slot, e.data);
      worker.onerror = (e: ErrorEvent) => {
        e.preventDefault();
        this.#fail(slot, new ExtractError("crashed", `extractor crashed: ${e.message}`));
      };
      slot.worker = {
        post: (m, b) => {
          if (m.type === "extract" && b) {
            const whole = b.byteOffset === 0 && b.byteLength === b.buffer.byteLength;
            worker.postMessage(
              { ...m, input: { ...m.input, bytes: b } },
              whole ? [b.buffer as ArrayBuffer] : [],
            );
          } else worker.postMessage(m);
        },
        terminate: () => worker.terminate(),
      };
    }
    slot.worker.post(init);
    return slot;
  }

  #done(slot: Slot, reply: WorkerReply): void {
    if ("ready" in reply) {
      slot.ready = true;
      this.#startFailures = 0;
      this.#pump();
      return;
    }
    const job = slot.job;
    if (!job || job.id !== reply.id) return;
    clearTimeout(slot.timer);
    slot.job = undefined;
    if ("none" in reply) job.resolve(undefined);
    else if ("error" in reply) {
      job.reject(new ExtractError(reply.error.reason, reply.error.message));
    } else job.resolve({ extractor: reply.extractor, extracted: reply.extracted });
    this.#pump();
  }

  #fail(slot: Slot, err: ExtractError): void {
    clearTimeout(slot.timer);
    slot.worker.terminate();
    if (!slot.ready && ++this.#startFailures >= 3) {
      // Workers that cannot even start would be replaced forever: give up and say why.
      this.#broken = `extraction workers fail to start: ${err.message}`;
      for (const j of this.#queue) j.reject(new ExtractError("crashed", this.#broken));
      this.#queue = [];
    }
    const i = this.#slots.indexOf(slot);
    if (i >= 0) this.#slots.splice(i, 1);
    const job = slot.job;
    slot.job = undefined;
    job?.reject(err);
    this.#pump();
  }

  #pump(): void {
    if (this.#closed || this.#broken) return;
    while (this.#queue.length) {
      if (this.#slots.length < this.size && this.#slots.every((s) => s.job || s.ready)) {
        // Start another worker while there is queued work; it takes jobs once ready.
        this.#slots.push(this.#spawn());
      }
      const slot = this.#slots.find((s) => s.ready && !s.job);
      if (!slot) return;
      const job = this.#queue.shift()!;
      slot.job = job;
      slot.timer = setTimeout(() => {
        this.#fail(
          slot,
          new ExtractError("timeout", `extraction ran longer than ${this.timeoutMs} ms`),
        );
      }, this.timeoutMs);
      const { bytes, signal: _signal, ...rest } = job.input;
      const input = { ...rest, bytes: new Uint8Array(0) };
      slot.worker.post({ type: "extract", id: job.id, input }, bytes);
    }
  }

  /** Extract a file in a worker. The input's bytes are handed over to the worker. */
  extract: ExtractFn = (input) => {
    if (this.#closed) return Promise.reject(new Error("extraction pool is closed"));
    if (this.#broken) return Promise.reject(new ExtractError("crashed", this.#broken));
    return new Promise((resolve, reject) => {
      this.#queue.push({ id: this.#next++, input, resolve, reject });
      this.#pump();
    });
  };

  /** Stop every worker; queued jobs are rejected. */
  close(): void {
    this.#closed = true;
    for (const s of this.#slots) {
      clearTimeout(s.timer);
      s.worker.terminate();
      s.job?.reject(new Error("extraction pool closed"));
    }
    this.#slots = [];
    for (const j of this.#queue) j.reject(new Error("extraction pool closed"));
    this.#queue = [];
  }
}
