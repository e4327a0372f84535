/**
 * What a keyword search sends to PostgreSQL and gets back: the dev questions asked twice of
 * a data folder's keyword index (10 hits with snippets; the first pass meets every question
 * new, the second as asked before), with the round trips per search, the rows and bytes
 * that came back, the statements sent by name (prepared once per connection) and the
 * client's CPU per search; then the statements that cost the most wall time, by kind
 * (their first 90 characters). Every `query` of node-postgres is counted, the pool's and
 * a client's. For the server's side: `EXPLAIN (ANALYZE, BUFFERS)` of a statement, or
 * `log_executor_stats` (see docs/benchmarks.md, session 20).
 *
 *   deno run -A bench/pg_trips.ts DATA_DIR
 *
 * @module
 */
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
// @ts-types="@types/pg"
import pg from "pg";
import { Shelf } from "../shelf/shelf.ts";
import { partsOf } from "../shelf/_parts.ts";
import { prepareQuery } from "../search/query.ts";
import { devQuestions } from "./agent_cost.ts";

/** Counts of some statements. */
interface Sent {
  n: number;
  rows: number;
  /** Bytes of the rows as JSON (a `bytea` as its bytes' numbers: more than on the wire). */
  bytes: number;
  ms: number;
  named: number;
}

const data = Deno.args[0];
if (!data) {
  console.error("usage: deno run -A bench/pg_trips.ts DATA_DIR");
  Deno.exit(2);
}
const none = (): Sent => ({ n: 0, rows: 0, bytes: 0, ms: 0, named: 0 });
let all = none();
const kinds = new Map<string, Sent>();
type Query = (...args: unknown[]) => unknown;
const query = pg.Client.prototype.query as unknown as Query;
(pg.Client.prototype as unknown as { query: Query }).query = function (...args: unknown[]) {
  const first = args[0] as string | { text: string; name?: string };
  const text = typeof first === "string" ? first : first.text;
  const named = typeof first === "object" && first.name ? 1 : 0;
  const start = performance.now();
  const done = (res: unknown) => {
    const results = (Array.isArray(res) ? res : [res]) as pg.QueryResult[];
    const rows = results.reduce((s, r) => s + r.rows.length, 0);
    const bytes = JSON.stringify(results.map((r) => r.rows)).length;
    const kind = text.replace(/\s+/g, " ").trim().slice(0, 90);
    const k = kinds.get(kind) ?? none();
    kinds.set(kind, k);
    for (const s of [all, k]) {
      s.n++;
      s.rows += rows;
      s.bytes += bytes;
      s.ms += performance.now() - start;
      s.named += named;
    }
  };
  // the pool passes a callback; a client's own call gets a promise
  const at = args.findIndex((a) => typeof a === "function");
  if (at >= 0) {
    const callback = args[at] as (e: unknown, res: unknown) => unknown;
    args[at] = (e: unknown, res: unknown) => {
      if (!e && res) done(res);
      return callback(e, res);
    };
  }
  const out = query.apply(this, args);
  if (out instanceof Promise) out.then(done, () => {});
  return out;
};

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const shared = Deno.env.get("SHELFMARK_SHARED") ?? resolve(repo, "..", "shared");
const questions = (await devQuestions(shared)).map((q) => q.question);
const shelf = await Shelf.open({ data, log: () => {}, embedder: "none", workers: 0 });
try {
  const keyword = partsOf(shelf).keyword;
  for (const pass of ["new", "asked before"]) {
    all = none();
    kinds.clear();
    const cpu0 = process.cpuUsage();
    for (const q of questions) await keyword.search(prepareQuery(q, 10));
    const cpu = process.cpuUsage(cpu0);
    const per = (x: number) => (x / questions.length).toFixed(1);
    console.log(
      `${pass}: ${questions.length} searches; a search: ${per(all.n)} round trips ` +
        `(${per(all.named)} by name), ${per(all.rows)} rows, ${per(all.bytes / 1024)} KB as ` +
        `JSON, client CPU ${per((cpu.user + cpu.system) / 1000)} ms`,
    );
    const top = [...kinds].sort((a, b) => b[1].ms - a[1].ms).slice(0, 8);
    for (const [kind, s] of top) {
      console.log(
        `  ${s.n} x, ${s.rows} rows, ${(s.bytes / 1024).toFixed(0)} KB, ${
          s.ms.toFixed(0)
        } ms: ${kind}`,
      );
    }
  }
} finally {
  await shelf.close();
}
