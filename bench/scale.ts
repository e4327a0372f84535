/**
 * shelfmark at scale: builds a library of N documents (default 100,000) from the shared
 * corpus's real text — each document a title and a few real sections, with their headings,
 * drawn from the corpus's Markdown and text files, so word statistics stay those of real
 * documents — indexes it (keyword only) and measures:
 *
 * - index wall time, CPU time and peak memory of the whole process tree;
 * - disk size of the data folder per 1,000 documents;
 * - keyword search, outline and read p50/p95, warm, in process (the dev questions as queries);
 * - the incremental run after 1 % of the files changed;
 * - cold start to the first answer (`shelfmark search` in a new process).
 *
 * Hybrid search at this scale needs vectors for every document (about 3 hours of the
 * built-in model on 2 cores): `--vectors` computes them and adds hybrid p50/p95.
 *
 * ```
 * deno task bench:scale [--docs 100000] [--work /tmp/shelfmark-scale] [--vectors] [--json]
 * ```
 *
 * Not a test: numbers, not assertions.
 *
 * @module
 */
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { callTool } from "../server/dispatch.ts";
import { Shelf } from "../shelf/shelf.ts";
import { measureCommand } from "./footprint.ts";
import { defaultCorpus, libraryDocs, random, type Section, sectionsOf } from "./scale_docs.ts";
import { dirSize, pct } from "./stats.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const CLI = join(ROOT, "server/cli.ts");

/** Write `n` documents of 2-7 real sections each into `dir` (1,000 per folder). */
async function buildLibrary(dir: string, n: number, sections: Section[]): Promise<number> {
  let bytes = 0;
  let made = "";
  for (const doc of libraryDocs(n, sections)) {
    const folder = join(dir, doc.folder);
    if (folder !== made) await Deno.mkdir(made = folder, { recursive: true });
    bytes += doc.text.length;
    await Deno.writeTextFile(join(folder, doc.name), doc.text);
  }
  return bytes;
}

/** Change 1 % of the files (a line appended): the incremental run's work. */
async function touchOnePercent(dir: string, n: number): Promise<number> {
  const rnd = random(2);
  let changed = 0;
  for (const part of [...Deno.readDirSync(dir)].map((e) => e.name).sort()) {
    for (const e of Deno.readDirSync(join(dir, part))) {
      if (rnd() < 0.01 && changed < Math.ceil(n / 100)) {
        await Deno.writeTextFile(join(dir, part, e.name), "\nChanged for the scale benchmark.\n", {
          append: true,
        });
        changed++;
      }
    }
  }
  return changed;
}

/** p50/p95 of `fn` over the inputs (after one warm-up pass over the first 20). */
async function latency<T>(
  inputs: T[],
  fn: (x: T) => Promise<unknown>,
): Promise<[number, number]> {
  for (const x of inputs.slice(0, 20)) await fn(x);
  const ms: number[] = [];
  for (const x of inputs) {
    const t = performance.now();
    await fn(x);
    ms.push(performance.now() - t);
  }
  return [pct(ms, 50), pct(ms, 95)];
}

async function main() {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      docs: { type: "string", default: "100000" },
      work: { type: "string", default: "/tmp/shelfmark-scale" },
      corpus: { type: "string" },
      vectors: { type: "boolean", default: false },
      json: { type: "boolean", default: false },
    },
  });
  const n = Number(values.docs);
  const corpus = values.corpus ?? defaultCorpus();
  const lib = join(values.work!, "library");
  const data = join(values.work!, "data");
  const log = (m: string) => console.error(`scale: ${m}`);
  const row: Record<string, string | number> = { documents: n };

  let have = 0;
  try {
    for (const p of Deno.readDirSync(lib)) {
      have += [...Deno.readDirSync(join(lib, p.name))].length;
    }
  } catch { /* none yet */ }
  if (have !== n) {
    await Deno.remove(values.work!, { recursive: true }).catch(() => {});
    const sections = await sectionsOf(corpus);
    log(`${sections.length} real sections; writing ${n} documents to ${lib}`);
    row.library_mb = Math.round(await buildLibrary(lib, n, sections) / 1e6);
  }
  await Deno.remove(data, { recursive: true }).catch(() => {});

  log("indexing (keyword only)");
  const index = [CLI, "index", lib, "--data", data, "-q"];
  const first = await measureCommand(["deno", "run", "-A", ...index, "--embedder", "none"]);
  if (first.code !== 0) throw new Error(`index failed: ${first.stderr}`);
  row.index_s = Math.round(first.seconds);
  row.index_cpu_s = Math.round(first.cpuSeconds);
  row.index_peak_tree_mb = Math.round(first.peakTree / 2 ** 20);
  row.disk_mb = Math.round(dirSize(data) / 2 ** 20);
  row.disk_mb_per_1000 = Number((dirSize(data) / 2 ** 20 / (n / 1000)).toFixed(1));

  if (values.vectors) {
    log("computing vectors (built-in model)");
    const v = await measureCommand(["deno", "run", "-A", ...index, "--vectors"]);
    row.vectors_s = Math.round(v.seconds);
  }

  const questions = (await Deno.readTextFile(
    join(ROOT, "../shared/eval/questions.dev.jsonl"),
  ).catch(() => "")).split("\n").filter(Boolean).map((l) => JSON.parse(l).question as string);
  const queries = Array.from({ length: 300 }, (_, i) => questions[i % questions.length]!);
  const shelf = await Shelf.open({
    data,
    log: () => {},
    embedder: values.vectors ? undefined : "none",
    workers: 0,
  });
  try {
    const ids: string[] = [];
    const search = (mode: string) => async (query: string) => {
      const r = await callTool(shelf, "search", { query, limit: 5, mode, output_format: "json" });
      for (const h of r.json.results as { doc_id: string }[]) ids.push(h.doc_id);
    };
    [row.keyword_p50_ms, row.keyword_p95_ms] = await latency(queries, search("keyword"));
    if (values.vectors) {
      [row.hybrid_p50_ms, row.hybrid_p95_ms] = await latency(queries, search("hybrid"));
    }
    const docs = [...new Set(ids)].slice(0, 300);
    [, row.outline_p95_ms] = await latency(
      docs,
      (id) => callTool(shelf, "outline", { doc_ids: [id] }),
    );
    [, row.read_p95_ms] = await latency(
      docs,
      (id) => callTool(shelf, "read", { doc_id: id, offset: 1, limit: 40 }),
    );
  } finally {
    await shelf.close();
  }

  const changed = await touchOnePercent(lib, n);
  log(`${changed} files changed; incremental run`);
  const again = await measureCommand(["deno", "run", "-A", ...index, "--embedder", "none"]);
  row.reindex_1pct_s = Number(again.seconds.toFixed(1));

  const cold: number[] = [];
  for (let i = 0; i < 3; i++) {
    const c = await measureCommand([
      "deno",
      "run",
      "-A",
      CLI,
      "search",
      queries[i]!,
      "--data",
      data,
      "--embedder",
      "none",
    ]);
    cold.push(c.seconds * 1000);
  }
  row.cold_first_answer_ms = pct(cold, 50);
  for (const k of Object.keys(row)) {
    if (typeof row[k] === "number" && !Number.isInteger(row[k])) {
      row[k] = Number((row[k] as number).toFixed(1));
    }
  }
  if (values.json) console.log(JSON.stringify(row));
  else {
    console.log(`| at ${n.toLocaleString("en-US")} documents | value |\n| --- | --- |`);
    for (const [k, v] of Object.entries(row)) console.log(`| ${k} | ${v} |`);
  }
}

if (import.meta.main) await main();
