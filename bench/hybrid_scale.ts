/**
 * Hybrid search latency on a large keyword index (the 100,000-document library of
 * `deno task bench:scale --keep` or `deno task bench:catalog --keep`), without the three
 * hours the built-in model needs to embed 100,000 documents on two cores.
 *
 * **Document vectors are stand-ins**: random unit vectors (512 dimensions, seeded by the
 * document id, as many as the real model would write), written through the real pipeline
 * (`VectorSync` -> LanceDB table -> IVF index past 5,000 rows). Queries are embedded by the
 * real model (`use-lite-en`), and searches run through the real `search` tool: keyword
 * retrieval, the vector search in LanceDB, fusion, the hybrid guard, passages and snippets
 * (semantic snippets of vector-only hits embed their passages with the real model). The
 * model's similarity floor is off, so every query fuses a full vector list and vector-only
 * hits get semantic snippets: the costliest case, an upper bound. Search
 * latency does not depend on what the document vectors hold; what the answers hold does,
 * so this measures time only, never recall. The vectors are stored under their own name
 * and settings (`random document vectors`), so a real shelf opened on the copy computes
 * its own.
 *
 * Works on a copy of the data folder (made in `--work`, removed at the end unless `--keep`):
 *
 * ```
 * deno run -A bench/hybrid_scale.ts DATA_DIR [--work /tmp/shelfmark-hybrid-scale] [--runs 3] [--keep] [--json]
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
import { UseEmbedder } from "../embedders/use.ts";
import type { Embedder } from "../core/types.ts";
import { devQuestions } from "./agent_cost.ts";
import { random } from "./scale_docs.ts";
import { dirSize, pct } from "./stats.ts";
import { partsOf } from "../shelf/_parts.ts";

const here = dirname(fileURLToPath(import.meta.url));

/** A random unit vector, the same for the same text. */
function unitVector(text: string, dims: number): Float32Array {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  const next = random(h);
  const v = new Float32Array(dims);
  let norm = 0;
  for (let i = 0; i < dims; i++) {
    // Sum of uniforms: near-Gaussian, so directions are spread evenly.
    const x = next() + next() + next() - 1.5;
    v[i] = x;
    norm += x * x;
  }
  norm = Math.sqrt(norm);
  for (let i = 0; i < dims; i++) v[i]! /= norm;
  return v;
}

