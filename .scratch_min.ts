import { Shelf } from "./shelf/shelf.ts";
import { partsOf } from "./shelf/_parts.ts";
import { prepareQuery } from "./search/query.ts";
import { devQuestions } from "./bench/agent_cost.ts";
import pg from "pg";
const data = Deno.args[0]!;
const n = Number(Deno.args[1] ?? 20);
const reps = Number(Deno.args[2] ?? 5);
const qs = (await devQuestions("/work/wt/shared")).map((q) => q.question);
const shelf = await Shelf.open({ data, log: () => {}, embedder: "none", workers: 0 });
const kw = partsOf(shelf).keyword;
const orig = pg.Pool.prototype.query;
const mins = new Map<string, number>();
// deno-lint-ignore no-explicit-any
(pg.Pool.prototype as any).query = async function (this: any, sql: any, params: any) {
  const key = typeof sql === "string" ? (sql.includes("plens") && sql.includes("ppostings") ? "passages" : sql.includes("kw_totals") && sql.includes("hits") ? "rank" : "other") : "other";
  let best = Infinity, r;
  for (let i = 0; i < (key === "other" ? 1 : reps); i++) {
    const t = performance.now();
    r = await orig.call(this, sql, params);
    best = Math.min(best, performance.now() - t);
  }
  mins.set(key, (mins.get(key) ?? 0) + best);
  return r;
};
for (const q of qs.slice(0, n)) await kw.search(prepareQuery(q, 10)).catch((e) => console.error(e.message));
console.log([...mins].map(([k, v]) => `${k} ${(v / n).toFixed(1)} ms/q (min of ${reps})`).join("; "));
await shelf.close();
