/**
 * Write an indexed data folder's documents into a PostgreSQL keyword index, one document
 * per `upsert` as `shelfmark index --store` writes them, and report the client's CPU: the
 * write side of the PostgreSQL store measured without extraction.
 *
 *   deno run -A bench/pg_fill.ts CATALOG.db URL [--library L] [--limit N]
 *
 * Run it with `--cpu-prof` (deno run --cpu-prof) to see where the client's time goes.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { Catalog } from "../core/catalog.ts";
import { PgKeywordIndex } from "../stores/postgres.ts";

const { positionals, values } = parseArgs({
  args: Deno.args,
  allowPositionals: true,
  options: { library: { type: "string" }, limit: { type: "string" } },
});
const [file, url] = positionals;
if (!file || !url) {
  console.error("usage: bench/pg_fill.ts CATALOG.db URL [--library L] [--limit N]");
  Deno.exit(2);
}
const catalog = new Catalog(file);
const index = new PgKeywordIndex(url, catalog);
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
  const lines = (catalog.text(id) ?? "").split("\n");
  await index.upsert([{ card: doc.card, outline: doc.outline, lines, pages: doc.pages }]);
  if (++n % 200 === 0) console.log(n, `${((performance.now() - start) / 1000).toFixed(0)} s`);
}
const cpu = process.cpuUsage(cpu0);
console.log(
  `docs ${n} wall s ${((performance.now() - start) / 1000).toFixed(1)} client CPU s ${
    ((cpu.user + cpu.system) / 1e6).toFixed(1)
  }`,
);
await index.close();
catalog.close();
