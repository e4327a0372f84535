/**
 * Two choosers of the answering sentence, side by side on the dev questions: by words
 * (`lexicalScores`) and by the built-in sentence model (Universal Sentence Encoder lite,
 * cosine to the query), and the two fused by rank. For each question the top-5 search hits
 * with up to three passages each give the candidates (at most {@link CANDIDATES} sentences
 * a hit); a chooser "shows the evidence" when one of its five answers holds the first or
 * the last five words of the evidence. Time per query is the chooser's own (scoring; for
 * the model, embedding the query and the candidates), CPU-bound.
 *
 * `deno run -A bench/sentence_choice.ts DATA_DIR [QUESTIONS]` (the first QUESTIONS dev
 * questions whose target is indexed; all by default) on an index built with
 * `shelfmark index <corpus>/<library>... --data DATA_DIR` (keyword-only is enough).
 *
 * @module
 */
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { callTool } from "../server/dispatch.ts";
import { Shelf } from "../shelf/shelf.ts";
import { partsOf } from "../shelf/_parts.ts";
import { parseQuery, positiveTerms } from "../search/query.ts";
import {
  type Candidate,
  chooseSentence,
  cosineScores,
  lexicalScores,
  sentencesOf,
} from "../search/sentence.ts";
import { UseEmbedder } from "../embedders/use.ts";
import { devQuestions, evidenceKeys, plain } from "./agent_cost.ts";

/** Candidate sentences of one hit, at most. */
const CANDIDATES = 48;

/** Reciprocal-rank fusion of score lists (k = 60). */
function fused(...lists: number[][]): number[] {
  const out = lists[0]!.map(() => 0);
  for (const scores of lists) {
    const order = scores.map((s, i) => ({ s, i })).sort((a, b) => b.s - a.s);
    order.forEach(({ i }, rank) => out[i]! += 1 / (60 + rank));
  }
  return out;
}

if (import.meta.main) {
  const data = Deno.args[0];
  const most = Number(Deno.args[1] ?? Infinity);
  if (!data || !(most > 0)) {
    console.error("usage: deno run -A bench/sentence_choice.ts DATA_DIR [QUESTIONS]");
    Deno.exit(2);
  }
  const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
  const shared = Deno.env.get("SHELFMARK_SHARED") ?? resolve(repo, "..", "shared");
  const shelf = await Shelf.open({ data, log: () => {}, embedder: "none", workers: 0 });
  const model = new UseEmbedder();
  await model.embed(["warm up"], "query");
  const names = ["lexical", "model", "fused"] as const;
  const shownBy = { lexical: 0, model: 0, fused: 0 };
  const ms = { lexical: [] as number[], model: [] as number[] };
  let n = 0;
  for (const q of await devQuestions(shared)) {
    if (n >= most) break;
    const targets = [q.target, ...q.alt_targets];
    if (!targets.some((p) => partsOf(shelf).catalog.idByPath(p))) continue;
    n++;
    const terms = positiveTerms(parseQuery(q.question));
    const js = await callTool(shelf, "search", {
      query: q.question,
      limit: 5,
      limit_passages: 3,
      mode: "keyword",
      output_format: "json",
    });
    const hits = js.json.results as {
      doc_id: string;
      passages?: { start_line: number; end_line: number }[];
    }[];
    const answers = { lexical: [] as string[], model: [] as string[], fused: [] as string[] };
    let lexMs = 0;
    let modelMs = 0;
    for (const [i, h] of hits.entries()) {
      const cands: Candidate[] = [];
      for (const p of h.passages ?? []) {
        const lines = (await shelf.readLines(h.doc_id, {
          offset: p.start_line,
          limit: Math.min(300, p.end_line - p.start_line + 1),
        })).lines;
        const base = cands.length ? cands.at(-1)!.paragraph + 1 : 0;
        cands.push(...sentencesOf(lines).map((s) => ({ ...s, paragraph: base + s.paragraph })));
      }
      cands.length = Math.min(cands.length, CANDIDATES);
      if (!cands.length) continue;
      const max = i < 3 ? 240 : 100;
      let t = performance.now();
      const lex = lexicalScores(cands, terms);
      lexMs += performance.now() - t;
      t = performance.now();
      const [qv, ...vs] = await model.embed([q.question, ...cands.map((c) => c.text)], "query");
      const cos = cosineScores(qv!, vs);
      modelMs += performance.now() - t;
      const pick = (scores: number[]) => chooseSentence(cands, scores, terms, max)?.text ?? "";
      answers.lexical.push(pick(lex));
      answers.model.push(pick(cos.map((c) => c + 1)));
      answers.fused.push(pick(fused(lex, cos)));
    }
    ms.lexical.push(lexMs);
    ms.model.push(modelMs);
    const keys = evidenceKeys(q.evidence);
    for (const name of names) {
      const text = plain(answers[name].join("\n"));
      if (keys.some((k) => text.includes(k))) shownBy[name]++;
    }
  }
  const p = (xs: number[], k: number) =>
    [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(k * xs.length))] ?? 0;
  console.log("| chooser | evidence in the five answers | ms per query p50 / p95 |");
  console.log("| --- | --- | --- |");
  for (const name of names) {
    const t = name === "lexical"
      ? ms.lexical
      : name === "model"
      ? ms.model
      : ms.model.map((m, i) => m + ms.lexical[i]!);
    console.log(
      `| ${name} | ${(shownBy[name] / Math.max(n, 1)).toFixed(2)} of ${n} | ${
        p(t, 0.5).toFixed(1)
      } / ${p(t, 0.95).toFixed(1)} |`,
    );
  }
  model.close();
  await shelf.close();
}
