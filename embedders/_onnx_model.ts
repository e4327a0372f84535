/**
 * The model folder of an `onnx:<folder>` embedder: finding its ONNX weights, checking the
 * files transformers.js needs are there, and reading from its small JSON files (and its name)
 * the vector length, token limit, task prefixes, pooling and whether it is multilingual.
 * Never loads the model. Used by `onnx.ts`, which re-exports what is public here.
 *
 * @module
 */
import { existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";

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
