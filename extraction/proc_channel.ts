/**
 * Extraction in a child process: the parent's end of the channel (spawn, framed messages over
 * stdin/stdout, memory watchdog) and the framing both ends share.
 *
 * A child runs `extraction/proc.ts` under `deno run` with a V8 heap limit
 * (`--max-old-space-size`), a larger young generation (`--max-semi-space-size`), no Turbofan
 * (`--no-turbofan`, see `CHILD_V8`) and only read/env/sys permissions. On Linux the parent
 * also reads the child's resident set size (`/proc/<pid>/status`) and kills it past the limit,
 * which bounds what the heap limit does not see (typed arrays, wasm memory): every 25 ms near
 * the limit, less often the further the child is from it ({@link watchDelay}).
 *
 * @module
 */
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { existsSync } from "node:fs";
import type { Channel, ChannelEvents } from "../core/workers.ts";
import type { WorkerMessage } from "../core/worker_protocol.ts";
import { mmapThresholdEnv } from "../core/malloc.ts";

const MAGIC = 0x31584d53; // "SMX1" little-endian
const HEAD = 12;
/**
 * The young generation of a child, in MiB per semi-space (V8's default is smaller). pdf.js
 * allocates short-lived objects fast; a larger young generation collects them less often
 * and promotes fewer: 75 PDFs of the full corpus (`bench/profile_index.ts`, one process)
 * took 44.3-44.8 s of extraction CPU instead of 48.1-48.4 s, the process's peak PSS 313-327
 * MiB instead of 347-362. 16 MiB: 45.6 s; 64 MiB: 51.3 s and 414 MiB; the default with
 * `--single-threaded-gc`: 45.0 s, 32 MiB with it: 47.0 s.
 */
const SEMI_SPACE_MB = 32;
/**
 * V8 flags of a child beyond its heap sizes. `--no-turbofan`: the child's JavaScript tiers up
 * to Maglev and no further (WebAssembly, say tesseract's, keeps Turbofan: it has flags of its
 * own, `--wasm-tier-up`). A quarter of an extraction process's CPU went to V8's helper
 * threads, mostly Turbofan compiling (17 of 90 s with `--single-threaded-gc`, which leaves
 * compiling to them alone), and each process compiles the extractors' hot code anew. Without
 * Turbofan, 594 files of the full corpus indexed as a user runs `index` (pdf-manuals, html,
 * word, text, markdown, ebooks) took 79.8 s of extraction CPU instead of 86.7 (two runs side by
 * side at load 14); in one process, the same files 63.0 s instead of 66.1 and the 4 largest PDFs
 * (5-11 MB) 35.6 s instead of 36.0, at 372 MiB of peak RSS instead of 453. `--no-maglev` (77.0
 * s against 70.6) and `--single-threaded-gc` (90.7 s against 83.3) cost more.
 */
const CHILD_V8 = ["--no-turbofan"];
/**
 * The fastest growth the memory watchdog allows for, in bytes per ms (2 GiB/s, faster than
 * zlib inflates or pdf.js allocates): its next check comes before a child growing this
 * fast could pass its limit.
 */
const GROWTH_PER_MS = 2 * 1024 * 1024;
/** The shortest and longest wait between two checks of a child's memory, ms. */
const WATCH_MS = { min: 25, max: 250 };

/**
 * How long the memory watchdog waits before it reads a child's resident size again: the
 * time the child would take to grow from `rss` to `limit` at 2 GiB/s, within 25-250 ms.
 * A check wakes the index process (0.17 ms of CPU each): every 25 ms, each extraction
 * process cost it 1 % of a core, 7 s of a full-corpus index; children far below their
 * limit (most of the time) are now read 4 times a second.
 *
 * @param rss the child's resident bytes now (undefined: not readable)
 * @param limit its limit in bytes
 * @returns ms until the next check
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const MiB = 2 ** 20;
 * assert.equal(watchDelay(200 * MiB, 1024 * MiB), 250);
 * assert.equal(watchDelay(1000 * MiB, 1024 * MiB), 25);
 * assert.equal(watchDelay(700 * MiB, 1024 * MiB), 162);
 * ```
 */
