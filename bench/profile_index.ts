/**
 * Where the CPU of a first keyword index goes, by stage and by format.
 *
 * ```
 * deno run -A bench/profile_index.ts [CORPUS_DIR] [--libraries a,b] [--data DIR] [--json]
 * ```
 *
 * Indexes the libraries (default: every folder of the corpus) into a fresh data folder with
 * the real parts (one extraction process, the catalog, FTS5) one file at a time, so every
 * CPU second can be given to one stage of one file:
 *
 * - extraction, per format: CPU of the extraction process (`/proc/PID/stat`) while it
 *   extracts and measures the file (outline, card fields, terms, prepared text: the work
 *   that needs no corpus statistics), and of the index process while it waits and decodes
 *   the answer;
 * - outline and card: the index process from the answer to the first term count (keywords
 *   ranked against the corpus statistics);
 * - term statistics (`countTerms`, `saveTermCounts`, old texts read back);
 * - catalog writes (`put`: document, outline, links, the text's blocks, compressed with its
 *   fingerprints by the extraction process, see `core/measure.ts`);
 * - FTS5 writes (`upsert`), commits;
 * - the rest of the index process (walk, read, hash, sniff, skips, yields).
 *
 * A run at full concurrency (two workers and the admission of the real server) is
 * `bench/footprint.ts -- deno run -A server/cli.ts index ...`, which gives the tree's CPU,
 * wall time and peak RSS/PSS. Not a test: numbers, not assertions.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { extname, join } from "node:path";
import { Catalog } from "../core/catalog.ts";
import type { ExtractFn } from "../core/types.ts";
import { ExtractPool } from "../extraction/pool.ts";
import { Indexer } from "../shelf/indexer.ts";
import { Fts5Index } from "../stores/fts5.ts";

/** CPU seconds (user + system) of a process from `/proc/PID/stat`, or 0 when it is gone. */
function procCpu(pid: number): number {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // Fields 14 and 15 (utime, stime) are the 12th and 13th after the command name.
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return 0;
  }
}

