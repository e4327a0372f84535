/**
 * Keyword searches on worker threads: each worker holds a read-only connection to the
 * catalog, and a query goes to the least busy one. A worker that dies is replaced; a query
 * it held fails with an internal error, never hangs.
 *
 * @module
 */
import { type ErrorCode, type Hit, type Query, ToolError } from "../core/types.ts";
import { threadChannel, WorkerPool } from "../core/workers.ts";

/** Workers that run FTS5 searches against the catalog file. */
export class SearchPool {
  #pool: WorkerPool<Query, Hit[], string>;

  /**
   * @param file the catalog database file
   * @param size number of workers
   */
  constructor(file: string, size: number) {
    this.#pool = new WorkerPool({
      name: "search worker",
      connect: threadChannel(new URL("./fts5_worker.ts", import.meta.url)),
      size,
      perWorker: Infinity,
      startAll: true,
      init: file,
      error: (e) => {
        const r = e.remote;
        if (r?.name === "ToolError" && r.code) {
          return new ToolError(r.code as ErrorCode, r.message, r.hint);
        }
        if (e.kind === "closed") return new Error("search pool closed");
        if (e.kind === "failed") return new Error(e.message);
        return new Error(`search worker failed: ${e.detail}`);
      },
    });
  }

  /** Ranked keyword hits, computed on the least busy worker. */
  search(query: Query): Promise<Hit[]> {
    return this.#pool.request(query);
  }

  /** Stop the workers (queries in flight fail). */
  close(): void {
    this.#pool.close();
  }
}
