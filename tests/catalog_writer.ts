/**
 * A process that writes one document through a catalog store and is killed in the middle
 * (the catalog contract's killed writer, `stores/_catalog_contract.ts`):
 *
 *   deno run -A tests/catalog_writer.ts sqlite FILE DOC.json
 *   deno run -A tests/catalog_writer.ts postgres URL DOC.json
 *
 * `DOC.json` holds `{ doc, text, links }`. With SQLite the write holds itself inside its
 * transaction: a temporary trigger (this connection's only; a test fake, since nothing
 * else can pause SQLite between two statements of a transaction) prints `held` after the
 * first passage row and waits for ever. With PostgreSQL the test holds the write from
 * outside (an uncommitted row the write's passages wait on). Prints `done` if it ever ends.
 *
 * @module
 */
import { Catalog } from "../core/catalog.ts";
import { SqliteCatalogStore } from "../stores/catalog_sqlite.ts";
import { PgCatalogStore } from "../stores/catalog_postgres.ts";
import type { CatalogStore } from "../stores/roles.ts";

const [backend, target, file] = Deno.args;
const { doc, text, links } = JSON.parse(await Deno.readTextFile(file!));
let store: CatalogStore;
if (backend === "sqlite") {
  const catalog = new Catalog(target!);
  catalog.db.function("hold", () => {
    Deno.stdout.writeSync(new TextEncoder().encode("held\n"));
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
    return 0;
  });
  catalog.db.exec(
    "CREATE TEMP TRIGGER hold AFTER INSERT ON main.passages BEGIN SELECT hold(); END",
  );
  store = new SqliteCatalogStore(catalog, true);
} else {
  store = new PgCatalogStore(target!);
}
await store.put(doc, text, links);
await store.close();
console.log("done");
