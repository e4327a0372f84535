/**
 * Where a keyword search's server time goes in the PostgreSQL store: asks the dev questions
 * of a data folder whose keyword index is in PostgreSQL (every question once to warm what
 * the store keeps per question, then again, recorded), keeps the statements each search
 * sent (captured as the store sends them), and replays each three times under `EXPLAIN
 * (ANALYZE)` on one connection: by kind of statement, planning and execution milliseconds
 * (best of three: wall times, which a busy machine inflates), and the backend's CPU
 * milliseconds (mean of the three; read from `/proc`: the server must run on this machine),
 * and of those the CPU of parsing, binding and planning it (`EXPLAIN` alone, three times),
 * and the rows its aggregations read ({@link rowsAggregated}: what the rankings sum).
 *
 * `SHELFMARK_SHARED=/work/shared deno run -A bench/pg_statements.ts DATA_DIR [--limit N]`
 *
 * @module
 */
import { parseArgs } from "node:util";
import pg from "pg";
import { Shelf } from "../shelf/shelf.ts";
import { partsOf } from "../shelf/_parts.ts";
import { prepareQuery } from "../search/query.ts";
import { devQuestions } from "./agent_cost.ts";

/** A statement as the store sent it. */
export interface Sent {
  text: string;
  values: unknown[];
}

/** Hits a search asks for. */
export const WANT = 10;

/**
 * The statements the keyword index of a data folder sends to PostgreSQL for each question
 * (of its last round: the earlier ones warm what the store keeps per question).
 *
 * @param data the data folder (its keyword index in PostgreSQL)
 * @param questions the questions, asked in order
 * @param rounds times each question is asked (the last one recorded)
 */
export async function sentStatements(
  data: string,
  questions: string[],
  rounds = 1,
): Promise<Sent[][]> {
  let sent: Sent[] = [];
  const proto = pg.Pool.prototype as unknown as { query: (...a: unknown[]) => unknown };
  const query = proto.query;
  proto.query = function (this: unknown, ...a: unknown[]) {
    if (typeof a[0] === "string") sent.push({ text: a[0], values: (a[1] ?? []) as unknown[] });
    return query.apply(this, a);
  };
  const shelf = await Shelf.open({ data, log: () => {}, embedder: "none", workers: 0 });
  const out: Sent[][] = [];
  try {
    const kw = partsOf(shelf).keyword;
    for (let round = 1; round <= rounds; round++) {
      for (const q of questions) {
        sent = [];
        await kw.search(prepareQuery(q, WANT));
        if (round === rounds) out.push(sent);
      }
    }
  } finally {
    proto.query = query;
    await shelf.close();
  }
  return out;
}

/**
 * A bench's arguments: the data folder, and the dev questions (`SHELFMARK_SHARED`, the
 * first `--limit N`).
 *
 * @param name the bench's file name (for the usage message)
 */
export async function benchArgs(name: string): Promise<{ data: string; questions: string[] }> {
  const { values: opts, positionals } = parseArgs({
    args: Deno.args,
    allowPositionals: true,
    options: { limit: { type: "string" } },
  });
  const data = positionals[0];
  if (!data) throw new Error(`usage: ${name} DATA_DIR [--limit N]`);
  const shared = Deno.env.get("SHELFMARK_SHARED") ?? "../shared";
  const questions = (await devQuestions(shared)).map((q) => q.question)
    .slice(0, opts.limit ? Number(opts.limit) : undefined);
  return { data, questions };
}

/** The data folder's store: a pool of one connection reading its machine's tables. */
export async function storePool(data: string): Promise<pg.Pool> {
  const config = JSON.parse(await Deno.readTextFile(`${data}/shelfmark.json`));
  if (!config.store) throw new Error(`${data}: no PostgreSQL store in shelfmark.json`);
  return new pg.Pool({
    connectionString: config.store,
    options: `-c jit=off -c search_path=${config.machine ?? "public"}`,
    max: 1,
  });
}

/** Times each statement is replayed. */
const ROUNDS = 3;

/**
 * CPU milliseconds a local server's backend has spent (its `/proc` times: the server on this
 * machine), as a wall time is not under load.
 *
 * @param pid the backend's process id (`pg_backend_pid()`)
 */
async function backendCpu(pid: number): Promise<number> {
  const f = (await Deno.readTextFile(`/proc/${pid}/stat`)).split(") ")[1]!.split(" ");
  // utime and stime, fields 14 and 15 of stat, in ticks of 10 ms
  return (Number(f[11]) + Number(f[12])) * 10;
}

