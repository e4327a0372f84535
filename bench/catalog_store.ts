/**
 * The catalog store (`stores/roles.ts`, `CatalogStore`) on SQLite and on PostgreSQL: every
 * document of an indexed data folder written through each (one transaction per document),
 * then every document's lines read back (`lines(id, 1, total)`), with the CPU seconds of
 * this process (and of a local PostgreSQL's server processes, given its folder) and the
 * bytes stored, per document. CPU rather than wall time: the machine is shared.
 *
 * `deno run -A bench/catalog_store.ts DATA_DIR --pg URL [--pg-dir DIR]`
 *
 * The data folder is read, never written (its `catalog.db` is the source); SQLite writes a
 * new catalog file in a temporary folder, PostgreSQL a new schema of its own (`bench_<time>`,
 * dropped after) in the URL's database. Bytes: the SQLite file after a checkpoint (the
 * catalog's other tables are empty; its `df` holds the word counts), PostgreSQL's six tables
 * (`df` too) with their indexes and TOAST.
 *
 * @module
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
// @ts-types="@types/pg"
import pg from "pg";
import { Catalog } from "../core/catalog.ts";
import { docFields } from "../core/fields.ts";
import { PgCatalogStore } from "../stores/catalog_postgres.ts";
import { SqliteCatalogStore } from "../stores/catalog_sqlite.ts";
import type { CatalogStore } from "../stores/roles.ts";
import type { StoredDoc } from "../core/catalog_docs.ts";
import type { Link } from "../core/extractor.ts";
import { serverCpu } from "./pg_bench.ts";

/** A document to write. */
interface Source {
  doc: StoredDoc;
  text: string;
  links: Link[];
}

/** The figures of one store. */
interface Figures {
  store: string;
  docs: number;
  writeCpuMs: number;
  readCpuMs: number;
  /** CPU of reading 10 documents' first 3 passages, per 10 documents (`passagesOf`). */
  hitsCpuMs: number;
  serverWriteCpuMs?: number;
  serverReadCpuMs?: number;
  serverHitsCpuMs?: number;
  bytes: number;
  lines: number;
}

const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** Every document of a catalog, with its fields, text and links. */
function sources(file: string): Source[] {
  const catalog = new Catalog(file);
  try {
    return catalog.ids().sort().map((id) => {
      const doc = catalog.get(id)!;
      doc.fields = docFields(catalog.db, id);
      return { doc, text: catalog.text(id) ?? "", links: catalog.links(id) };
    });
  } finally {
    catalog.close();
  }
}

/** Write every document, then read every document's lines back; CPU of each phase. */
async function run(
  store: CatalogStore,
  docs: Source[],
  server?: () => Promise<number>,
): Promise<Omit<Figures, "bytes">> {
  const s0 = await server?.();
  const w0 = cpu();
  for (const s of docs) await store.put(s.doc, s.text, s.links);
  const writeCpuMs = cpu() - w0;
  const s1 = await server?.();
  const r0 = cpu();
  let lines = 0;
  for (const s of docs) {
    const got = await store.lines(s.doc.card.doc_id, 1, s.doc.card.total_lines + 1);
    lines += got?.length ?? 0;
  }
  const readCpuMs = cpu() - r0;
  const s2 = await server?.();
  // a search's hits: 10 documents' first passages at once
  const h0 = cpu();
  for (let i = 0; i < docs.length; i += 10) {
    const ids = docs.slice(i, i + 10).map((s) => s.doc.card.doc_id);
    await store.passagesOf(new Map(ids.map((id) => [id, [0, 1, 2]])));
  }
  const groups = Math.ceil(docs.length / 10);
  const hitsCpuMs = (cpu() - h0) / groups;
  const s3 = await server?.();
  const out: Omit<Figures, "bytes"> = {
    store: store.name,
    docs: docs.length,
    writeCpuMs,
    readCpuMs,
    hitsCpuMs,
    lines,
  };
  if (s0 !== undefined) {
    out.serverWriteCpuMs = (s1! - s0) * 1000;
    out.serverReadCpuMs = (s2! - s1!) * 1000;
    out.serverHitsCpuMs = (s3! - s2!) * 1000 / groups;
  }
  return out;
}

if (import.meta.main) {
  const { values, positionals } = parseArgs({
    args: Deno.args,
    options: { pg: { type: "string" }, "pg-dir": { type: "string" } },
    allowPositionals: true,
  });
  const data = positionals[0];
  if (!data || !values.pg) {
    console.error("usage: deno run -A bench/catalog_store.ts DATA_DIR --pg URL [--pg-dir DIR]");
    Deno.exit(2);
  }
  const docs = sources(join(data, "catalog.db"));
  const figures: Figures[] = [];

  const dir = await Deno.makeTempDir({ prefix: "shelfmark-catalog-bench-" });
  const file = join(dir, "catalog.db");
  const sqlite = SqliteCatalogStore.open(file);
  const lite = await run(sqlite, docs);
  await sqlite.close();
  figures.push({ ...lite, bytes: (await Deno.stat(file)).size });
  await Deno.remove(dir, { recursive: true });

  const schema = `bench_${Date.now()}`;
  const store = new PgCatalogStore(values.pg, {
    connections: 2,
    machine: { name: schema, owner: crypto.randomUUID() },
  });
  const pgDir = values["pg-dir"];
  const heavy = await run(store, docs, pgDir ? () => serverCpu(pgDir) : undefined);
  await store.close();
  const admin = new pg.Client({ connectionString: values.pg });
  await admin.connect();
  try {
    const size = await admin.query(
      `SELECT sum(pg_total_relation_size(format('%I.%I', $1::text, t)))::float8 AS bytes
       FROM unnest(ARRAY['documents', 'text_blocks', 'passages', 'links', 'fields', 'df']) t`,
      [schema],
    );
    figures.push({ ...heavy, bytes: size.rows[0].bytes });
    await admin.query(`DROP SCHEMA "${schema}" CASCADE`);
    await admin.query("DELETE FROM public.shelfmark_machines WHERE name = $1", [schema]);
  } finally {
    await admin.end();
  }

  const text = docs.reduce((n, s) => n + s.text.length, 0);
  console.log(`${docs.length} documents, ${(text / 1e6).toFixed(1)} M characters of text\n`);
  console.log(
    "| store | write CPU ms/doc (client / server) | read lines CPU ms/doc (client / server) | 10 hits' passages CPU ms (client / server) | KB/doc |",
  );
  console.log("| --- | --- | --- | --- | --- |");
  const per = (ms: number | undefined, n: number) =>
    ms === undefined ? "" : ` / ${(ms / n).toFixed(2)}`;
  for (const f of figures) {
    console.log(
      `| ${f.store} | ${(f.writeCpuMs / f.docs).toFixed(2)}${per(f.serverWriteCpuMs, f.docs)} | ${
        (f.readCpuMs / f.docs).toFixed(2)
      }${per(f.serverReadCpuMs, f.docs)} | ${f.hitsCpuMs.toFixed(2)}${
        per(f.serverHitsCpuMs, 1)
      } | ${(f.bytes / 1024 / f.docs).toFixed(1)} |`,
    );
  }
  for (const f of figures) {
    if (f.lines !== figures[0]!.lines) throw new Error(`${f.store} read ${f.lines} lines`);
  }
}
