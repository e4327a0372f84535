/**
 * Option (A) of issue #28's keyword p95: FTS5's `bm25()` recounts, on every statement, the
 * rows matching each phrase of the query over the whole table (its IDF). `bm25c()`, a C
 * auxiliary function (`bench/fts5_rank_ext/bm25c.c`, built by `build.sh`), computes the same
 * score from counts the caller passes. This bench asks the 80 dev questions as
 * `bench/search_cpu.ts` does, records every `bm25()` statement the search runs (SQL and
 * parameters), then replays each with `bm25()` and with `bm25c()` given the phrases' counts
 * (read once with `phrase_hits()`, as a cache kept between queries would hold them),
 * alternating, and reports: whether the rows and scores are bit-identical, and the CPU per
 * question of the `bm25()` statements either way (`process.cpuUsage`: the machine is shared).
 *
 * `deno run -A bench/fts5_rank_ext.ts DATA_DIR [--rounds 5]` (build the extension first;
 * DATA_DIR is only read)
 *
 * @module
 */
import { DatabaseSync, type SQLInputValue, type StatementSync } from "node:sqlite";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { callTool } from "../server/dispatch.ts";
import { Shelf } from "../shelf/shelf.ts";
import { devQuestions } from "./agent_cost.ts";
import { pct } from "./stats.ts";

/** One `bm25()` statement a search ran. */
interface Ran {
  sql: string;
  params: SQLInputValue[];
}

/** CPU ms of this process so far (user + system). */
function ownCpu(): number {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
}

/** The `bm25()` statements each question's search runs, and its CPU per call (median). */
async function capture(data: string, queries: string[], rounds: number) {
  const ran: Ran[][] = queries.map(() => []);
  let current: Ran[] | undefined;
  const proto = DatabaseSync.prototype;
  const prepare = proto.prepare;
  // only this bench's process: every statement prepared from here on reports its bm25 runs
  proto.prepare = function (this: DatabaseSync, sql: string) {
    const st = prepare.call(this, sql);
    if (!sql.includes("bm25(")) return st;
    const all = st.all.bind(st);
    st.all = ((...params: SQLInputValue[]) => {
      current?.push({ sql, params });
      return all(...params);
    }) as typeof st.all;
    return st;
  } as typeof proto.prepare;
  const cpu: number[][] = queries.map(() => []);
  const shelf = await Shelf.open({ data, log: () => {}, embedder: "none", workers: 0 });
  try {
    for (let r = 0; r <= rounds; r++) {
      for (const [i, query] of queries.entries()) {
        current = r === 0 ? ran[i] : undefined;
        const c0 = ownCpu();
        await callTool(shelf, "search", {
          query,
          limit: 10,
          output_format: "json",
          mode: "keyword",
        });
        if (r > 0) cpu[i]!.push(ownCpu() - c0);
      }
    }
  } finally {
    current = undefined;
    proto.prepare = prepare;
    await shelf.close();
  }
  return { ran, cpu: cpu.map((c) => pct(c, 50)) };
}

/** The table a statement ranks, the MATCH parameter's index, and where its weights end. */
function parts(sql: string) {
  const m = /bm25\((docs_fts|passages_fts),([^)]*)\)/.exec(sql)!;
  const end = m.index + m[0].length - 1;
  const before = (sql.slice(0, end).match(/\?/g) ?? []).length;
  const matchAt = (sql.match(/\?/g) ?? []).length &&
    (sql.slice(0, sql.indexOf("MATCH ?")).match(/\?/g) ?? []).length;
  return { table: m[1]!, end, before, matchAt };
}

function main() {
  const { values, positionals } = parseArgs({
    args: Deno.args,
    allowPositionals: true,
    options: { rounds: { type: "string", default: "5" } },
  });
  const data = positionals[0];
  if (!data) {
    console.error("usage: deno run -A bench/fts5_rank_ext.ts DATA_DIR [--rounds 5]");
    Deno.exit(2);
  }
  return { data, rounds: Number(values.rounds) };
}

