/**
 * Recoll beside shelfmark, in one run on the same libraries: index time, CPU time (user +
 * system of the whole process tree), index size on disk, peak memory of the process tree,
 * and Recall@5 / MRR on the dev questions, with the ratios.
 *
 * ```
 * deno run -A bench/recoll.ts [CORPUS_DIR] [--keep DIR] [--runs N]   # alone; `deno task bench` calls it
 * ```
 *
 * `--keep DIR` builds shelfmark's (last) index in `DIR` and leaves it there (for `agent_cost.ts`).
 *
 * `--runs N` (default 1) indexes N times with each engine, in turn (shelfmark, Recoll,
 * shelfmark, Recoll, ...; each run into a fresh folder), and the table shows the median of
 * each figure, the ratio of the medians, and each run's wall and CPU time (Recoll's CPU
 * varies from run to run on a shared host far more than shelfmark's: a goal is judged on
 * `--runs 3`). The questions are asked once, of the last index of each.
 *
 * Recoll indexes the library folders (`topdirs`) in a throwaway `RECOLL_CONFDIR`; it is
 * asked each question's words OR-ed, stop words removed (the bench's plain-BM25 baseline
 * uses the same words). shelfmark builds its keyword index (`index --embedder none`, the
 * CLI as a user runs it) and is asked the questions in keyword mode, as `agent_cost.ts`
 * does. When `recollindex` is missing it is installed with apt (as root); otherwise the
 * comparison is skipped with the reason. Not a test: numbers, not assertions.
 *
 * @module
 */
import { existsSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { STOP_WORDS } from "../core/tokenize.ts";
import { Shelf } from "../shelf/shelf.ts";
import { agentCost, devQuestions, type Question } from "./agent_cost.ts";
import { type CommandFootprint, coresBusy, describe, measureCommand } from "./footprint.ts";
import { partsOf } from "../shelf/_parts.ts";
import { dirSize, median } from "./stats.ts";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const CLI = join(repo, "server", "cli.ts");

/** One index run of an engine. */
export interface IndexRun {
  /** The index command's footprint. */
  run: CommandFootprint;
  /** Bytes on disk of the index (the whole folder). */
  bytes: number;
}

/** One engine's figures. */
export interface EngineRun {
  /** The index runs, in the order they ran (one unless `--runs`). */
  runs: IndexRun[];
  /** Documents the engine holds, when it says. */
  documents?: number;
  /** Dev questions asked, Recall@5, MRR (first 10 results). */
  questions: number;
  recall5: number;
  mrr: number;
}

/** Both engines, or why Recoll was not run. */
export type Comparison =
  | { recoll: EngineRun; shelfmark: EngineRun; version: string }
  | { skipped: string };

/** A question's words OR-ed, stop words removed, in Recoll's query language. */
export function orQuery(question: string): string {
  const words = question.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return [...new Set(words.filter((w) => !STOP_WORDS.has(w)))].join(" OR ");
}

async function run(cmd: string, args: string[]): Promise<{ ok: boolean; out: string }> {
  try {
    const r = await new Deno.Command(cmd, { args, stdout: "piped", stderr: "piped" }).output();
    const dec = new TextDecoder();
    return { ok: r.success, out: dec.decode(r.stdout) + dec.decode(r.stderr) };
  } catch (e) {
    return { ok: false, out: (e as Error).message };
  }
}

/**
 * Recoll's version, installing `recollcmd` with apt when it is missing and this runs as
 * root; or why it cannot run.
 */
export async function ensureRecoll(): Promise<{ version: string } | { skipped: string }> {
  const version = async () => {
    const r = await run("recollindex", ["-v"]);
    return r.out.match(/Recoll\s+[\d.]+/i)?.[0];
  };
  let v = await version();
  if (v) return { version: v };
  if (Deno.uid?.() !== 0) {
    return { skipped: "recollindex is not installed (and not root to install it)" };
  }
  console.error("installing recollcmd with apt-get ...");
  let inst = await run("apt-get", ["install", "-y", "-q", "recollcmd"]);
  if (!inst.ok) {
    await run("apt-get", ["update", "-q"]);
    inst = await run("apt-get", ["install", "-y", "-q", "recollcmd"]);
  }
  v = await version();
  return v
    ? { version: v }
    : { skipped: `apt-get install recollcmd failed: ${inst.out.slice(-300)}` };
}

/** Paths of Recoll's first `n` results for a query (`file://` URLs as paths). */
async function recollq(confdir: string, query: string, n: number): Promise<string[]> {
  // -F url: one base64 field per result line, so paths with spaces survive.
  const r = await run("recollq", ["-c", confdir, "-n", String(n), "-F", "url", query]);
  const out: string[] = [];
  for (const line of r.out.split("\n")) {
    const t = line.trim();
    if (!/^[A-Za-z0-9+/=]+$/.test(t) || t.length < 8) continue;
    let url: string;
    try {
      url = new TextDecoder().decode(Uint8Array.from(atob(t), (c) => c.charCodeAt(0)));
    } catch {
      continue;
    }
    if (url.startsWith("file://")) out.push(url.slice("file://".length));
  }
  return out;
}

/** Rank (1-based) of the first path among `paths` that is a target, or 0. */
function rankOf(paths: string[], corpus: string, targets: Set<string>): number {
  const seen: string[] = [];
  for (const p of paths) {
    const rel = relative(corpus, p);
    if (!seen.includes(rel)) seen.push(rel); // inner documents of one file count once
    if (targets.has(rel)) return seen.length;
  }
  return 0;
}

/** Index the libraries with Recoll, its configuration and index in `confdir` (made afresh). */
async function recollIndex(
  corpus: string,
  libraries: string[],
  confdir: string,
): Promise<IndexRun> {
  await Deno.mkdir(confdir, { recursive: true });
  const quote = (p: string) => `"${p.replaceAll('"', '\\"')}"`;
  await Deno.writeTextFile(
    join(confdir, "recoll.conf"),
    `topdirs = ${libraries.map((l) => quote(join(corpus, l))).join(" ")}\n`,
  );
  console.error("recoll: indexing ...");
  const r = await measureCommand(["recollindex", "-c", confdir], {
    env: { RECOLL_CONFDIR: confdir },
  });
  if (r.code !== 0) throw new Error(`recollindex failed (${r.code}): ${r.stderr.slice(-500)}`);
  return { run: r, bytes: dirSize(confdir) };
}

/** Ask the Recoll index in `confdir` the questions. */
async function recollAsk(
  confdir: string,
  corpus: string,
  questions: Question[],
): Promise<Omit<EngineRun, "runs">> {
  let r5 = 0;
  let mrr = 0;
  for (const q of questions) {
    const query = orQuery(q.question);
    if (!query) continue;
    const rank = rankOf(
      await recollq(confdir, query, 30),
      corpus,
      new Set([q.target, ...q.alt_targets]),
    );
    if (rank >= 1 && rank <= 5) r5++;
    if (rank >= 1 && rank <= 10) mrr += 1 / rank;
  }
  const n = Math.max(questions.length, 1);
  return { questions: questions.length, recall5: r5 / n, mrr: mrr / n };
}

/** Index the libraries with the shelfmark CLI (keyword index) in `data` (made afresh). */
async function shelfmarkIndex(
  corpus: string,
  libraries: string[],
  data: string,
): Promise<IndexRun> {
  console.error("shelfmark: indexing ...");
  const r = await measureCommand([
    Deno.execPath(),
    "run",
    "-A",
    CLI,
    "index",
    ...libraries.map((l) => join(corpus, l)),
    "--data",
    data,
    "--embedder",
    "none",
    "--no-ocr", // OCR runs after the keyword index, by decision: not part of its time
    "-q",
  ]);
  if (r.code !== 0) throw new Error(`shelfmark index failed (${r.code}): ${r.stderr.slice(-500)}`);
  return { run: r, bytes: dirSize(data) };
}

/**
 * Ask shelfmark's index in `data` the questions whose targets it holds (keyword mode), and
 * say which those were.
 */
async function shelfmarkAsk(
  data: string,
  questions: Question[],
): Promise<Omit<EngineRun, "runs"> & { asked: Question[] }> {
  const shelf = await Shelf.open({ data, log: () => {}, embedder: "none", workers: 0 });
  try {
    const asked = questions.filter((q) =>
      [q.target, ...q.alt_targets].some((p) => partsOf(shelf).catalog.idByPath(p))
    );
    const c = await agentCost(shelf, asked, "keyword");
    return {
      documents: partsOf(shelf).catalog.count(),
      questions: c.questions,
      recall5: c.recall5,
      mrr: c.mrr,
      asked,
    };
  } finally {
    await shelf.close();
  }
}

/**
 * Run both engines on the same libraries, one after the other, `runs` times each in turn
 * (shelfmark, Recoll, shelfmark, ...), each run into a fresh folder in a throwaway one; then
 * ask the last index of each the questions.
 *
 * @param corpus the corpus folder
 * @param libraries the library folders in it
 * @param shared the shared folder (with `eval/questions.dev.jsonl`)
 * @param keep a folder to build shelfmark's last index in and leave (default: a throwaway one)
 * @param runs index runs of each engine (default 1)
 */
export async function compareRecoll(
  corpus: string,
  libraries: string[],
  shared: string,
  keep?: string,
  runs = 1,
): Promise<Comparison> {
  if (!Number.isInteger(runs) || runs < 1) {
    throw new Error(`runs must be a whole number of at least 1, not ${runs}`);
  }
  if (keep && existsSync(keep)) throw new Error(`${keep} exists: the index must be built afresh`);
  const have = await ensureRecoll();
  if ("skipped" in have) return have;
  const work = await Deno.makeTempDir({ prefix: "shelfmark-recoll-" });
  try {
    const all = await devQuestions(shared);
    const shelfmarkRuns: IndexRun[] = [];
    const recollRuns: IndexRun[] = [];
    let data = "";
    let confdir = "";
    for (let i = 0; i < runs; i++) {
      const last = i === runs - 1;
      // An earlier run's index is measured, then removed: only the last ones are asked.
      const drop = (dir: string) => last ? undefined : Deno.remove(dir, { recursive: true });
      data = last && keep ? keep : join(work, `shelfmark-${i}`);
      shelfmarkRuns.push(await shelfmarkIndex(corpus, libraries, data));
      await drop(data);
      confdir = join(work, `recoll-${i}`);
      recollRuns.push(await recollIndex(corpus, libraries, confdir));
      await drop(confdir);
    }
    const { asked, ...answers } = await shelfmarkAsk(data, all);
    const shelfmark = { runs: shelfmarkRuns, ...answers };
    // The questions shelfmark was asked: those whose targets are in the libraries.
    const recoll = { runs: recollRuns, ...await recollAsk(confdir, corpus, asked) };
    return { recoll, shelfmark, version: have.version };
  } finally {
    await Deno.remove(work, { recursive: true }).catch(() => {});
  }
}

/**
 * The comparison as a markdown table (or the reason it was skipped): each index figure is
 * the median of the engine's runs, its ratio the ratio of the medians; with more than one
 * run, a line per engine after the table gives each run's wall and CPU time.
 */
export function comparisonTable(c: Comparison): string {
  if ("skipped" in c) return `Recoll comparison skipped: ${c.skipped}`;
  const { recoll: r, shelfmark: s } = c;
  const mib = (b: number) => `${(b / 2 ** 20).toFixed(1)} MiB`;
  const sec = (x: number) => `${x.toFixed(1)} s`;
  const ratio = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(2)}` : "");
  const row = (name: string, rv: number, sv: number, f: (x: number) => string) =>
    `| ${name} | ${f(rv)} | ${f(sv)} | ${ratio(sv, rv)} |`;
  const pct = (x: number) => `${(x * 100).toFixed(0)} %`;
  const mid = (x: EngineRun, f: (i: IndexRun) => number) => median(x.runs.map(f));
  const figure = (name: string, f: (i: IndexRun) => number, fmt: (x: number) => string) =>
    row(name, mid(r, f), mid(s, f), fmt);
  const share = (k: "one" | "two") => (i: IndexRun) => coresBusy(i.run)[k];
  const n = Math.max(r.runs.length, s.runs.length);
  const each = (name: string, x: EngineRun) =>
    `${name} runs, wall / CPU: ${
      x.runs.map((i) => `${i.run.seconds.toFixed(1)} / ${sec(i.run.cpuSeconds)}`).join(", ")
    }`;
  return [
    `| ${c.version} vs shelfmark (keyword index)${
      n > 1 ? `, median of ${n} runs` : ""
    } | Recoll | shelfmark | shelfmark / Recoll |`,
    "| --- | ---: | ---: | ---: |",
    figure("index time (wall)", (i) => i.run.seconds, sec),
    figure("CPU time, user + system, process tree", (i) => i.run.cpuSeconds, sec),
    figure("seconds with both cores busy (>= 1.5)", share("two"), pct),
    figure("seconds with one core idle (0.5-1.5)", share("one"), pct),
    figure("index on disk", (i) => i.bytes, mib),
    figure("peak memory, process tree (RSS)", (i) => i.run.peakTree, mib),
    figure("peak memory, process tree (PSS)", (i) => i.run.peakTreePss, mib),
    figure("largest process (RSS)", (i) => Math.max(...Object.values(i.run.peakByName)), mib),
    row(`Recall@5 (${s.questions} dev questions)`, r.recall5, s.recall5, (x) => x.toFixed(2)),
    row("MRR (first 10)", r.mrr, s.mrr, (x) => x.toFixed(2)),
    ...(n > 1 ? ["", each("Recoll", r), each("shelfmark", s)] : []),
  ].join("\n");
}

if (import.meta.main) {
  const { values, positionals } = parseArgs({
    args: Deno.args,
    options: { keep: { type: "string" }, runs: { type: "string", default: "1" } },
    allowPositionals: true,
  });
  const corpus = positionals[0] ?? Deno.env.get("SHELFMARK_CORPUS_FULL") ??
    join(Deno.env.get("HOME") ?? "/tmp", ".cache", "shelfmark", "corpus-full");
  if (!existsSync(join(corpus, "MANIFEST.tsv"))) {
    console.error(`no corpus at ${corpus} (build it with ../shared/corpus/build.sh)`);
    Deno.exit(2);
  }
  const shared = Deno.env.get("SHELFMARK_SHARED") ?? resolve(repo, "..", "shared");
  // Hidden folders (the corpus builder's `.cache` of downloads) are not libraries.
  const libraries = [...Deno.readDirSync(corpus)]
    .filter((e) => e.isDirectory && !e.name.startsWith("."))
    .map((e) => e.name).sort();
  const runs = Number(values.runs);
  if (!Number.isInteger(runs) || runs < 1) {
    console.error(`--runs takes a whole number of at least 1, not ${values.runs}`);
    Deno.exit(2);
  }
  const c = await compareRecoll(corpus, libraries, shared, values.keep, runs);
  console.log(comparisonTable(c));
  if (!("skipped" in c)) {
    // The footprints in detail: of the last run of each engine.
    const last = runs > 1 ? ` (run ${runs} of ${runs})` : "";
    const recoll = c.recoll.runs.at(-1)!.run;
    const shelfmark = c.shelfmark.runs.at(-1)!.run;
    console.log(
      `\nRecoll${last}:\n${describe(recoll)}\n\nshelfmark${last}:\n${describe(shelfmark)}`,
    );
    console.log(
      `\nshelfmark CPU per second${last}: ${
        shelfmark.cpuPerSecond.map((x) => x.toFixed(1)).join(" ")
      }`,
    );
    console.log(`load average after: ${Deno.loadavg().join(" ")}`);
  }
}
