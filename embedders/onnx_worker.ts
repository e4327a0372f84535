/**
 * Child process of the `onnx:` embedder: loads a local model folder with transformers.js
 * (feature-extraction pipeline: pooling, then L2 normalisation) and answers framed requests
 * on stdin (texts) with framed answers on stdout (`{rows, dims}`, then the float32 vectors as
 * raw bytes). Remote models are switched off; the process runs with `--deny-net` as well.
 *
 * Run by `OnnxEmbedder` as `deno run --no-lock ... embedders/onnx_worker.ts` (see
 * `childArgs` in `onnx.ts`).
 *
 * @module
 */
import { encodeFrame, FrameReader } from "../extraction/proc_channel.ts";
import { answer, type WorkerAnswer, type WorkerMessage } from "../core/worker_protocol.ts";
import { type OnnxInit, TRANSFORMERS } from "./onnx.ts";
import { lowerPriority } from "./priority.ts";

// Vectors are background work: this process (and onnxruntime's threads, started later,
// which inherit it) yields to indexing and tool calls.
lowerPriority();

/** The little of transformers.js used here. */
interface Transformers {
  env: {
    allowRemoteModels: boolean;
    allowLocalModels: boolean;
    useFSCache: boolean;
    logLevel: number;
  };
  pipeline(
    task: "feature-extraction",
    model: string,
    opts: Record<string, unknown>,
  ): Promise<Extractor>;
}
type Extractor = (
  texts: string[],
  opts: { pooling: "mean" | "cls"; normalize: boolean },
) => Promise<{ data: Float32Array; dims: number[] }>;

// stdout carries frames only: whatever the libraries print goes to stderr.
const toStderr = (...args: unknown[]) => console.error(...args);
for (const k of ["log", "info", "debug", "warn"] as const) console[k] = toStderr;

let extract: Extractor | undefined;
let pooling: "mean" | "cls" = "mean";

const handle = answer<OnnxInit, string[], { rows: number; dims: number; flat: Float32Array }>({
  async start(init) {
    const tf = await import(TRANSFORMERS) as Transformers;
    tf.env.allowRemoteModels = false;
    tf.env.allowLocalModels = true;
    tf.env.useFSCache = false;
    tf.env.logLevel = 40; // errors only
    pooling = init.pooling;
    try {
      // An absolute path is no hub model id: it is read as it is, from the disk.
      extract = await tf.pipeline("feature-extraction", init.folder, {
        local_files_only: true,
        device: "cpu",
        dtype: init.dtype,
        subfolder: init.subfolder,
        use_external_data_format: init.externalData,
      });
    } catch (e) {
      throw new Error(`cannot load the model: ${(e as Error)?.message ?? e}`);
    }
  },
  async handle(texts) {
    const t = await extract!(texts, { pooling, normalize: true });
    const [rows = 0, dims = 0] = t.dims;
    return { rows, dims, flat: t.data };
  },
}, (a: WorkerAnswer<{ rows: number; dims: number; flat: Float32Array } | undefined>) => {
  if ("data" in a && a.data) {
    const { rows, dims, flat } = a.data;
    const bytes = new Uint8Array(flat.buffer, flat.byteOffset, rows * dims * 4);
    write(encodeFrame({ id: a.id, data: { rows, dims } }, bytes));
  } else write(encodeFrame(a));
});

const out = Deno.stdout.writable.getWriter();
let writing: Promise<void> = Promise.resolve();
function write(frame: Uint8Array): void {
  writing = writing.then(() => out.write(frame)).catch(() => Deno.exit(1));
}

const frames = new FrameReader();
for await (const chunk of Deno.stdin.readable) {
  // One request at a time: the pool sends the next after this one's answer.
  for (const { msg } of frames.push(chunk)) await handle(msg as WorkerMessage);
}
// The pool closed our stdin: finish writing and leave.
await writing;
