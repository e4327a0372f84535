/**
 * Outline builders against the corpus's ground truth: the real extractors on every
 * Markdown, HTML and plain-text document of the small corpus that has known headings.
 * Heading F1 compares titles (case and whitespace folded) as multisets.
 */
import { extname, join } from "node:path";
import { builtinExtractors } from "../extractors/mod.ts";
import { ExtractorRegistry } from "../core/registry.ts";
import { sniff } from "../core/sniff.ts";
import { assert } from "./assert.ts";
import { groundTruth, smallCorpus, titleF1 } from "./corpus.ts";

async function meanF1(prefix: string): Promise<{ f1: number; n: number; worst: string[] }> {
  const dir = await smallCorpus();
  const truth = await groundTruth(dir);
  const registry = new ExtractorRegistry();
  for (const e of builtinExtractors()) registry.register(e);
  let sum = 0;
  let n = 0;
  const scored: [number, string][] = [];
  for (const [path, row] of truth) {
    if (!path.startsWith(prefix) || !row.headings) continue;
    const bytes = await Deno.readFile(join(dir, path));
    const input = {
      path,
      extension: extname(path).toLowerCase(),
      bytes,
      mimeType: sniff(bytes).mimeType,
    };
    const ex = registry.select(input);
    if (!ex) continue;
    const doc = await ex.extract(input);
    const f1 = titleF1((doc.headings ?? []).map((h) => h.title), row.headings.map((h) => h.title));
    sum += f1;
    n++;
    scored.push([f1, path]);
  }
  scored.sort((a, b) => a[0] - b[0]);
  return {
    f1: n ? sum / n : 0,
    n,
    worst: scored.slice(0, 3).map(([f, p]) => `${p} ${f.toFixed(2)}`),
  };
}

for (
  const [prefix, floor] of [
    ["markdown/", 0.95],
    ["html/", 0.9],
    ["text/from-markdown/", 0.8],
    ["text/man/", 0.8],
    ["text/gnu-info/", 0.8],
    ["text/sphinx-text/", 0.8],
    ["text/asciidoc/", 0.85],
    ["text/rst-sources/", 0.9],
  ] as const
) {
  Deno.test(`outline heading F1 on ${prefix} of the small corpus is at least ${floor}`, async () => {
    const r = await meanF1(prefix);
    console.log(
      `  ${prefix}: mean heading F1 ${r.f1.toFixed(3)} over ${r.n} documents; lowest: ${
        r.worst.join(", ")
      }`,
    );
    assert(r.n > 0, "no documents with ground truth");
    assert(r.f1 >= floor, `${prefix} F1 ${r.f1.toFixed(3)} < ${floor}`);
  });
}
