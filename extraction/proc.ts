/**
 * Child-process side of the extraction pool: reads framed requests on stdin (the file's
 * bytes travel after each request's JSON), extracts with `host.ts`, and writes framed
 * answers on stdout. Anything a library prints goes to stderr so stdout carries frames only.
 *
 * Run by `ProcChannel` as `deno run --v8-flags=--max-old-space-size=N,... extraction/proc.ts`
 * (`... proc.ts ocr` for the OCR worker of `ocr_pool.ts`).
 *
 * @module
 */
import { encodeFrame, FrameReader } from "./proc_channel.ts";
import {
  answer,
  COLLECT_ID,
  type WorkerAnswer,
  type WorkerBody,
  type WorkerMessage,
} from "../core/worker_protocol.ts";
import { collectIfOver, HeapTrimmer, lastResortCollection } from "../core/heap.ts";

// Keep stdout for frames: console output of extractors and libraries goes to stderr, except
// pdf.js's notice that its optional canvas (never used for text) cannot load without FFI.
const NOISE = /@napi-rs\/canvas|polyfill `Path2D`/;
const toStderr = (...args: unknown[]) => {
  if (!(typeof args[0] === "string" && NOISE.test(args[0]))) console.error(...args);
};
for (const k of ["log", "info", "debug", "warn"] as const) console[k] = toStderr;
// Loaded after the console is redirected: pdf.js prints while it loads. With the argument
// `ocr` the process reads scanned PDF pages (`extractors/_ocr_worker.ts`) instead. A file
// whose extraction grew the heap past LARGE_HEAP_MB gives its garbage back before it is
// measured and answered, which would otherwise add their own growth on top of it.
const LARGE_HEAP_MB = 128;
const body =
  (Deno.args[0] === "ocr"
    ? (await import("../extractors/_ocr_worker.ts")).ocrWorkerBody()
    : (await import("./host.ts")).extractionWorker(
      "process",
      () => collectIfOver(LARGE_HEAP_MB),
    )) as WorkerBody<
      unknown,
      unknown,
      unknown
    >;

const out = Deno.stdout.writable.getWriter();
let writing: Promise<void> = Promise.resolve();
// A large file's garbage is given back before its answer leaves, not kept while idle: the
// pool reads this process's resident size when the answer comes, to replace a process that
// has grown too large, and then sees what the process keeps rather than what it threw away.
const heap = new HeapTrimmer({ growthMb: 96, floorMb: 128 });
const post = (a: WorkerAnswer) => {
  const frame = encodeFrame(a);
  heap.trim();
  writing = writing.then(() => out.write(frame)).catch(() => Deno.exit(1));
};
const handle = answer(body, post);

const frames = new FrameReader();
for await (const chunk of Deno.stdin.readable) {
  for (const { msg, bin } of frames.push(chunk)) {
    const m = msg as WorkerMessage<Record<string, unknown>>;
    // The pool asks for the garbage back (`ExtractPool.makeRoom`): about 0.1 s of CPU.
    if (m.id === COLLECT_ID) {
      lastResortCollection();
      continue;
    }
    if (m.id !== 0) m.data = { ...m.data, bytes: bin };
    // Extractions are sent one at a time; do not wait here so the reader keeps draining.
    handle(m);
  }
}
// The pool closed our stdin: finish what is being written and leave.
await writing;
Deno.exit(0);
