/**
 * Search across machines against one machine holding the same documents: the dev questions
 * asked of two PostgreSQL-backed data folders' keyword indexes (10 hits each), one whose
 * store holds its documents in several machines' schemas (searched across machines), one
 * whose store holds them all in its own; the hits compared by path (the other machines'
 * `machine:` taken off) and by raw BM25 score. Fill them with `bench/pg_fill.ts` from the
 * same catalog (the same cards, so the same keywords), for instance machine `a` with
 * library `html` and machine `b` with `text` into one database, machine `c` with both into
 * another.
 *
 *   deno run -A bench/pg_across.ts ACROSS_DATA ONE_DATA
 *
 * @module
 */
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Shelf } from "../shelf/shelf.ts";
import { partsOf } from "../shelf/_parts.ts";
import { prepareQuery } from "../search/query.ts";
import { devQuestions } from "./agent_cost.ts";

const [across, one] = Deno.args;
if (!across || !one) {
  console.error("usage: deno run -A bench/pg_across.ts ACROSS_DATA ONE_DATA");
  Deno.exit(2);
}
const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const shared = Deno.env.get("SHELFMARK_SHARED") ?? resolve(repo, "..", "shared");
const questions = (await devQuestions(shared)).map((q) => q.question);
const open = (data: string) => Shelf.open({ data, log: () => {}, embedder: "none", workers: 0 });
const [a, b] = [await open(across), await open(one)];

/** A question's hits: paths without machine, and raw scores. */
async function hits(shelf: Shelf, q: string) {
  const found = await partsOf(shelf).keyword.search(prepareQuery(q, 10));
  const cards = await partsOf(shelf).store.cards(found.map((h) => h.doc_id));
  return found.map((h) => ({
    path: cards.get(h.doc_id)!.path.replace(/^[a-z0-9_-]+:/, ""),
    raw: h.raw!,
  }));
}

try {
  let same = 0;
  let maxDiff = 0;
  for (const q of questions) {
    const [x, y] = [await hits(a, q), await hits(b, q)];
    if (JSON.stringify(x.map((h) => h.path)) === JSON.stringify(y.map((h) => h.path))) same++;
    else {console.log(`differs: ${q}\n  across ${
        x.map((h) => h.path)
      }\n  one    ${y.map((h) => h.path)}`);}
    for (const h of x) {
      const o = y.find((g) => g.path === h.path);
      if (o) maxDiff = Math.max(maxDiff, Math.abs(o.raw - h.raw));
    }
  }
  console.log(
    `${same} of ${questions.length} questions: the same hits in the same order; ` +
      `largest raw score difference ${maxDiff.toExponential(2)}`,
  );
} finally {
  await a.close();
  await b.close();
}
