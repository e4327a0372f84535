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
import { existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import type { Embedder } from "../core/types.ts";
import { type Channel, type Connect, WorkerError, WorkerPool } from "../core/workers.ts";
import { encodeFrame, FrameReader, procConfig } from "../extraction/proc_channel.ts";

/** Settings of an `onnx:` embedder beyond its folder (the `embedder` object's keys). */
export interface OnnxOptions {
  /** Text put before each query; default from the model's name (e5: `query: `). */
  query_prefix?: string;
  /** Text put before each document; default from the model's name (e5: `passage: `). */
  document_prefix?: string;
  /** Whether the model understands many languages; default guessed from its name. */
  multilingual?: boolean;
  /** How token vectors become one: default from `1_Pooling/config.json`, else the name. */
  pooling?: "mean" | "cls";
}

/** A model folder as found on disk, and what the embedder will do with it. */
export interface OnnxModel {
  /** Absolute path of the folder. */
  folder: string;
  /** The folder's name, e.g. `multilingual-e5-small`. */
  name: string;
  /** The ONNX weights used, relative to the folder, e.g. `onnx/model.onnx`. */
  file: string;
  /** transformers.js `dtype` naming that file (`fp32` for `model.onnx`, `q8` for `model_quantized.onnx`). */
  dtype: string;
  /** Folder of the weights inside the model folder: `onnx` or `""`. */
  subfolder: string;
  /** Files of external weights beside the `.onnx` file (`model.onnx_data`, ...). */
  externalData: number;
  /** Vector length from `config.json` (0 when it does not say; known after the first texts). */
  dimensions: number;
  /** Tokens the model reads. */
  maxTokens: number;
  /** Put before queries and before documents. */
  queryPrefix: string;
  documentPrefix: string;
  pooling: "mean" | "cls";
  multilingual: boolean;
  /** Where `multilingual` came from: the user's setting or a guess from the model's name. */
  multilingualFrom: "config" | "name";
  /** Files the child process may read: the folder, and where its symbolic links lead. */
  readable: string[];
}

/**
 * The runtime, pinned here and not in `deno.json`: an import map entry puts a package in
 * `deno.lock` once anything installs it, and Deno fetches every package of the lock file, so
 * every user would download it. A specifier held in a variable is invisible to `deno check`,
 * `deno install` and the main process's module graph; only the child process imports it.
 */
export const TRANSFORMERS = "npm:@huggingface/transformers@4.3.1";

/** Weight files transformers.js can load, best first, with the `dtype` that names each. */
const WEIGHTS: [string, string][] = [
  ["model.onnx", "fp32"],
  ["model_quantized.onnx", "q8"],
  ["model_int8.onnx", "int8"],
  ["model_uint8.onnx", "uint8"],
  ["model_fp16.onnx", "fp16"],
  ["model_q4.onnx", "q4"],
  ["model_bnb4.onnx", "bnb4"],
  ["model_q4f16.onnx", "q4f16"],
];

/**
 * Task prefixes by model name: `[pattern, query prefix, document prefix]`, first match wins.
 * Each is what the model's card asks for.
 */
const PREFIXES: [RegExp, string, string][] = [
  [
    /(^|[-_/ ])e5[-_].*instruct/i,
    "Instruct: Given a web search query, retrieve relevant passages that answer the query\nQuery: ",
    "",
  ],
  [/(^|[-_/ ])e5([-_ ]|$)/i, "query: ", "passage: "],
  [/nomic[-_]?(embed|bert)/i, "search_query: ", "search_document: "],
  [/bge-m3/i, "", ""],
  [/bge-.*zh/i, "为这个句子生成表示以用于检索相关文章：", ""],
  [/arctic-embed.*v2/i, "query: ", ""],
  [
    /bge-|mxbai-embed|arctic-embed/i,
    "Represent this sentence for searching relevant passages: ",
    "",
  ],
];

/** Models pooled by their first token (`[CLS]`) rather than the mean of all tokens. */
const CLS_POOLED = /bge-|mxbai-embed|arctic-embed|gte-multilingual/i;

/** Names that say a model reads many languages. */
const MULTILINGUAL = /multilingual|(^|[-_/ ])m3([-_/ .]|$)|-m-|labse|xlm-?r/i;

/** Throws naming the folder when `file` is not in it. */
function need(folder: string, file: string): void {
  if (!existsSync(join(folder, file))) {
    throw new Error(
      `onnx embedder: ${folder} has no ${file} (a model folder holds config.json, ` +
        `tokenizer.json, tokenizer_config.json and onnx/model.onnx, as the model's repository has them)`,
    );
  }
}

/** A small JSON file of the folder (`{}` when it is not there and not `required`). */
function readJson(folder: string, file: string, required: boolean): Record<string, unknown> {
  const path = join(folder, file);
  if (!existsSync(path)) {
    if (required) need(folder, file);
    return {};
  }
  try {
    const v = JSON.parse(readFileSync(path, "utf8"));
    if (typeof v === "object" && v && !Array.isArray(v)) return v;
  } catch {
    // reported below
  }
  throw new Error(`onnx embedder: ${path} is not a JSON object`);
}

/** A positive whole number from the first of `keys` that has one, else 0. */
function intOf(o: Record<string, unknown>, ...keys: string[]): number {
  for (const k of keys) {
    const v = o[k];
    if (typeof v === "number" && Number.isInteger(v) && v > 0) return v;
  }
  return 0;
}

/**
 * Look at a model folder: which weights to load, the vector length, task prefixes, pooling,
 * whether it is multilingual. Reads a few small JSON files; never loads the model.
 *
 * @param folder the model folder (`~/` and relative paths allowed)
 * @param opts the user's settings, which win over what the folder suggests
 * @throws {Error} naming the folder and what is missing: no such folder, no ONNX weights,
 *   no `config.json` / `tokenizer.json` / `tokenizer_config.json`
 * @example
 * ~~~ts
 * try {
 *   const m = inspectOnnxModel("~/models/multilingual-e5-small");
 *   console.log(m.file, m.dimensions, m.queryPrefix); // onnx/model.onnx 384 query:
 * } catch (e) {
 *   console.error((e as Error).message);
 * }
 * ~~~
 */
export function inspectOnnxModel(folder: string, opts: OnnxOptions = {}): OnnxModel {
  const home = Deno.env.get("HOME") ?? Deno.env.get("USERPROFILE") ?? "";
  const dir = resolve(/^~(?=$|[/\\])/.test(folder) ? home + folder.slice(1) : folder);
  let isDir = false;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    throw new Error(`onnx embedder: no model folder at ${dir}`);
  }
  if (!isDir) throw new Error(`onnx embedder: ${dir} is not a folder`);
  const found = ["onnx", ""].flatMap((sub) =>
    WEIGHTS.map(([f, dtype]) => ({ sub, file: sub ? `${sub}/${f}` : f, dtype }))
  ).find((w) => existsSync(join(dir, w.file)));
  if (!found) {
    throw new Error(
      `onnx embedder: ${dir} has no ONNX weights (looked for onnx/model.onnx, ` +
        `onnx/model_quantized.onnx and the other onnx/model_*.onnx, and model.onnx)`,
    );
  }
  const config = readJson(dir, "config.json", true);
  const tokenizerConfig = readJson(dir, "tokenizer_config.json", true);
  need(dir, "tokenizer.json"); // large (MBs): transformers.js reads it
  const pool = readJson(dir, "1_Pooling/config.json", false);

  // The folder's name, the name the model was saved under ("intfloat/multilingual-e5-small")
  // and its architecture ("nomic_bert", "xlm-roberta").
  const named = [basename(dir), config._name_or_path ?? "", config.model_type ?? ""].join(" ");
  const prefixes = PREFIXES.find(([re]) => re.test(named));
  const pooling = opts.pooling ??
    (pool.pooling_mode_cls_token === true
      ? "cls"
      : pool.pooling_mode_mean_tokens === true
      ? "mean"
      : CLS_POOLED.test(named)
      ? "cls"
      : "mean");
  let externalData = 0;
  while (existsSync(join(dir, `${found.file}_data${externalData ? `_${externalData}` : ""}`))) {
    externalData++;
  }
  const maxLength = intOf(tokenizerConfig, "model_max_length");
  const maxTokens = maxLength && maxLength <= 100_000
    ? maxLength
    : intOf(config, "max_position_embeddings", "n_positions") || 512;
  const files = ["config.json", "tokenizer.json", "tokenizer_config.json", found.file];
  for (let i = 0; i < externalData; i++) files.push(`${found.file}_data${i ? `_${i}` : ""}`);
  const readable = new Set([dir]);
  for (const f of files) readable.add(realpathSync(join(dir, f)));
  return {
    folder: dir,
    name: basename(dir),
    file: found.file,
    dtype: found.dtype,
    subfolder: found.sub,
    externalData,
    dimensions: intOf(config, "hidden_size", "d_model", "dim", "n_embd"),
    maxTokens,
    queryPrefix: opts.query_prefix ?? prefixes?.[1] ?? "",
    documentPrefix: opts.document_prefix ?? prefixes?.[2] ?? "",
    pooling,
    multilingual: opts.multilingual ?? MULTILINGUAL.test(named),
    multilingualFrom: opts.multilingual === undefined ? "name" : "config",
    readable: [...readable],
  };
}

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
