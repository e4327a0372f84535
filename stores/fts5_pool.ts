/**
 * Keyword searches on worker threads: each worker holds a read-only connection to the
 * catalog, and a query goes to the least busy one. A worker that dies is replaced; a query
 * it held fails with an internal error, never hangs. Workers idle for a minute leave (each
 * holds some 20 MB: a JavaScript heap and a database connection); the next query starts
 * them again in about 50-100 ms.
 *
 * @module
 */
import { type ErrorCode, type Hit, ToolError } from "../core/types.ts";
import type { Query } from "./roles.ts";
import { threadChannel, WorkerPool } from "../core/workers.ts";

/** Workers that run FTS5 searches against the catalog file. */
export class SearchPool {
  #pool: WorkerPool<Query, Hit[], string>;

  /**
   * @param file the catalog database file
   * @param size number of workers
   * @param idleMs time without a query after which the workers stop (default 60 s)
   */
  constructor(file: string, size: number, idleMs = 60_000) {
    this.#pool = new WorkerPool({
      name: "search worker",
      connect: threadChannel(new URL("./fts5_worker.ts", import.meta.url)),
      size,
      perWorker: Infinity,
      startAll: true,
      idleMs,
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
