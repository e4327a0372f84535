/**
 * Link graph benchmark: the graph's build time, CPU and size on an existing index, read
 * through the shelf's catalog store (the data folder's SQLite catalog, or PostgreSQL with
 * `--store`: its copy of the catalog, written by `index --store` or `bench/pg_fill.ts
 * DATA URL`), then the latency (p50/p95/max) of warm `links`, `connection` and `context`
 * calls, in process through the shelf and the dispatcher (markdown answers rendered).
 * With `--pg-dir` (the folder of `scripts/pg_local.sh`) the PostgreSQL server's CPU too.
 *
 *   deno run -A bench/graph.ts [--data /root/smfull] [--store URL --pg-dir DIR] [--calls 500]
 *
 * The index is only read, but with `--store` the data folder's configuration remembers the
 * store (as `--store` does for every command) and the folder gets its `store-id`: run on a
 * copy, one for each store, and on a copy when another process may be indexing it.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { LinkGraph } from "../core/graph.ts";
import { callTool } from "../server/dispatch.ts";
import type { ToolName } from "../server/tools/mod.ts";
import { partsOf } from "../shelf/_parts.ts";
import { Shelf } from "../shelf/shelf.ts";
import { serverCpu } from "./pg_bench.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    data: { type: "string", default: "/root/smfull" },
    calls: { type: "string" },
    store: { type: "string" },
    "pg-dir": { type: "string" },
  },
});
const pgDir = values["pg-dir"];
const CALLS = Number(values.calls ?? 500);

/** A small deterministic generator (mulberry32), so runs pick the same documents. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const shelf = await Shelf.open({
  data: values.data!,
  store: values.store,
  embedder: "none",
  workers: 0,
  log: () => {},
});
const { catalog, store, graphs } = partsOf(shelf);
const inputs = { catalog, libraries: shelf.libraries };
const links = catalog.db.prepare("SELECT count(*) AS n FROM links").get()?.n as number;

/** CPU seconds of this process so far. */
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};
/** Wall ms, this process's CPU ms and the PostgreSQL server's (with `--pg-dir`) of a call. */
async function costOf(fn: () => Promise<unknown>): Promise<[number, number, number]> {
  const [t, c, s] = [performance.now(), cpu(), pgDir ? await serverCpu(pgDir) : 0];
  await fn();
  const server = pgDir ? await serverCpu(pgDir) - s : 0;
  return [performance.now() - t, (cpu() - c) * 1000, server * 1000];
}

const heap0 = Deno.memoryUsage().heapUsed;
let graph!: LinkGraph;
const [build, buildCpu, buildServer] = await costOf(async () => {
  graph = await graphs.graph(inputs);
});
const heap = Deno.memoryUsage().heapUsed - heap0;
const [check] = await costOf(() => graphs.graph(inputs));
console.log(
  `graph (${store.name}): ${graph.size} documents, ${links} links, ${graph.edges} document ` +
    `pairs linked; built in ${build.toFixed(0)} ms (CPU ${buildCpu.toFixed(0)} ms, server ` +
    `${buildServer.toFixed(0)} ms), ~${(heap / 2 ** 20).toFixed(1)} MiB heap; ` +
    `unchanged-store check ${(check * 1000).toFixed(0)} µs`,
);
// Rebuilds, as after a change of the documents (the same work, the store read again).
const rebuilds: [number, number, number][] = [];
for (let i = 0; i < 5; i++) {
  rebuilds.push(
    await costOf(async () => {
      const docs = await store.graphDocs();
      const skipped = catalog.skipped().map((s) => s.path);
      await LinkGraph.build(store, docs, skipped, shelf.libraries);
    }),
  );
}
const median = (k: number) => rebuilds.map((r) => r[k]!).sort((a, b) => a - b)[2]!.toFixed(0);
console.log(
  `  rebuilt 5 times: median wall ${median(0)} ms, CPU ${median(1)} ms, server CPU ${
    median(2)
  } ms (CPU: ${rebuilds.map((r) => r[1].toFixed(0)).join(", ")})`,
);
const bytes = (sql: string) => catalog.db.prepare(sql).get()?.n as number;
console.log(
  `  links table: ${
    (bytes("SELECT sum(pgsize) AS n FROM dbstat WHERE name = 'links'") / 2 ** 20).toFixed(1)
  } MiB, ` +
    `its indexes ${
      (bytes("SELECT sum(pgsize) AS n FROM dbstat WHERE name = 'links_doc'") /
        2 ** 20).toFixed(1)
    } MiB`,
);
for (const kind of ["broken", "orphans", "most_linked"] as const) {
  let total = 0;
  const [ms, cpuMs] = await costOf(async () => {
    total = (await callTool(shelf, "links", { kind, output_format: "json" })).json.total as number;
  });
  console.log(`  ${kind}: ${total} (first call ${ms.toFixed(0)} ms, CPU ${cpuMs.toFixed(0)} ms)`);
}

const rand = random(14);
const ids = catalog.ids().sort();
const linked: string[] = [];
for (const id of ids) {
  if (graph.incoming(id).length || (await graph.outgoing(id)).length) linked.push(id);
}
const pick = (from: string[]) => from[Math.floor(rand() * from.length)]!;

/** Run `CALLS` calls (after 20 warm-up calls) and print the latency percentiles. */
async function measure(label: string, tool: ToolName, args: () => Record<string, unknown>) {
  const ms: number[] = [];
  let chars = 0;
  for (let i = 0; i < CALLS + 20; i++) {
    const a = args();
    const s = performance.now();
    const r = await callTool(shelf, tool, a);
    chars += r.text.length;
    if (i >= 20) ms.push(performance.now() - s);
  }
  ms.sort((a, b) => a - b);
  const at = (q: number) => ms[Math.min(ms.length - 1, Math.floor(ms.length * q))]!.toFixed(2);
  console.log(
    `| ${label} | ${ms.length} | ${at(0.5)} | ${at(0.95)} | ${at(1)} | ${
      Math.round(chars / (CALLS + 20))
    } |`,
  );
}

console.log(`\n| call | calls | p50 ms | p95 ms | max ms | chars/answer |`);
console.log(`| --- | --- | --- | --- | --- | --- |`);
await measure("links doc_id (both)", "links", () => ({ doc_id: pick(linked) }));
await measure("links kind (broken/orphans/most_linked)", "links", () => ({
  kind: pick(["broken", "orphans", "most_linked"]),
  library: pick(shelf.libraries.map((l) => l.name)),
}));
/** The folder a manual or vault lives in: the first two segments of a path. */
const site = (id: string) => graph.doc(id)!.path.split("/").slice(0, 2).join("/");
const pair = () => {
  const from = pick(linked);
  let to = pick(linked);
  for (let k = 0; k < 50 && site(to) !== site(from); k++) to = pick(linked);
  return { from, to };
};
await measure("connection (random pairs of one manual)", "connection", pair);
let found = 0;
let hops = 0;
for (let i = 0; i < 200; i++) {
  const p = pair();
  const c = await graph.chain(p.from, p.to, 10);
  if (c) [found, hops] = [found + 1, hops + c.hops.length];
}
console.log(
  `(connection: ${found} of 200 such pairs connected, ${
    (hops / found).toFixed(1)
  } hops on average)`,
);
await measure("context", "context", () => ({ doc_id: pick(ids) }));
await shelf.close();
