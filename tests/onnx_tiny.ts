/**
 * A tiny BERT-shaped sentence-embedding model for the `onnx:` embedder's tests, written from
 * scratch: no model can be downloaded on the machines shelfmark is built on (no hub; no npm
 * or Debian package ships one). The ONNX graph looks each token up in an embedding table
 * with known weights, so what transformers.js makes of a text can be computed here too
 * ({@link expected}); the tokenizer is a real WordPiece `tokenizer.json`.
 *
 * @module
 */
import { dirname, join } from "node:path";

/** Protobuf wire format, enough for an ONNX ModelProto. */
class Pb {
  #b: number[] = [];
  #varint(n: number): void {
    for (; n > 127; n = Math.floor(n / 128)) this.#b.push((n % 128) | 128);
    this.#b.push(n);
  }
  int(field: number, n: number): this {
    this.#varint(field * 8);
    this.#varint(n);
    return this;
  }
  bytes(field: number, v: Uint8Array | Pb | string): this {
    const b = typeof v === "string" ? new TextEncoder().encode(v) : v instanceof Pb ? v.out() : v;
    this.#varint(field * 8 + 2);
    this.#varint(b.length);
    this.#b.push(...b);
    return this;
  }
  out(): Uint8Array {
    return Uint8Array.from(this.#b);
  }
}
const FLOAT = 1, INT64 = 7;
const tensor = (name: string, dims: number[], type: number, data: ArrayBufferView) =>
  dims.reduce((t, d) => t.int(1, d), new Pb()).int(2, type).bytes(8, name)
    .bytes(9, new Uint8Array(data.buffer));
const valueInfo = (name: string, type: number, dims: (number | string)[]) => {
  const shape = new Pb();
  for (const d of dims) {
    shape.bytes(1, typeof d === "number" ? new Pb().int(1, d) : new Pb().bytes(2, d));
  }
  return new Pb().bytes(1, name).bytes(2, new Pb().bytes(1, new Pb().int(1, type).bytes(2, shape)));
};
const node = (op: string, inputs: string[], output: string, attr?: Pb) => {
  const n = inputs.reduce((n, i) => n.bytes(1, i), new Pb()).bytes(2, output).bytes(3, output)
    .bytes(4, op);
  return attr ? n.bytes(5, attr) : n;
};

/** The vocabulary: special tokens, then the only words the model knows. */
export const VOCAB = [
  "[PAD]",
  "[UNK]",
  "[CLS]",
  "[SEP]",
  "[MASK]",
  "query",
  "passage",
  ":",
  "hello",
  "world",
  "shelf",
  "books",
];
/** Vector length. */
export const H = 16;
const WORDS = new Float32Array(VOCAB.length * H).map((_, k) => Math.sin(k * 1.3 + 0.5));
const TYPES = new Float32Array(2 * H).map((_, k) => 0.1 * Math.cos(k));

/**
 * last_hidden_state = (word_embeddings[input_ids] + type_embeddings[token_type_ids]) *
 * attention_mask: each token's vector is its embedding row, padding is zero.
 */
function tinyBert(): Uint8Array {
  const g = new Pb()
    .bytes(1, node("Gather", ["word_embeddings", "input_ids"], "words"))
    .bytes(1, node("Gather", ["type_embeddings", "token_type_ids"], "types"))
    .bytes(1, node("Add", ["words", "types"], "sum"))
    .bytes(
      1,
      node("Cast", ["attention_mask"], "mask", new Pb().bytes(1, "to").int(3, FLOAT).int(20, 2)),
    )
    .bytes(1, node("Unsqueeze", ["mask", "axis2"], "mask3"))
    .bytes(1, node("Mul", ["sum", "mask3"], "last_hidden_state"))
    .bytes(2, "tiny-bert")
    .bytes(5, tensor("word_embeddings", [VOCAB.length, H], FLOAT, WORDS))
    .bytes(5, tensor("type_embeddings", [2, H], FLOAT, TYPES))
    .bytes(5, tensor("axis2", [1], INT64, BigInt64Array.of(2n)));
  for (const i of ["input_ids", "attention_mask", "token_type_ids"]) {
    g.bytes(11, valueInfo(i, INT64, ["batch", "sequence"]));
  }
  g.bytes(12, valueInfo("last_hidden_state", FLOAT, ["batch", "sequence", H]));
  return new Pb().int(1, 8).bytes(7, g).bytes(8, new Pb().bytes(1, "").int(2, 13)).out();
}

