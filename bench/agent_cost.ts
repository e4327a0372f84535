/**
 * What an agent spends to reach a verified answer, on the dev questions: the tokens (o200k)
 * of the markdown search answer per hit, whether the top-5 answer already shows the
 * evidence, whether the best passage of a hit holds the evidence line, the tokens of a
 * search -> read(section) path, and retrieval (Recall@1/5/10, MRR) with copies counted as
 * the target; then the calls, characters and tokens of the common paths an agent takes
 * (see {@link AgentPaths}), among them search -> read(the lines the answer names), with how
 * often those lines hold the evidence. `bench/answer_misses.ts` says why an answer misses it.
 *
 * `deno run -A bench/agent_cost.ts DATA_DIR [--mode keyword] [--no-list] [--no-grep]
 * [--half odd|even]` measures an index built with `shelfmark index <corpus>/<library>... --data DATA_DIR`
 * (`--no-list`: code without grep's list mode, to measure before it; `--no-grep`: the
 * search figures only, without the slow grep paths; `--half`: one half of the questions,
 * {@link halfOf}); `bench/bench.ts` calls {@link agentCost}
 * on the index it builds.
 *
 * @module
 */
import { encode } from "gpt-tokenizer/encoding/o200k_base";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { callTool } from "../server/dispatch.ts";
import { Shelf } from "../shelf/shelf.ts";
import { partsOf } from "../shelf/_parts.ts";
import { STOP_WORDS } from "../core/tokenize.ts";
import { ToolError } from "../core/types.ts";

/** A dev question. */
export interface Question {
  id: string;
  question: string;
  kind: string;
  target: string;
  alt_targets: string[];
  evidence: string;
}

/** One path an agent takes to a verified answer: how often it got there, and its cost. */
export interface AgentPath {
  /** Questions where the path reached the target document. */
  reached: number;
  /** Questions tried. */
  tried: number;
  /** Tool calls of the path, on average (a path may read again when a read missed). */
  calls: number;
  /** Characters of tool output read (markdown, without the `[meta]` footer), median. */
  charsP50: number;
  /** The same in o200k tokens, median. */
  tokensP50: number;
}

/**
 * The common paths: search (5 hits) then read the target hit's best passage, or the lines
 * its answer names (then the passage when they miss the evidence); grep
 * across documents for the question's rarest-looking word then read 30 lines around the
 * target's match (with matches, and with `list: true`); search alone, on the questions
 * whose evidence the 5-hit answer already shows.
 */
export interface AgentPaths {
  searchRead: AgentPath;
  /** Search, then the lines the answer names (whether they hold the evidence or not). */
  answerRead: AgentPath;
  /** The same, then the passage when the lines miss the evidence (as an agent reads on). */
  answerReadOn: AgentPath;
  grepRead?: AgentPath;
  grepListRead?: AgentPath;
  searchAlone: AgentPath;
  /** Characters of the 5-hit search answer, median (the goal: at most 1,200). */
  searchCharsP50: number;
}

/** The figures. */
export interface AgentCost {
  questions: number;
  hitTokensP50: number;
  hitTokensP90: number;
  answerTokensP50: number;
  /** The whole markdown answer with the default arguments (20 hits). */
  defaultAnswerTokensP50: number;
  evidenceShown: number;
  passageHolds: number;
  passageHits: number;
  pathTokensP50: number;
  /** Share of the target hits read by their answer's lines whose lines hold the evidence. */
  answerLinesHold: number;
  /** Target hits read by their answer's lines. */
  answerLines: number;
  recall1: number;
  recall5: number;
  recall10: number;
  mrr: number;
  paths: AgentPaths;
}

const tokens = (s: string): number => encode(s).length;
/** A markdown answer without its `[meta]` footer: what the agent reads. */
const shown = (md: string): string => md.replace(/\n\n\[meta\].*$/s, "");