/** Kinds of statement, by a mark of their text (the first that matches). */
const KINDS: [string, RegExp][] = [
  ["document ranking, bounded (topRankSql)", /::float8 \* total\)/],
  ["document ranking, every document (rankSql)", /n AS \(SELECT ph, count\(\*\)/],
  ["passage ranking (passageRankSql)", /PARTITION BY s\.doc/],
  ["phrase rows (phraseRowsSql)", /array_agg\(doc ORDER BY doc, col\)/],
  ["phrase passage counts (phraseCountSql)", /SELECT DISTINCT doc, seq/],
];

/** A node of an `EXPLAIN (ANALYZE, FORMAT JSON)` plan. */
interface PlanNode {
  "Node Type": string;
  "Actual Rows"?: number;
  "Actual Loops"?: number;
  Plans?: PlanNode[];
}

/**
 * Rows the aggregations of an analysed plan read (the input rows of every `Aggregate`
 * node, over all its loops): what a ranking statement sums, by document and by passage.
 *
 * @example
 * ```ts
 * import { rowsAggregated } from "./pg_statements.ts";
 * import assert from "node:assert/strict";
 * const scan = { "Node Type": "Seq Scan", "Actual Rows": 40, "Actual Loops": 2 };
 * const agg = { "Node Type": "Aggregate", "Actual Rows": 3, "Actual Loops": 1, Plans: [scan] };
 * assert.equal(rowsAggregated({ "Node Type": "Limit", Plans: [agg] }), 80);
 * ```
 */
export function rowsAggregated(node: PlanNode): number {
  const input = node["Node Type"] === "Aggregate"
    ? (node.Plans ?? []).reduce((s, c) => s + (c["Actual Rows"] ?? 0) * (c["Actual Loops"] ?? 1), 0)
    : 0;
  return (node.Plans ?? []).reduce((s, c) => s + rowsAggregated(c), input);
}

/** A statement's kind ({@link KINDS}), else its first words. */
function kindOf(text: string): string {
  return KINDS.find(([, re]) => re.test(text))?.[0] ??
    text.replace(/\s+/g, " ").trim().slice(0, 50);
}

if (import.meta.main) {
  const { data, questions } = await benchArgs("pg_statements.ts");
  const searches = await sentStatements(data, questions, 2);
  const db = await storePool(data);
  const pid = (await db.query("SELECT pg_backend_pid() AS pid")).rows[0].pid;
  const tally = new Map<
    string,
    { n: number; plan: number; exec: number; cpu: number; prep: number; rows: number }
  >();
  for (const sent of searches) {
    for (const s of sent) {
      let plan = Infinity, exec = Infinity, rows = 0;
      const cpu = await backendCpu(pid);
      for (let i = 0; i < ROUNDS; i++) {
        const r = await db.query(
          `EXPLAIN (ANALYZE, TIMING OFF, SUMMARY, FORMAT JSON) ${s.text}`,
          s.values,
        );
        const x = r.rows[0]["QUERY PLAN"][0];
        plan = Math.min(plan, x["Planning Time"]);
        exec = Math.min(exec, x["Execution Time"]);
        rows = rowsAggregated(x.Plan);
      }
      const k = kindOf(s.text);
      const t = tally.get(k) ?? { n: 0, plan: 0, exec: 0, cpu: 0, prep: 0, rows: 0 };
      t.n++;
      t.rows += rows;
      t.plan += plan;
      t.exec += exec;
      t.cpu += (await backendCpu(pid) - cpu) / ROUNDS;
      // parsed, bound and planned only
      const prep = await backendCpu(pid);
      for (let i = 0; i < ROUNDS; i++) await db.query(`EXPLAIN ${s.text}`, s.values);
      t.prep += (await backendCpu(pid) - prep) / ROUNDS;
      tally.set(k, t);
    }
  }
  await db.end();
  const per = (ms: number) => (ms / searches.length).toFixed(2);
  console.log(
    `| statement (${searches.length} searches) | sent | planning ms | execution ms | ` +
      `planning + execution a search, ms | server CPU a search, ms | of which parse, bind, plan | ` +
      `rows aggregated a search |`,
  );
  console.log("| --- | --- | --- | --- | --- | --- | --- | --- |");
  const rows = [...tally].sort((a, b) => b[1].plan + b[1].exec - a[1].plan - a[1].exec);
  let all = 0, cpu = 0, prep = 0, aggregated = 0;
  const perRows = (n: number) => Math.round(n / searches.length).toLocaleString("en-US");
  for (const [k, t] of rows) {
    all += t.plan + t.exec;
    cpu += t.cpu;
    prep += t.prep;
    aggregated += t.rows;
    console.log(
      `| ${k} | ${t.n} | ${t.plan.toFixed(0)} | ${t.exec.toFixed(0)} | ${per(t.plan + t.exec)} | ${
        per(t.cpu)
      } | ${per(t.prep)} | ${perRows(t.rows)} |`,
    );
  }
  console.log(
    `| all | | | | ${per(all)} | ${per(cpu)} | ${per(prep)} | ${perRows(aggregated)} |`,
  );
}