/** The real model for queries; stand-in vectors for documents (see the module doc). */
function standInEmbedder(real: UseEmbedder): Embedder {
  return {
    model: real.model,
    settings: "random document vectors (bench/hybrid_scale.ts)",
    dimensions: real.dimensions,
    multilingual: real.multilingual,
    maxChars: real.maxChars,
    // Random vectors sit near 0 from any query: with the model's floor (0.3) none would
    // take part. Without it every query fuses a full vector list: the costliest case.
    minSimilarity: 0,
    fusionWeight: real.fusionWeight,
    defaultMode: real.defaultMode,
    embed: (texts, kind) =>
      kind === "query"
        ? real.embed(texts, kind)
        : Promise.resolve(texts.map((t) => unitVector(t, real.dimensions))),
    close: () => real.close(),
  };
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    args: Deno.args,
    allowPositionals: true,
    options: {
      work: { type: "string", default: "/tmp/shelfmark-hybrid-scale" },
      runs: { type: "string", default: "3" },
      keep: { type: "boolean", default: false },
      json: { type: "boolean", default: false },
    },
  });
  const source = positionals[0];
  if (!source) {
    console.error("usage: deno run -A bench/hybrid_scale.ts DATA_DIR [--work DIR] [--runs N]");
    Deno.exit(2);
  }
  const work = resolve(values.work!);
  const data = join(work, "data");
  const runs = Math.max(1, Number(values.runs));
  await Deno.remove(work, { recursive: true }).catch(() => {});
  await Deno.mkdir(work, { recursive: true });
  const copy = new Deno.Command("cp", { args: ["-a", resolve(source), data] });
  if (!(await copy.output()).success) throw new Error(`cannot copy ${source}`);
  const log = (s: string) => console.error(s);

  const real = new UseEmbedder();
  const shelf = await Shelf.open({ data, embedder: standInEmbedder(real), log: () => {} });
  try {
    const docs = partsOf(shelf).catalog.docCount();
    log(`hybrid scale: ${docs} documents; writing stand-in vectors...`);
    const t0 = performance.now();
    partsOf(shelf).vectors!.kick();
    await partsOf(shelf).vectors!.idle();
    const vectorSeconds = (performance.now() - t0) / 1000;
    const status = partsOf(shelf).vectors!.status();
    log(`  ${status.embedded} vectors in ${vectorSeconds.toFixed(0)} s`);

    const questions = await devQuestions(
      Deno.env.get("SHELFMARK_SHARED") ?? resolve(here, "..", "..", "shared"),
    );
    const ask = (query: string, mode: string) =>
      callTool(shelf, "search", { query, mode, limit: 5 });
    // Warm: the model loads, the table and index open, pages come into the cache.
    for (const q of questions) {
      await ask(q.question, "keyword");
      await ask(q.question, "hybrid");
    }
    // The vectors take part: hybrid answers in its own mode and its lists differ.
    const ids = async (query: string, mode: string) => {
      const { json } = await callTool(shelf, "search", { query, mode, output_format: "json" });
      if (json.mode_used !== mode) throw new Error(`${mode} search answered as ${json.mode_used}`);
      return (json.results as { doc_id: string }[]).map((r) => r.doc_id).join(" ");
    };
    let differ = 0;
    for (const q of questions) {
      if (await ids(q.question, "hybrid") !== await ids(q.question, "keyword")) differ++;
    }
    const times: Record<string, number[]> = { keyword: [], hybrid: [] };
    for (let r = 0; r < runs; r++) {
      for (const q of questions) {
        for (const mode of ["keyword", "hybrid"]) {
          const t = performance.now();
          await ask(q.question, mode);
          times[mode]!.push(performance.now() - t);
        }
      }
    }
    const result = {
      documents: docs,
      vectors: status.embedded,
      vector_write_s: Math.round(vectorSeconds),
      vector_table_mib: Math.round(dirSize(join(data, "vectors")) / 1048576 * 10) / 10,
      keyword_p50_ms: Math.round(pct(times.keyword!, 50) * 10) / 10,
      keyword_p95_ms: Math.round(pct(times.keyword!, 95) * 10) / 10,
      hybrid_p50_ms: Math.round(pct(times.hybrid!, 50) * 10) / 10,
      hybrid_p95_ms: Math.round(pct(times.hybrid!, 95) * 10) / 10,
      queries: times.hybrid!.length,
      hybrid_lists_differing: differ,
    };
    if (values.json) {
      console.log(JSON.stringify(result));
    } else {
      console.log(
        `| at ${docs.toLocaleString("en")} documents (stand-in document vectors) | value |`,
      );
      console.log("| --- | ---: |");
      console.log(
        `| keyword search p50 / p95 (warm, 5 hits) | ${result.keyword_p50_ms} / ${result.keyword_p95_ms} ms |`,
      );
      console.log(
        `| hybrid search p50 / p95 (warm, 5 hits, query embedded by the model) | ${result.hybrid_p50_ms} / ${result.hybrid_p95_ms} ms |`,
      );
      console.log(`| vector table on disk | ${result.vector_table_mib} MiB |`);
      console.log(`| queries per mode | ${result.queries} |`);
      console.log(
        `| hybrid result lists differing from keyword ones | ${differ} of ${questions.length} |`,
      );
    }
  } finally {
    await shelf.close();
    if (!values.keep) await Deno.remove(work, { recursive: true }).catch(() => {});
  }
}

if (import.meta.main) await main();