/** Accumulates one path's figures. */
class PathCost {
  #chars: number[] = [];
  #tokens: number[] = [];
  #calls = 0;
  tried = 0;
  /** A question where the path reached its target, with the answers read (one a call). */
  add(answers: string[]): void {
    this.#calls += answers.length;
    const text = answers.map(shown).join("\n");
    this.#chars.push(text.length);
    this.#tokens.push(tokens(text));
  }
  get figures(): AgentPath {
    return {
      reached: this.#chars.length,
      tried: this.tried,
      calls: Math.round(100 * this.#calls / Math.max(this.#chars.length, 1)) / 100,
      charsP50: pct(this.#chars, 50),
      tokensP50: pct(this.#tokens, 50),
    };
  }
}

/**
 * The word an agent would grep for: the question's longest word that is not a stop word
 * (the most specific one, as a rule), whole, case ignored.
 */
export function grepWord(question: string): string {
  const words = (question.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [])
    .filter((w) => !STOP_WORDS.has(w));
  return words.reduce((a, b) => (b.length > a.length ? b : a), "");
}
const norm = (s: string): string =>
  s.normalize("NFKC").toLowerCase().replace(/[’‘]/g, "'").replace(/[“”]/g, '"').replace(
    /\s+/g,
    " ",
  ).trim();

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
}

/** The first and the last five words of the evidence, as an agent would recognise them. */
export function evidenceKeys(evidence: string): string[] {
  const w = norm(evidence).split(" ");
  return [w.slice(0, 5).join(" "), w.slice(-5).join(" ")];
}

/** Markdown markup that is not text: emphasis marks, code ticks, backslash escapes. */
function unmark(s: string): string {
  return s.replace(/\\([\\`*_{}\[\]()#+\-.!=<>|])/g, "$1").replace(/[*`]|(?<!\w)_|_(?!\w)/g, "");
}

/** Markdown without the `[meta]` footer and markup that is not text (emphasis, ellipses). */
export function plain(md: string): string {
  return norm(unmark(md.replace(/\n\n\[meta\].*$/s, "")).replaceAll("…", " "));
}

/**
 * The lines (1-based) of a document holding the evidence: where its first five words start
 * and its last five end, matched across line breaks (a sentence wrapped over lines, as in
 * PDF text); the line of either key alone when only one is found.
 */
export function evidenceLines(
  lines: string[],
  evidence: string,
): { first: number; last: number } | undefined {
  const [head, tail] = evidenceKeys(evidence);
  const starts: number[] = [];
  let joined = "";
  for (const l of lines) {
    starts.push(joined.length);
    joined += norm(unmark(l)) + " ";
  }
  const lineAt = (at: number) => {
    let lo = 0, hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= at) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
  const h = joined.indexOf(head!);
  const t = joined.indexOf(tail!, Math.max(h, 0));
  if (h < 0 && t < 0) return undefined;
  const first = lineAt(h >= 0 ? h : t);
  const last = t >= 0 && (h < 0 || t - h < 2 * evidence.length + 100)
    ? lineAt(t + tail!.length - 1)
    : first;
  return { first, last };
}

/**
 * Measure the dev questions on a shelf.
 *
 * @param shelf an indexed shelf whose libraries are the corpus's folders
 * @param questions the dev questions
 * @param mode search mode
 * @returns the figures
 */
export async function agentCost(
  shelf: Shelf,
  questions: Question[],
  mode: "keyword" | "hybrid" = "keyword",
  withList = true,
  withGrep = true,
): Promise<AgentCost> {
  const searchRead = new PathCost();
  const answerRead = new PathCost();
  const answerReadOn = new PathCost();
  const grepRead = new PathCost();
  const grepListRead = new PathCost();
  const searchAlone = new PathCost();
  /** Target hits read by their answer's lines, and those whose lines hold the evidence. */
  let answerLines = 0;
  let windowHolds = 0;
  const searchChars: number[] = [];
  const perHit: number[] = [];
  const answers: number[] = [];
  const defaults: number[] = [];
  const paths: number[] = [];
  let evidenceShown = 0;
  let holds = 0;
  let passageHits = 0;
  let r1 = 0, r5 = 0, r10 = 0, mrr = 0;
  let n = 0;
  for (const q of questions) {
    const targets = new Set([q.target, ...q.alt_targets]);
    if (![...targets].some((p) => partsOf(shelf).catalog.idByPath(p))) continue;
    n++;
    const md = await callTool(shelf, "search", { query: q.question, limit: 5, mode });
    const body = md.text.replace(/\n\n\[meta\].*$/s, "");
    const blocks = body.split(/\n(?=\d+\. )/).slice(1);
    for (const b of blocks) perHit.push(tokens(b.replace(/\nNext: .*$/s, "")));
    answers.push(tokens(body));
    const whole = await callTool(shelf, "search", { query: q.question, mode });
    defaults.push(tokens(whole.text.replace(/\n\n\[meta\].*$/s, "")));
    searchChars.push(body.length);
    const text = plain(md.text);
    searchAlone.tried++;
    if (evidenceKeys(q.evidence).some((k) => text.includes(k))) {
      evidenceShown++;
      searchAlone.add([md.text]);
    }
    const js = await callTool(shelf, "search", {
      query: q.question,
      limit: 10,
      mode,
      output_format: "json",
    });
    const results = js.json.results as {
      doc_id: string;
      path: string;
      copies?: { path: string }[];
      passages?: { node_id?: string; start_line: number; end_line: number }[];
      answer?: { line: number; start_line?: number; end_line?: number };
    }[];
    const isTarget = (r: (typeof results)[number]) =>
      targets.has(r.path) || (r.copies ?? []).some((c) => targets.has(c.path));
    const rank = results.findIndex(isTarget) + 1;
    if (rank >= 1) {
      r1 += rank <= 1 ? 1 : 0;
      r5 += rank <= 5 ? 1 : 0;
      r10 += rank <= 10 ? 1 : 0;
      mrr += 1 / rank;
    }
    // The best passage of each hit on a target: does its range hold the evidence line?
    let pathDone = false;
    searchRead.tried++;
    answerRead.tried++;
    answerReadOn.tried++;
    for (const r of results.slice(0, 5)) {
      if (!targets.has(r.path)) continue;
      const p = r.passages?.[0];
      const lines = (partsOf(shelf).catalog.text(r.doc_id) ?? "").split("\n");
      const line = evidenceLines(lines, q.evidence)?.first;
      if (line === undefined) continue;
      passageHits++;
      if (p && p.start_line <= line && line <= p.end_line) holds++;
      if (!pathDone && p) {
        pathDone = true;
        // The passage's own line range, as the hit shows it (L120-160).
        const sect = await callTool(shelf, "read", {
          doc_id: r.doc_id,
          offset: p.start_line,
          limit: Math.min(500, p.end_line - p.start_line + 1),
        });
        paths.push(tokens(body) + tokens(sect.text.replace(/\n\n\[meta\].*$/s, "")));
        searchRead.add([md.text, sect.text]);
        // The lines the answer's hint names (its paragraph); the passage after them when
        // they do not hold the evidence, as an agent would read on.
        const a = r.answer;
        if (a?.start_line === undefined || a.end_line === undefined) {
          answerRead.add([md.text, sect.text]);
          answerReadOn.add([md.text, sect.text]);
          continue;
        }
        const win = await callTool(shelf, "read", {
          doc_id: r.doc_id,
          offset: a.start_line,
          limit: a.end_line - a.start_line + 1,
        });
        answerLines++;
        answerRead.add([md.text, win.text]);
        if (a.start_line <= line && line <= a.end_line) {
          windowHolds++;
          answerReadOn.add([md.text, win.text]);
        } else answerReadOn.add([md.text, win.text, sect.text]);
      }
    }
    if (withGrep) await grepPath(shelf, q, targets, grepRead, false);
    if (withGrep && withList) await grepPath(shelf, q, targets, grepListRead, true);
  }
  return {
    questions: n,
    hitTokensP50: pct(perHit, 50),
    hitTokensP90: pct(perHit, 90),
    answerTokensP50: pct(answers, 50),
    defaultAnswerTokensP50: pct(defaults, 50),
    evidenceShown: evidenceShown / Math.max(n, 1),
    passageHolds: holds / Math.max(passageHits, 1),
    passageHits,
    pathTokensP50: pct(paths, 50),
    answerLinesHold: windowHolds / Math.max(answerLines, 1),
    answerLines,
    recall1: r1 / Math.max(n, 1),
    recall5: r5 / Math.max(n, 1),
    recall10: r10 / Math.max(n, 1),
    mrr: mrr / Math.max(n, 1),
    paths: {
      searchRead: searchRead.figures,
      answerRead: answerRead.figures,
      answerReadOn: answerReadOn.figures,
      grepRead: withGrep ? grepRead.figures : undefined,
      grepListRead: withGrep && withList ? grepListRead.figures : undefined,
      searchAlone: searchAlone.figures,
      searchCharsP50: pct(searchChars, 50),
    },
  };
}

/**
 * Grep across documents for the question's {@link grepWord}, then read 30 lines around the
 * first target document's shown match (its best line, in a list).
 */
async function grepPath(
  shelf: Shelf,
  q: Question,
  targets: Set<string>,
  cost: PathCost,
  list: boolean,
): Promise<void> {
  const word = grepWord(q.question);
  if (!word) return;
  cost.tried++;
  const args = { pattern: `\\b${word}\\b`, case_insensitive: true, ...(list ? { list } : {}) };
  // A grep that fails (its time limit on a busy machine) did not reach the target.
  let answer;
  try {
    answer = await callTool(shelf, "grep", args);
  } catch (e) {
    if (e instanceof ToolError) return;
    throw e;
  }
  const docs = answer.json.documents as {
    doc_id: string;
    path: string;
    copies?: { path: string }[];
    best?: { line: number };
    matches?: { line: number }[];
  }[];
  const hit = docs.find((d) =>
    targets.has(d.path) || (d.copies ?? []).some((c) => targets.has(c.path))
  );
  const line = hit && (hit.best ?? hit.matches?.[0])?.line;
  if (!hit || line === undefined) return;
  const read = await callTool(shelf, "read", {
    doc_id: hit.doc_id,
    offset: Math.max(1, line - 10),
    limit: 30,
  });
  cost.add([answer.text, read.text]);
}

/** The figures as markdown table rows. */
export function agentCostRows(c: AgentCost, label: string): string {
  const f = (x: number) => x.toFixed(2);
  return [
    `| ${label}: search hit tokens (o200k, markdown, limit 5) p50 / p90 | ${c.hitTokensP50} / ${c.hitTokensP90} |`,
    `| ${label}: search answer tokens p50 (5 hits) | ${c.answerTokensP50} |`,
    `| ${label}: search answer tokens p50 (default arguments: 20 hits) | ${c.defaultAnswerTokensP50} |`,
    `| ${label}: evidence already shown in the top-5 answer | ${
      f(c.evidenceShown)
    } of ${c.questions} questions |`,
    `| ${label}: best passage holds the evidence line | ${
      f(c.passageHolds)
    } of ${c.passageHits} target hits |`,
    `| ${label}: search -> read(passage) tokens p50 | ${c.pathTokensP50} |`,
    `| ${label}: Recall@1 / @5 / @10 / MRR | ${f(c.recall1)} / ${f(c.recall5)} / ${
      f(c.recall10)
    } / ${f(c.mrr)} |`,
    `| ${label}: search answer characters p50 (5 hits) | ${c.paths.searchCharsP50} |`,
    pathRow(label, "search -> read(passage)", c.paths.searchRead),
    pathRow(label, "search -> read(answer lines)", c.paths.answerRead),
    pathRow(label, "search -> read(answer lines) -> read(passage) if missed", c.paths.answerReadOn),
    `| ${label}: answer lines hold the evidence | ${
      f(c.answerLinesHold)
    } of ${c.answerLines} target hits |`,
    ...(c.paths.grepRead ? [pathRow(label, "grep across -> read", c.paths.grepRead)] : []),
    ...(c.paths.grepListRead
      ? [pathRow(label, "grep across (list) -> read", c.paths.grepListRead)]
      : []),
    pathRow(label, "search alone (evidence shown)", c.paths.searchAlone),
  ].join("\n");
}

/** A path's row: calls, characters and tokens at the median, and how often it got there. */
function pathRow(label: string, name: string, p: AgentPath): string {
  return `| ${label}: ${name}: calls / characters p50 / tokens p50 (reached) | ${p.calls} / ${p.charsP50} / ${p.tokensP50} (${p.reached} of ${p.tried}) |`;
}

/** The dev questions from the shared folder. */
export async function devQuestions(shared: string): Promise<Question[]> {
  return (await Deno.readTextFile(join(shared, "eval", "questions.dev.jsonl")))
    .split("\n").filter(Boolean).map((l) => JSON.parse(l) as Question);
}

/** The values of `--half`. */
export const HALVES: readonly string[] = ["odd", "even", "all"];

/**
 * One half of the questions, by the parity of the number in their id (`dev-007` is odd):
 * decide a change on one half, check it on the other (a change that helps only the half it
 * was decided on is tuned to it).
 *
 * @param questions the questions
 * @param half `odd`, `even`, or `all` (the questions unchanged)
 * @returns the questions of that half, in order
 * @example
 * ```ts
 * import { halfOf, type Question } from "./agent_cost.ts";
 * import assert from "node:assert/strict";
 * const q = (id: string) => ({ id } as Question);
 * assert.deepEqual(halfOf([q("dev-001"), q("dev-002"), q("dev-013")], "odd").map((x) => x.id), [
 *   "dev-001",
 *   "dev-013",
 * ]);
 * ```
 */
export function halfOf(questions: Question[], half: string): Question[] {
  if (half === "all") return questions;
  if (!HALVES.includes(half)) throw new Error(`half must be odd, even or all, not "${half}"`);
  const parity = half === "odd" ? 1 : 0;
  return questions.filter((q) => Number(/\d+/.exec(q.id)?.[0] ?? NaN) % 2 === parity);
}

if (import.meta.main) {
  const { values, positionals } = parseArgs({
    args: Deno.args,
    options: {
      mode: { type: "string", default: "keyword" },
      "no-list": { type: "boolean", default: false },
      "no-grep": { type: "boolean", default: false },
      half: { type: "string", default: "all" },
    },
    allowPositionals: true,
  });
  const data = positionals[0];
  if (!data || !HALVES.includes(values.half!)) {
    console.error(
      "usage: deno run -A bench/agent_cost.ts DATA_DIR [--mode keyword|hybrid] [--half odd|even]",
    );
    Deno.exit(2);
  }
  const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
  const shared = Deno.env.get("SHELFMARK_SHARED") ?? resolve(repo, "..", "shared");
  const shelf = await Shelf.open({ data, log: () => {}, embedder: "none", workers: 0 });
  const c = await agentCost(
    shelf,
    halfOf(await devQuestions(shared), values.half!),
    values.mode as "keyword",
    !values["no-list"],
    !values["no-grep"],
  );
  console.log("| measure | value |\n| --- | --- |");
  console.log(agentCostRows(c, values.mode!));
  await shelf.close();
}
