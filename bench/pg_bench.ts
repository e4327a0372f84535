/**
 * Keyword search latency of an index with concurrent clients: the dev questions asked of
 * the keyword index (`KeywordIndex.search`, 10 hits with snippets) by `clients` clients at
 * once, after one warm-up pass; p50/p95/max in ms and the CPU seconds spent by this process
 * (and by a local PostgreSQL's server processes, given its folder), and those of the
 * warm-up pass (every question new: what a store keeps per question is not kept yet). Run it on an index
 * made with `shelfmark index --store URL` (PostgreSQL) and on one without (FTS5) to
 * compare.
 *
 * `deno run -A bench/pg_bench.ts DATA_DIR [--clients 8] [--rounds 2] [--pg-dir DIR [--pg-db DB]] [--rate R]`
 * (`--pg-dir`: the folder of `scripts/pg_local.sh start DIR`, to count its CPU; `--pg-db`:
 * only that of the backends serving database DB). The
 * closed loop (clients back to back) measures saturation; `--rate R` adds an open-loop
 * run beside it: each client issues a search R times a second on average (random,
 * exponential arrivals, not waiting for its previous answer), latency from arrival.
 * `--gap S` times an agent's pace instead: one client, a search every S seconds
 * (`--searches N`, default 12, after the warm-up pass), as an agent asks between its
 * thoughts (a store's idle connections may close in between).
 *
 * @module
 */
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Shelf } from "../shelf/shelf.ts";
import { partsOf } from "../shelf/_parts.ts";
import { prepareQuery } from "../search/query.ts";
import type { KeywordIndex } from "../stores/roles.ts";
import { devQuestions } from "./agent_cost.ts";
import { pct } from "./stats.ts";

/** The figures of a run. */
export interface LatencyFigures {
  /** Searches timed. */
  searches: number;
  /** Concurrent clients. */
  clients: number;
  p50: number;
  p95: number;
  max: number;
  /** CPU seconds of this process over the timed searches. */
  cpuS: number;
  /** CPU seconds of the PostgreSQL server over them (with `pgDir`). */
  serverCpuS?: number;
  /**
   * CPU seconds of this process and of the server (with `pgDir`) over the warm-up pass:
   * each question asked for the first time, before anything a store keeps per question
   * (the PostgreSQL store's phrase rows and counts) is kept.
   */
  firstPass: { cpuS: number; serverCpuS?: number };
}

/**
 * CPU seconds of a local PostgreSQL's postmaster and its ended children, and of its live
 * backends; with `database`, of the live backends serving that database only (a pool keeps
 * its connections through a run: the cluster's autovacuum and other databases' clients are
 * left out).
 *
 * @param pgDir the folder of `scripts/pg_local.sh start DIR`
 * @param database count only the backends of this database
 */
export async function serverCpu(pgDir: string, database?: string): Promise<number> {
  const pid = (await Deno.readTextFile(`${pgDir}/data/postmaster.pid`)).split("\n")[0];
  const stat = (await Deno.readTextFile(`/proc/${pid}/stat`)).split(") ")[1]!.split(" ");
  // fields 14-17 of stat (utime, stime, cutime, cstime), counted from after "(comm) "
  const ticks = database ? 0 : [11, 12, 13, 14].reduce((s, i) => s + Number(stat[i]), 0);
  // live backends: their own times
  let live = 0;
  for await (const e of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(e.name)) continue;
    const s = await Deno.readTextFile(`/proc/${e.name}/stat`).catch(() => "");
    const f = s.split(") ")[1]?.split(" ");
    if (!f || f[1] !== pid) continue;
    if (database) {
      // "postgres: USER DATABASE HOST(PORT) STATE"
      const title = await Deno.readTextFile(`/proc/${e.name}/cmdline`).catch(() => "");
      if (title.split(" ")[2] !== database) continue;
    }
    live += Number(f[11]) + Number(f[12]);
  }
  return (ticks + live) / 100;
}

/** Ask each question once, one after the other (the warm-up pass). */
async function askEach(keyword: KeywordIndex, questions: string[]): Promise<void> {
  for (const q of questions) await keyword.search(prepareQuery(q, 10)).catch(() => []);
}

/**
 * Time the dev questions against a shelf's keyword index with concurrent clients.
 *
 * @param shelf an open shelf
 * @param questions the questions' texts
 * @param clients concurrent clients
 * @param rounds passes over the questions (after a warm-up pass)
 * @param pgDir a local PostgreSQL's folder, to count its CPU
 * @param rate open loop: searches per second per client (random arrivals); closed loop
 *   (back to back) without it
 * @param pgDb count the server's CPU of this database's backends only ({@link serverCpu})
 */
