/**
 * A sentence-embedding model the user has on disk (`onnx:<folder>`): ONNX weights and
 * tokenizer files laid out as model repositories publish them (`config.json`,
 * `tokenizer.json`, `tokenizer_config.json`, `onnx/model.onnx` or `onnx/model_quantized.onnx`),
 * run with transformers.js ({@link TRANSFORMERS}) on CPU, never touching the network.
 *
 * The model runs in a child process (`deno run --no-lock --deny-net`): the runtime
 * (transformers.js and onnxruntime-node, 316.6 MB in Deno's cache) is downloaded on the first
 * start only by those who configure this embedder, and never enters the checkout's
 * `deno.lock` (Deno fetches every package of the lock file, so one entry there would make
 * every install pay for it). A compiled binary cannot start the child: there this embedder
 * is refused.
 *
 * @module
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import type { Embedder } from "../core/types.ts";
import { type Channel, type Connect, WorkerError, WorkerPool } from "../core/workers.ts";
import { encodeFrame, FrameReader, procConfig } from "../extraction/proc_channel.ts";
import { inspectOnnxModel, type OnnxModel, type OnnxOptions } from "./_onnx_model.ts";

/**
 * The runtime, pinned here and not in `deno.json`: an import map entry puts a package in
 * `deno.lock` once anything installs it, and Deno fetches every package of the lock file, so
 * every user would download it. A specifier held in a variable is invisible to `deno check`,
 * `deno install` and the main process's module graph; only the child process imports it.
 */
export const TRANSFORMERS = "npm:@huggingface/transformers@4.3.1";

/**
 * The `deno run` arguments of the model's child process: no lock file (the runtime stays
 * out of the checkout's `deno.lock`), no network, reading only the model's files.
 *
 * @param config the checkout's `deno.json` (its `package.json` overrides apply)
 * @param model the model folder, from {@link inspectOnnxModel}
 */
export function childArgs(config: string, model: OnnxModel): string[] {
  return [
    "run",
    "--quiet",
    "--no-prompt",
    "--no-lock",
    `--config=${config}`,
    `--allow-read=${model.readable.join(",")}`,
    "--allow-env",
    "--allow-sys",
    "--allow-ffi",
    "--deny-net",
    new URL("./onnx_worker.ts", import.meta.url).href,
  ];
}

/** Start message of the child: what to load and how to pool. */
export interface OnnxInit {
  folder: string;
  dtype: string;
  subfolder: string;
  externalData: number;
  pooling: "mean" | "cls";
}