/** CPU seconds of this process so far. */
function ownCpu(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

/** One row of the profile: CPU and wall seconds, files, bytes. */
export interface StageRow {
  /** CPU seconds. */
  cpu: number;
  /** Wall seconds. */
  wall: number;
  /** Files counted. */
  files: number;
  /** Bytes of the files. */
  bytes: number;
}

/** What a profiled index spent. */
export interface IndexProfile {
  /** Extraction by file extension: CPU of the extraction process. */
  extraction: Record<string, StageRow>;
  /** Stages of the index process. */
  stages: Record<string, StageRow>;
  /** Index process CPU seconds in all. */
  indexCpu: number;
  /** Extraction processes' CPU seconds in all. */
  workerCpu: number;
  /** Wall seconds of the whole run. */
  wall: number;
  /** Files indexed, unchanged, skipped. */
  files: { indexed: number; skipped: number; total: number };
}

const row = (): StageRow => ({ cpu: 0, wall: 0, files: 0, bytes: 0 });

/**
 * Measures each call of `obj[name]` (a method) into `into`, also when it returns a promise.
 */
function measure<T extends object>(
  obj: T,
  name: keyof T & string,
  into: StageRow,
): void {
  const fn = (obj[name] as (...a: unknown[]) => unknown).bind(obj);
  (obj as Record<string, unknown>)[name] = (...args: unknown[]) => {
    const c0 = ownCpu();
    const t0 = performance.now();
    const done = () => {
      into.cpu += ownCpu() - c0;
      into.wall += (performance.now() - t0) / 1000;
      into.files++;
    };
    const r = fn(...args);
    if (r instanceof Promise) return r.finally(done);
    done();
    return r;
  };
}

/**
 * Index `libraries` one file at a time into `data` and say where the CPU went.
 *
 * @param libraries the libraries to index (name and root folder)
 * @param data a fresh data folder
 */
export async function profileIndex(
  libraries: { name: string; root: string }[],
  data: string,
): Promise<IndexProfile> {
  await Deno.mkdir(data, { recursive: true });
  const catalog = new Catalog(join(data, "catalog.db"));
  const keyword = new Fts5Index(catalog.db, { stats: catalog });
  // One process, kept for the whole run, so its CPU counter covers every file.
  const pool = new ExtractPool({ workers: 1, recycleMb: 0, idleMs: 3_600_000 });
  const extraction: Record<string, StageRow> = {};
  const stages: Record<string, StageRow> = {
    "extraction wait + answer decode (index process)": row(),
    "outline and card": row(),
    "term statistics": row(),
    "catalog writes (put)": row(),
    "FTS5 writes (upsert)": row(),
    "commits": row(),
    "skips recorded": row(),
  };
  /** End of the last extraction (CPU, wall): outline and card run from there. */
  let answered: { cpu: number; wall: number } | undefined;
  const extract: ExtractFn = async (input) => {
    const pids = () => pool.pids.reduce((s, pid) => s + procCpu(pid), 0);
    const w0 = pids();
    const c0 = ownCpu();
    const t0 = performance.now();
    try {
      return await pool.extract(input);
    } finally {
      const ext = extname(input.path).toLowerCase() || "(none)";
      const r = extraction[ext] ??= row();
      const wall = (performance.now() - t0) / 1000;
      r.cpu += pids() - w0;
      r.wall += wall;
      r.files++;
      r.bytes += input.bytes.byteLength;
      const s = stages["extraction wait + answer decode (index process)"]!;
      s.cpu += ownCpu() - c0;
      s.wall += wall;
      s.files++;
      answered = { cpu: ownCpu(), wall: performance.now() };
    }
  };
  const terms = stages["term statistics"]!;
  const card = stages["outline and card"]!;
  // The first term count after an answer ends the file's outline and card.
  const countTerms = catalog.countTerms.bind(catalog);
  catalog.countTerms = (t, sign) => {
    if (answered && sign !== -1) {
      card.cpu += ownCpu() - answered.cpu;
      card.wall += (performance.now() - answered.wall) / 1000;
      card.files++;
      answered = undefined;
    }
    const c0 = ownCpu();
    const t0 = performance.now();
    countTerms(t, sign);
    terms.cpu += ownCpu() - c0;
    terms.wall += (performance.now() - t0) / 1000;
    terms.files++;
  };
  measure(catalog, "saveTermCounts", terms);
  measure(catalog, "text", terms);
  measure(catalog, "put", stages["catalog writes (put)"]!);
  measure(keyword, "upsert", stages["FTS5 writes (upsert)"]!);
  measure(catalog, "commit", stages["commits"]!);
  measure(catalog, "skip", stages["skips recorded"]!);
  const indexer = new Indexer(catalog, extract, { keyword }, { concurrency: 1 });
  const c0 = ownCpu();
  const t0 = performance.now();
  let workerCpu = 0;
  try {
    await pool.extract({ path: "warm.txt", extension: ".txt", bytes: new Uint8Array([104]) });
    const w0 = pool.pids.reduce((s, pid) => s + procCpu(pid), 0);
    const p = await indexer.run(libraries);
    workerCpu = pool.pids.reduce((s, pid) => s + procCpu(pid), 0) - w0;
    const indexCpu = ownCpu() - c0;
    const wall = (performance.now() - t0) / 1000;
    const measured = Object.entries(stages)
      .filter(([k]) => !k.startsWith(" "))
      .reduce((s, [, r]) => s + r.cpu, 0);
    stages["rest (walk, read, hash, sniff, yields)"] = {
      cpu: indexCpu - measured,
      wall: 0,
      files: p.done,
      bytes: 0,
    };
    return {
      extraction,
      stages,
      indexCpu,
      workerCpu,
      wall,
      files: { indexed: p.indexed, skipped: p.skipped, total: p.total },
    };
  } finally {
    pool.close();
    catalog.close();
  }
}

/** The profile as markdown tables. */
export function profileTables(p: IndexProfile): string {
  const f = (x: number, d = 1) => x.toFixed(d);
  const out = [
    `index process ${f(p.indexCpu)} s CPU, extraction process ${f(p.workerCpu)} s CPU, ` +
    `${f(p.wall)} s wall (one file at a time); ${p.files.indexed} indexed, ` +
    `${p.files.skipped} skipped of ${p.files.total}`,
    "",
    "| extraction (extraction process) | files | MB | CPU s | wall s | CPU ms/file |",
    "| --- | ---: | ---: | ---: | ---: | ---: |",
  ];
  const ext = Object.entries(p.extraction).sort((a, b) => b[1].cpu - a[1].cpu);
  for (const [k, r] of ext) {
    out.push(
      `| ${k} | ${r.files} | ${f(r.bytes / 1e6)} | ${f(r.cpu)} | ${f(r.wall)} | ${
        f((1000 * r.cpu) / Math.max(r.files, 1), 0)
      } |`,
    );
  }
  out.push("", "| index process stage | calls | CPU s | wall s |", "| --- | ---: | ---: | ---: |");
  for (const [k, r] of Object.entries(p.stages)) {
    out.push(`| ${k} | ${r.files} | ${f(r.cpu)} | ${f(r.wall)} |`);
  }
  return out.join("\n");
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    args: Deno.args,
    allowPositionals: true,
    options: { libraries: { type: "string" }, data: { type: "string" }, json: { type: "boolean" } },
  });
  const corpus = positionals[0] ??
    join(Deno.env.get("HOME") ?? "/tmp", ".cache", "shelfmark", "corpus-full");
  const names = values.libraries?.split(",") ??
    [...Deno.readDirSync(corpus)].filter((e) => e.isDirectory).map((e) => e.name).sort();
  const data = values.data ?? await Deno.makeTempDir({ prefix: "shelfmark-profile-" });
  try {
    const p = await profileIndex(names.map((name) => ({ name, root: join(corpus, name) })), data);
    console.log(values.json ? JSON.stringify(p, null, 2) : profileTables(p));
  } finally {
    if (!values.data) await Deno.remove(data, { recursive: true }).catch(() => {});
  }
}

if (import.meta.main) await main();
