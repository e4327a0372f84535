/**
 * Keyword searches on worker threads: each worker holds a read-only connection to the
 * catalog, and a query goes to a free one (queries wait in the pool while all are busy). A
 * worker that dies is replaced; a query it held fails with an internal error, never hangs.
 * A query that runs past the time limit fails with `QUERY_TIMEOUT` and its worker is
 * terminated and replaced (SQLite through `node:sqlite` cannot be interrupted from another
 * thread), so one costly query never holds a worker, or the other clients, for longer.
 * Workers idle for a minute leave (each holds some 20 MB: a JavaScript heap and a
 * database connection); the next query starts them again in about 50-100 ms.
 *
 * @module
 */
import { type ErrorCode, type Hit, ToolError } from "../core/types.ts";
import type { Query } from "./roles.ts";
import { threadChannel, type WorkerError, WorkerPool } from "../core/workers.ts";

/** Default time limit of one search, in ms. */
export const QUERY_TIMEOUT_MS = 10_000;

/** Options of a {@link SearchPool}. */
export interface SearchPoolOptions {
  /** Time without a query after which the workers stop (default 60 s). */
  idleMs?: number;
  /** Time limit of one search (default {@link QUERY_TIMEOUT_MS}). */
  timeoutMs?: number;
}

/** Workers that run FTS5 searches against the catalog file. */
export class SearchPool {
  #pool: WorkerPool<Query, Hit[], string>;

  /**
   * @param file the catalog database file
   * @param size number of workers
   * @param options idle time and time limit
   */
  constructor(file: string, size: number, options: SearchPoolOptions = {}) {
    const timeoutMs = options.timeoutMs ?? QUERY_TIMEOUT_MS;
    this.#pool = new WorkerPool({
      name: "search worker",
      connect: threadChannel(new URL("./fts5_worker.ts", import.meta.url)),
      size,
      // One query per worker: a query stopped at its time limit takes no other down.
      perWorker: 1,
      startAll: true,
      idleMs: options.idleMs ?? 60_000,
      timeoutMs,
      init: file,
      error: (e) => searchError(e, timeoutMs),
    });
  }

  /**
   * Ranked keyword hits, computed on a free worker.
   *
   * @throws {ToolError} `QUERY_TIMEOUT` past the time limit; the worker's own errors
   *   (`INVALID_ARGUMENT`) with their code
   */
  search(query: Query): Promise<Hit[]> {
    return this.#pool.request(query);
  }

  /** Workers running now (started or starting). */
  get workers(): number {
    return this.#pool.workers;
  }

  /**
   * Stop the workers without a query in flight (an idle server gives their memory back);
   * the next query starts them again.
   *
   * @returns how many stopped
   */
  stopIdle(): number {
    return this.#pool.stopIdle();
  }

  /** Stop the workers (queries in flight fail). */
  close(): void {
    this.#pool.close();
  }
}

/** The error of a search that did not get its hits. */
function searchError(e: WorkerError, timeoutMs: number): Error {
  const r = e.remote;
  if (r?.name === "ToolError" && r.code) {
    return new ToolError(r.code as ErrorCode, r.message, r.hint);
  }
  if (e.kind === "timeout") {
    const hint = "Search for fewer or rarer words, or narrow it with filters (library, doc_types).";
    return new ToolError(
      "QUERY_TIMEOUT",
      `Search ran longer than ${timeoutMs} ms and was stopped`,
      hint,
    );
  }
  if (e.kind === "closed") return new Error("search pool closed");
  if (e.kind === "failed") return new Error(e.message);
  return new Error(`search worker failed: ${e.detail}`);
}
