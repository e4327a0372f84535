/**
 * CPU of the non-PDF extractors, per format, on a corpus: every file of the chosen
 * extensions is extracted in this process, one after another, and the CPU time of this
 * process (`process.cpuUsage`, user + system) is added to its format. Wall time on a busy
 * machine is noise; CPU is what is compared.
 *
 * ```
 * deno run -A bench/extract_cpu.ts [CORPUS_DIR] [--ext .docx,.html] [--out FILE.jsonl] [--compare FILE.jsonl] [--top N]
 * ```
 *
 * `--measure` extracts as an extraction process does (`extraction/host.ts`: the registry, the
 * collection after a large file, the measure step, the answer's frame and the heap trim of
 * `extraction/proc.ts`) and gives each stage its CPU; with the child's young generation and
 * a CPU profile it stands for the extraction process:
 *
 * ```
 * deno run -A --v8-flags=--max-semi-space-size=32 --cpu-prof-dir=DIR bench/extract_cpu.ts --measure --ext .html
 * deno run -A bench/pdf_cpu.ts --attribute DIR/NAME.cpuprofile
 * ```
 *
 * `--out` writes every file's whole answer (lines, headings, links, meta, ...) one JSON line
 * per file; `--compare` reads such a file (written before a change) and counts the files
 * whose answer is now different, naming the first few (`--top` lists the N files that took
 * the most CPU): a change that should not change
 * output is checked on every file. Not a test: numbers, not assertions.
 *
 * @module
 */
import { readdirSync } from "node:fs";
import { parseArgs } from "node:util";
import { extname, join } from "node:path";
import process from "node:process";
import { createHash } from "node:crypto";
import { builtinExtractors } from "../extractors/mod.ts";
import { extractionWorker } from "../extraction/host.ts";
import { encodeFrame } from "../extraction/proc_channel.ts";
import { collectIfOver, HeapTrimmer } from "../core/heap.ts";

/** Files under `dir` whose extension (lower case) is in `exts`, sorted. */
function corpusFiles(dir: string, exts: Set<string>): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((p) => exts.has(extname(p).toLowerCase())).sort().map((p) => join(dir, p));
}

/**
 * A digest of an answer: what `--compare` keeps of the answers before, which as text would
 * hold the heap past `collectIfOver`'s threshold and have it collect after every file.
 */
function digest(json: string): string {
  return createHash("sha256").update(json).digest("base64");
}

