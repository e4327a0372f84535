/**
 * Which files one keyword `search` over MCP runs through, and how often control passes from one
 * top-level folder to another (see docs/architecture.md).
 *
 * It indexes `samples/` into a throwaway data folder, starts `serve` over stdio under Deno's CPU
 * profiler (`--cpu-prof`, a sample every 50 µs, V8 inlining off), and calls `search` through a real
 * MCP client: one unmeasured call (it waits for the first index), a quiet pause, `--calls` measured
 * calls, another pause. Only the samples between the two pauses count, so start-up, indexing and
 * shutdown stay out. Every project function seen in those samples is listed by file; a crossing is
 * a distinct call from a function in one top-level folder to a function in another (frames of
 * dependencies and of the runtime in between are skipped). Each crossing is listed with the
 * samples that saw it. A sample taken while a call is being set up can skip a frame and show a
 * caller's caller calling the callee: an edge `a -> c` is left out when some `b` is seen called by
 * `a` and calling `c`, both more often than `a -> c`, and so is an edge seen in fewer than
 * `--min-samples` samples (default 2).
 *
 * Keyword ranking runs on the server's search worker threads. Deno writes a profile for a worker
 * only when the worker ends before the process does, which the server's do not; so a second
 * profiled process does what a search worker does (`stores/fts5_worker.ts`: a read-only
 * catalog and an FTS5 retriever answering the prepared query), and the hand-over from the pool to
 * the worker counts as one crossing.
 *
 *     deno run -A scripts/trace_search.ts [--query "sqlite archive"] [--calls 1000] [--min-samples 2] [--json]
 *
 * It is a sampling profile: an edge seen in a handful of samples may come and go from run to
 * run (the file list and the busy edges do not), so compare runs of the same command.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { dirname, join, relative } from "node:path";
import { fileURLToPath as fromFileUrl } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { openReadOnly } from "../core/catalog_sql.ts";
import { Fts5Index } from "../stores/fts5.ts";
import { prepareQuery } from "../search/query.ts";

/** A node of a `.cpuprofile`. */
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

/** A V8 CPU profile as Deno writes it. */
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** A project function: where it is and what it is called. */
interface Frame {
  file: string;
  folder: string;
  fn: string;
}

/** What one thread's profile says about the measured window. */
interface ThreadTrace {
  files: Map<string, number>;
  crossings: Map<string, number>;
  /** Every direct call between project functions, crossing or not: caller -> callee -> samples. */
  calls: Map<string, Map<string, number>>;
  sequences: Map<string, number>;
}

const repo = join(dirname(fromFileUrl(import.meta.url)), "..");
const PAUSE_MS = 3000;
const GAP_US = 1_500_000;

/** The project frame a profile node stands for, or `undefined` for runtime and npm code. */
function projectFrame(node: ProfileNode): Frame | undefined {
  const url = node.callFrame.url;
  if (!url.startsWith("file://")) return undefined;
  const file = relative(repo, fromFileUrl(url));
  if (file.startsWith("..") || file.startsWith("scripts/") || file.includes("node_modules")) {
    return undefined;
  }
  const folder = file.includes("/") ? file.slice(0, file.indexOf("/")) : ".";
  const fn = `${node.callFrame.functionName || "(anonymous)"}:${node.callFrame.lineNumber + 1}`;
  return { file, folder, fn };
}

/** The samples between the first and the last quiet gap (the measured calls). */
function measuredSamples(p: Profile, busy: (id: number) => boolean): number[] {
  const times: number[] = [];
  let t = p.startTime;
  for (const d of p.timeDeltas) times.push(t += d);
  const active = p.samples.map((id, i) => ({ id, t: times[i]! })).filter((s) => busy(s.id));
  // The end of the profile closes the last pause even when nothing ran after it.
  active.push({ id: -1, t: times.at(-1) ?? p.startTime });
  const gaps: number[] = [];
  for (let i = 1; i < active.length; i++) {
    if (active[i]!.t - active[i - 1]!.t >= GAP_US) gaps.push(i);
  }
  if (gaps.length < 2) return [];
  return active.slice(gaps[0], gaps.at(-1)).map((s) => s.id).filter((id) => id >= 0);
}

