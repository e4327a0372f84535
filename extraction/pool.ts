/**
 * Extraction off the main thread: a pool of workers (one per core, at most four) that
 * extract files in parallel with a per-file time limit and a memory limit.
 *
 * The time limit counts work, not load: past 80 % of `timeoutMs` of CPU time spent on a file
 * (or 80 % of the wall limit, see {@link wallLimitMs}) its extractor is asked to return what
 * it has, and the result says it is partial (the indexer keeps it and tries the file again
 * next run). A worker that runs past the wall limit (the last resort, several times
 * `timeoutMs`: a busy machine stretches CPU time several-fold), goes over its memory limit or
 * crashes is terminated and replaced; the file is skipped with reason `timeout`,
 * `out_of_memory` or `crashed`, and the server's thread stays free to answer requests.
 *
 * Workers are child processes (`deno run` with a V8 heap limit, watched for their resident
 * size on Linux) when this module runs from a checkout under the `deno` executable with
 * permission to run it; otherwise (compiled binary, remote module, no `--allow-run`) they
 * are worker threads, which have a time limit but no memory limit.
 *
 * Workers leave when they are done: one idle for `idleMs` (10 s) stops (not while an index
 * run holds the pool, see `hold`), and a process that has grown past `recycleMb` (256 MiB,
 * say after a large PDF or page) is replaced after its file, so an idle server or a process
 * busy computing vectors holds no extraction memory. The next file starts a worker again
 * (0.7-0.9 s of CPU for a process: loading the extractors, pdf.js most of it).
 *
 * @module
 */
import type { ExtractInit, ExtractRequest } from "./host.ts";
import { COLLECT_ID } from "../core/worker_protocol.ts";
import { ProcChannel, procConfig, rssOf } from "./proc_channel.ts";
import type { ExtractorRegistry } from "../core/registry.ts";
import { withMeasure } from "../core/measure.ts";
import type { ExtractFn, ExtractResult } from "../core/types.ts";
import { ExtractError, type Extractor } from "../core/extractor.ts";
import {
  type Channel,
  type ChannelEvents,
  threadChannel,
  type WorkerError,
  WorkerPool,
} from "../core/workers.ts";

