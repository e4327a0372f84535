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
import type { Extractor } from "../core/extractor.ts";
import { builtinExtractors } from "../extractors/mod.ts";

/** Files under `dir` whose extension (lower case) is in `exts`, sorted. */
function corpusFiles(dir: string, exts: Set<string>): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((p) => exts.has(extname(p).toLowerCase())).sort().map((p) => join(dir, p));
}

/** CPU seconds of this process so far. */
function cpu(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

/** Per format: files, CPU seconds, errors. */
interface Row {
  files: number;
  cpu: number;
  errors: number;
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
    },
  });
  const dir = positionals[0] ??
    join(Deno.env.get("HOME") ?? ".", ".cache/shelfmark/corpus-full");
  const exts = new Set(values.ext.split(",").map((e) => e.trim().toLowerCase()));
  const extractors = builtinExtractors();
  const byExt = (ext: string): Extractor | undefined =>
    extractors.find((x) => x.extensions.includes(ext));
  const before = new Map<string, string>();
  if (values.compare) {
    for (const line of Deno.readTextFileSync(values.compare).split("\n")) {
      if (!line) continue;
      const tab = line.indexOf("\t");
      before.set(line.slice(0, tab), line.slice(tab + 1));
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
    const x = byExt(ext);
    if (!x) continue;
    const bytes = Deno.readFileSync(path);
    const row = rows.get(ext) ?? { files: 0, cpu: 0, errors: 0 };
    rows.set(ext, row);
    const t0 = cpu();
    let answer: unknown;
    try {
      answer = await x.extract({ path, extension: ext, bytes });
    } catch (e) {
      row.errors++;
      answer = { error: e instanceof Error ? `${e.name}: ${e.message}` : String(e) };
    }
    const spent = cpu() - t0;
    row.cpu += spent;
    perFile.push([path, spent]);
    row.files++;
    const json = JSON.stringify(answer);
    const rel = path.slice(dir.length + 1);
    await out?.write(new TextEncoder().encode(`${rel}\t${json}\n`));
    if (values.compare) {
      if (before.get(rel) === json) same++;
      else differ.push(rel);
    }
  }
  out?.close();
  console.log("| format | files | CPU s | ms/file | errors |");
  console.log("| --- | ---: | ---: | ---: | ---: |");
  let total = 0;
  for (const [ext, r] of [...rows].sort((a, b) => b[1].cpu - a[1].cpu)) {
    total += r.cpu;
    const per = (1000 * r.cpu / Math.max(1, r.files)).toFixed(1);
    console.log(`| ${ext} | ${r.files} | ${r.cpu.toFixed(2)} | ${per} | ${r.errors} |`);
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
