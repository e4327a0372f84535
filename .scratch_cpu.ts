// capture the keyword search's SQL over the dev questions, replay it on one connection,
// and read that backend's CPU time from /proc
import { Shelf } from "./shelf/shelf.ts";
import { partsOf } from "./shelf/_parts.ts";
import { prepareQuery } from "./search/query.ts";
import { devQuestions } from "./bench/agent_cost.ts";
import pg from "pg";
const data = Deno.args[0]!;
const url = Deno.args[1]!;
const reps = Number(Deno.args[2] ?? 3);
const qs = (await devQuestions("/work/wt/shared")).map((q) => q.question);
const shelf = await Shelf.open({ data, log: () => {}, embedder: "none", workers: 0 });
const kw = partsOf(shelf).keyword;
const orig = pg.Pool.prototype.query;
const captured: { key: string; sql: string; params: unknown[] }[] = [];
// deno-lint-ignore no-explicit-any
(pg.Pool.prototype as any).query = async function (this: any, sql: any, params: any) {
  const key = typeof sql === "string" ? (sql.includes("plens") && sql.includes("ppostings") ? "passages" : sql.includes("kw_totals") && sql.includes("hits") ? "rank" : "other") : "other";
  captured.push({ key, sql, params });
  return await orig.call(this, sql, params);
};
for (const q of qs) await kw.search(prepareQuery(q, 10)).catch((e) => console.error(e.message));
await shelf.close();
const c = new pg.Client({ connectionString: url, options: "-c max_parallel_workers_per_gather=0 -c jit=off" });
await c.connect();
const pid = (await c.query("SELECT pg_backend_pid() AS p")).rows[0].p;
const cpu = async () => {
  const f = (await Deno.readTextFile(`/proc/${pid}/stat`)).split(") ")[1]!.split(" ");
  return (Number(f[11]) + Number(f[12])) * 10;
};
for (const x of captured) await c.query(x.sql, x.params as unknown[]); // warm
const per = new Map<string, number>();
for (const key of ["rank", "passages", "other"]) {
  const mine = captured.filter((x) => x.key === key);
  const c0 = await cpu();
  for (let r = 0; r < reps; r++) for (const x of mine) await c.query(x.sql, x.params as unknown[]);
  per.set(key, (await cpu() - c0) / reps / qs.length);
}
console.log([...per].map(([k, v]) => `${k} ${v.toFixed(1)}`).join("; "), "server CPU ms per question");
await c.end();
