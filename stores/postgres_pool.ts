/**
 * The PostgreSQL store's connections: a pool to the primary (`"store"`), which the writes
 * use, and, with `"store_read"`, one to a read-only streaming replica, which the searches
 * use; and the machine a data folder is in a shared store.
 *
 * Machines: each data folder writes its keyword index into a schema of its own, named by
 * its `"machine"` (default: the host name), so its libraries are `laptop:Papers` in the
 * store, apart from a `nas:Papers`. The schema is claimed, in `shelfmark_machines`, by the
 * data folder's id (a random id kept in the data folder): a second data folder that would
 * take the same name (two data folders on one host, both named after it) is refused.
 *
 * @module
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
// @ts-types="@types/pg"
import pg from "pg";
import { writeFileAtomicSync } from "../core/atomic_write.ts";
import { ToolError } from "../core/types.ts";
import { redact } from "./postgres_url.ts";

/**
 * `machine:rest` of a name qualified by its machine (id, library or path of another
 * machine's, as `MachinesCatalogStore` shows them; a machine name as `"machine"` allows it).
 */
export const QUALIFIED = /^([a-z0-9_-]+):(.+)$/s;

/**
 * Milliseconds a server reuses the list of the store's machines it read: a machine that
 * joins is read and searched from the next second on.
 */
export const MACHINES_KEPT_MS = 1000;

/** A data folder in a shared store: its name, and the id that claims it. */
export interface Machine {
  /** `"machine"` of the configuration (lowercase letters, digits, `_`, `-`). */
  name: string;
  /** The data folder's id ({@link dataFolderId}). */
  owner: string;
}

/**
 * A pool of connections to one PostgreSQL server, set for the keyword index's queries.
 *
 * A connection that drops while idle is discarded by the pool (the `error` event is taken
 * here, so it never reaches the process as an uncaught error); the next query opens another.
 *
 * @param url the server's URL (`postgres://user@host:5432/db`, no password)
 * @param max connections at most
 * @param machine the schema of the machine's tables (default: `public`)
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
export function openPool(url: string, max: number, machine?: string): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max,
    // An agent searches every few seconds, a minute apart at most: an idle connection stays
    // that long (pg's default, 10 s, made such searches open a new backend: 57-112 ms a
    // search instead of 38-82, full corpus, one search every 12 s).
    idleTimeoutMillis: 60_000,
    // Searches are small and many at once: parallel workers and JIT only add start-up
    // time to each (measured: 50-70 ms with 2 workers, 13-30 ms without, full corpus).
    // A machine's tables are in its schema (its name is checked: no quote, no space).
    options: "-c max_parallel_workers_per_gather=0 -c jit=off" +
      (machine ? ` -c search_path="${machine}"` : ""),
  });
  pool.on("error", () => {});
  return pool;
}

/**
 * Claim a machine's name in the store for a data folder and make its schema (on the
 * primary, inside the caller's lock). The first machine of a store made before machines
 * takes over its tables.
 *
 * @param c a connection to the primary
 * @param machine the name and the data folder's id
 * @throws {ToolError} `INDEX_UNAVAILABLE` when another data folder holds the name
 */
export async function claimMachine(c: pg.PoolClient, machine: Machine): Promise<void> {
  await c.query(
    "CREATE TABLE IF NOT EXISTS public.shelfmark_machines (name text PRIMARY KEY, owner text NOT NULL)",
  );
  await c.query(
    "INSERT INTO public.shelfmark_machines VALUES ($1, $2) ON CONFLICT (name) DO NOTHING",
    [machine.name, machine.owner],
  );
  const held = (await c.query("SELECT owner FROM public.shelfmark_machines WHERE name = $1", [
    machine.name,
  ])).rows[0].owner;
  if (held !== machine.owner) {
    throw new ToolError(
      "INDEX_UNAVAILABLE",
      `another data folder already writes as machine "${machine.name}" in this store`,
      `Give this data folder a name of its own: "machine" in its shelfmark.json.`,
    );
  }
  const schema = `"${machine.name}"`;
  const fresh = (await c.query("SELECT to_regnamespace($1) IS NULL AS fresh", [schema])).rows[0]
    .fresh;
  await c.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
  if (!fresh) return;
  // A store made before machines had its tables in `public`: the first machine claimed
  // takes them over (its catalog knows the documents; they are not written again).
  const old = await c.query(
    "SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename LIKE 'kw\\_%'",
  );
  for (const { tablename } of old.rows) {
    await c.query(`ALTER TABLE public."${tablename}" SET SCHEMA ${schema}`);
  }
}

/**
 * The id of a data folder: random, made on the first call and kept in the folder
 * (`store-id`), so a copy of the folder elsewhere keeps it and a new folder never has it.
 *
 * @param data the data folder
 * @returns the id
 */
export function dataFolderId(data: string): string {
  const file = join(data, "store-id");
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  const id = crypto.randomUUID();
  writeFileAtomicSync(file, id + "\n");
  return id;
}

/** Times a write transaction is tried when PostgreSQL aborts it for a deadlock. */
const WRITE_ATTEMPTS = 5;

/**
 * Run `fn` in a transaction on a client of `pool`, and again (up to 5 times, after a short
 * random wait) when PostgreSQL aborts it for a deadlock (`40P01`) or a serialization
 * failure (`40001`): two writers that take rows in different orders both end up done.
 *
 * @param pool the primary's pool
 * @param fn the transaction's statements
 * @param commit the statement that ends it (`COMMIT`, or `COMMIT; SELECT ...` to read
 *   something in the same round trip)
 * @returns what `commit` returned (one result per statement)
 */
export async function retriedTransaction(
  pool: pg.Pool,
  fn: (c: pg.PoolClient) => Promise<void>,
  commit = "COMMIT",
): Promise<pg.QueryResult | pg.QueryResult[]> {
  for (let attempt = 1;; attempt++) {
    const c = await pool.connect();
    try {
      await c.query("BEGIN");
      await fn(c);
      return await c.query(commit) as pg.QueryResult | pg.QueryResult[];
    } catch (e) {
      await c.query("ROLLBACK").catch(() => {});
      const code = (e as { code?: string }).code;
      if (attempt >= WRITE_ATTEMPTS || (code !== "40P01" && code !== "40001")) throw e;
    } finally {
      c.release();
    }
    await new Promise((r) => setTimeout(r, 10 * attempt * Math.random()));
  }
}

/**
 * Run a call on PostgreSQL; its failure becomes `INDEX_UNAVAILABLE` naming what failed,
 * credentials taken out of the message (a `ToolError` passes as it is).
 *
 * @param what the part of the store, for the message ("the keyword index")
 * @param fn the call
 */
export async function guarded<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof ToolError) throw e;
    throw new ToolError(
      "INDEX_UNAVAILABLE",
      `${what} in PostgreSQL failed: ${redact((e as Error)?.message ?? String(e))}`,
      "Check that the PostgreSQL server of the store is running and reachable; the next call connects again.",
    );
  }
}
