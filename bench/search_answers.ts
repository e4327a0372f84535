/**
 * The answers of keyword search to the 80 dev questions, to check that a change to the
 * search path leaves them as they were: each question's `search` answer (`limit` 10, JSON,
 * as `bench/search_cpu.ts` asks) written to a file, and two such files compared (every
 * question whose answer differs is listed with the first hits of both).
 *
 * `--repo DIR` runs another checkout's code (say main's, read-only) on the same index, for
 * the answers before a change.
 *
 * ```
 * deno run -A bench/search_answers.ts DATA_DIR OUT.json [--repo DIR] [--mode keyword]
 * deno run -A bench/search_answers.ts --compare BEFORE.json AFTER.json
 * ```
 *
 * @module
 */
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { devQuestions } from "./agent_cost.ts";

/** One question's answer, as the tool gave it. */
export interface Answer {
  query: string;
  answer: unknown;
}

/** The answers of a checkout's code to some questions, on an index. */
export async function answers(
  repo: string,
  data: string,
  queries: string[],
  mode: string,
): Promise<Answer[]> {
  const { Shelf } = await import(resolve(repo, "shelf/shelf.ts"));
  const { callTool } = await import(resolve(repo, "server/dispatch.ts"));
  const shelf = await Shelf.open({ data, log: () => {}, embedder: "none", workers: 0 });
  try {
    const out: Answer[] = [];
    for (const query of queries) {
      const args = { query, limit: 10, output_format: "json", mode };
      out.push({ query, answer: await callTool(shelf, "search", args) });
    }
    return out;
  } finally {
    await shelf.close();
  }
}

/** The doc ids of an answer's hits, in order (for the listing). */
function hitIds(answer: unknown): string[] {
  const text = JSON.stringify(answer);
  return [...text.matchAll(/"doc_id":"([^"]+)"/g)].map((m) => m[1]!);
}

/** An answer as compared: its JSON with the time it was given (`now=`) left out. */
function comparable(answer: unknown): string {
  return JSON.stringify(answer).replace(/\bnow=[0-9TZ:.-]+/g, "now=")
    .replace(/"now":"[0-9TZ:.-]+"/g, '"now":""');
}

/**
 * The questions whose answers differ between two lists (same questions, same order), the
 * time each was given left out.
 *
 * @example
 * ```ts
 * import { differences } from "./search_answers.ts";
 * import assert from "node:assert/strict";
 * const a = [{ query: "x", answer: { hits: [1, 2] } }, { query: "y", answer: { now: "2026-11-27T05:59:17Z" } }];
 * const b = [{ query: "x", answer: { hits: [2, 1] } }, { query: "y", answer: { now: "2026-11-27T06:01:00Z" } }];
 * assert.deepEqual(differences(a, b), ["x"]);
 * ```
 */
export function differences(before: Answer[], after: Answer[]): string[] {
  if (before.length !== after.length) {
    throw new Error(`${before.length} answers before, ${after.length} after`);
  }
  return before.filter((b, i) => {
    if (b.query !== after[i]!.query) throw new Error(`question ${i} differs: ${b.query}`);
    return comparable(b.answer) !== comparable(after[i]!.answer);
  }).map((b) => b.query);
}

if (import.meta.main) {
  const { values, positionals } = parseArgs({
    args: Deno.args,
    options: {
      repo: { type: "string" },
      mode: { type: "string", default: "keyword" },
      compare: { type: "boolean", default: false },
    },
    allowPositionals: true,
  });
  const [a, b] = positionals;
  if (!a || !b) {
    console.error(
      "usage: search_answers.ts DATA_DIR OUT.json [--repo DIR] | --compare BEFORE.json AFTER.json",
    );
    Deno.exit(2);
  }
  const here = resolve(dirname(fileURLToPath(import.meta.url)), "..");
  if (values.compare) {
    const before: Answer[] = JSON.parse(await Deno.readTextFile(a));
    const after: Answer[] = JSON.parse(await Deno.readTextFile(b));
    const diff = differences(before, after);
    const at = new Map(after.map((x) => [x.query, x]));
    for (const [i, x] of before.entries()) {
      if (!diff.includes(x.query)) continue;
      console.log(`#${i + 1} ${x.query}`);
      console.log(`  before: ${hitIds(x.answer).join(" ")}`);
      console.log(`  after:  ${hitIds(at.get(x.query)!.answer).join(" ")}`);
    }
    console.log(`${diff.length} of ${before.length} answers differ`);
    Deno.exit(diff.length ? 1 : 0);
  }
  const shared = Deno.env.get("SHELFMARK_SHARED") ?? resolve(here, "..", "shared");
  const queries = (await devQuestions(shared)).map((q) => q.question);
  const out = await answers(resolve(values.repo ?? here), a, queries, values.mode!);
  await Deno.writeTextFile(b, JSON.stringify(out, null, 1));
  console.log(`${out.length} answers written to ${b}`);
}
