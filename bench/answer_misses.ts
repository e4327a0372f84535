/**
 * Why the top-5 search answer does not show a dev question's evidence: each miss gets one
 * reason, the first that applies, in the order a search answer is built — the target is not
 * in the top 5; the evidence is not in the target's text as the bench matches it; it lies
 * outside the hit's best passage (in a lower passage of the hit, or in none); the answer
 * chose another sentence; the answer holds part of the evidence but not its first or last
 * five words (cut, or the evidence spans sentences). Each miss also says whether the
 * evidence spans lines, sits in a table row or list item, and where the hit ranks.
 *
 * Then, for the target hits whose best passage holds the evidence, where the words rank its
 * sentence among the passage's ({@link sentenceRanks}): a finer measure of the choice.
 *
 * `deno run -A bench/answer_misses.ts DATA_DIR [--mode keyword] [--half odd|even] [--verbose]`
 *
 * @module
 */
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { callTool } from "../server/dispatch.ts";
import { Shelf } from "../shelf/shelf.ts";
import { partsOf } from "../shelf/_parts.ts";
import {
  devQuestions,
  evidenceKeys,
  evidenceLines,
  halfOf,
  HALVES,
  plain,
  type Question,
} from "./agent_cost.ts";
import { parseQuery, positiveTerms } from "../search/query.ts";
import { lexicalScores, sentencesOf } from "../search/sentence.ts";

/** Why one question's evidence is not shown. */
export type MissReason =
  | "target not in top 5"
  | "evidence not found in the target's text"
  | "evidence in a lower passage of the hit"
  | "evidence outside the hit's best passages"
  | "another sentence chosen"
  | "evidence partly shown (cut or spans sentences)";

/** One miss, explained. */
export interface Miss {
  id: string;
  reason: MissReason;
  /** The target hit's rank (1-5), when it is in the top 5. */
  rank?: number;
  /** The evidence spans more than one line of the document. */
  spansLines?: boolean;
  /** The evidence is in a table row or a list item. */
  tableOrList?: boolean;
  /** The answer shown on the target hit. */
  answer?: string;
}

/** Four-word shingles of a plain text, for "partly shown". */
function shingles(s: string, n = 4): Set<string> {
  const w = s.split(" ");
  const out = new Set<string>();
  for (let i = 0; i + n <= w.length; i++) out.add(w.slice(i, i + n).join(" "));
  return out;
}

/**
 * Explain each dev question whose evidence the top-5 answer does not show.
 *
 * @param shelf an indexed shelf of the corpus
 * @param questions the dev questions
 * @param mode search mode
 * @returns one entry per miss
 */
export async function answerMisses(
  shelf: Shelf,
  questions: Question[],
  mode: "keyword" | "hybrid" = "keyword",
): Promise<{ asked: number; misses: Miss[] }> {
  const misses: Miss[] = [];
  let asked = 0;
  for (const q of questions) {
    const targets = new Set([q.target, ...q.alt_targets]);
    if (![...targets].some((p) => partsOf(shelf).catalog.idByPath(p))) continue;
    asked++;
    const md = await callTool(shelf, "search", { query: q.question, limit: 5, mode });
    if (evidenceKeys(q.evidence).some((k) => plain(md.text).includes(k))) continue;
    // The answers as shown (one passage a hit); then the hits' five best passages (the
    // answer is chosen among the passages asked for, so only their ranges are used).
    const json = async (limit_passages: number) =>
      (await callTool(shelf, "search", {
        query: q.question,
        limit: 5,
        mode,
        limit_passages,
        output_format: "json",
      })).json.results as Result[];
    const results = await json(1);
    const five = await json(5);
    type Result = {
      doc_id: string;
      path: string;
      copies?: { path: string }[];
      answer?: { text: string; line: number };
      passages?: { start_line: number; end_line: number }[];
    };
    const rank = results.findIndex((r) =>
      targets.has(r.path) || (r.copies ?? []).some((c) =>
        targets.has(c.path)
      )
    ) + 1;
    if (!rank) {
      misses.push({ id: q.id, reason: "target not in top 5" });
      continue;
    }
    const r = results[rank - 1]!;
    const lines = (partsOf(shelf).catalog.text(r.doc_id) ?? "").split("\n");
    const at = evidenceLines(lines, q.evidence);
    const miss: Miss = {
      id: q.id,
      reason: "another sentence chosen",
      rank,
      answer: r.answer?.text,
    };
    if (!at) {
      misses.push({ ...miss, reason: "evidence not found in the target's text" });
      continue;
    }
    miss.spansLines = at.last > at.first;
    miss.tableOrList = lines.slice(at.first - 1, at.last).some((l) =>
      /^\s*(?:\||[-*+•]\s|\d{1,3}[.)]\s)/.test(l)
    );
    const inside = (p: { start_line: number; end_line: number }) =>
      p.start_line <= at.first && at.first <= p.end_line;
    const lower = five.find((x) => x.doc_id === r.doc_id)?.passages ?? [];
    if (!r.passages?.[0] || !inside(r.passages[0])) {
      miss.reason = lower.some(inside)
        ? "evidence in a lower passage of the hit"
        : "evidence outside the hit's best passages";
    } else {
      const ev = shingles(plain(q.evidence));
      const shownWords = shingles(plain(r.answer?.text ?? ""));
      if ([...ev].some((s) => shownWords.has(s))) {
        miss.reason = "evidence partly shown (cut or spans sentences)";
      }
    }
    misses.push(miss);
  }
  return { asked, misses };
}

