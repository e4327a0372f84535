/**
 * Tests run once per catalog store: each case as a test of its own on the SQLite store (the
 * data folder's catalog, the default), and all of them again as the steps of one test on
 * a real PostgreSQL 15 (one cluster for the file, a new database per case; ignored, with
 * the reason logged, where PostgreSQL is not installed).
 *
 * ```ts ignore
 * storeCases({
 *   "read answers a section": async ({ store }) => {
 *     await using t = await openTestShelf({ store, folders: [lib] });
 *     // ...
 *   },
 * });
 * ```
 *
 * @module
 */
import { join } from "node:path";
import { partsOf } from "../shelf/_parts.ts";
import { assertEquals } from "./assert.ts";
import { noPostgres, PgServer } from "./pg_server.ts";
import type { TestShelf } from "./shelf_helper.ts";

/** What a case runs on. */
export interface StoreCase {
  /** The store's URL for `openTestShelf`'s `store` (undefined: SQLite in the data folder). */
  store?: string;
  /** Which store. */
  backend: "sqlite" | "postgres";
}

/**
 * Register each case for both stores.
 *
 * @param cases the tests, by name
 * @param options test options of every case (sanitizers)
 */
export function storeCases(
  cases: Record<string, (c: StoreCase) => Promise<void>>,
  options: Pick<Deno.TestDefinition, "sanitizeOps" | "sanitizeResources"> = {},
): void {
  for (const [name, fn] of Object.entries(cases)) {
    Deno.test({ name, ...options, fn: () => fn({ backend: "sqlite" }) });
  }
  Deno.test({
    ...options,
    name: `the ${Object.keys(cases).length} tests above, on a PostgreSQL store`,
    ignore: noPostgres,
    async fn(t) {
      const server = await PgServer.start();
      try {
        for (const [name, fn] of Object.entries(cases)) {
          await t.step(
            name,
            async () => fn({ store: await server.database(), backend: "postgres" }),
          );
        }
      } finally {
        await server.stop();
      }
    },
  });
}

/**
 * Leave a test shelf that indexed into a PostgreSQL store with that store alone: the data
 * folder's catalog deleted (and the `folders` given: the libraries' files) and the shelf
 * opened again on an empty one, so its answers come from PostgreSQL only. Nothing is done
 * on SQLite (`store` undefined).
 *
 * @param t the test shelf, indexed
 * @param store the store's URL, as the case got it
 * @param folders folders to delete too before the shelf opens again
 */
export async function storeAlone(
  t: TestShelf,
  store: string | undefined,
  folders: string[] = [],
): Promise<void> {
  if (!store) return;
  await t.shelf.close();
  for (const f of ["catalog.db", "catalog.db-wal", "catalog.db-shm"]) {
    await Deno.remove(join(t.data, f)).catch(() => {});
  }
  for (const f of folders) await Deno.remove(f, { recursive: true });
  await t.reopen();
  assertEquals(partsOf(t.shelf).catalog.count(), 0, "no local catalog rows");
}