const special = (id: number) => ({
  id,
  content: VOCAB[id],
  single_word: false,
  lstrip: false,
  rstrip: false,
  normalized: false,
  special: true,
});
const TOKENIZER = {
  version: "1.0",
  truncation: null,
  padding: null,
  added_tokens: [0, 1, 2, 3, 4].map(special),
  normalizer: {
    type: "BertNormalizer",
    clean_text: true,
    handle_chinese_chars: true,
    strip_accents: null,
    lowercase: true,
  },
  pre_tokenizer: { type: "BertPreTokenizer" },
  post_processor: {
    type: "TemplateProcessing",
    single: [{ SpecialToken: { id: "[CLS]", type_id: 0 } }, { Sequence: { id: "A", type_id: 0 } }, {
      SpecialToken: { id: "[SEP]", type_id: 0 },
    }],
    pair: [
      { SpecialToken: { id: "[CLS]", type_id: 0 } },
      { Sequence: { id: "A", type_id: 0 } },
      { SpecialToken: { id: "[SEP]", type_id: 0 } },
      { Sequence: { id: "B", type_id: 1 } },
      { SpecialToken: { id: "[SEP]", type_id: 1 } },
    ],
    special_tokens: {
      "[CLS]": { id: "[CLS]", ids: [2], tokens: ["[CLS]"] },
      "[SEP]": { id: "[SEP]", ids: [3], tokens: ["[SEP]"] },
    },
  },
  decoder: { type: "WordPiece", prefix: "##", cleanup: true },
  model: {
    type: "WordPiece",
    unk_token: "[UNK]",
    continuing_subword_prefix: "##",
    max_input_chars_per_word: 100,
    vocab: Object.fromEntries(VOCAB.map((v, i) => [v, i])),
  },
};

/** Write a model folder; `weights` maps file names to bytes (default: the tiny model). */
export function modelFolder(
  parent: string,
  name: string,
  opts: {
    weights?: Record<string, Uint8Array>;
    config?: Record<string, unknown>;
    skip?: string[];
  } = {},
): string {
  const dir = join(parent, name);
  const files: Record<string, string | Uint8Array> = {
    "config.json": JSON.stringify({
      model_type: "bert",
      hidden_size: H,
      max_position_embeddings: 64,
      ...opts.config,
    }),
    "tokenizer.json": JSON.stringify(TOKENIZER),
    "tokenizer_config.json": JSON.stringify({
      tokenizer_class: "BertTokenizer",
      model_max_length: 64,
      do_lower_case: true,
      cls_token: "[CLS]",
      sep_token: "[SEP]",
      pad_token: "[PAD]",
      unk_token: "[UNK]",
      mask_token: "[MASK]",
    }),
    ...(opts.weights ?? { "onnx/model.onnx": tinyBert() }),
  };
  for (const [f, body] of Object.entries(files)) {
    if (opts.skip?.includes(f)) continue;
    Deno.mkdirSync(dirname(join(dir, f)), { recursive: true });
    if (typeof body === "string") Deno.writeTextFileSync(join(dir, f), body);
    else Deno.writeFileSync(join(dir, f), body);
  }
  return dir;
}

/** The model's vector for these tokens, computed here: mean (or first) row, unit length. */
export function expected(tokens: string[], pooling: "mean" | "cls" = "mean"): number[] {
  const rows = (pooling === "cls" ? tokens.slice(0, 1) : tokens).map((t) => {
    const id = VOCAB.indexOf(t);
    if (id < 0) throw new Error(`the tiny model does not know "${t}"`);
    return Array.from({ length: H }, (_, j) => WORDS[id * H + j]! + TYPES[j]!);
  });
  const v = Array.from({ length: H }, (_, j) => rows.reduce((s, r) => s + r[j]!, 0) / rows.length);
  const len = Math.hypot(...v);
  return v.map((x) => x / len);
}