/** A process's own (anonymous) and file-backed resident bytes (Linux), or undefined. */
function memoryOf(pid: number): { anon: number; file: number } | undefined {
  try {
    const s = Deno.readTextFileSync(`/proc/${pid}/status`);
    const anon = /RssAnon:\s+(\d+)\s+kB/.exec(s);
    const file = /RssFile:\s+(\d+)\s+kB/.exec(s);
    return anon && file
      ? { anon: Number(anon[1]) * 1024, file: Number(file[1]) * 1024 }
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Own (anonymous) memory in MiB over which an idle extraction process is asked to collect
 * its garbage to make room for a large file: one that has loaded the extractors and read
 * large PDFs holds 63-73 MiB after a full collection (5 PDFs of pdf-plain, 1-3 MB each).
 */
const WORTH_COLLECTING_MB = 96;

/**
 * The hard (wall-time) limit of one file for a CPU time limit of `timeoutMs`: four times it,
 * and at least 30 s more. At load 10-15 on two cores an extraction process got a tenth of a
 * core or less (`refman.pdf`: 241 of 2,415 pages in 48 s, 8 s of CPU for all of them quiet).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(wallLimitMs(60_000), 240_000);
 * assert.equal(wallLimitMs(1_000), 31_000);
 * ```
 */
export function wallLimitMs(timeoutMs: number): number {
  return Math.max(4 * timeoutMs, timeoutMs + 30_000);
}

/** Options of the pool. */
export interface PoolOptions {
  /** Number of workers (default: cores, at most 4). */
  workers?: number;
  /**
   * CPU time limit of one file in ms (default 60 s): past 80 % of it the extractor returns
   * what it has (a partial result).
   */
  timeoutMs?: number;
  /** Wall-time limit of one file, past which its worker is stopped (default {@link wallLimitMs}). */
  wallMs?: number;
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
  /** A worker with no file for this long stops (default 10 s); the next file starts one. */
  idleMs?: number;
  /**
   * A process whose resident size is over this many MiB when it finishes a file is replaced
   * (default 256; 0 keeps processes however large they grow, up to `memoryMb`).
   */
  recycleMb?: number;
}

/** Options of in-process extraction. */
export interface InProcessOptions {
  /** Tesseract languages of the built-in image extractor (default `["eng"]`). */
  ocrLanguages?: string[];
}

/**
 * Extraction in the current thread, through a registry (no isolation). With `ocrLanguages`,
 * the built-in image extractor reads those languages (a plugin that replaced it is kept).
 */
export function inProcess(registry: ExtractorRegistry, opts: InProcessOptions = {}): ExtractFn {
  const langs = opts.ocrLanguages?.length ? opts.ocrLanguages : undefined;
  let ocr: Extractor | undefined;
  const extract: ExtractFn = async (input) => {
    const ex = registry.select(input);
    if (!ex) return undefined;
    // Loaded on first use: the OCR library is large.
    const img = langs ? await import("../extractors/image.ts") : undefined;
    if (langs && img?.isBuiltinImage(ex)) {
      ocr ??= img.image({ languages: langs });
      return { extractor: ocr.name, extracted: await ocr.extract(input) };
    }
    // Through the registry, so a compressed file is read with its inner file's extractor.
    return await registry.extract(input);
  };
  // Measured as an extraction process measures it (`extraction/host.ts`).
  return async (input) => withMeasure(input.path, await extract(input));
}

/** A pool of extraction workers. */
export class ExtractPool {
  /** Number of workers. */
  readonly size: number;
  /** CPU time limit of one file in ms. */
  readonly timeoutMs: number;
  /** Wall-time limit of one file in ms, past which its worker is stopped. */
  readonly wallMs: number;
  /** Memory limit of one worker in MiB, when workers are processes. */
  readonly memoryMb?: number;
  #config?: string;
  #workers: WorkerPool<ExtractRequest, ExtractResult, ExtractInit>;
  /** The wall-time limit given in the options, which an allowance scales. */
  #wallGiven?: number;
  /** The extraction processes started and not yet exited. */
  #channels = new Set<ProcChannel>();
  #closed = false;
  /** Settles once the start data of the workers is complete (the OCR languages' folder). */
  #ready?: Promise<void>;
  /** Why the pool gave up starting workers. */
  #broken?: string;
  /** Processes `makeRoom` asked to collect that have not answered a file since. */
  #collected = new WeakSet<ProcChannel>();

  /** @param opts pool size, limits, plugins, OCR languages and isolation */
  constructor(opts: PoolOptions = {}) {
    this.size = Math.max(1, opts.workers ?? Math.min(4, navigator.hardwareConcurrency || 2));
    this.timeoutMs = opts.timeoutMs ?? 60_000;
    this.#wallGiven = opts.wallMs;
    this.wallMs = this.wallFor(1);
    const ocrLanguages = opts.ocrLanguages?.length ? [...opts.ocrLanguages] : undefined;
    const init: ExtractInit = { plugins: opts.plugins ?? [], ocrLanguages };
    if (ocrLanguages) {
      // Found before the first file, here where writing is allowed (languages from several
      // packages are gathered in one folder); a missing language is reported by the
      // extractor for each image. The OCR module is loaded only for this.
      this.#ready = import("../extractors/image.ts").then(({ ocrData }) => {
        const found = ocrData(ocrLanguages);
        if ("langPath" in found) init.ocrLangPath = found.langPath;
      }).catch(() => {
        // Left to each worker, which says what is wrong for every image.
      }).finally(() => this.#ready = undefined);
    }
    const isolation = opts.isolation ?? "auto";
    if (isolation !== "thread") {
      this.#config = procConfig();
      if (!this.#config && isolation === "process") {
        throw new Error("extraction processes need a deno checkout and --allow-run");
      }
    }
    if (this.#config) this.memoryMb = Math.max(128, opts.memoryMb ?? 1024);
    const recycle = (opts.recycleMb ?? 256) * 1024 * 1024;
    this.#workers = new WorkerPool({
      name: "extraction",
      connect: (events) => this.#connect(events),
      size: this.size,
      init,
      timeoutMs: this.wallMs,
      // Workers that cannot even start would be replaced forever: give up and say why.
      startAttempts: 3,
      error: (e) => this.#error(e),
      idleMs: opts.idleMs ?? 10_000,
      retire: (ch) => recycle > 0 && ch instanceof ProcChannel && (rssOf(ch.pid) ?? 0) > recycle,
    });
  }

  /** Process ids of the extraction processes running now (none with threads). */
  get pids(): number[] {
    return [...this.#channels].map((c) => c.pid);
  }

  /** Resident size in bytes of the extraction processes running now (0 with threads). */
  residentBytes(): number {
    return this.pids.reduce((sum, pid) => sum + (rssOf(pid) ?? 0), 0);
  }

  /**
   * Stop the workers that are idle now but the first `keep` (their memory goes back);
   * returns how many stopped.
   */
  stopIdle(keep = 0): number {
    return this.#workers.stopIdle(keep);
  }

  /**
   * Whether another file may start beside those in flight: this process and its extraction
   * processes together use under `budgetMb`, counting each one's own (anonymous) resident
   * memory and the executable's pages they share once, close to the tree's proportional set
   * size (PSS) and cheap to read. Always true with threads or where sizes cannot be read.
   */
  roomFor(budgetMb: number): boolean {
    const used = this.#used();
    return used === undefined || used <= budgetMb * 2 ** 20;
  }

  /** Bytes the tree uses as `roomFor` counts them, or undefined when they cannot be read. */
  #used(): number | undefined {
    if (this.isolation !== "process") return undefined;
    const own = memoryOf(Deno.pid);
    if (!own) return undefined;
    let used = own.anon + own.file;
    for (const pid of this.pids) used += memoryOf(pid)?.anon ?? 0;
    return used;
  }

  /**
   * Make room for a large file: while the tree is over `budgetMb` (as `roomFor` counts it),
   * ask idle extraction processes, the largest first, that hold more than
   * {@link WORTH_COLLECTING_MB} of their own memory to collect their garbage now (V8's
   * last-resort collection, which hands the freed pages back). A process that has read a
   * large PDF keeps 115-170 MiB and holds 63-73 after such a collection, which costs it about
   * 0.1 s of CPU; stopping it instead gave back a little more, but the next file started
   * another process at 0.7-0.9 s. The memory comes back while the process collects, after
   * this returns. A process asked once is not asked again before it has read another file:
   * what its collection left is live (asking again each second a file waited for memory cost
   * an idle process 0.1 s of CPU a second, at 103 MiB before and after). Returns how many
   * processes were asked.
   */
  makeRoom(budgetMb: number): number {
    let over = (this.#used() ?? 0) - budgetMb * 2 ** 20;
    const sized = this.#workers.idle().flatMap((ch) =>
      ch instanceof ProcChannel && !this.#collected.has(ch)
        ? [{ ch, own: memoryOf(ch.pid)?.anon ?? 0 }]
        : []
    ).sort((a, b) => b.own - a.own);
    let n = 0;
    for (const { ch, own } of sized) {
      if (over <= 0 || own <= WORTH_COLLECTING_MB * 2 ** 20) break;
      ch.post({ id: COLLECT_ID, data: null });
      this.#collected.add(ch);
      over -= own - WORTH_COLLECTING_MB * 2 ** 20;
      n++;
    }
    return n;
  }

  /**
   * Keep idle workers until the returned function is called (an index run: between its
   * files a worker waits on the index process, and one stopped after `idleMs` would be
   * started again for the next file at 0.7-0.9 s of CPU). `stopIdle` still stops them;
   * `makeRoom` asks them to collect their garbage instead.
   */
  hold(): () => void {
    return this.#workers.hold();
  }

  /** Workers running now (processes or threads). */
  get workers(): number {
    return this.#workers.workers;
  }

  /** `process` or `thread`: how this pool isolates extraction. */
  get isolation(): "process" | "thread" {
    return this.#config ? "process" : "thread";
  }

  /** A child process where processes can run, else a worker thread. */
  #connect(events: ChannelEvents): Channel {
    if (this.#config) {
      try {
        // An answer means a file was read: `makeRoom` may ask the process to collect again.
        const ch: ProcChannel = new ProcChannel(this.#config, this.memoryMb!, {
          ...events,
          message: (m) => {
            this.#collected.delete(ch);
            events.message(m);
          },
        });
        this.#channels.add(ch);
        ch.exited.then(() => this.#channels.delete(ch));
        return ch;
      } catch (e) {
        // The executable cannot be started after all: use threads from now on.
        console.error(`shelfmark: extraction processes unavailable (${e}); using threads`);
        this.#config = undefined;
      }
    }
    return threadChannel(new URL("./worker.ts", import.meta.url))({
      message: events.message,
      exit: (kind, detail) => events.exit(kind, `extractor crashed: ${detail}`),
    });
  }

  /** The error of a file that was not extracted. */
  #error(e: WorkerError): Error {
    switch (e.kind) {
      case "failed": {
        const r = e.remote;
        return new ExtractError(r?.name === "ExtractError" && r.reason || "failed", e.detail);
      }
      case "timeout":
        return new ExtractError("timeout", e.detail);
      case "start":
        this.#broken = `extraction workers fail to start: ${e.detail}`;
        return new ExtractError("crashed", this.#broken);
      case "closed":
        return new Error("extraction pool closed");
      default: // crashed, out_of_memory, too_large
        return new ExtractError(e.kind, e.detail);
    }
  }

  /**
   * The wall-time limit of a file given `allowance` times the time limit: the one of the
   * options scaled, or {@link wallLimitMs} of the larger CPU limit.
   */
  wallFor(allowance: number): number {
    return this.#wallGiven !== undefined
      ? this.#wallGiven * allowance
      : wallLimitMs(this.timeoutMs * allowance);
  }

  /**
   * Extract a file in a worker. The input's bytes are handed over to the worker. Its
   * `allowance` (at least 1) multiplies the CPU and wall-time limits of this file.
   */
  extract: ExtractFn = (input) => {
    if (this.#ready) return this.#ready.then(() => this.extract(input));
    if (this.#closed) return Promise.reject(new Error("extraction pool is closed"));
    if (this.#broken) return Promise.reject(new ExtractError("crashed", this.#broken));
    const { signal: _signal, ...data } = input;
    const allowance = Math.max(1, Number.isFinite(input.allowance) ? input.allowance! : 1);
    const wall = this.wallFor(allowance);
    const request: ExtractRequest = {
      ...data,
      softMs: Math.floor(this.timeoutMs * allowance * 0.8),
      softWallMs: Math.floor(wall * 0.8),
    };
    const b = data.bytes;
    const whole = b.byteOffset === 0 && b.byteLength === b.buffer.byteLength;
    return this.#workers.request(request, whole ? [b.buffer as ArrayBuffer] : [], wall);
  };

  /** Stop every worker; queued jobs are rejected. */
  close(): void {
    this.#closed = true;
    this.#workers.close();
  }
}
