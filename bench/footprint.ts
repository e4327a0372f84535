/**
 * Memory and CPU of a whole process tree (Linux): the resident size (`VmRSS` of
 * `/proc/<pid>/status`) of a process and all its descendants, sampled every 200 ms, and
 * the CPU time (user + system) of a command with every child it waited for.
 *
 * Beside RSS it reports PSS (`Pss` of `/proc/<pid>/smaps_rollup`): a page shared by n
 * processes counts 1/n in each, so the tree's PSS counts the `deno` executable's pages
 * once, where the sum of RSS counts them once per process.
 *
 * ```
 * deno run -A bench/footprint.ts [--interval 200] [--json] -- CMD ARGS...   # run and measure
 * deno run -A bench/footprint.ts --pid PID [--seconds 10] [--json]         # watch a process
 * deno run -A bench/footprint.ts --idle-server DATA [--questions 80] [--idle 90]
 *     [--embedder none] [--mode keyword] [--no-read] [--release-after S] [--json]
 * ```
 *
 * `--idle-server` measures a server as a user runs it (see {@link idleServer}): `serve --http
 * --no-watch` on an indexed data directory, fresh once its background work (vectors, OCR) is
 * done, after `--questions` dev questions (search, then `read` of the top hit), and after
 * `--idle` seconds without a question; it prints the settings the server reported. The
 * embedder and OCR are the data directory's configuration unless `--embedder` names one.
 *
 * `bench/recoll.ts` measures Recoll and shelfmark with {@link measureCommand}. Not a test:
 * numbers, not assertions.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { startHttpServer } from "../tests/cli_helper.ts";
import { callTool, waitReady } from "../tests/reliability/_helpers.ts";
import { testClient } from "../tests/mcp_client.ts";

/** Resident size in bytes of one process, or undefined when it is gone. */
export function rssOf(pid: number): number | undefined {
  try {
    const m = /VmRSS:\s+(\d+)\s+kB/.exec(Deno.readTextFileSync(`/proc/${pid}/status`));
    return m ? Number(m[1]) * 1024 : 0; // a zombie has no VmRSS
  } catch {
    return undefined;
  }
}

/**
 * Proportional set size in bytes of one process (shared pages divided among the processes
 * that map them), or undefined when it is gone or the kernel does not say.
 */
export function pssOf(pid: number): number | undefined {
  try {
    const m = /\nPss:\s+(\d+)\s+kB/.exec(Deno.readTextFileSync(`/proc/${pid}/smaps_rollup`));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return undefined;
  }
}