/** CPU seconds of this process so far. */
function cpu(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

/** Per format: files, CPU seconds, errors, and with `--measure` CPU seconds by stage. */
interface Row {
  files: number;
  cpu: number;
  errors: number;
  stages: Record<Stage, number>;
}

/** The stages of a file in an extraction process (`extraction/proc.ts`). */
const STAGES = ["extract", "collect", "measure", "encode", "trim"] as const;
type Stage = typeof STAGES[number];

/** Extracts one file and adds the CPU of each stage to `stages`; gives the answer. */
type ExtractOne = (
  path: string,
  ext: string,
  bytes: Uint8Array,
  stages: Record<Stage, number>,
) => Promise<unknown>;

/** The extractor of the file's extension alone, all of it counted as `extract`. */
function extractorOnly(): ExtractOne {
  const extractors = builtinExtractors();
  return async (path, ext, bytes, stages) => {
    const x = extractors.find((x) => x.extensions.includes(ext));
    if (!x) return undefined;
    const t0 = cpu();
    try {
      return await x.extract({ path, extension: ext, bytes });
    } finally {
      stages.extract += cpu() - t0;
    }
  };
}

/**
 * What an extraction process does with a file (`extraction/proc.ts`): the registry's
 * extraction, the collection after a large file, the measure step (`withMeasure`), the
 * answer's frame and the heap trim, each stage's CPU counted.
 */
async function asProcess(): Promise<ExtractOne> {
  let mark = 0;
  let collected = 0;
  const body = extractionWorker("process", () => {
    mark = cpu();
    collectIfOver(128);
    collected = cpu();
  });
  await body.start?.({ plugins: [] });
  const heap = new HeapTrimmer({ growthMb: 96, floorMb: 128 });
  let id = 0;
  return async (path, extension, bytes, stages) => {
    const t0 = cpu();
    const result = await body.handle({
      path,
      extension,
      bytes,
      softMs: 1e9,
      softWallMs: 1e9,
    });
    const t1 = cpu();
    if (result) {
      stages.extract += mark - t0;
      stages.collect += collected - mark;
      stages.measure += t1 - collected;
    } else stages.extract += t1 - t0;
    encodeFrame({ id: ++id, data: result });
    const t2 = cpu();
    stages.encode += t2 - t1;
    heap.trim();
    stages.trim += cpu() - t2;
    return result;
  };
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    args: Deno.args,
    allowPositionals: true,
    options: {
      ext: { type: "string", default: ".docx,.html,.md,.txt,.epub" },
      out: { type: "string" },
      compare: { type: "string" },
      top: { type: "string", default: "0" },
      measure: { type: "boolean", default: false },
    },
  });
  const dir = positionals[0] ??
    join(Deno.env.get("HOME") ?? ".", ".cache/shelfmark/corpus-full");
  const exts = new Set(values.ext.split(",").map((e) => e.trim().toLowerCase()));
  const extractOne = values.measure ? await asProcess() : extractorOnly();
  const before = new Map<string, string>();
  if (values.compare) {
    for (const line of Deno.readTextFileSync(values.compare).split("\n")) {
      if (!line) continue;
      const tab = line.indexOf("\t");
      before.set(line.slice(0, tab), digest(line.slice(tab + 1)));
    }
  }
  const out = values.out
    ? await Deno.open(values.out, { write: true, create: true, truncate: true })
    : undefined;
  const rows = new Map<string, Row>();
  const perFile: [string, number][] = [];
  let same = 0;
  const differ: string[] = [];
  for (const path of corpusFiles(dir, exts)) {
    const ext = extname(path).toLowerCase();
    const bytes = Deno.readFileSync(path);
    const row = rows.get(ext) ??
      {
        files: 0,
        cpu: 0,
        errors: 0,
        stages: { extract: 0, collect: 0, measure: 0, encode: 0, trim: 0 },
      };
    const t0 = cpu();
    let answer: unknown;
    try {
      answer = await extractOne(path, ext, bytes, row.stages);
      if (answer === undefined) continue;
    } catch (e) {
      row.errors++;
      answer = { error: e instanceof Error ? `${e.name}: ${e.message}` : String(e) };
    }
    const spent = cpu() - t0;
    rows.set(ext, row);
    row.cpu += spent;
    perFile.push([path, spent]);
    row.files++;
    const json = JSON.stringify(answer);
    const rel = path.slice(dir.length + 1);
    await out?.write(new TextEncoder().encode(`${rel}\t${json}\n`));
    if (values.compare) {
      if (before.get(rel) === digest(json)) same++;
      else differ.push(rel);
    }
  }
  out?.close();
  const shown = values.measure ? STAGES : [];
  console.log(
    `| format | files | CPU s | ms/file | errors |${shown.map((k) => ` ${k} s |`).join("")}`,
  );
  console.log(`| --- | ---: | ---: | ---: | ---: |${shown.map(() => " ---: |").join("")}`);
  let total = 0;
  for (const [ext, r] of [...rows].sort((a, b) => b[1].cpu - a[1].cpu)) {
    total += r.cpu;
    const per = (1000 * r.cpu / Math.max(1, r.files)).toFixed(1);
    const by = shown.map((k) => ` ${r.stages[k].toFixed(2)} |`).join("");
    console.log(`| ${ext} | ${r.files} | ${r.cpu.toFixed(2)} | ${per} | ${r.errors} |${by}`);
  }
  console.log(`| all | | ${total.toFixed(2)} | | |`);
  for (const [path, spent] of perFile.sort((a, b) => b[1] - a[1]).slice(0, Number(values.top))) {
    console.log(`${spent.toFixed(2)} s ${path.slice(dir.length + 1)}`);
  }
  if (values.compare) {
    console.log(`identical: ${same}, different: ${differ.length}`);
    for (const d of differ.slice(0, 10)) console.log(`  differs: ${d}`);
  }
}

if (import.meta.main) await main();