export function watchDelay(rss: number | undefined, limit: number): number {
  if (rss === undefined) return WATCH_MS.max;
  const ms = Math.floor((limit - rss) / GROWTH_PER_MS);
  return Math.min(WATCH_MS.max, Math.max(WATCH_MS.min, ms));
}

/** Largest reply taken from a child (the text of a document, as JSON). */
const MAX_REPLY = 256 * 1024 * 1024;

/** Encode one frame: magic, JSON length, binary length, JSON, binary. */
export function encodeFrame(msg: unknown, bin?: Uint8Array): Uint8Array {
  const json = new TextEncoder().encode(JSON.stringify(msg));
  const b = bin ?? new Uint8Array(0);
  const out = new Uint8Array(HEAD + json.length + b.length);
  const v = new DataView(out.buffer);
  v.setUint32(0, MAGIC, true);
  v.setUint32(4, json.length, true);
  v.setUint32(8, b.length, true);
  out.set(json, HEAD);
  out.set(b, HEAD + json.length);
  return out;
}

/**
 * Decodes frames from a byte stream given in arbitrary chunks. Bytes that do not start a
 * frame (stray output of a library) are skipped up to the next magic number.
 */
export class FrameReader {
  #buf = new Uint8Array(64 * 1024);
  #start = 0;
  #end = 0;
  readonly #max: number;
  /** Size of the frame being received (header included), once its header is in. */
  #pending = 0;

  /** @param maxBytes largest frame accepted; a larger one throws `RangeError` */
  constructor(maxBytes = Infinity) {
    this.#max = maxBytes;
  }