/** The command name and parent of every process, by pid. */
function processTable(): Map<number, { ppid: number; name: string; cpu: number }> {
  const out = new Map<number, { ppid: number; name: string; cpu: number }>();
  for (const e of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(e.name)) continue;
    try {
      const stat = Deno.readTextFileSync(`/proc/${e.name}/stat`);
      // pid (comm) state ppid ...: comm may hold spaces and parentheses.
      const close = stat.lastIndexOf(")");
      const name = stat.slice(stat.indexOf("(") + 1, close);
      const f = stat.slice(close + 2).split(" ");
      // utime and stime (fields 14 and 15), in clock ticks (100 per second on Linux)
      const cpu = (Number(f[11]) + Number(f[12])) / 100;
      out.set(Number(e.name), { ppid: Number(f[1]), name, cpu });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** A process and its descendants, with their names, depths and CPU times (seconds). */
export function processTree(
  root: number,
): { pid: number; name: string; depth: number; cpu: number }[] {
  const table = processTable();
  const children = new Map<number, number[]>();
  for (const [pid, p] of table) {
    const list = children.get(p.ppid) ?? [];
    list.push(pid);
    children.set(p.ppid, list);
  }
  const out: { pid: number; name: string; depth: number; cpu: number }[] = [];
  const todo: [number, number][] = [[root, 0]];
  while (todo.length) {
    const [pid, depth] = todo.pop()!;
    const p = table.get(pid);
    if (!p) continue;
    out.push({ pid, name: p.name, depth, cpu: p.cpu });
    for (const c of children.get(pid) ?? []) todo.push([c, depth + 1]);
  }
  return out;
}

/** What a {@link TreeSampler} saw. */
export interface Footprint {
  /** Largest sum of the tree's resident sizes, bytes. */
  peakTree: number;
  /** Largest resident size of the root process alone, bytes. */
  peakRoot: number;
  /** Largest sum of the tree's proportional set sizes (PSS), bytes. */
  peakTreePss: number;
  /** Largest PSS of the root process alone, bytes. */
  peakRootPss: number;
  /** Largest PSS seen per command name and depth in the tree, bytes. */
  peakByNamePss: Record<string, number>;
  /** Largest number of processes in the tree at once. */
  peakProcesses: number;
  /** Distinct processes seen per command name and depth (`deno@2`: extraction processes started). */
  seenByName: Record<string, number>;
  /** Largest resident size seen per command name and depth in the tree (`deno@2`), bytes. */
  peakByName: Record<string, number>;
  /** User + system CPU time of every process seen, as last sampled, seconds. */
  sampledCpu: number;
  /** The processes at the peak, `name@depth MiB` each. */
  atPeak: string;
  /** The processes at the PSS peak, `name@depth MiB` (of PSS) each. */
  atPeakPss: string;
  /** Tree resident size at the last sample, bytes. */
  lastTree: number;
  /** Tree PSS at the last sample, bytes. */
  lastTreePss: number;
  /** The processes at the last sample, `name@depth MiB` (of PSS) each. */
  atLastPss: string;
  /** Processes at the last sample. */
  lastProcesses: number;
  /** Samples taken. */
  samples: number;
  /**
   * CPU seconds the tree used in each wall-clock second (as sampled: 2 means both of two
   * cores busy), to see where a core waits.
   */
  cpuPerSecond: number[];
}

/** A footprint before its first sample: nothing seen, every figure 0. */
export function emptyFootprint(): Footprint {
  return {
    peakTree: 0,
    peakRoot: 0,
    peakTreePss: 0,
    peakRootPss: 0,
    peakByNamePss: {},
    peakProcesses: 0,
    seenByName: {},
    peakByName: {},
    sampledCpu: 0,
    atPeak: "",
    atPeakPss: "",
    lastTree: 0,
    lastTreePss: 0,
    atLastPss: "",
    lastProcesses: 0,
    samples: 0,
    cpuPerSecond: [],
  };
}

/** Samples the resident size of a process tree at an interval until stopped. */
export class TreeSampler {
  readonly #root: number;
  readonly #timer: ReturnType<typeof setInterval>;
  #cpu = new Map<number, number>();
  #fp: Footprint = emptyFootprint();
  readonly #t0 = performance.now();

  /**
   * @param root the process whose tree is sampled
   * @param intervalMs time between samples
   */
  constructor(root: number, intervalMs = 200) {
    this.#root = root;
    this.sample();
    this.#timer = setInterval(() => this.sample(), intervalMs);
  }

  /** Take one sample now. */
  sample(): void {
    const procs = processTree(this.#root);
    if (!procs.length) return;
    let tree = 0;
    let treePss = 0;
    const fp = this.#fp;
    const parts: string[] = [];
    const partsPss: string[] = [];
    for (const p of procs) {
      const rss = rssOf(p.pid) ?? 0;
      const pss = pssOf(p.pid) ?? 0;
      tree += rss;
      treePss += pss;
      parts.push(`${p.name}@${p.depth} ${(rss / 2 ** 20).toFixed(0)}`);
      partsPss.push(`${p.name}@${p.depth} ${(pss / 2 ** 20).toFixed(0)}`);
      if (p.pid === this.#root) {
        fp.peakRoot = Math.max(fp.peakRoot, rss);
        fp.peakRootPss = Math.max(fp.peakRootPss, pss);
      }
      const key = `${p.name}@${p.depth}`;
      fp.peakByName[key] = Math.max(fp.peakByName[key] ?? 0, rss);
      fp.peakByNamePss[key] = Math.max(fp.peakByNamePss[key] ?? 0, pss);
      if (!this.#cpu.has(p.pid)) fp.seenByName[key] = (fp.seenByName[key] ?? 0) + 1;
      this.#cpu.set(p.pid, p.cpu);
    }
    const before = fp.sampledCpu;
    fp.sampledCpu = [...this.#cpu.values()].reduce((a, b) => a + b, 0);
    const second = Math.floor((performance.now() - this.#t0) / 1000);
    while (fp.cpuPerSecond.length <= second) fp.cpuPerSecond.push(0);
    if (fp.samples) {
      fp.cpuPerSecond[second] = (fp.cpuPerSecond[second] ?? 0) + fp.sampledCpu - before;
    }
    if (tree > fp.peakTree) fp.atPeak = parts.join(", ");
    if (treePss > fp.peakTreePss) fp.atPeakPss = partsPss.join(", ");
    fp.peakTree = Math.max(fp.peakTree, tree);
    fp.peakTreePss = Math.max(fp.peakTreePss, treePss);
    fp.peakProcesses = Math.max(fp.peakProcesses, procs.length);
    fp.lastTree = tree;
    fp.lastTreePss = treePss;
    fp.atLastPss = partsPss.join(", ");
    fp.lastProcesses = procs.length;
    fp.samples++;
  }

  /** What was seen so far. */
  get footprint(): Footprint {
    return structuredClone(this.#fp);
  }

  /** Stop sampling; returns what was seen. */
  stop(): Footprint {
    clearInterval(this.#timer);
    return this.footprint;
  }
}

/** A command's run: wall time, CPU time of it and its children, and its memory. */
export interface CommandFootprint extends Footprint {
  /** Exit code. */
  code: number;
  /** Wall time, seconds. */
  seconds: number;
  /**
   * User + system CPU time of the command's tree, seconds: the larger of what the
   * subreaper counts (every descendant, however short-lived, orphaned or killed) and the
   * sum sampled per process (a cross-check: it misses what a process spent after its last
   * sample).
   */
  cpuSeconds: number;
  /** CPU seconds of every descendant, as the subreaper waited for them. */
  reapedCpuSeconds: number;
  /** Descendants left behind by their parents and waited for by the subreaper. */
  orphans: number;
  /** Standard output. */
  stdout: string;
  /** Standard error (its tail). */
  stderr: string;
}

/**
 * A subreaper in Python (`prctl(PR_SET_CHILD_SUBREAPER)`): it runs the command, then waits
 * for every descendant orphaned on the way (extraction processes a parent never waited
 * for are re-parented to it instead of to init), killing any still alive after the grace
 * period, and writes the user + system CPU seconds of every descendant it and theirs
 * waited for (`RUSAGE_CHILDREN`). A process that dies between two samples is counted too.
 */
const SUBREAPER = `
import ctypes, os, resource, signal, sys, time
ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)
out, grace, cmd = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
pid = os.fork()
if pid == 0:
    os.execvp(cmd[0], cmd)
st = os.waitpid(pid, 0)[1]
code = os.waitstatus_to_exitcode(st)
deadline, orphans = time.monotonic() + grace, 0
while True:
    try:
        p, _ = os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        break
    if p:
        orphans += 1
        continue
    if time.monotonic() > deadline:
        for e in os.listdir("/proc"):
            if e.isdigit():
                try:
                    with open(f"/proc/{e}/stat") as f:
                        if int(f.read().rsplit(")", 1)[1].split()[1]) == os.getpid():
                            os.kill(int(e), signal.SIGKILL)
                except (OSError, ValueError):
                    pass
    time.sleep(0.05)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
with open(out, "w") as f:
    f.write(f"{r.ru_utime + r.ru_stime} {orphans}")
sys.exit(code if code >= 0 else 128 - code)
`;

/**
 * Run a command under a subreaper (see {@link SUBREAPER}: every descendant is waited for
 * and its CPU time counted, even one its parent left behind) and sample the memory of its
 * process tree.
 *
 * @param cmd the command and its arguments
 * @param opts environment, working directory, sampling interval and how long orphans may
 *   run on after the command ends before they are killed (seconds, default 30)
 */
export async function measureCommand(
  cmd: string[],
  opts: { env?: Record<string, string>; cwd?: string; intervalMs?: number; graceSeconds?: number } =
    {},
): Promise<CommandFootprint> {
  const cpuFile = await Deno.makeTempFile({ prefix: "footprint-" });
  const t0 = performance.now();
  const child = new Deno.Command("python3", {
    args: ["-c", SUBREAPER, cpuFile, String(opts.graceSeconds ?? 30), ...cmd],
    env: opts.env,
    cwd: opts.cwd,
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const sampler = new TreeSampler(child.pid, opts.intervalMs ?? 200);
  const [st, out, err] = await Promise.all([
    child.status,
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
  ]);
  const seconds = (performance.now() - t0) / 1000;
  const fp = sampler.stop();
  const [reaped, orphans] = (await Deno.readTextFile(cpuFile).catch(() => "")).split(" ")
    .map(Number);
  await Deno.remove(cpuFile).catch(() => {});
  return {
    ...fp,
    code: st.code,
    seconds,
    cpuSeconds: Math.max(reaped || 0, fp.sampledCpu),
    reapedCpuSeconds: reaped || 0,
    orphans: orphans || 0,
    stdout: out,
    stderr: err.slice(-4000),
  };
}

/**
 * Proportional set size of one process split into anonymous memory and file pages, and
 * the resident file pages whole (`fileRss`: on a quiet machine no other process shares the
 * `deno` executable's pages and PSS counts them all), bytes.
 */
export function pssParts(
  pid: number,
): { anon: number; file: number; fileRss: number } | undefined {
  try {
    const t = Deno.readTextFileSync(`/proc/${pid}/smaps_rollup`);
    const kb = (k: string) => Number(new RegExp(`\\n${k}:\\s+(\\d+) kB`).exec(t)?.[1] ?? 0) * 1024;
    return {
      anon: kb("Pss_Anon"),
      file: kb("Pss_File"),
      fileRss: kb("Rss") - kb("Anonymous"),
    };
  } catch {
    return undefined;
  }
}

/** One moment of a server's life: its tree sampled for a few seconds. */
export interface ServerPhase {
  /** What the server had done before (`fresh`, `after 80 searches`, `idle 90 s`). */
  name: string;
  /** The tree, sampled. */
  tree: Footprint;
  /** The server process's own PSS at the last sample, anonymous and file pages, bytes. */
  root: { anon: number; file: number; fileRss: number };
  /** The server's threads at the last sample (the main thread, workers, runtime threads). */
  threads: number;
}

/** How an idle server was measured and what it held. */
export interface IdleServer {
  /** The settings it ran with, as its `status` tool reported them, and the bench's. */
  settings: Record<string, unknown>;
  /** Fresh, after the questions, after the idle period. */
  phases: ServerPhase[];
}

/** Options of {@link idleServer}. */
export interface IdleServerOptions {
  /** Search queries to ask (each followed by a `read` of the top hit). */
  questions: string[];
  /** Time without questions before the last sample, ms (longer than the server's release). */
  idleMs: number;
  /** Environment of the server (`SHELFMARK_EMBEDDER`, `SHELFMARK_IDLE_S`, ...). */
  env?: Record<string, string>;
  /** Search mode of the questions (default: the server's default). */
  mode?: string;
  /** Also `read` the top hit of each question (default true). */
  read?: boolean;
  /** Progress lines (stderr by default). */
  log?: (line: string) => void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function threadsOf(pid: number): number {
  try {
    return Number(/Threads:\s+(\d+)/.exec(Deno.readTextFileSync(`/proc/${pid}/status`))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** Sample a tree for `ms` and read the root's PSS parts at the end. */
async function phase(name: string, pid: number, ms: number): Promise<ServerPhase> {
  const sampler = new TreeSampler(pid, 200);
  await sleep(ms);
  const tree = sampler.stop();
  return {
    name,
    tree,
    root: pssParts(pid) ?? { anon: 0, file: 0, fileRss: 0 },
    threads: threadsOf(pid),
  };
}

/**
 * Measure a server as a user runs it: `serve --http --no-watch` on an indexed data
 * directory. It is sampled three times: *fresh* (its first index run over and its background
 * work done: vectors embedded, scanned pages read, so nothing but the server is measured),
 * right *after* it answered the questions (keyword or default search, then `read` of the
 * top hit, over MCP as an agent asks), and *idle* after `idleMs` without a question (past
 * the server's idle release, `SHELFMARK_IDLE_S`, 60 s by default).
 *
 * @param data the data directory (already indexed)
 * @param opts questions, idle time, environment
 */
export async function idleServer(data: string, opts: IdleServerOptions): Promise<IdleServer> {
  const log = opts.log ?? ((l: string) => console.error(l));
  const { child, url } = await startHttpServer(["--no-watch", "--data", data], opts.env);
  try {
    const client = testClient("footprint");
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    await waitReady(client);
    // Background work a fresh index starts (vectors, OCR) is not an idle server: wait for it.
    let status: Record<string, unknown> = {};
    for (let i = 0;; i++) {
      const r = await callTool(client, "status", { output_format: "json" });
      status = r.structuredContent as Record<string, unknown>;
      const v = status.vectors as { state?: string; pending?: number } | undefined;
      const o = status.ocr as { state?: string; pages_waiting?: number } | undefined;
      const vectorsDone = !v || v.state === "unavailable" || v.state === "failed" ||
        (v.pending ?? 0) === 0;
      const ocrDone = !o || o.state === "off" || o.state === "idle";
      if (vectorsDone && ocrDone) break;
      if (i % 30 === 0) {
        log(`waiting for background work: vectors ${JSON.stringify(v)}, OCR ${o?.state}`);
      }
      await sleep(2000);
    }
    const v = status.vectors as { state?: string; model?: string; embedded?: number };
    const settings = {
      data,
      documents: status.documents_indexed,
      search_mode: (status.search_mode as { default?: string } | undefined)?.default,
      embedder: opts.env?.SHELFMARK_EMBEDDER ?? Deno.env.get("SHELFMARK_EMBEDDER") ??
        "(configuration's, else default)",
      vectors: `${v?.state}${v?.model ? ` (${v.model}, ${v.embedded} embedded)` : ""}`,
      ocr: (status.ocr as { state?: string } | undefined)?.state,
      idle_release_s: opts.env?.SHELFMARK_IDLE_S ?? Deno.env.get("SHELFMARK_IDLE_S") ?? "default",
      questions: opts.questions.length,
      mode: opts.mode ?? "default",
      read_top_hit: opts.read ?? true,
      idle_wait_s: opts.idleMs / 1000,
      deno: Deno.version.deno,
    };
    log(`settings: ${JSON.stringify(settings)}`);
    const phases = [await phase("fresh", child.pid, 5000)];
    for (const q of opts.questions) {
      const r = await callTool(client, "search", {
        query: q,
        limit: 5,
        ...(opts.mode ? { mode: opts.mode } : {}),
        output_format: "json",
      });
      const top = (r.structuredContent as { results?: { doc_id: string }[] })?.results?.[0];
      if (top && opts.read !== false) {
        await callTool(client, "read", { doc_id: top.doc_id, offset: 1, limit: 100 });
      }
    }
    phases.push(await phase(`after ${opts.questions.length} searches`, child.pid, 2000));
    await client.close();
    await sleep(Math.max(0, opts.idleMs - 5000));
    phases.push(await phase(`idle ${opts.idleMs / 1000} s`, child.pid, 5000));
    return { settings, phases };
  } finally {
    child.kill("SIGTERM");
    await child.status;
  }
}

/** The dev questions' text (`$SHELFMARK_SHARED` or `../shared`, beside the checkout). */
export async function devQuestionTexts(): Promise<string[]> {
  const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
  const shared = Deno.env.get("SHELFMARK_SHARED") ?? resolve(repo, "..", "shared");
  return (await Deno.readTextFile(join(shared, "eval", "questions.dev.jsonl")))
    .split("\n").filter(Boolean).map((l) => JSON.parse(l).question as string);
}

const mib = (b: number) => `${(b / 2 ** 20).toFixed(0)} MiB`;

/**
 * How busy the cores were: the share of wall-clock seconds in which the tree used less
 * than half a core, half to one and a half, and more (of {@link Footprint.cpuPerSecond}).
 */
export function coresBusy(fp: Footprint): { idle: number; one: number; two: number } {
  const s = fp.cpuPerSecond;
  const share = (f: (x: number) => boolean) => s.length ? s.filter(f).length / s.length : 0;
  return {
    idle: share((x) => x < 0.5),
    one: share((x) => x >= 0.5 && x < 1.5),
    two: share((x) => x >= 1.5),
  };
}

/** A footprint as lines for a terminal. */
export function describe(fp: Footprint & Partial<CommandFootprint>): string {
  const names = Object.entries(fp.peakByName).sort((a, b) => b[1] - a[1]).slice(0, 6)
    .map(([n, b]) => `${n} ${mib(b)} (PSS ${mib(fp.peakByNamePss?.[n] ?? 0)})`).join(", ");
  return [
    fp.seconds !== undefined ? `wall ${fp.seconds.toFixed(1)} s` : "",
    fp.cpuSeconds !== undefined
      ? `CPU (user+sys, tree) ${fp.cpuSeconds.toFixed(1)} s (subreaper ${
        fp.reapedCpuSeconds?.toFixed(1)
      } s, sampled ${fp.sampledCpu.toFixed(1)} s, ${fp.orphans} orphans reaped)`
      : "",
    `seconds with <0.5 / 0.5-1.5 / >=1.5 cores busy: ${
      Object.values(coresBusy(fp)).map((x) => `${(x * 100).toFixed(0)} %`).join(" / ")
    }`,
    `peak RSS of the tree ${mib(fp.peakTree)} (root alone ${
      mib(fp.peakRoot)
    }, ${fp.peakProcesses} processes at most)`,
    `peak PSS of the tree ${mib(fp.peakTreePss)} (root alone ${mib(fp.peakRootPss)})`,
    `last sample ${mib(fp.lastTree)} in ${fp.lastProcesses} processes (${fp.samples} samples)`,
    `at the peak (MiB): ${fp.atPeak}`,
    `at the PSS peak (MiB of PSS): ${fp.atPeakPss}`,
    `largest per command: ${names}`,
    `processes started per command: ${
      Object.entries(fp.seenByName).map(([n, k]) => `${n} ${k}`).join(", ")
    }`,
  ].filter(Boolean).join("\n");
}

if (import.meta.main) {
  const dash = Deno.args.indexOf("--");
  const { values } = parseArgs({
    args: dash < 0 ? Deno.args : Deno.args.slice(0, dash),
    options: {
      interval: { type: "string", default: "200" },
      pid: { type: "string" },
      seconds: { type: "string", default: "10" },
      "idle-server": { type: "string" },
      questions: { type: "string", default: "80" },
      idle: { type: "string", default: "90" },
      embedder: { type: "string" },
      mode: { type: "string" },
      "no-read": { type: "boolean" },
      "release-after": { type: "string" },
      json: { type: "boolean" },
    },
  });
  const intervalMs = Number(values.interval);
  let fp: Footprint & Partial<CommandFootprint>;
  if (values["idle-server"]) {
    const env: Record<string, string> = {};
    if (values.embedder) env.SHELFMARK_EMBEDDER = values.embedder;
    if (values["release-after"]) env.SHELFMARK_IDLE_S = values["release-after"];
    const all = await devQuestionTexts();
    const r = await idleServer(values["idle-server"], {
      questions: Array.from({ length: Number(values.questions) }, (_, i) => all[i % all.length]!),
      idleMs: Number(values.idle) * 1000,
      env,
      mode: values.mode,
      read: !values["no-read"],
    });
    if (values.json) console.log(JSON.stringify(r, null, 2));
    else {
      console.log(`settings: ${JSON.stringify(r.settings)}`);
      for (const p of r.phases) {
        console.log(
          `${p.name}: tree PSS ${mib(p.tree.lastTreePss)} (server ${mib(p.root.anon)} anon + ${
            mib(p.root.file)
          } file of ${
            mib(p.root.fileRss)
          } resident, ${p.threads} threads; ${p.tree.lastProcesses} processes: ${p.tree.atLastPss})`,
        );
      }
    }
    Deno.exit(0);
  } else if (values.pid) {
    const sampler = new TreeSampler(Number(values.pid), intervalMs);
    await new Promise((r) => setTimeout(r, Number(values.seconds) * 1000));
    fp = sampler.stop();
  } else if (dash >= 0 && Deno.args.length > dash + 1) {
    fp = await measureCommand(Deno.args.slice(dash + 1), { intervalMs });
    const { stdout: _o, stderr, ...rest } = fp;
    if (fp.code !== 0) console.error(stderr);
    fp = rest as typeof fp;
  } else {
    console.error(
      "usage: footprint.ts [--interval MS] [--json] -- CMD ARGS... | --pid PID [--seconds N]",
    );
    Deno.exit(2);
  }
  console.log(values.json ? JSON.stringify(fp, null, 2) : describe(fp));
}