/** How the words rank the evidence's sentence inside the passage the answer is taken from. */
export interface SentenceRanks {
  /** Target hits (top 5) whose answer passage holds a sentence with the evidence. */
  located: number;
  /** Those where that sentence scores highest (`lexicalScores`). */
  first: number;
  /** Mean reciprocal rank of that sentence among the passage's sentences. */
  mrr: number;
}

/** Lines of a passage read for its sentences, as the search answer reads them. */
const PASSAGE_LINES = 300;

/**
 * Where the evidence's sentence ranks among the sentences of the passage a target hit's
 * answer is taken from (its best passage), by `lexicalScores`: a finer measure of the
 * sentence choice than "evidence shown" (which moves by whole questions), for the hits
 * whose passage holds the evidence.
 *
 * @param shelf an indexed shelf of the corpus
 * @param questions the dev questions
 * @param mode search mode
 * @returns the counts
 */
export async function sentenceRanks(
  shelf: Shelf,
  questions: Question[],
  mode: "keyword" | "hybrid" = "keyword",
): Promise<SentenceRanks> {
  let located = 0;
  let first = 0;
  let rr = 0;
  for (const q of questions) {
    const targets = new Set([q.target, ...q.alt_targets]);
    const results = (await callTool(shelf, "search", {
      query: q.question,
      limit: 5,
      mode,
      output_format: "json",
    })).json.results as { doc_id: string; path: string; passages?: Passage[] }[];
    const keys = evidenceKeys(q.evidence);
    const terms = positiveTerms(parseQuery(q.question));
    for (const r of results) {
      const p = r.passages?.[0];
      if (!targets.has(r.path) || !p) continue;
      const lines = (await shelf.readLines(r.doc_id, {
        offset: p.start_line,
        limit: Math.min(PASSAGE_LINES, p.end_line - p.start_line + 1),
      })).lines;
      const sentences = sentencesOf(lines);
      const at = sentences.findIndex((c) => keys.some((k) => plain(c.text).includes(k)));
      if (at < 0) continue;
      const scores = lexicalScores(sentences, terms);
      const rank = 1 + scores.filter((x) => x > scores[at]!).length;
      located++;
      if (rank === 1) first++;
      rr += 1 / rank;
    }
  }
  return { located, first, mrr: rr / Math.max(located, 1) };
}

/** A passage of a hit as the JSON answer gives it. */
interface Passage {
  start_line: number;
  end_line: number;
}

if (import.meta.main) {
  const { values, positionals } = parseArgs({
    args: Deno.args,
    options: {
      mode: { type: "string", default: "keyword" },
      verbose: { type: "boolean", default: false },
      half: { type: "string", default: "all" },
    },
    allowPositionals: true,
  });
  const data = positionals[0];
  if (!data || !HALVES.includes(values.half!)) {
    console.error(
      "usage: deno run -A bench/answer_misses.ts DATA_DIR [--mode keyword|hybrid] [--half odd|even] [--verbose]",
    );
    Deno.exit(2);
  }
  const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
  const shared = Deno.env.get("SHELFMARK_SHARED") ?? resolve(repo, "..", "shared");
  const shelf = await Shelf.open({ data, log: () => {}, embedder: "none", workers: 0 });
  const questions = halfOf(await devQuestions(shared), values.half!);
  const { asked, misses } = await answerMisses(shelf, questions, values.mode as "keyword");
  const count = (f: (m: Miss) => boolean) => misses.filter(f).length;
  console.log(`| why the evidence is not shown (${misses.length} of ${asked}) | questions |`);
  console.log("| --- | --- |");
  const reasons = [...new Set(misses.map((m) => m.reason))];
  for (const why of reasons) console.log(`| ${why} | ${count((m) => m.reason === why)} |`);
  const located = misses.filter((m) => m.spansLines !== undefined);
  console.log(
    `| (of the ${located.length} located: evidence spans lines) | ${
      count((m) => m.spansLines === true)
    } |`,
  );
  console.log(
    `| (of the ${located.length} located: in a table row or list item) | ${
      count((m) => m.tableOrList === true)
    } |`,
  );
  console.log(`| (target hit ranked 4-5: one-line answer) | ${count((m) => (m.rank ?? 0) > 3)} |`);
  const s = await sentenceRanks(shelf, questions, values.mode as "keyword");
  console.log(
    `| target hits whose best passage holds the evidence: its sentence ranked first / MRR | ${s.first} of ${s.located} / ${
      s.mrr.toFixed(3)
    } |`,
  );
  if (values.verbose) {
    for (const m of misses) {
      const q = questions.find((x) => x.id === m.id)!;
      console.log(
        `\n${m.id} [${m.reason}] rank ${
          m.rank ?? "-"
        }\n  Q: ${q.question}\n  E: ${q.evidence}\n  A: ${m.answer ?? ""}`,
      );
    }
  }
  await shelf.close();
}
