/**
 * Vector measures for `deno task bench`: time until every document has a vector,
 * documents embedded per second, vector table size, and Recall@5/@10, MRR and latency of
 * the keyword, semantic and hybrid modes side by side.
 *
 * Standalone on an index built before: `deno run -A bench/vectors_bench.ts DATA_DIR`.
 */
import { join, resolve } from "node:path";
import type { Shelf } from "../shelf/shelf.ts";
import { callTool } from "../server/dispatch.ts";

import type { Question } from "./agent_cost.ts";
import { partsOf } from "../shelf/_parts.ts";

/** Quality and latency of one search mode. */
export interface ModeStats {
  mode: string;
  n: number;
  r1: number;
  r5: number;
  r10: number;
  mrr: number;
  p50: number;
  p95: number;
}

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
}

/** Wait for the vectors; returns seconds and documents per second. */
export async function vectorsReady(shelf: Shelf): Promise<{ seconds: number; rate: number }> {
  const v = partsOf(shelf).vectors;
  if (!v) return { seconds: 0, rate: 0 };
  const t0 = performance.now();
  const start = v.embeddedCount;
  v.kick();
  await v.idle();
  const seconds = (performance.now() - t0) / 1000;
  return { seconds, rate: (v.embeddedCount - start) / Math.max(seconds, 1e-9) };
}

/** Recall and latency of each mode over the questions (each asked `rounds` times for latency). */
export async function modeStats(
  shelf: Shelf,
  questions: Question[],
  modes = ["keyword", "semantic", "hybrid"],
  rounds = 3,
): Promise<ModeStats[]> {
  const out: ModeStats[] = [];
  for (const mode of modes) {
    const s: ModeStats = { mode, n: 0, r1: 0, r5: 0, r10: 0, mrr: 0, p50: 0, p95: 0 };
    const ms: number[] = [];
    for (let round = 0; round < rounds; round++) {
      for (const q of questions) {
        const t = performance.now();
        const r = await callTool(shelf, "search", {
          query: q.question,
          mode,
          limit: 10,
          output_format: "json",
        });
        ms.push(performance.now() - t);
        if (round > 0) continue;
        const targets = new Set([q.target, ...q.alt_targets]);
        const rank = (r.json.results as { path: string }[]).findIndex((h) => targets.has(h.path)) +
          1;
        s.n++;
        if (rank >= 1) {
          s.r1 += rank <= 1 ? 1 : 0;
          s.r5 += rank <= 5 ? 1 : 0;
          s.r10 += 1;
          s.mrr += 1 / rank;
        }
      }
    }
    s.r1 /= Math.max(s.n, 1);
    s.r5 /= Math.max(s.n, 1);
    s.r10 /= Math.max(s.n, 1);
    s.mrr /= Math.max(s.n, 1);
    s.p50 = pct(ms, 50);
    s.p95 = pct(ms, 95);
    out.push(s);
  }
  return out;
}

/** Markdown table of the modes. */
export function modeTable(stats: ModeStats[]): string {
  const f = (x: number) => x.toFixed(2);
  return [
    "| mode | questions | Recall@1 | Recall@5 | Recall@10 | MRR | p50 ms | p95 ms |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ...stats.map((s) =>
      `| ${s.mode} | ${s.n} | ${f(s.r1)} | ${f(s.r5)} | ${f(s.r10)} | ${f(s.mrr)} | ${f(s.p50)} | ${
        f(s.p95)
      } |`
    ),
  ].join("\n");
}

/** The evaluation questions whose targets are indexed. */
export async function loadQuestions(shared: string, shelf: Shelf): Promise<Question[]> {
  return (await Deno.readTextFile(join(shared, "eval", "questions.dev.jsonl")))
    .split("\n").filter(Boolean).map((l) => JSON.parse(l) as Question)
    .filter((q) => [q.target, ...q.alt_targets].some((p) => partsOf(shelf).catalog.idByPath(p)));
}

if (import.meta.main) {
  const { Shelf } = await import("../shelf/shelf.ts");
  const shelf = await Shelf.open({ data: resolve(Deno.args[0]!), log: () => {} });
  const shared = Deno.env.get("SHELFMARK_SHARED") ??
    resolve(new URL(".", import.meta.url).pathname, "..", "..", "shared");
  const ready = await vectorsReady(shelf);
  console.error(`vectors ready after ${ready.seconds.toFixed(1)} s`);
  console.log(modeTable(await modeStats(shelf, await loadQuestions(shared, shelf))));
  await shelf.close();
}
