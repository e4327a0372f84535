/**
 * Link graph benchmark: the graph's build time and size on an existing index, then the
 * latency (p50/p95/max) of warm `links`, `connection` and `context` calls, in process
 * through the shelf and the dispatcher (markdown answers rendered).
 *
 *   deno run -A bench/graph.ts [--data /root/smfull] [--calls 500]
 *
 * The index is only read: open a copy when another process may be indexing it.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { LinkGraph, linkGraph } from "../core/graph.ts";
import { callTool } from "../server/dispatch.ts";
import type { ToolName } from "../server/tools/mod.ts";
import { partsOf } from "../shelf/_parts.ts";
import { Shelf } from "../shelf/shelf.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { data: { type: "string", default: "/root/smfull" }, calls: { type: "string" } },
});
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

const shelf = await Shelf.open({ data: values.data!, embedder: "none", workers: 0, log: () => {} });
const { catalog } = partsOf(shelf);
const links = catalog.db.prepare("SELECT count(*) AS n FROM links").get()?.n as number;

const heap0 = Deno.memoryUsage().heapUsed;
let t0 = performance.now();
const graph = linkGraph(catalog, shelf.libraries);
const build = performance.now() - t0;
const heap = Deno.memoryUsage().heapUsed - heap0;
t0 = performance.now();
linkGraph(catalog, shelf.libraries);
const check = performance.now() - t0;
console.log(
  `graph: ${graph.size} documents, ${links} links, ${graph.edges} document pairs linked; ` +
    `built in ${build.toFixed(0)} ms, ~${(heap / 2 ** 20).toFixed(1)} MiB heap; ` +
    `unchanged-catalog check ${(check * 1000).toFixed(0)} µs`,
);
// Rebuilds, as after a change of the documents (the same work, the catalog read again).
const rebuilds: number[] = [];
for (let i = 0; i < 5; i++) {
  const s = performance.now();
  const docs = catalog.graphDocs();
  const skipped = catalog.skipped().map((s) => s.path);
  new LinkGraph(catalog, docs, skipped, shelf.libraries);
  rebuilds.push(performance.now() - s);
}
rebuilds.sort((a, b) => a - b);
console.log(
  `  rebuilt 5 times: median ${rebuilds[2]!.toFixed(0)} ms (${
    rebuilds.map((m) => m.toFixed(0)).join(", ")
  })`,
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
  t0 = performance.now();
  const r = await callTool(shelf, "links", { kind, output_format: "json" });
  console.log(`  ${kind}: ${r.json.total} (first call ${(performance.now() - t0).toFixed(0)} ms)`);
}

const rand = random(14);
const ids = catalog.ids().sort();
const linked = ids.filter((id) => graph.incoming(id).length || graph.outgoing(id).length);
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
  const c = graph.chain(p.from, p.to, 10);
  if (c) [found, hops] = [found + 1, hops + c.hops.length];
}
console.log(
  `(connection: ${found} of 200 such pairs connected, ${
    (hops / found).toFixed(1)
  } hops on average)`,
);
await measure("context", "context", () => ({ doc_id: pick(ids) }));
await shelf.close();
