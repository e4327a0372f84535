/**
 * CPU per keyword search, warm, on an existing index: the dev questions asked in turn
 * (`limit` 10, JSON, as `bench/bench.ts` asks them) after one unmeasured pass, `--rounds`
 * times; p50/p95 of the CPU time of each call (`process.cpuUsage`, user + system: on a
 * loaded machine the wall time measures the other processes too) beside the wall time.
 * In process by default (on this thread, no search workers); `--mcp` asks a real
 * `serve` process over stdio instead, and measures the CPU of that process per call (read
 * from `/proc`, Linux only) beside the wall time of the round trip. The first pass's CPU is
 * shown too: the first time a question is asked, no cache of the searches holds its passages
 * (the process's first calls also compile and warm up, so it is an upper bound).
 *
 * `--slowest N` (in process) prints the N questions whose median CPU per call is highest, each
 * with the CPU of the search's stages (`SearchRequest.stages`, the mean of `--rounds` more
 * calls): what makes the p95.
 *
 * `deno run -A bench/search_cpu.ts DATA_DIR [--rounds 3] [--mcp] [--mode keyword] [--slowest 10]`
 *
 * @module
 */
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { callTool } from "../server/dispatch.ts";
import { Shelf } from "../shelf/shelf.ts";
import type { SearchMode } from "../search/search.ts";
import { stdioTransport, testClient } from "../tests/mcp_client.ts";
import { devQuestions } from "./agent_cost.ts";
import { pct } from "./stats.ts";

const CLI = new URL("../server/cli.ts", import.meta.url).pathname;

/** CPU and wall time of each measured call, in ms. */
export interface Timings {
  cpu: number[];
  wall: number[];
  /** CPU of each call of the first, unmeasured pass (what no cache of a search holds yet). */
  first: number[];
  /**
   * Per question, the shown hits whose passages were looked for by scanning their whole
   * text instead of read from the keyword index's passage rows (in process only).
   */
  scanned?: number[];
  /** The slowest questions (`--slowest`), with their stages' CPU (in process only). */
  slowest?: Slowest[];
}

/** A question among the slowest: its median CPU per call and its stages' mean CPU, in ms. */
export interface Slowest {
  query: string;
  cpu: number;
  stages: Record<string, number>;
}

/** CPU ms of this process so far (user + system). */
function ownCpu(): number {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
}

/**
 * CPU ms of another process so far, all its threads (search workers are threads): the
 * time on CPU of each task in `/proc/PID/task/TID/schedstat`, in ns (Linux only).
 */
function procCpu(pid: number): number {
  let ns = 0;
  for (const t of Deno.readDirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(Deno.readTextFileSync(`/proc/${pid}/task/${t.name}/schedstat`).split(" ")[0]);
    } catch { /* the thread ended */ }
  }
  return ns / 1e6;
}

/** Ask each query `rounds` times after one unmeasured pass, timing each call. */
async function measure(
  queries: string[],
  rounds: number,
  ask: (query: string) => Promise<void>,
  cpu: () => number,
): Promise<Timings> {
  const first: number[] = [];
  for (const q of queries) {
    const c0 = cpu();
    await ask(q);
    first.push(cpu() - c0);
  }
  const out: Timings = { cpu: [], wall: [], first };
  for (let r = 0; r < rounds; r++) {
    for (const q of queries) {
      const c0 = cpu();
      const w0 = performance.now();
      await ask(q);
      out.wall.push(performance.now() - w0);
      out.cpu.push(cpu() - c0);
    }
  }
  return out;
}

/** In process: `callTool` on a shelf opened without search workers. */
export async function inProcess(
  data: string,
  queries: string[],
  rounds: number,
  mode: string,
  slowest = 0,
): Promise<Timings> {
  const shelf = await Shelf.open({ data, log: () => {}, embedder: "none", workers: 0 });
  try {
    const t = await measure(queries, rounds, async (query) => {
      await callTool(shelf, "search", { query, limit: 10, output_format: "json", mode });
    }, ownCpu);
    // as the tool asks (one passage at least), after the measured calls
    t.scanned = [];
    for (const query of queries) {
      const asked = { query, limit: 10, mode: mode as SearchMode, passages: 1 };
      t.scanned.push((await shelf.search(asked)).scanned);
    }
    t.slowest = [];
    for (const { query, cpu } of slowestOf(queries, t.cpu).slice(0, slowest)) {
      const stages: Record<string, number> = {};
      for (let r = 0; r < rounds; r++) {
        await shelf.search({ query, limit: 10, mode: mode as SearchMode, passages: 1, stages });
      }
      for (const k of Object.keys(stages)) stages[k] = stages[k]! / rounds;
      t.slowest.push({ query, cpu, stages });
    }
    return t;
  } finally {
    await shelf.close();
  }
}