  /** Add a chunk; returns the complete frames it finished. */
  push(chunk: Uint8Array): { msg: unknown; bin: Uint8Array }[] {
    if (this.#end + chunk.length > this.#buf.length) {
      const live = this.#end - this.#start;
      // Room for the frame being received when its size is known, else twice what is live.
      const want = Math.max(live + chunk.length, this.#pending);
      if (want > this.#buf.length) {
        const next = new Uint8Array(Math.max(want, Math.min(2 * want, want + (1 << 20))));
        next.set(this.#buf.subarray(this.#start, this.#end), 0);
        this.#buf = next;
      } else this.#buf.copyWithin(0, this.#start, this.#end);
      this.#start = 0;
      this.#end = live;
    }
    this.#buf.set(chunk, this.#end);
    this.#end += chunk.length;
    const out: { msg: unknown; bin: Uint8Array }[] = [];
    while (this.#end - this.#start >= HEAD) {
      const v = new DataView(this.#buf.buffer, this.#start, HEAD);
      if (v.getUint32(0, true) !== MAGIC) {
        this.#start++;
        continue;
      }
      const jl = v.getUint32(4, true);
      const bl = v.getUint32(8, true);
      if (jl + bl > this.#max) throw new RangeError(`a frame of ${jl + bl} bytes`);
      if (this.#end - this.#start < HEAD + jl + bl) {
        this.#pending = HEAD + jl + bl;
        break;
      }
      this.#pending = 0;
      const j = this.#start + HEAD;
      const json = new TextDecoder().decode(this.#buf.subarray(j, j + jl));
      const bin = this.#buf.slice(j + jl, j + jl + bl);
      this.#start = j + jl + bl;
      try {
        out.push({ msg: JSON.parse(json), bin });
      } catch {
        // A damaged frame: skip it.
      }
    }
    if (this.#start === this.#end) this.#start = this.#end = 0;
    return out;
  }
}

/** Resident set size of a process in bytes (Linux), or undefined. */
export function rssOf(pid: number): number | undefined {
  try {
    const s = Deno.readTextFileSync(`/proc/${pid}/status`);
    const m = /VmRSS:\s+(\d+)\s+kB/.exec(s);
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** `deno.json` of this checkout, when extraction can run in child processes; else undefined. */
export function procConfig(): string | undefined {
  try {
    if (!import.meta.url.startsWith("file:")) return undefined;
    // A compiled binary cannot `run` a module: only a real `deno` executable can.
    const exe = Deno.execPath();
    if (!/^deno(\.exe)?$/i.test(basename(exe))) return undefined;
    if (Deno.permissions.querySync({ name: "run", command: exe }).state !== "granted") {
      return undefined;
    }
    const config = join(dirname(dirname(fileURLToPath(import.meta.url))), "deno.json");
    return existsSync(config) ? config : undefined;
  } catch {
    return undefined; // no permission to read the executable's path or the checkout
  }
}

/**
 * Tesseract's messages about a page (printed by its worker thread straight to the
 * extraction process's stderr) are not for the user's terminal, where they break the
 * progress bar: "Image too small to scale!! (2x36 vs min width of 3)", "Line cannot be
 * recognized!!", "Empty page!!", "Estimating resolution as 371".
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const stderr = "Image too small to scale!! (2x36 vs min width of 3)\nreal error\n";
 * assert.equal(withoutOcrChatter(stderr), "real error\n");
 * ```
 */
export function withoutOcrChatter(text: string): string {
  return text.replace(OCR_CHATTER, "");
}
const OCR_CHATTER =
  /^(?:Image too small to scale!!.*|Line cannot be recognized!!.*|Empty page!!.*|Estimating resolution as \d+.*|Detected \d+ diacritics.*|Too few characters\. Skipping this page.*|Warning: Invalid resolution \d+ dpi\. Using \d+ instead\..*)(?:\r?\n|$)/gm;

/**
 * The parent's end of an extraction child process, a {@link Channel} of `core/workers.ts`:
 * it reports the child's death as `crashed`, `out_of_memory` or `too_large`.
 */
export class ProcChannel implements Channel {
  readonly #child: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #limit: number;
  readonly #handlers: ChannelEvents;
  #watch?: number;
  #dead = false;
  #overLimit = false;
  #stderrTail = "";
  /** Settles once the child has exited and was reaped. */
  readonly exited: Promise<void>;

  /**
   * Start a child.
   *
   * @param config the `deno.json` to run with (from `procConfig()`)
   * @param memoryMb memory limit of the child in MiB
   * @param handlers message and exit callbacks
   * @param role `ocr` runs the OCR worker (`extractors/_ocr_worker.ts`) instead of extractors
   */
  constructor(config: string, memoryMb: number, handlers: ChannelEvents, role?: "ocr") {
    this.#limit = memoryMb * 1024 * 1024;
    this.#handlers = handlers;
    const heap = Math.max(64, Math.floor(memoryMb * 0.75));
    const entry = new URL("./proc.ts", import.meta.url).href;
    this.#child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--quiet",
        "--no-prompt",
        "--no-lock",
        `--config=${config}`,
        `--v8-flags=${
          [
            `--max-old-space-size=${heap}`,
            `--max-semi-space-size=${SEMI_SPACE_MB}`,
            // Not measured for the OCR worker (wasm, long hot loops): it keeps V8's defaults.
            ...(role === "ocr" ? [] : CHILD_V8),
          ].join(",")
        }`,
        "--allow-read",
        "--allow-env",
        "--allow-sys",
        entry,
        ...(role ? [role] : []),
      ],
      // large buffers given back when freed, as in this process (see core/malloc.ts)
      env: mmapThresholdEnv(),
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    this.#writer = this.#child.stdin.getWriter();
    this.#read();
    this.#forwardStderr();
    this.exited = this.#child.status.then((st) => this.#exited(st));
    if (Deno.build.os === "linux") this.#watchIn(WATCH_MS.min);
  }

  /** Process id of the child. */
  get pid(): number {
    return this.#child.pid;
  }

  async #read(): Promise<void> {
    const frames = new FrameReader(MAX_REPLY);
    try {
      for await (const chunk of this.#child.stdout) {
        for (const f of frames.push(chunk)) this.#handlers.message(f.msg);
      }
    } catch (e) {
      if (e instanceof RangeError && !this.#dead) {
        // A result too large to take into this process: drop it with the child.
        this.terminate();
        this.#handlers.exit("too_large", `extraction result over ${MAX_REPLY >> 20} MiB`);
      }
      // Otherwise the child is gone; #exited reports it.
    }
  }

  /** The child's stderr on ours, less what is only noise to a person at a terminal. */
  async #forwardStderr(): Promise<void> {
    const dec = new TextDecoder();
    // V8's report of a heap out of memory (GC log, C stack) is not for the user's terminal:
    // the pool reports the file as `out_of_memory`.
    let quiet = false;
    let pending = "";
    const enc = new TextEncoder();
    try {
      for await (const chunk of this.#child.stderr) {
        const text = dec.decode(chunk, { stream: true });
        this.#stderrTail = (this.#stderrTail + text).slice(-4096);
        quiet ||= /<--- Last few GCs|Fatal JavaScript out of memory|heap out of memory/.test(text);
        if (this.#dead || quiet) continue;
        // Whole lines only, so a message split between chunks is still recognised.
        pending += text;
        const end = pending.lastIndexOf("\n") + 1;
        if (!end) continue;
        const shown = withoutOcrChatter(pending.slice(0, end));
        pending = pending.slice(end);
        if (shown) await Deno.stderr.write(enc.encode(shown)).catch(() => {});
      }
      const rest = withoutOcrChatter(pending);
      if (rest && !this.#dead && !quiet) await Deno.stderr.write(enc.encode(rest)).catch(() => {});
    } catch {
      // ignore
    }
  }

  /** Check the child's memory in `ms`, and from then on as {@link watchDelay} says. */
  #watchIn(ms: number): void {
    const id = setTimeout(() => this.#check(), ms) as unknown as number;
    Deno.unrefTimer(id);
    this.#watch = id;
  }

  #check(): void {
    if (this.#dead) return;
    const rss = rssOf(this.#child.pid);
    if (rss !== undefined && rss > this.#limit) {
      this.#overLimit = true;
      this.terminate();
      return;
    }
    this.#watchIn(watchDelay(rss, this.#limit));
  }

  #exited(st: Deno.CommandStatus): void {
    const wasKilled = this.#dead;
    this.#dead = true;
    clearTimeout(this.#watch);
    const mb = Math.round(this.#limit / 1024 / 1024);
    if (this.#overLimit) {
      this.#handlers.exit("out_of_memory", `extraction used more than ${mb} MiB`);
    } else if (/out of memory|heap limit|allocation failed/i.test(this.#stderrTail)) {
      this.#handlers.exit("out_of_memory", `extraction ran out of memory (limit ${mb} MiB)`);
    } else if (!wasKilled) {
      const how = st.signal ? `signal ${st.signal}` : `exit code ${st.code}`;
      this.#handlers.exit("crashed", `extraction process died (${how})`);
    }
  }

  /** Send a message; a request's `data.bytes` (the file) travels after its JSON. */
  post(msg: WorkerMessage): void {
    if (this.#dead) return;
    const { bytes, ...data } = (msg.data ?? {}) as { bytes?: Uint8Array };
    const frame = bytes instanceof Uint8Array
      ? encodeFrame({ id: msg.id, data }, bytes)
      : encodeFrame(msg);
    this.#writer.write(frame).catch(() => {});
  }

  /** Kill the child (no exit callback unless it was over its memory limit). */
  terminate(): void {
    if (!this.#overLimit) this.#dead = true;
    clearTimeout(this.#watch);
    try {
      this.#child.kill("SIGKILL");
    } catch {
      // already gone
    }
    this.#writer.close().catch(() => {});
    this.#child.unref();
  }
}
