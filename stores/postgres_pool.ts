/**
 * The PostgreSQL store's connection pools: one to the primary (`"store"`), which the writes
 * use, and, with `"store_read"`, one to a read-only streaming replica, which the searches use.
 *
 * @module
 */
// @ts-types="@types/pg"
import pg from "pg";

/**
 * A pool of connections to one PostgreSQL server, set for the keyword index's queries.
 *
 * A connection that drops while idle is discarded by the pool (the `error` event is taken
 * here, so it never reaches the process as an uncaught error); the next query opens another.
 *
 * @param url the server's URL (`postgres://user@host:5432/db`, no password)
 * @param max connections at most
 * @returns the pool (connecting lazily, on the first query)
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openPool } from "./postgres_pool.ts";
 * const pool = openPool("postgres://ann@127.0.0.1:1/shelf", 2);
 * assert.equal(pool.options.max, 2);
 * await pool.end();
 * ```
 */
export function openPool(url: string, max: number): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max,
    // Searches are small and many at once: parallel workers and JIT only add start-up
    // time to each (measured: 50-70 ms with 2 workers, 13-30 ms without, full corpus).
    options: "-c max_parallel_workers_per_gather=0 -c jit=off",
  });
  pool.on("error", () => {});
  return pool;
}