if (import.meta.main) {
  const { data, rounds } = main();
  const shared = Deno.env.get("SHELFMARK_SHARED") ?? join(import.meta.dirname!, "../../shared");
  const queries = (await devQuestions(shared)).map((q) => q.question);
  const { ran, cpu } = await capture(data, queries, 3);
  const db = new DatabaseSync(join(data, "catalog.db"), { readOnly: true, allowExtension: true });
  db.loadExtension(new URL("./fts5_rank_ext/bm25c.so", import.meta.url).pathname);
  const stmts = new Map<string, StatementSync>();
  const q = (sql: string) => {
    let st = stmts.get(sql);
    if (!st) stmts.set(sql, st = db.prepare(sql));
    return st;
  };
  const counts = new Map<string, number[]>();
  /**
   * The statement with bm25c() and each phrase's count (from the cache); `skip`: the
   * passage query's document tokens (its last phrases, in the weight-0 `doc` column) marked
   * to be left out (-1).
   */
  const withCounts = (r: Ran, skip = false): Ran => {
    const p = parts(r.sql);
    const match = r.params[p.matchAt] as string;
    const key = `${p.table}\u0000${match}`;
    let c = counts.get(key);
    if (!c) {
      const row = q(
        `SELECT phrase_hits(${p.table}) AS h FROM ${p.table} WHERE ${p.table} MATCH ? LIMIT 1`,
      )
        .get(match);
      c = String(row!.h).split(",").map(Number);
      counts.set(key, c);
    }
    const docs = /doc : \((.*)\)$/.exec(match)?.[1]?.split(" OR ").length ?? 0;
    if (skip && p.table === "passages_fts" && docs) {
      c = [...c.slice(0, c.length - docs), ...c.slice(c.length - docs).map(() => -1)];
    }
    const sql = `${r.sql.slice(0, p.end).replace("bm25(", "bm25c(")}${", ?".repeat(c.length)}${
      r.sql.slice(p.end)
    }`;
    return { sql, params: [...r.params.slice(0, p.before), ...c, ...r.params.slice(p.before)] };
  };
  const fast = ran.map((rs) => rs.map((r) => withCounts(r)));
  const skipped = ran.map((rs) => rs.map((r) => withCounts(r, true)));
  // identical rows and bit-identical scores
  let rowsCompared = 0;
  const differ: string[] = [];
  for (const [i, rs] of ran.entries()) {
    for (const [k, r] of rs.entries()) {
      const a = q(r.sql).all(...r.params);
      rowsCompared += a.length;
      for (const [name, v] of [["bm25c", fast], ["bm25c skip", skipped]] as const) {
        const b = q(v[i]![k]!.sql).all(...v[i]![k]!.params);
        const same = a.length === b.length &&
          a.every((x, j) => Object.entries(x).every(([f, v]) => Object.is(v, b[j]![f])));
        if (!same) differ.push(`${name}: ${queries[i]} (statement ${k})`);
      }
    }
  }
  // CPU of each question's bm25 statements, both ways, alternating
  const time = (rs: Ran[]) => {
    const c0 = ownCpu();
    for (const r of rs) q(r.sql).all(...r.params);
    return ownCpu() - c0;
  };
  // the floor of any ranking function: the same statements scoring nothing (weights unused)
  const unranked = ran.map((rs) =>
    rs.map((r) => ({
      ...r,
      sql: r.sql.replace(/bm25\((?:docs_fts|passages_fts),([^)]*)\)/, "(0 * max($1))"),
    }))
  );
  const variants = [ran, fast, skipped, unranked];
  const spent = variants.map(() => queries.map((): number[] => []));
  for (let round = 0; round < rounds; round++) {
    for (const i of queries.keys()) {
      // each round starts with another variant
      for (let k = 0; k < variants.length; k++) {
        const v = (k + round) % variants.length;
        spent[v]![i]!.push(time(variants[v]![i]!));
      }
    }
  }
  const [bm25, bm25c, bm25s, none] = spent.map((xs) => xs.map((x) => pct(x, 50))) as [
    number[],
    number[],
    number[],
    number[],
  ];
  const saved = bm25.map((x, i) => x - bm25c[i]!);
  const after = cpu.map((x, i) => x - saved[i]!);
  const savedS = bm25.map((x, i) => x - bm25s[i]!);
  const afterS = cpu.map((x, i) => x - savedS[i]!);
  const f = (xs: number[]) => `${pct(xs, 50).toFixed(1)} / ${pct(xs, 95).toFixed(1)}`;
  const nStmt = ran.reduce((s, r) => s + r.length, 0);
  console.log(
    `${queries.length} questions, ${nStmt} bm25 statements, ${rowsCompared} rows compared`,
  );
  console.log(`rows and scores bit-identical: ${differ.length ? "NO" : "yes"}`);
  for (const d of differ) console.log(`  differs: ${d}`);
  console.log(`CPU ms per question, p50 / p95 (median of ${rounds} alternating rounds):`);
  console.log(`  bm25() statements:            ${f(bm25)}`);
  console.log(`  bm25c() statements (counted): ${f(bm25c)}`);
  console.log(`  saved per question:           ${f(saved)}`);
  console.log(`  whole search today:           ${f(cpu)}`);
  console.log(`  whole search, projected:      ${f(after)}`);
  console.log(`  bm25c(), doc tokens skipped:  ${f(bm25s)}`);
  console.log(`  saved per question:           ${f(savedS)}`);
  console.log(`  whole search, projected:      ${f(afterS)}`);
  console.log(`  no ranking at all (floor):    ${f(none)}`);
  db.close();
}
