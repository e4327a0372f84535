/**
 * Extraction off the main thread: a pool of workers (one per core, at most four) that
 * extract files in parallel with a per-file time limit. A worker that runs past the limit
 * or crashes is terminated and replaced; the file is skipped with reason `timeout` or
 * `crashed`, and the server's thread stays free to answer requests.
 *
 * @module
 */
import type { WorkerReply, WorkerRequest } from "./extract_worker.ts";
import type { ExtractorRegistry } from "./registry.ts";
import { type Extracted, ExtractError, type ExtractInput } from "./types.ts";

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
}

interface Job {
  id: number;
  input: ExtractInput;
  resolve: (r: ExtractResult) => void;
  reject: (e: unknown) => void;
}

interface Slot {
  worker: Worker;
  /** Set once the worker has loaded its extractors. */
  ready: boolean;
  job?: Job;
  timer?: ReturnType<typeof setTimeout>;
}

/** Extraction in the current thread, through a registry (no isolation). */
export function inProcess(registry: ExtractorRegistry): ExtractFn {
  return async (input) => {
    const ex = registry.select(input);
    if (!ex) return undefined;
    return { extractor: ex.name, extracted: await ex.extract(input) };
  };
}

/** A pool of extraction workers. */
export class ExtractPool {
  readonly size: number;
  readonly timeoutMs: number;
  #plugins: string[];
  #slots: Slot[] = [];
  #queue: Job[] = [];
  #next = 1;
  #closed = false;
  /** Workers that died before they were ready, in a row. */
  #startFailures = 0;
  /** Why the pool gave up starting workers. */
  #broken?: string;

  /** @param opts pool size, time limit and plugins */
  constructor(opts: PoolOptions = {}) {
    this.size = Math.max(1, opts.workers ?? Math.min(4, navigator.hardwareConcurrency || 2));
    this.timeoutMs = opts.timeoutMs ?? 60_000;
    this.#plugins = opts.plugins ?? [];
  }

  #spawn(): Slot {
    const worker = new Worker(new URL("./extract_worker.ts", import.meta.url).href, {
      type: "module",
    });
    const slot: Slot = { worker, ready: false };
    worker.postMessage(
      {
        type: "init",
        plugins: this.#plugins,
        softMs: Math.floor(this.timeoutMs * 0.8),
      } satisfies WorkerRequest,
    );
    worker.onmessage = (e: MessageEvent<WorkerReply>) => this.#done(slot, e.data);
    worker.onerror = (e: ErrorEvent) => {
      e.preventDefault();
      this.#fail(slot, new ExtractError("crashed", `extractor crashed: ${e.message}`));
    };
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
      const bytes = job.input.bytes;
      const input = { ...job.input, signal: undefined };
      slot.worker.postMessage(
        { type: "extract", id: job.id, input } satisfies WorkerRequest,
        bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength
          ? [bytes.buffer as ArrayBuffer]
          : [],
      );
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