/** Questions by their median CPU per call, highest first (`cpu` holds the rounds in turn). */
function slowestOf(queries: string[], cpu: number[]): { query: string; cpu: number }[] {
  return queries.map((query, i) => {
    const mine = cpu.filter((_, k) => k % queries.length === i);
    return { query, cpu: pct(mine, 50) };
  }).sort((a, b) => b.cpu - a.cpu);
}

/** Over MCP: a `serve` process over stdio (no watching, no embedder). */
export async function overMcp(
  data: string,
  queries: string[],
  rounds: number,
  mode: string,
): Promise<Timings> {
  const transport = stdioTransport({
    command: Deno.execPath(),
    args: ["run", "-A", CLI, "serve", "--no-watch", "--data", data],
    env: { SHELFMARK_EMBEDDER: "none" },
    stderr: "ignore",
  });
  const client = testClient("bench");
  await client.connect(transport);
  try {
    const pid = transport.pid;
    if (pid === null) throw new Error("the server process has no pid");
    return await measure(queries, rounds, async (query) => {
      const r = await client.callTool({ name: "search", arguments: { query, limit: 10, mode } });
      if (r.isError) throw new Error(`search failed: ${JSON.stringify(r.content)}`);
    }, () => procCpu(pid));
  } finally {
    await client.close();
  }
}

if (import.meta.main) {
  const { values, positionals } = parseArgs({
    args: Deno.args,
    options: {
      rounds: { type: "string", default: "3" },
      mode: { type: "string", default: "keyword" },
      mcp: { type: "boolean", default: false },
      slowest: { type: "string", default: "0" },
    },
    allowPositionals: true,
  });
  const data = positionals[0];
  if (!data) {
    console.error("usage: deno run -A bench/search_cpu.ts DATA_DIR [--rounds N] [--mcp]");
    Deno.exit(2);
  }
  const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
  const shared = Deno.env.get("SHELFMARK_SHARED") ?? resolve(repo, "..", "shared");
  const queries = (await devQuestions(shared)).map((q) => q.question);
  const rounds = Number(values.rounds);
  const t = values.mcp
    ? await overMcp(data, queries, rounds, values.mode!)
    : await inProcess(data, queries, rounds, values.mode!, Number(values.slowest));
  const f = (x: number) => x.toFixed(1);
  const where = values.mcp ? "over MCP (server CPU)" : "in process";
  console.log(`| search (${values.mode}, ${where}), ${t.cpu.length} calls | p50 | p95 |`);
  console.log("| --- | --- | --- |");
  console.log(`| CPU ms | ${f(pct(t.cpu, 50))} | ${f(pct(t.cpu, 95))} |`);
  console.log(`| wall ms | ${f(pct(t.wall, 50))} | ${f(pct(t.wall, 95))} |`);
  console.log(`| CPU ms, first pass | ${f(pct(t.first, 50))} | ${f(pct(t.first, 95))} |`);
  if (t.scanned) {
    const hits = t.scanned.reduce((a, b) => a + b, 0);
    const questions = t.scanned.filter((n) => n > 0).length;
    console.log(
      `\nWhole-text scans for passages: ${hits} shown hits in ${questions} of ${t.scanned.length} questions`,
    );
  }
  if (t.slowest?.length) {
    const names = [...new Set(t.slowest.flatMap((x) => Object.keys(x.stages)))];
    console.log(`\nSlowest ${t.slowest.length} questions, CPU ms (call: median; stages: mean)`);
    console.log(`| question | call | ${names.join(" | ")} |`);
    console.log(`| --- | --- | ${names.map(() => "---").join(" | ")} |`);
    for (const x of t.slowest) {
      const cells = names.map((n) => f(x.stages[n] ?? 0));
      console.log(`| ${x.query.slice(0, 60)} | ${f(x.cpu)} | ${cells.join(" | ")} |`);
    }
  }
}
