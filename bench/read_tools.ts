/**
 * `read` and `outline` on the SQLite and the PostgreSQL catalog store: the CPU of this
 * process (and of a local PostgreSQL's server processes, given its folder) per call, over
 * every document of a folder. CPU rather than wall time: the machine is shared.
 *
 * `deno run -A bench/read_tools.ts FOLDER --pg URL [--pg-dir DIR] [--rounds 3]`
 *
 * The folder is indexed into a temporary data folder (SQLite); a copy of that data folder
 * is then opened with the PostgreSQL store, whose first run writes its catalog (and keyword
 * index) from the copied catalog, in a schema of its own (`bench_<time>`, dropped after).
 * Each round reads, for every document, 40 lines from its middle (`readLines`) and its
 * outline (`outline`), on each store. The PostgreSQL figures also give the CPU of that first
 * run, per document: what writing the store costs, nothing extracted.
 *
 * @module
 */
import { cpSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
// @ts-types="@types/pg"
import pg from "pg";
import { Shelf } from "../shelf/shelf.ts";
import { partsOf } from "../shelf/_parts.ts";
import { serverCpu } from "./pg_bench.ts";

const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** CPU ms per call of `read` (40 lines) and `outline`, client and server. */
interface Figures {
  store: string;
  docs: number;
  readMs: number;
  outlineMs: number;
  serverReadMs?: number;
  serverOutlineMs?: number;
  /**
   * PostgreSQL: CPU ms per document of the first run on the copied data folder (each
   * document written to the store from the copied catalog, nothing extracted).
   */
  writeMs?: number;
  serverWriteMs?: number;
}

/** Every document's id and its number of lines. */
function documents(shelf: Shelf): [string, number][] {
  const { catalog } = partsOf(shelf);
  const cards = catalog.cards(catalog.ids().sort());
  return [...cards].map(([id, c]) => [id, c.total_lines]);
}

/** The rounds of reads and outlines on one shelf. */
async function measure(
  shelf: Shelf,
  docs: [string, number][],
  rounds: number,
  server?: () => Promise<number>,
): Promise<Omit<Figures, "store" | "docs">> {
  const phase = async (fn: (id: string, total: number) => Promise<unknown>) => {
    for (const [id, total] of docs) await fn(id, total); // warm: statements prepared
    const s0 = await server?.();
    const c0 = cpu();
    for (let r = 0; r < rounds; r++) for (const [id, total] of docs) await fn(id, total);
    const calls = rounds * docs.length;
    const s1 = await server?.();
    return {
      ms: (cpu() - c0) / calls,
      server: s0 === undefined ? undefined : ((s1! - s0) * 1000) / calls,
    };
  };
  const read = await phase((id, total) =>
    shelf.readLines(id, { offset: Math.max(1, Math.floor(total / 2)), limit: 40 })
  );
  const outline = await phase((id) => shelf.outline(id));
  return {
    readMs: read.ms,
    outlineMs: outline.ms,
    serverReadMs: read.server,
    serverOutlineMs: outline.server,
  };
}

if (import.meta.main) {
  const { values, positionals } = parseArgs({
    args: Deno.args,
    allowPositionals: true,
    options: {
      pg: { type: "string" },
      "pg-dir": { type: "string" },
      rounds: { type: "string", default: "3" },
    },
  });
  const folder = positionals[0];
  if (!folder || !values.pg) {
    console.error("usage: deno run -A bench/read_tools.ts FOLDER --pg URL [--pg-dir DIR]");
    Deno.exit(2);
  }
  const rounds = Number(values.rounds);
  const tmp = await Deno.makeTempDir({ prefix: "shelfmark-read-bench-" });
  const quiet = { log: () => {}, embedder: "none", workers: 1 };
  const schema = `bench_${Date.now()}`;
  const out: Figures[] = [];
  try {
    const lite = await Shelf.open({
      ...quiet,
      data: join(tmp, "sqlite"),
      folders: [resolve(folder)],
    });
    await lite.index();
    const docs = documents(lite);
    out.push({ store: "sqlite", docs: docs.length, ...await measure(lite, docs, rounds) });
    await lite.close();
    cpSync(join(tmp, "sqlite"), join(tmp, "pg"), { recursive: true });
    const config = JSON.parse(await Deno.readTextFile(join(tmp, "pg", "shelfmark.json")));
    await Deno.writeTextFile(
      join(tmp, "pg", "shelfmark.json"),
      JSON.stringify({ ...config, machine: schema }),
    );
    const remote = await Shelf.open({ ...quiet, data: join(tmp, "pg"), store: values.pg });
    const pgDir = values["pg-dir"];
    const server = pgDir ? () => serverCpu(pgDir) : undefined;
    const [s0, c0] = [await server?.(), cpu()];
    await remote.index();
    const [c1, s1] = [cpu(), await server?.()];
    out.push({
      store: "postgres",
      docs: docs.length,
      ...await measure(remote, docs, rounds, server),
      writeMs: (c1 - c0) / docs.length,
      serverWriteMs: s0 === undefined ? undefined : ((s1! - s0) * 1000) / docs.length,
    });
    await remote.close();
  } finally {
    const admin = new pg.Client({ connectionString: values.pg });
    await admin.connect();
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.query("DELETE FROM public.shelfmark_machines WHERE name = $1", [schema])
      .catch(() => {});
    await admin.end();
    await Deno.remove(tmp, { recursive: true });
  }
  console.log(JSON.stringify(out, null, 2));
}
