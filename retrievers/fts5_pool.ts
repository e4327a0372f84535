/**
 * Keyword searches on worker threads: each worker holds a read-only connection to the
 * catalog, and a query goes to the least busy one. A worker that dies is replaced; a query
 * it held fails with an internal error, never hangs.
 *
 * @module
 */
import { type ErrorCode, type Hit, type Query, ToolError } from "../core/types.ts";
import type { SearchReply, SearchRequest } from "./fts5_worker.ts";

interface Slot {
  worker: Worker;
  ready: Promise<void>;
  busy: Map<number, { ok: (h: Hit[]) => void; fail: (e: Error) => void }>;
}

/** Workers that run FTS5 searches against the catalog file. */
export class SearchPool {
  readonly #file: string;
  readonly #size: number;
  #slots: Slot[] = [];
  #next = 1;

  /**
   * @param file the catalog database file
   * @param size number of workers
   */
  constructor(file: string, size: number) {
    this.#file = file;
    this.#size = Math.max(1, size);
  }

  #spawn(): Slot {
    const worker = new Worker(new URL("./fts5_worker.ts", import.meta.url).href, {
      type: "module",
    });
    const busy: Slot["busy"] = new Map();
    let started!: () => void;
    let failed!: (e: Error) => void;
    const ready = new Promise<void>((ok, fail) => {
      started = ok;
      failed = fail;
    });
    const slot: Slot = { worker, ready, busy };
    worker.onmessage = (e: MessageEvent<SearchReply>) => {
      const r = e.data;
      if ("ready" in r) return started();
      const p = busy.get(r.id);
      if (!p) return;
      busy.delete(r.id);
      if ("hits" in r) return p.ok(r.hits);
      p.fail(
        r.error.code
          ? new ToolError(r.error.code as ErrorCode, r.error.message, r.error.hint)
          : new Error(r.error.message),
      );
    };
    worker.onerror = (e: ErrorEvent) => {
      e.preventDefault();
      const err = new Error(`search worker failed: ${e.message}`);
      failed(err);
      for (const p of busy.values()) p.fail(err);
      busy.clear();
      worker.terminate();
      this.#slots = this.#slots.filter((s) => s !== slot);
    };
    worker.postMessage({ open: this.#file } satisfies SearchRequest);
    ready.catch(() => {});
    return slot;
  }

  /** Ranked keyword hits, computed on the least busy worker. */
  async search(query: Query): Promise<Hit[]> {
    while (this.#slots.length < this.#size) this.#slots.push(this.#spawn());
    const slot = this.#slots.reduce((a, b) => (b.busy.size < a.busy.size ? b : a));
    const id = this.#next++;
    const hits = new Promise<Hit[]>((ok, fail) => slot.busy.set(id, { ok, fail }));
    await slot.ready;
    slot.worker.postMessage({ id, query } satisfies SearchRequest);
    return hits;
  }

  /** Stop the workers (queries in flight fail). */
  close(): void {
    for (const s of this.#slots) {
      for (const p of s.busy.values()) p.fail(new Error("search pool closed"));
      s.worker.terminate();
    }
    this.#slots = [];
  }
}
