/**
 * What an extraction answer costs to cross from an extraction process to the index process,
 * with and without the document measured there (`core/measure.ts`): its JSON bytes per
 * document, by part, and the index process's CPU to parse it.
 *
 * ```
 * deno run -A bench/answer_bytes.ts [CORPUS_DIR] [--libraries a,b]
 * ```
 *
 * Extracts every file of the libraries in process (default: markdown, text, html, word of
 * the full corpus), then encodes each answer as `ProcChannel` frames it (JSON) and parses it
 * back. Not a test: numbers, not assertions.
 *
 * @module
 */
import process from "node:process";
import { parseArgs } from "node:util";
import { extname, join, relative } from "node:path";
import { builtinExtractors } from "../extractors/mod.ts";
import { ExtractorRegistry } from "../core/registry.ts";
import { withMeasure } from "../core/measure.ts";

/** The files under a folder, recursively. */
async function* filesUnder(dir: string): AsyncGenerator<string> {
  for await (const e of Deno.readDir(dir)) {
    const p = join(dir, e.name);
    if (e.isDirectory) yield* filesUnder(p);
    else if (e.isFile) yield p;
  }
}

/** CPU milliseconds of this process so far. */
function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** CPU ms to parse `json`, the least of 3 tries (the first warms up). */
function parseMs(json: string): number {
  let best = Infinity;
  for (let i = 0; i < 3; i++) {
    const c0 = cpuMs();
    JSON.parse(json);
    best = Math.min(best, cpuMs() - c0);
  }
  return best;
}

const { values, positionals } = parseArgs({
  args: Deno.args,
  allowPositionals: true,
  options: { libraries: { type: "string", default: "markdown,text,html,word" } },
});
const root = positionals[0] ??
  join(Deno.env.get("HOME") ?? "/tmp", ".cache", "shelfmark", "corpus-full");
const registry = new ExtractorRegistry();
for (const ex of builtinExtractors()) registry.register(ex);
const sum = {
  docs: 0,
  before: 0,
  after: 0,
  outline: 0,
  card: 0,
  text: 0,
  parseBefore: 0,
  parseAfter: 0,
};
for (const lib of values.libraries.split(",")) {
  for await (const abs of filesUnder(join(root, lib))) {
    const path = relative(root, abs);
    const input = { path, extension: extname(path).toLowerCase(), bytes: await Deno.readFile(abs) };
    const r = await registry.extract(input).catch(() => undefined);
    if (!r) continue;
    const before = JSON.stringify(r);
    const m = withMeasure(path, r)!.measured!;
    const after = JSON.stringify({ ...r, measured: m });
    sum.docs++;
    sum.before += before.length;
    sum.after += after.length;
    sum.outline += JSON.stringify(m.outline).length;
    sum.card += JSON.stringify(m.card).length;
    sum.text += JSON.stringify(m.text).length;
    sum.parseBefore += parseMs(before);
    sum.parseAfter += parseMs(after);
  }
}
const per = (x: number) => `${(x / sum.docs / 1024).toFixed(1)} KiB`;
const ms = (x: number) => `${(x / sum.docs).toFixed(2)} ms`;
console.log(`${sum.docs} documents of ${values.libraries}, per document:`);
console.log(`- answer JSON without measure ${per(sum.before)}, with ${per(sum.after)}`);
console.log(
  `- of which measured outline ${per(sum.outline)}, card ${per(sum.card)}, prepared text ${
    per(sum.text)
  }`,
);
console.log(`- JSON.parse CPU without ${ms(sum.parseBefore)}, with ${ms(sum.parseAfter)}`);
