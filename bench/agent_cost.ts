/**
 * What an agent spends to reach a verified answer, on the dev questions: the tokens (o200k)
 * of the markdown search answer per hit, whether the top-5 answer already shows the
 * evidence, whether the best passage of a hit holds the evidence line, the tokens of a
 * search -> read(section) path, and retrieval (Recall@1/5/10, MRR) with copies counted as
 * the target.
 *
 * `deno run -A bench/agent_cost.ts DATA_DIR [--mode keyword]` measures an index built with
 * `shelfmark index <corpus>/<library>... --data DATA_DIR`; `bench/bench.ts` calls
 * {@link agentCost} on the index it builds.
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

/** A dev question. */
export interface Question {
  id: string;
  question: string;
  kind: string;
  target: string;
  alt_targets: string[];
  evidence: string;
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
  recall1: number;
  recall5: number;
  recall10: number;
  mrr: number;
}

const tokens = (s: string): number => encode(s).length;
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
function evidenceKeys(evidence: string): string[] {
  const w = norm(evidence).split(" ");
  return [w.slice(0, 5).join(" "), w.slice(-5).join(" ")];
}

/** Markdown markup that is not text: emphasis marks, code ticks, backslash escapes. */
function unmark(s: string): string {
  return s.replace(/\\([\\`*_{}\[\]()#+\-.!=<>|])/g, "$1").replace(/[*`]|(?<!\w)_|_(?!\w)/g, "");
}

/** Markdown without the `[meta]` footer and markup that is not text (emphasis, ellipses). */
function plain(md: string): string {
  return norm(unmark(md.replace(/\n\n\[meta\].*$/s, "")).replaceAll("…", " "));
}

/** The line (1-based) of a document holding the evidence, if one does. */
function evidenceLine(lines: string[], evidence: string): number | undefined {
  const [head, tail] = evidenceKeys(evidence);
  const i = lines.findIndex((l) => {
    const t = norm(unmark(l));
    return t.includes(head!) || t.includes(tail!);
  });
  return i >= 0 ? i + 1 : undefined;
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
): Promise<AgentCost> {
  const perHit: number[] = [];
  const answers: number[] = [];
  const defaults: number[] = [];
  const paths: number[] = [];
  let shown = 0;
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
    const text = plain(md.text);
    if (evidenceKeys(q.evidence).some((k) => text.includes(k))) shown++;
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
    for (const r of results.slice(0, 5)) {
      if (!targets.has(r.path)) continue;
      const p = r.passages?.[0];
      const lines = (partsOf(shelf).catalog.text(r.doc_id) ?? "").split("\n");
      const line = evidenceLine(lines, q.evidence);
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
      }
    }
  }
  return {
    questions: n,
    hitTokensP50: pct(perHit, 50),
    hitTokensP90: pct(perHit, 90),
    answerTokensP50: pct(answers, 50),
    defaultAnswerTokensP50: pct(defaults, 50),
    evidenceShown: shown / Math.max(n, 1),
    passageHolds: holds / Math.max(passageHits, 1),
    passageHits,
    pathTokensP50: pct(paths, 50),
    recall1: r1 / Math.max(n, 1),
    recall5: r5 / Math.max(n, 1),
    recall10: r10 / Math.max(n, 1),
    mrr: mrr / Math.max(n, 1),
  };
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
  ].join("\n");
}

/** The dev questions from the shared folder. */
export async function devQuestions(shared: string): Promise<Question[]> {
  return (await Deno.readTextFile(join(shared, "eval", "questions.dev.jsonl")))
    .split("\n").filter(Boolean).map((l) => JSON.parse(l) as Question);
}

if (import.meta.main) {
  const { values, positionals } = parseArgs({
    args: Deno.args,
    options: { mode: { type: "string", default: "keyword" } },
    allowPositionals: true,
  });
  const data = positionals[0];
  if (!data) {
    console.error("usage: deno run -A bench/agent_cost.ts DATA_DIR [--mode keyword|hybrid]");
    Deno.exit(2);
  }
  const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
  const shared = Deno.env.get("SHELFMARK_SHARED") ?? resolve(repo, "..", "shared");
  const shelf = await Shelf.open({ data, log: () => {}, embedder: "none", workers: 0 });
  const c = await agentCost(shelf, await devQuestions(shared), values.mode as "keyword");
  console.log("| measure | value |\n| --- | --- |");
  console.log(agentCostRows(c, values.mode!));
  await shelf.close();
}
