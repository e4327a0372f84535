/**
 * Fill a PostgreSQL store from an indexed data folder, without extraction: each document of
 * its catalog written to the keyword index (one document per `upsert`, as
 * `shelfmark index --store` writes them) and to the catalog's copy (`PgCatalogStore.put`:
 * row, text, passages, links, fields and word counts), in the schema of the data folder's
 * machine, as `shelfmark index --store URL` would write them; then report the client's CPU.
 * The write side of the PostgreSQL store measured without extraction, and a full store for a
 * server: with `"store": URL` in the folder's `shelfmark.json`, it answers from it.
 *
 *   deno run -A bench/pg_fill.ts DATA_DIR URL [--library L] [--from N] [--limit N] [--keyword-only]
 *
 * The documents go in the order the catalog stored them: `--limit N` writes the first N
 * (those a `bench/catalog_scale.ts` checkpoint at N had stored), `--from N` skips the
 * first N (to grow a store written with `--limit N` in steps).
 *
 * `--keyword-only`: the keyword index alone (the writes measured before session 16). Run it
 * with `--cpu-prof` (deno run --cpu-prof) to see where the client's time goes.
 *
 * @module
 */
import { join } from "node:path";
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
    from: { type: "string" },
    limit: { type: "string" },
    "keyword-only": { type: "boolean" },
  },
});
const [data, url] = positionals;
if (!data || !url) {
  console.error(
    "usage: bench/pg_fill.ts DATA_DIR URL [--library L] [--from N] [--limit N] [--keyword-only]",
  );
  Deno.exit(2);
}
const catalog = new Catalog(join(data, "catalog.db"));
const machine = { name: machineName(loadConfig(data)), owner: dataFolderId(data) };
const store = values["keyword-only"] ? undefined : new PgCatalogStore(url, { machine });
const index = new PgKeywordIndex(url, catalog, { machine, store });
const rows = catalog.db.prepare(
  values.library
    ? "SELECT doc_id FROM documents WHERE library = ? ORDER BY rowid"
    : "SELECT doc_id FROM documents WHERE ? IS NULL ORDER BY rowid",
).all(values.library ?? null) as { doc_id: string }[];
const ids = rows.slice(Number(values.from ?? 0), Number(values.limit ?? rows.length))
  .map((r) => r.doc_id);
const start = performance.now();
const cpu0 = process.cpuUsage();
let n = 0;
for (const id of ids) {
  const doc = catalog.get(id)!;
  const text = catalog.text(id) ?? "";
  await index.upsert([{
    card: doc.card,
    outline: doc.outline,
    lines: text.split("\n"),
    pages: doc.pages,
  }]);
  await store?.put({ ...doc, fields: docFields(catalog.db, id) }, text, catalog.links(id));
  if (++n % 200 === 0) console.log(n, `${((performance.now() - start) / 1000).toFixed(0)} s`);
}
const cpu = process.cpuUsage(cpu0);
console.log(
  `docs ${n} (machine ${machine.name}) wall s ${
    ((performance.now() - start) / 1000).toFixed(1)
  } client CPU s ${((cpu.user + cpu.system) / 1e6).toFixed(1)}`,
);
await index.close();
await store?.close();
catalog.close();