/** Connects the worker pool to a child process speaking framed messages on stdin/stdout. */
function childProcess(config: string, model: OnnxModel): Connect {
  return (events) => {
    const child = new Deno.Command(Deno.execPath(), {
      args: childArgs(config, model),
      env: { NO_COLOR: "1" },
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const writer = child.stdin.getWriter();
    let dead = false;
    let stderr = "";
    (async () => {
      const frames = new FrameReader();
      for await (const chunk of child.stdout) {
        for (const { msg, bin } of frames.push(chunk)) {
          const a = msg as { id: number; data?: { rows: number; dims: number } };
          // Vectors travel as raw float32 bytes after the JSON.
          events.message(a.data ? { id: a.id, data: { ...a.data, flat: bin } } : a);
        }
      }
    })().catch(() => {});
    const lastWords = (async () => {
      for await (const text of child.stderr.pipeThrough(new TextDecoderStream())) {
        stderr = (stderr + text).slice(-4000);
      }
    })().catch(() => {});
    child.status.then(async (st) => {
      await lastWords;
      if (dead) return;
      dead = true;
      // Deno's or the runtime's last message says why (a download that failed, a bad model).
      const said = stderr.trim().split("\n")
        .filter((l) => l.trim() && !/^\s+at /.test(l)).slice(-3).join(" ").slice(0, 600);
      events.exit(
        "crashed",
        `the model process exited (code ${st.code})${said ? `: ${said}` : ""}`,
      );
    });
    const ch: Channel = {
      post: (m) => {
        if (!dead) writer.write(encodeFrame(m)).catch(() => {});
      },
      terminate: () => {
        dead = true;
        try {
          child.kill("SIGKILL");
        } catch {
          // gone already
        }
        writer.close().catch(() => {});
        child.unref();
      },
    };
    return ch;
  };
}

/** A sentence-embedding model from a local folder, run by transformers.js in a child process. */
export class OnnxEmbedder implements Embedder {
  /** `onnx:<folder name>`, e.g. `onnx:multilingual-e5-small`. */
  readonly model: string;
  /** Weights file and size, pooling, document prefix: a change computes the vectors again. */
  readonly settings: string;
  /** Vector length: from `config.json`, then from the model's first answer. */
  dimensions: number;
  /** From the configuration, else guessed from the model's name. */
  readonly multilingual: boolean;
  /** About four characters a token; the tokenizer truncates what is still too long. */
  readonly maxChars: number;
  /**
   * Not measured (no such model can be had on the machines shelfmark is built on): a model
   * the user chose and installed is taken to be a strong one, so hybrid is the default;
   * `mode: "keyword"` still answers by keywords alone.
   */
  readonly defaultMode = "hybrid";
  /** What was found in the folder. */
  readonly info: OnnxModel;
  #pool: WorkerPool<string[], Vectors, OnnxInit>;

  /**
   * Check the folder now (a missing one throws before anything is saved); the model loads
   * with the first texts.
   *
   * @param folder the model folder
   * @param opts prefixes, pooling and `multilingual`, overriding what the folder suggests;
   *   `idleMs`: time the model stays loaded without work (default 30 s)
   * @throws {Error} for a folder that is not a model (see {@link inspectOnnxModel}), or in a
   *   compiled binary
   */
  constructor(folder: string, opts: OnnxOptions & { idleMs?: number } = {}) {
    this.info = inspectOnnxModel(folder, opts);
    const config = procConfig();
    if (!config) {
      throw new Error(
        "onnx embedder: runs only from a checkout under `deno run` with permission to run " +
          "deno (not in a compiled binary)",
      );
    }
    this.model = `onnx:${this.info.name}`;
    const { file, documentPrefix } = this.info;
    const bytes = statSync(join(this.info.folder, file)).size;
    this.settings = `${file} ${bytes} bytes, ${this.info.pooling} pooling, document prefix ${
      JSON.stringify(documentPrefix)
    }`;
    this.dimensions = this.info.dimensions;
    this.multilingual = this.info.multilingual;
    this.maxChars = Math.min(8000, Math.max(500, this.info.maxTokens * 4));
    const { folder: dir, dtype, subfolder, externalData, pooling } = this.info;
    this.#pool = new WorkerPool<string[], Vectors, OnnxInit>({
      name: `onnx embedder (${dir})`,
      connect: childProcess(config, this.info),
      init: { folder: dir, dtype, subfolder, externalData, pooling },
      idleMs: opts.idleMs ?? 30_000,
      timeoutMs: 300_000,
      // A failed request carries only the model's own message: say whose it is.
      error: (e) =>
        new Error(
          e instanceof WorkerError && e.kind !== "failed"
            ? e.message
            : `onnx embedder (${dir}): ${(e as Error)?.message ?? e}`,
        ),
    });
  }

  /** Whether the model is loaded (its process runs). */
  get loaded(): boolean {
    return this.#pool.workers > 0;
  }

  /**
   * One unit vector per text, with the model's query or document prefix. Documents go a few
   * at a time, so a query waits for one small batch at most.
   */
  async embed(texts: string[], kind: "query" | "document" = "document"): Promise<Float32Array[]> {
    const prefix = kind === "query" ? this.info.queryPrefix : this.info.documentPrefix;
    const step = kind === "query" ? texts.length : DOC_CHUNK;
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += step) {
      const part = texts.slice(i, i + step).map((t) => prefix + t);
      const { rows, dims, flat } = await this.#pool.request(part);
      if (rows !== part.length || flat.byteLength !== rows * dims * 4) {
        throw new Error(
          `onnx embedder: ${this.info.folder} answered ${rows} vectors for ${part.length} texts`,
        );
      }
      const all = new Float32Array(flat.slice().buffer); // a copy: aligned to 4 bytes
      for (let r = 0; r < rows; r++) out.push(all.slice(r * dims, (r + 1) * dims));
      this.dimensions = dims;
    }
    return out;
  }

  /** Stop the model's process. */
  close(): void {
    this.#pool.close();
  }
}

/** A batch of vectors from the child: `rows` vectors of `dims` floats, row after row. */
interface Vectors {
  rows: number;
  dims: number;
  flat: Uint8Array;
}

/** Document texts sent to the model in one message. */
const DOC_CHUNK = 4;
