/**
 * Serving measurements for `deno task bench`: time from `serve` start to the first
 * `tools/list` and `search` answers on a cold library (a real server process over stdio),
 * and search latency over Streamable HTTP with 1, 8 and 32 concurrent clients.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { startHttpServer } from "../tests/cli_helper.ts";
import { waitReady } from "../tests/reliability/_helpers.ts";
import { stdioTransport, testClient } from "../tests/mcp_client.ts";

const CLI = new URL("../server/cli.ts", import.meta.url).pathname;

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
}

/** Start a server on cold libraries; time the first tools/list and the first non-empty search. */
export async function coldStart(folders: string[], query: string) {
  const data = await Deno.makeTempDir({ prefix: "shelfmark-cold-" });
  const t0 = performance.now();
  const transport = stdioTransport({
    command: Deno.execPath(),
    args: ["run", "-A", CLI, "serve", "--data", data, ...folders],
    stderr: "ignore",
  });
  const client = testClient("bench");
  await client.connect(transport);
  await client.listTools();
  const toolsList = performance.now() - t0;
  let firstSearch = NaN;
  const listLatency: number[] = [];
  while (performance.now() - t0 < 120_000) {
    const s = performance.now();
    await client.listTools();
    listLatency.push(performance.now() - s);
    const r = await client.callTool({
      name: "search",
      arguments: { query, limit: 1, output_format: "json" },
    }) as { structuredContent?: { results?: unknown[] } };
    if (r.structuredContent?.results?.length) {
      firstSearch = performance.now() - t0;
      break;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  await client.close();
  await Deno.remove(data, { recursive: true }).catch(() => {});
  return { toolsList, firstSearch, listDuringIndexP95: pct(listLatency, 95) };
}

/** A `serve --http` process on an existing data directory, once its index run is done. */
async function httpServer(data: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const { child: proc, url } = await startHttpServer(["--no-watch", "--data", data]);
  const c = testClient("probe");
  await c.connect(new StreamableHTTPClientTransport(new URL(url)));
  await waitReady(c);
  await c.close();
  return {
    url,
    stop: async () => {
      proc.kill("SIGTERM");
      await proc.status;
    },
  };
}

/**
 * Search latency over HTTP with `clients` concurrent clients, `perClient` requests each,
 * against a real `serve --http` process on the data directory (the clients run here),
 * after one unmeasured pass over the queries.
 */
export async function httpLoad(
  data: string,
  queries: string[],
  clients: number,
  perClient: number,
  mode = "keyword",
) {
  const server = await httpServer(data);
  const conns: Client[] = await Promise.all(
    Array.from({ length: clients }, async () => {
      const c = testClient("load");
      await c.connect(new StreamableHTTPClientTransport(new URL(server.url)));
      return c;
    }),
  );
  // Warm up (JIT, SQLite and OS page caches): every query once, not measured.
  for (const q of queries) {
    await conns[0]!.callTool({ name: "search", arguments: { query: q, limit: 10, mode } });
  }
  const lat: number[] = [];
  let errors = 0;
  const t0 = performance.now();
  await Promise.all(conns.map(async (c: Client, i: number) => {
    for (let k = 0; k < perClient; k++) {
      const q = queries[(i * perClient + k) % queries.length]!;
      const s = performance.now();
      const r = await c.callTool({ name: "search", arguments: { query: q, limit: 10, mode } }) as {
        isError?: boolean;
      };
      lat.push(performance.now() - s);
      if (r.isError) errors++;
    }
  }));
  const secs = (performance.now() - t0) / 1000;
  await Promise.all(conns.map((c: Client) => c.close()));
  await server.stop();
  return {
    clients,
    mode,
    requests: lat.length,
    errors,
    p50: pct(lat, 50),
    p95: pct(lat, 95),
    p99: pct(lat, 99),
    rps: lat.length / secs,
  };
}

/**
 * What an agent driving the CLI pays per call: `search` (a word found nowhere, so the time is
 * the process and the index lookups, not the answer) beside `status`, each a whole process,
 * run in turn `runs` times on an existing data folder. Medians of the wall time, in ms.
 */
export async function cliCost(data: string, runs = 5): Promise<{ search: number; status: number }> {
  const time = async (args: string[]) => {
    const t0 = performance.now();
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", CLI, ...args, "--data", data],
      stdout: "null",
      stderr: "null",
    }).output();
    if (!out.success) throw new Error(`cli ${args[0]} failed (${out.code})`);
    return performance.now() - t0;
  };
  const search: number[] = [];
  const status: number[] = [];
  await time(["status"]); // warm the module cache
  for (let i = 0; i < runs; i++) {
    search.push(await time(["search", "zzzzqqq"]));
    status.push(await time(["status"]));
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  return { search: median(search), status: median(status) };
}
