/**
 * PDF extraction CPU on a fixed sample, in this process: CPU ms (process.cpuUsage) and pages
 * for the pdf.js extractor (`textPatch`: whether pdf.js ran with the text builder of
 * `extractors/_pdfjs_text_patch.ts`), then `pdftotext` on the same files (its children's
 * CPU), and optionally every output as JSON in a directory so two versions can be compared.
 *
 *   deno run -A bench/pdf_cpu.ts [--n 40] [--out DIR] [--no-pdftotext] [CORPUS]
 *   deno run -A --cpu-prof --cpu-prof-dir=DIR bench/pdf_cpu.ts --no-pdftotext
 *   deno run -A bench/pdf_cpu.ts --attribute DIR/NAME.cpuprofile
 *   nice deno run -A bench/pdf_cpu.ts --n 10000 --no-pdftotext --out DIR   (every PDF)
 *
 * `--attribute` reads a V8 CPU profile of the first form and prints the share of sampled
 * time inside the pdf.js and shelfmark functions that matter (inclusive), and per file (self).
 *
 * The sample: every k-th PDF (sorted by path) of `pdf-manuals`, `pdf-plain` and `nested`
 * under CORPUS (default ~/.cache/shelfmark/corpus-full), n in all.
 *
 * @module
 */
import { join } from "node:path";
import process from "node:process";
import { parseArgs } from "node:util";
import { pdf, pdfjsTextPatch } from "../extractors/pdf.ts";

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

/** Functions whose inclusive share `--attribute` prints, in this order. */
const WATCHED = [
  "translateFont",
  "Font",
  "convert",
  "checkAndRepair",
  "Type1Font",
  "#parseType1",
  "extractFontProgram",
  "CFFFont",
  "buildTextContentItem",
  "getCurrentTextTransform",
  "compareWithLastPosition",
  "charsToGlyphs",
  "runBidiTransform",
  "bidi",
  "normalizeUnicode",
  "flushTextContentItem",
  "getOperatorList",
  "ensure",
  "getPage",
  "pageLines",
  "layoutLines",
  "dropRunning",
  "pdfHeadings",
  "placeBookmarks",
  "fastClone",
  "(garbage collector)",
];

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

/**
 * Per cent of sampled time: inclusive for {@link WATCHED} functions, self per source file
 * and per function (`name file`, the 30 largest).
 */
export function attribute(profile: {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}): {
  inclusive: Record<string, number>;
  selfByFile: Record<string, number>;
  selfByFunction: Record<string, number>;
} {
  const self = new Map<number, number>();
  profile.samples.forEach((s, i) => self.set(s, (self.get(s) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const incl = new Map<string, number>();
  const files = new Map<string, number>();
  const fns = new Map<string, number>();
  let all = 0;
  for (const [id, t] of self) {
    all += t;
    const frame = byId.get(id)!.callFrame;
    const file = frame.url ? frame.url.split("/").slice(-2).join("/") : frame.functionName;
    files.set(file, (files.get(file) ?? 0) + t);
    const fn = frame.url ? `${frame.functionName || "(anonymous)"} ${file}` : file;
    fns.set(fn, (fns.get(fn) ?? 0) + t);
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const name = byId.get(cur)!.callFrame.functionName;
      if (seen.has(name)) continue;
      seen.add(name);
      incl.set(name, (incl.get(name) ?? 0) + t);
    }
  }
  const pct = (v: number) => Math.round(1000 * v / all) / 10;
  const top = (m: Map<string, number>, n: number) =>
    Object.fromEntries([...m].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, v]) => [k, pct(v)]));
  return {
    inclusive: Object.fromEntries(WATCHED.map((k) => [k, pct(incl.get(k) ?? 0)])),
    selfByFile: top(files, 20),
    selfByFunction: top(fns, 30),
  };
}

if (import.meta.main) {
  const { values, positionals } = parseArgs({
    args: Deno.args,
    options: {
      n: { type: "string", default: "40" },
      out: { type: "string" },
      "no-pdftotext": { type: "boolean", default: false },
      attribute: { type: "string" },
    },
    allowPositionals: true,
  });
  if (values.attribute) {
    console.log(
      JSON.stringify(attribute(JSON.parse(Deno.readTextFileSync(values.attribute))), null, 1),
    );
    Deno.exit(0);
  }
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
    textPatch: (await pdfjsTextPatch()).patched,
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
