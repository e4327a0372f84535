import { Shelf } from "./shelf/shelf.ts";
import { partsOf } from "./shelf/_parts.ts";
import { prepareQuery } from "./search/query.ts";
import { devQuestions } from "./bench/agent_cost.ts";
import pg from "pg";
const data = Deno.args[0]!;
const which = Deno.args[1] ?? "passages";
const n = Number(Deno.args[2] ?? 3);
const qs = (await devQuestions("/work/wt/shared")).map((q) => q.question);
const shelf = await Shelf.open({ data, log: () => {}, embedder: "none", workers: 0 });
const kw = partsOf(shelf).keyword;
const orig = pg.Pool.prototype.query;
let want = false;
// deno-lint-ignore no-explicit-any
(pg.Pool.prototype as any).query = async function (this: any, sql: any, params: any) {
  const key = typeof sql === "string" ? (sql.includes("plens") && sql.includes("ppostings") ? "passages" : sql.includes("kw_totals") && sql.includes("hits") ? "rank" : "") : "";
  if (want && key === which) {
    await orig.call(this, sql, params); await orig.call(this, sql, params); const r = await orig.call(this, "EXPLAIN (ANALYZE, BUFFERS) " + sql, params);
    console.log(r.rows.map((x: any) => x["QUERY PLAN"]).join("\n"));
  }
  return await orig.call(this, sql, params);
};
for (const q of qs.slice(0, n)) { want = true; console.log("###", q); await kw.search(prepareQuery(q, 10)).catch((e) => console.error(e.message)); }
await shelf.close();
