// scratch: time each SQL statement of the PostgreSQL keyword search over the dev questions
import { Shelf } from "./shelf/shelf.ts";
import { partsOf } from "./shelf/_parts.ts";
import { prepareQuery } from "./search/query.ts";
import { devQuestions } from "./bench/agent_cost.ts";
import pg from "pg";
const data = Deno.args[0]!;
const qs = (await devQuestions("/work/wt/shared")).map((q) => q.question);
const shelf = await Shelf.open({ data, log: () => {}, embedder: "none", workers: 0 });
const kw = partsOf(shelf).keyword;
const times = new Map<string, number[]>();
const orig = pg.Pool.prototype.query;
// deno-lint-ignore no-explicit-any
(pg.Pool.prototype as any).query = async function (this: any, sql: any, params: any) {
  const t = performance.now();
  const r = await orig.call(this, sql, params);
  const key = typeof sql === "string" ? (sql.includes("passages") && sql.includes("plens") ? "passages" : sql.includes("kw_totals") && sql.includes("hits") ? "rank" : sql.slice(0, 30)) : "?";
  const l = times.get(key) ?? [];
  l.push(performance.now() - t);
  times.set(key, l);
  return r;
};
for (const q of qs) await kw.search(prepareQuery(q, 10)).catch((e) => console.error(e.message));
times.clear();
const t0 = performance.now();
for (const q of qs) await kw.search(prepareQuery(q, 10)).catch((e) => console.error(e.message));
console.log("total ms/q", ((performance.now() - t0) / qs.length).toFixed(1));
for (const [k, l] of times) {
  l.sort((a, b) => a - b);
  console.log(k.replace(/\s+/g, " "), l.length, "sum", l.reduce((a, b) => a + b, 0).toFixed(0), "p50", l[l.length >> 1]!.toFixed(1), "max", l.at(-1)!.toFixed(1));
}
await shelf.close();