/** Files, folder crossings and folder sequences seen in one thread's measured samples. */
function traceProfile(p: Profile): ThreadTrace {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const idle = new Set(["(idle)", "(program)", "(root)", "(garbage collector)"]);
  // A sample is busy when the thread runs anything but the idle event loop.
  const busy = (id: number) => !idle.has(byId.get(id)!.callFrame.functionName);
  const stacks = new Map<number, Frame[]>();
  const stackOf = (id: number): Frame[] => {
    const known = stacks.get(id);
    if (known) return known;
    const frames: Frame[] = [];
    for (let n: number | undefined = id; n !== undefined; n = parent.get(n)) {
      const f = projectFrame(byId.get(n)!);
      if (f) frames.unshift(f);
    }
    stacks.set(id, frames);
    return frames;
  };
  const trace: ThreadTrace = {
    files: new Map(),
    crossings: new Map(),
    calls: new Map(),
    sequences: new Map(),
  };
  const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
  for (const id of measuredSamples(p, busy)) {
    const frames = stackOf(id);
    if (!frames.length) continue;
    for (const f of new Set(frames.map((f) => f.file))) bump(trace.files, f);
    const folders: string[] = [];
    frames.forEach((f, i) => {
      if (folders.at(-1) !== f.folder) folders.push(f.folder);
      const caller = frames[i - 1];
      if (!caller) return;
      const from = `${caller.file} ${caller.fn}`;
      const to = `${f.file} ${f.fn}`;
      if (!trace.calls.has(from)) trace.calls.set(from, new Map());
      bump(trace.calls.get(from)!, to);
      if (caller.folder !== f.folder) bump(trace.crossings, `${from} -> ${to}`);
    });
    bump(trace.sequences, folders.join(" > "));
  }
  return trace;
}

/**
 * Whether a crossing `a -> c` seen `n` times is a sampling artifact: some `b` is seen called by
 * `a` and calling `c`, each more often than `a -> c` (the sample skipped `b`'s frame).
 */
function skippedFrame(trace: ThreadTrace, crossing: string, n: number): boolean {
  const [a, c] = crossing.split(" -> ") as [string, string];
  for (const [b, ab] of trace.calls.get(a) ?? []) {
    if (b !== c && ab > n && (trace.calls.get(b)?.get(c) ?? 0) > n) return true;
  }
  return false;
}

/** Run a CLI command of the checkout; throw with its stderr when it fails. */
async function cli(args: string[], env: Record<string, string>): Promise<void> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", join(repo, "server/cli.ts"), ...args],
    env,
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(`shelfmark ${args[0]} failed: ${new TextDecoder().decode(out.stderr)}`);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * What a search worker does with each query, `calls` times between two pauses: the query as
 * `searchShelf` prepares it for the default 20 hits (40 candidates), ranked by an FTS5 retriever
 * on a read-only catalog.
 */