export async function keywordLatency(
  shelf: Shelf,
  questions: string[],
  clients: number,
  rounds: number,
  pgDir?: string,
  rate?: number,
  pgDb?: string,
): Promise<LatencyFigures> {
  const keyword = partsOf(shelf).keyword;
  const cpuS = (c: NodeJS.CpuUsage) => Math.round((c.user + c.system) / 1e4) / 100;
  const server = () => serverCpu(pgDir!, pgDb);
  const serverS = async (from: number) => Math.round((await server() - from) * 100) / 100;
  const first0 = [process.cpuUsage(), pgDir ? await server() : 0] as const;
  await askEach(keyword, questions);
  const firstPass = {
    cpuS: cpuS(process.cpuUsage(first0[0])),
    ...(pgDir ? { serverCpuS: await serverS(first0[1]) } : {}),
  };
  const work = Array.from({ length: rounds }, () => questions).flat();
  const lat: number[] = [];
  let next = 0;
  const cpu0 = process.cpuUsage();
  const server0 = pgDir ? await server() : 0;
  const timed = async (q: string, from: number) => {
    await keyword.search(prepareQuery(q, 10)).catch(() => []);
    lat.push(performance.now() - from);
  };
  if (rate === undefined) {
    await Promise.all(Array.from({ length: clients }, async () => {
      while (next < work.length) await timed(work[next++]!, performance.now());
    }));
  } else {
    // open loop: the work split over the clients, each with exponential gaps of mean 1/rate s
    const clock = Array.from({ length: clients }, () => 0);
    const arrivals = work.map((_, i) => clock[i % clients]! -= Math.log(1 - Math.random()) / rate);
    const start = performance.now();
    await Promise.all(work.map((q, i) => {
      const at = arrivals[i]!;
      return new Promise<void>((done) =>
        setTimeout(
          () => timed(q, performance.now()).then(done),
          Math.max(0, start + at * 1000 - performance.now()),
        )
      );
    }));
  }
  const out: LatencyFigures = {
    searches: lat.length,
    clients,
    p50: Math.round(pct(lat, 50)),
    p95: Math.round(pct(lat, 95)),
    max: Math.round(Math.max(...lat)),
    cpuS: cpuS(process.cpuUsage(cpu0)),
    firstPass,
  };
  if (pgDir) out.serverCpuS = await serverS(server0);
  return out;
}

/**
 * Time searches asked one at a time, `gapS` seconds apart (after a warm-up pass over the
 * questions): the latency an agent sees between its thoughts.
 *
 * @param shelf an open shelf
 * @param questions the questions' texts (every 7th is asked, round the list)
 * @param gapS seconds between two searches
 * @param searches searches timed
 * @returns each search's milliseconds, in order
 */
export async function pacedLatency(
  shelf: Shelf,
  questions: string[],
  gapS: number,
  searches: number,
): Promise<number[]> {
  const keyword = partsOf(shelf).keyword;
  await askEach(keyword, questions);
  const ms: number[] = [];
  for (let i = 0; i < searches; i++) {
    await new Promise((wake) => setTimeout(wake, gapS * 1000));
    const from = performance.now();
    await keyword.search(prepareQuery(questions[(i * 7) % questions.length]!, 10)).catch(() => []);
    ms.push(Math.round(performance.now() - from));
  }
  return ms;
}

if (import.meta.main) {
  const { values, positionals } = parseArgs({
    args: Deno.args,
    options: {
      clients: { type: "string", default: "8" },
      rounds: { type: "string", default: "2" },
      "pg-dir": { type: "string" },
      "pg-db": { type: "string" },
      rate: { type: "string" },
      gap: { type: "string" },
      searches: { type: "string", default: "12" },
    },
    allowPositionals: true,
  });
  const data = positionals[0];
  if (!data) {
    console.error("usage: deno run -A bench/pg_bench.ts DATA_DIR [--clients 8] [--rounds 2]");
    Deno.exit(2);
  }
  const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
  const shared = Deno.env.get("SHELFMARK_SHARED") ?? resolve(repo, "..", "shared");
  const questions = (await devQuestions(shared)).map((q) => q.question);
  const shelf = await Shelf.open({ data, log: () => {}, embedder: "none", workers: 0 });
  try {
    if (values.gap !== undefined) {
      const gap = Number(values.gap);
      const n = Number(values.searches);
      if (!(gap >= 0) || !(n >= 1)) {
        console.error("--gap must be seconds (0 or more) and --searches a positive count");
        Deno.exit(2);
      }
      const ms = await pacedLatency(shelf, questions, gap, n);
      console.log(
        `| keyword ${partsOf(shelf).keyword.name}, one client, a search every ${gap} s: ` +
          `p50 / p95 / max ms (${n} searches) | ${Math.round(pct(ms, 50))} / ${
            Math.round(pct(ms, 95))
          } / ${Math.max(...ms)} |`,
      );
      console.log(`searches, ms: ${ms.join(" ")}`);
    } else {
      const rate = values.rate === undefined ? undefined : Number(values.rate);
      if (rate !== undefined && !(rate > 0)) {
        console.error(
          `--rate must be a positive number of searches per second, not ${values.rate}`,
        );
        Deno.exit(2);
      }
      for (const r of rate === undefined ? [undefined] : [undefined, rate]) {
        const f = await keywordLatency(
          shelf,
          questions,
          Number(values.clients),
          Number(values.rounds),
          values["pg-dir"],
          r,
          values["pg-db"],
        );
        const load = r === undefined ? "closed loop" : `open loop ${r}/s each`;
        const server = f.firstPass.serverCpuS;
        // the first run's warm-up is the one that meets every question first
        if (r === undefined) {
          console.log(
            `| keyword ${partsOf(shelf).keyword.name}, first pass (warm-up, one client): ` +
              `CPU s client${
                server !== undefined ? " / server" : ""
              } (${questions.length} searches) | ` +
              `${f.firstPass.cpuS}${server !== undefined ? ` / ${server}` : ""} |`,
          );
        }
        console.log(
          `| keyword ${
            partsOf(shelf).keyword.name
          }, ${f.clients} clients ${load}: p50 / p95 / max ms ` +
            `(${f.searches} searches; CPU s client${
              f.serverCpuS !== undefined ? " / server" : ""
            }) | ${f.p50} / ${f.p95} / ${f.max} (${f.cpuS}${
              f.serverCpuS !== undefined ? ` / ${f.serverCpuS}` : ""
            }) |`,
        );
      }
    }
  } finally {
    await shelf.close();
  }
}
