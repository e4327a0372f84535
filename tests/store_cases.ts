/**
 * Tests run once per catalog store: each case as a test of its own on the SQLite store (the
 * data folder's catalog, the default), and all of them again as the steps of one test on
 * a real PostgreSQL 15 (one cluster for the file, a new database per case; ignored, with
 * the reason logged, where PostgreSQL is not installed).
 *
 * ```ts ignore
 * storeCases(56810, {
 *   "read answers a section": async ({ store }) => {
 *     await using t = await openTestShelf({ store, folders: [lib] });
 *     // ...
 *   },
 * });
 * ```
 *
 * @module
 */
import { noPostgres, PgServer } from "./pg_server.ts";

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
 * @param port the first port the PostgreSQL cluster tries (one range per test file: files
 *   run in parallel)
 * @param cases the tests, by name
 */
export function storeCases(
  port: number,
  cases: Record<string, (c: StoreCase) => Promise<void>>,
): void {
  for (const [name, fn] of Object.entries(cases)) {
    Deno.test(name, () => fn({ backend: "sqlite" }));
  }
  Deno.test({
    name: `the ${Object.keys(cases).length} tests above, on a PostgreSQL store`,
    ignore: noPostgres,
    async fn(t) {
      const server = await PgServer.start(port);
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
