/**
 * Write an indexed data folder's documents into PostgreSQL, one document at a time as
 * `shelfmark index --store` writes them, and report the client's CPU: the write side of the
 * PostgreSQL store measured without extraction. By default into the keyword index
 * (`PgKeywordIndex.upsert`); with `--catalog`, into the catalog's copy instead
 * (`PgCatalogStore.put`: row, text, links, fields), in the schema of the data folder's
 * machine (its `machine` setting and `store-id`, as the shelf opens it), so that
 * `Shelf.open({ data, store })` and the benchmarks reading through the store (`graph.ts
 * --store`, `listings_store.ts --store`) find it.
 *
 *   deno run -A bench/pg_fill.ts CATALOG.db URL [--library L] [--limit N] [--catalog]
 *
 * Run it with `--cpu-prof` (deno run --cpu-prof) to see where the client's time goes.
 *
 * @module
 */
import { dirname } from "node:path";
import { parseArgs } from "node:util";
import { Catalog } from "../core/catalog.ts";
import { loadConfig, machineName } from "../core/config.ts";
import { docFields } from "../core/fields.ts";
import { PgCatalogStore } from "../stores/catalog_postgres.ts";
import { PgKeywordIndex } from "../stores/postgres.ts";
import { dataFolderId } from "../stores/postgres_pool.ts";

const { positionals, values } = parseArgs({
  args: Deno.args,
  allowPositionals: true,
  options: {
    library: { type: "string" },
    limit: { type: "string" },
    catalog: { type: "boolean", default: false },
  },
});
const [file, url] = positionals;
if (!file || !url) {
  console.error("usage: bench/pg_fill.ts CATALOG.db URL [--library L] [--limit N] [--catalog]");
  Deno.exit(2);
}
const catalog = new Catalog(file);
const data = dirname(file);
const store = values.catalog
  ? new PgCatalogStore(url, {
    machine: { name: machineName(loadConfig(data)), owner: dataFolderId(data) },
  })
  : undefined;
const index = store ? undefined : new PgKeywordIndex(url, catalog);
const rows = catalog.db.prepare(
  values.library
    ? "SELECT doc_id FROM documents WHERE library = ? ORDER BY doc_id"
    : "SELECT doc_id FROM documents WHERE ? IS NULL ORDER BY doc_id",
).all(values.library ?? null) as { doc_id: string }[];
const ids = rows.slice(0, Number(values.limit ?? rows.length)).map((r) => r.doc_id);
const start = performance.now();
const cpu0 = process.cpuUsage();
let n = 0;
for (const id of ids) {
  const doc = catalog.get(id)!;
  const text = catalog.text(id) ?? "";
  if (store) {
    await store.put({ ...doc, fields: docFields(catalog.db, id) }, text, catalog.links(id));
  } else {
    const lines = text.split("\n");
    await index!.upsert([{ card: doc.card, outline: doc.outline, lines, pages: doc.pages }]);
  }
  if (++n % 200 === 0) console.log(n, `${((performance.now() - start) / 1000).toFixed(0)} s`);
}
const cpu = process.cpuUsage(cpu0);
console.log(
  `docs ${n} wall s ${((performance.now() - start) / 1000).toFixed(1)} client CPU s ${
    ((cpu.user + cpu.system) / 1e6).toFixed(1)
  }`,
);
await (store ?? index)!.close();
catalog.close();