async function workerSide(catalog: string, query: string, calls: number): Promise<void> {
  const { db, stats } = openReadOnly(catalog);
  const fts = new Fts5Index(db, { stats, readOnly: true });
  await fts.search(prepareQuery(query, 40, {}, 0));
  await sleep(PAUSE_MS);
  for (let i = 0; i < calls; i++) await fts.search(prepareQuery(query, 40, {}, 0));
  await sleep(PAUSE_MS);
  db.close();
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      query: { type: "string", default: "sqlite archive" },
      calls: { type: "string", default: "1000" },
      json: { type: "boolean", default: false },
      "min-samples": { type: "string", default: "2" },
      "worker-side": { type: "string" },
    },
  });
  const calls = Number(values.calls);
  if (!Number.isInteger(calls) || calls < 1) {
    console.error(
      `trace_search: --calls must be a positive integer, got ${JSON.stringify(values.calls)}`,
    );
    return 2;
  }
  if (values["worker-side"]) {
    await workerSide(values["worker-side"], values.query, calls);
    return 0;
  }
  const work = await Deno.makeTempDir({ prefix: "shelfmark-trace-" });
  try {
    const data = join(work, "data");
    const profiles = join(work, "profiles");
    const env = { SHELFMARK_EMBEDDER: "none", NO_COLOR: "1" };
    await cli(["index", "--data", data, join(repo, "samples")], env);
    const transport = new StdioClientTransport({
      command: Deno.execPath(),
      args: [
        "run",
        "-A",
        "--cpu-prof",
        `--cpu-prof-dir=${profiles}`,
        "--cpu-prof-interval=50",
        // No inlining, so that a function inlined into its caller still shows as its own frame.
        "--v8-flags=--no-turbo-inlining,--no-maglev-inlining",
        join(repo, "server/cli.ts"),
        "serve",
        "--data",
        data,
        "--no-watch",
      ],
      env,
      stderr: "ignore",
    });
    const client = new Client({ name: "trace_search", version: "1" });
    await client.connect(transport);
    const args = { query: values.query, mode: "keyword" };
    await client.callTool({ name: "search", arguments: args });
    await sleep(PAUSE_MS);
    for (let i = 0; i < calls; i++) await client.callTool({ name: "search", arguments: args });
    await sleep(PAUSE_MS);
    await client.close();
    const worker = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        "--cpu-prof",
        `--cpu-prof-dir=${join(profiles, "worker")}`,
        "--cpu-prof-interval=50",
        "--v8-flags=--no-turbo-inlining,--no-maglev-inlining",
        fromFileUrl(import.meta.url),
        `--worker-side=${join(data, "catalog.db")}`,
        `--query=${values.query}`,
        `--calls=${calls}`,
      ],
      stdout: "null",
    }).output();
    if (!worker.success) throw new Error("the search worker stand-in failed");
    const threads: { name: string; trace: ThreadTrace }[] = [];
    for (const [dir, name] of [[profiles, "main"], [join(profiles, "worker"), "search worker"]]) {
      for await (const e of Deno.readDir(dir!)) {
        if (!e.isFile) continue;
        const p = JSON.parse(await Deno.readTextFile(join(dir!, e.name))) as Profile;
        threads.push({ name: name!, trace: traceProfile(p) });
      }
    }
    const min = Number(values["min-samples"]);
    for (const t of threads) {
      for (const [c, n] of t.trace.crossings) {
        if (n < min || skippedFrame(t.trace, c, n)) t.trace.crossings.delete(c);
      }
    }
    report(threads.filter((t) => t.trace.files.size), values.query, calls, values.json);
    return 0;
  } finally {
    await Deno.remove(work, { recursive: true }).catch(() => {});
  }
}

/** Print the files, crossings and folder sequences, as text or JSON. */
function report(
  threads: { name: string; trace: ThreadTrace }[],
  query: string,
  calls: number,
  json: boolean,
): void {
  const files = new Set(threads.flatMap((t) => [...t.trace.files.keys()]));
  const crossings = new Set(threads.flatMap((t) => [...t.trace.crossings.keys()]));
  const workers = threads.filter((t) => t.name !== "main").length;
  // The pool's message to a search worker is one more crossing.
  const total = crossings.size + (workers ? 1 : 0);
  if (json) {
    console.log(JSON.stringify(
      {
        query,
        calls,
        files: [...files].sort(),
        crossings: [...crossings].sort(),
        hand_over_to_workers: workers > 0,
        total_crossings: total,
        threads: threads.map((t) => ({
          name: t.name,
          sequences: Object.fromEntries(t.trace.sequences),
        })),
      },
      null,
      2,
    ));
    return;
  }
  console.log(`search ${JSON.stringify(query)} over MCP, keyword mode, ${calls} calls\n`);
  console.log(`${files.size} files:`);
  for (const f of [...files].sort()) console.log(`  ${f}`);
  console.log(`\n${total} crossings between top-level folders (distinct caller -> callee):`);
  const seen = (c: string) => threads.reduce((n, t) => n + (t.trace.crossings.get(c) ?? 0), 0);
  for (const c of [...crossings].sort()) console.log(`  ${String(seen(c)).padStart(6)}  ${c}`);
  if (workers) {
    console.log(
      "     -  stores/fts5_pool.ts -> stores/fts5_worker.ts (a message to the thread)",
    );
  }
  for (const t of threads) {
    console.log(`\nfolder sequences, ${t.name} thread (samples):`);
    const seqs = [...t.trace.sequences].sort((a, b) => b[1] - a[1]);
    for (const [s, n] of seqs) console.log(`  ${String(n).padStart(6)}  ${s}`);
  }
}

if (import.meta.main) Deno.exit(await main());
