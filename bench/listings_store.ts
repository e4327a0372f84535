/**
 * The listing tools and `status` on an indexed data folder, through its catalog store:
 * SQLite (the data folder's catalog) or PostgreSQL (`--store`, the folder indexed with it).
 * CPU of this process and, with `--pg-dir`, of the local PostgreSQL server (its ticks: 10 ms),
 * per call; wall time too (noisy on a shared machine).
 *
 * `deno run -A bench/listings_store.ts DATA [--store URL --pg-dir DIR] [--rounds 3]`
 *
 * Each round opens the shelf, then: the first `browse` (the listing read from the store),
 * a `browse` of a library and `find_documents` (the listing kept), `status`, and `context`
 * of one document (its folder peers from the listing); then closes it.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { callTool } from "../server/dispatch.ts";
import { Shelf } from "../shelf/shelf.ts";
import { serverCpu } from "./pg_bench.ts";

/** CPU ms of this process so far. */
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** One call's costs. */
interface Cost {
  call: string;
  cpuMs: number;
  serverMs?: number;
  wallMs: number;
}

if (import.meta.main) {
  const { values, positionals } = parseArgs({
    args: Deno.args,
    options: {
      store: { type: "string" },
      "pg-dir": { type: "string" },
      rounds: { type: "string", default: "3" },
    },
    allowPositionals: true,
  });
  const data = positionals[0];
  if (!data) {
    console.error("usage: deno run -A bench/listings_store.ts DATA [--store URL --pg-dir DIR]");
    Deno.exit(2);
  }
  const pgDir = values["pg-dir"];
  const rounds: Cost[][] = [];
  for (let r = 0; r < Number(values.rounds); r++) {
    const shelf = await Shelf.open({
      data,
      store: values.store,
      log: () => {},
      embedder: "none",
      workers: 0,
    });
    const costs: Cost[] = [];
    const time = async (call: string, tool: string, args: Record<string, unknown>) => {
      const [c0, s0, t0] = [cpu(), pgDir ? await serverCpu(pgDir) : 0, performance.now()];
      // deno-lint-ignore no-explicit-any
      const out = await callTool(shelf, tool as any, { ...args, output_format: "json" });
      const wallMs = performance.now() - t0;
      const cpuMs = cpu() - c0;
      const serverMs = pgDir ? (await serverCpu(pgDir) - s0) * 1000 : undefined;
      costs.push({ call, cpuMs, serverMs, wallMs });
      return out.json;
    };
    const roots = await time("first browse", "browse", {});
    const lib = (roots.folders as { path: string }[])[0]!.path;
    const page = await time("browse a library", "browse", { path: lib });
    const found = await time("find_documents", "find_documents", { query: "guide", fuzzy: true });
    await time("status", "status", {});
    const id = (page.documents as { doc_id: string }[])[0]?.doc_id ??
      (found.results as { doc_id: string }[])[0]?.doc_id;
    if (id) await time("context", "context", { doc_id: id });
    await shelf.close();
    rounds.push(costs);
  }
  const fmt = (x: number | undefined) => x === undefined ? "-" : x.toFixed(0);
  console.log(`${values.store ? "postgres" : "sqlite"} ${data}`);
  for (const [i, c] of rounds[0]!.entries()) {
    const all = rounds.map((r) => r[i]!);
    const range = (k: "cpuMs" | "serverMs" | "wallMs") => {
      const xs = all.map((x) => x[k]).filter((x) => x !== undefined) as number[];
      return xs.length ? `${fmt(Math.min(...xs))}-${fmt(Math.max(...xs))}` : "-";
    };
    console.log(
      `${c.call.padEnd(18)} client CPU ms ${range("cpuMs")}, server CPU ms ${
        range("serverMs")
      }, wall ms ${range("wallMs")}`,
    );
  }
}
