/**
 * PDF extraction CPU on a fixed sample, in this process: CPU ms (process.cpuUsage) and pages
 * for the pdf.js extractor, then `pdftotext` on the same files (its children's CPU), and
 * optionally every output as JSON in a directory so two versions can be compared.
 *
 *   deno run -A bench/pdf_cpu.ts [--n 40] [--out DIR] [--no-pdftotext] [CORPUS]
 *
 * The sample: every k-th PDF (sorted by path) of `pdf-manuals`, `pdf-plain` and `nested`
 * under CORPUS (default ~/.cache/shelfmark/corpus-full), n in all.
 *
 * @module
 */
import { join } from "node:path";
import process from "node:process";
import { parseArgs } from "node:util";
import { pdf } from "../extractors/pdf.ts";

function files(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of Deno.readDirSync(d)) {
      const p = join(d, e.name);
      if (e.isDirectory) walk(p);
      else if (e.name.toLowerCase().endsWith(".pdf")) out.push(p);
    }
  };
  walk(dir);
  return out.sort();
}

/** The fixed sample: `n` PDFs spread over the three PDF folders in proportion to size. */
export function pdfSample(corpus: string, n: number): string[] {
  const all = ["pdf-manuals", "pdf-plain", "nested"].flatMap((d) => files(join(corpus, d)));
  const step = Math.max(1, Math.floor(all.length / n));
  return all.filter((_, i) => i % step === 0).slice(0, n);
}

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** CPU (ms) of this process's finished children (Linux /proc), else NaN. */
function childCpuMs(): number {
  try {
    const stat = Deno.readTextFileSync("/proc/self/stat");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[13]) + Number(f[14])) * 10;
  } catch {
    return NaN;
  }
}

if (import.meta.main) {
  const { values, positionals } = parseArgs({
    args: Deno.args,
    options: {
      n: { type: "string", default: "40" },
      out: { type: "string" },
      "no-pdftotext": { type: "boolean", default: false },
    },
    allowPositionals: true,
  });
  const corpus = positionals[0] ??
    join(Deno.env.get("HOME") ?? "", ".cache/shelfmark/corpus-full");
  const sample = pdfSample(corpus, Number(values.n));
  if (values.out) Deno.mkdirSync(values.out, { recursive: true });
  const ex = pdf();
  let pages = 0;
  let ms = 0;
  for (const [i, path] of sample.entries()) {
    const bytes = Deno.readFileSync(path);
    const t0 = cpuMs();
    const doc = await ex.extract({ path, extension: ".pdf", bytes });
    const dt = cpuMs() - t0;
    ms += dt;
    pages += doc.pages?.length ?? 0;
    console.error(
      `${dt.toFixed(0).padStart(6)} ms ${String(doc.pages?.length).padStart(5)} p  ${path}`,
    );
    if (values.out) {
      Deno.writeTextFileSync(
        join(values.out, `${String(i).padStart(3, "0")}.json`),
        JSON.stringify({ path, ...doc }, null, 1),
      );
    }
  }
  const result: Record<string, unknown> = {
    files: sample.length,
    pages,
    pdfjsCpuMs: Math.round(ms),
    pdfjsMsPerPage: +(ms / pages).toFixed(2),
  };
  if (!values["no-pdftotext"]) {
    const c0 = childCpuMs();
    for (const path of sample) {
      await new Deno.Command("pdftotext", { args: ["-layout", "-q", path, "-"], stdout: "null" })
        .output();
    }
    const c = childCpuMs() - c0;
    result.pdftotextCpuMs = c;
    result.pdftotextMsPerPage = +(c / pages).toFixed(2);
  }
  console.log(JSON.stringify(result));
}
