/**
 * The catalog alone at a million documents (vectors off): where one machine stops being
 * enough. The documents are those of `bench/scale.ts` (`bench/scale_docs.ts`: a title and
 * 2-7 real sections of the shared corpus each), made in memory instead of written to files:
 * each goes through the real Markdown extractor and is stored the way the indexer stores a
 * file (`bench/catalog_fill.ts`). At each checkpoint (100k, 250k, 500k and the last by
 * default) the fill pauses and measures:
 *
 * - insert rate and CPU of the segment since the last checkpoint, split by step;
 * - catalog size on disk (`catalog.db`, `-wal`, `-shm`) per 1,000 documents;
 * - resident memory of the filling process (now and peak);
 * - `count(*)` of the documents (the indexer asks it for every document's TF-IDF) and the
 *   file states an incremental run loads first;
 * - in a new process (a server's first calls): catalog open, keyword search p50/p95 warm
 *   through the `search` tool (dev questions, 5 hits, passages) and through the FTS5
 *   keyword index alone (BM25 only, with and without a library filter), outline/read p95 on
 *   random documents, the first build of the document table (`core/listing.ts`: browse,
 *   find_documents, recent) and of the link graph (`core/graph.ts`: links, connection,
 *   context), and that process's memory;
 * - cold start to the first answer (`shelfmark search` in a new process, median of 3).
 *
 * ```
 * deno task bench:catalog [--docs 1000000] [--checkpoints 100000,250000,500000]
 *   [--work /tmp/shelfmark-catalog-scale] [--max-minutes 60] [--count-in-memory] [--keep] [--json]
 *   [--resume]
 * ```
 *
 * Every checkpoint is logged to stderr as it is reached, so a stopped run still gives its
 * numbers; `--max-minutes` ends the fill with a last checkpoint. The indexer asks the
 * catalog's `count(*)` twice for every document (the fill's `count` step: it grows with the
 * catalog, 10 ms a document at 250,000); `--count-in-memory` keeps the count instead (the
 * same values, so the same catalog, sooner). The work folder is removed at the end unless
 * `--keep`; `--resume` goes on filling a kept folder where a stopped run left it (the same
 * documents in the same order; `fill_total_s` then counts from the resumption). Not a test:
 * numbers, not assertions.
 *
 * @module
 */
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Catalog } from "../core/catalog.ts";
import { docIdFor } from "../core/paths.ts";
import { docTable } from "../core/listing.ts";
import { Fts5Index } from "../stores/fts5.ts";
import { prepareQuery } from "../search/query.ts";
import { callTool } from "../server/dispatch.ts";
import { Shelf } from "../shelf/shelf.ts";
import { Filler } from "./catalog_fill.ts";
import { defaultCorpus, libraryDocs, random, sectionsOf } from "./scale_docs.ts";
import { pct } from "./stats.ts";
import { partsOf } from "../shelf/_parts.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const CLI = join(ROOT, "server/cli.ts");
/** Documents whose outline and text are read at each checkpoint. */
const SAMPLE = 300;

type Row = Record<string, number>;

/** Resident and peak resident size of this process, MiB. */
function memory(): { rss: number; peak: number } {
  const s = Deno.readTextFileSync("/proc/self/status");
  const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(s)?.[1] ?? 0);
  return { rss: kb("VmRSS") / 1024, peak: kb("VmHWM") / 1024 };
}

/** CPU seconds (user + system) of this process. */
function cpuSeconds(): number {
  const stat = Deno.readTextFileSync("/proc/self/stat");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(f[11]) + Number(f[12])) / 100;
}

/** Milliseconds `fn` takes, and its result. */
function timed<T>(fn: () => T): [number, T] {
  const t = performance.now();
  const out = fn();
  return [performance.now() - t, out];
}

/** Median milliseconds of 5 calls of `fn`. */
function median(fn: () => unknown): number {
  return pct(Array.from({ length: 5 }, () => timed(fn)[0]), 50);
}

/** p50/p95 of `fn` over the inputs (after a warm-up pass over the first `warm`). */
async function latency<T>(
  inputs: T[],
  fn: (x: T) => Promise<unknown>,
  warm = 20,
): Promise<[number, number]> {
  for (const x of inputs.slice(0, warm)) await fn(x);
  const ms: number[] = [];
  for (const x of inputs) {
    const t = performance.now();
    await fn(x);
    ms.push(performance.now() - t);
  }
  return [pct(ms, 50), pct(ms, 95)];
}

/** The dev questions (`$SHELFMARK_SHARED`, else `../shared` beside the checkout). */
function questions(): string[] {
  const shared = Deno.env.get("SHELFMARK_SHARED") ?? join(ROOT, "../shared");
  return Deno.readTextFileSync(join(shared, "eval/questions.dev.jsonl")).split("\n")
    .filter(Boolean).map((l) => JSON.parse(l).question as string);
}

/** Bytes of the catalog's files, MiB. */
function diskMiB(data: string): { db: number; wal: number; shm: number } {
  const size = (f: string) => {
    try {
      return Deno.statSync(join(data, f)).size / 2 ** 20;
    } catch {
      return 0;
    }
  };
  return { db: size("catalog.db"), wal: size("catalog.db-wal"), shm: size("catalog.db-shm") };
}

/** The measures taken in a new process on a filled data folder (`--measure`). */
async function measure(data: string, idsFile: string, libRoot: string): Promise<Row> {
  const row: Row = {};
  const ids = JSON.parse(Deno.readTextFileSync(idsFile)) as string[];
  const qs = questions();
  [row.catalog_open_ms] = timed(() => {
    const c = new Catalog(join(data, "catalog.db"));
    new Fts5Index(c.db, { stats: c });
    c.close();
  });
  let t = performance.now();
  const shelf = await Shelf.open({ data, log: () => {}, embedder: "none", workers: 0 });
  row.shelf_open_ms = performance.now() - t;
  try {
    const search = (query: string) =>
      callTool(shelf, "search", { query, limit: 5, mode: "keyword", output_format: "json" });
    t = performance.now();
    await search(qs[0]!);
    row.first_search_ms = performance.now() - t;
    row.count_ms = median(() => partsOf(shelf).catalog.count());
    [row.search_p50_ms, row.search_p95_ms] = await latency(qs, search);
    const bm25 = (filters: { library?: string }) => (q: string) =>
      partsOf(shelf).keyword.search(prepareQuery(q, 10, filters, 0));
    [row.bm25_p50_ms, row.bm25_p95_ms] = await latency(qs, bm25({}));
    // slow (every match is ranked): 30 questions after 5
    [row.bm25_library_p50_ms, row.bm25_library_p95_ms] = await latency(
      qs.slice(0, 30),
      bm25({ library: "library" }),
      5,
    );
    [, row.outline_p95_ms] = await latency(
      ids,
      (id) => callTool(shelf, "outline", { doc_ids: [id] }),
    );
    [, row.read_p95_ms] = await latency(
      ids,
      (id) => callTool(shelf, "read", { doc_id: id, offset: 1, limit: 40 }),
    );
    row.server_rss_mib = memory().rss;
    [row.file_states_ms] = timed(() => partsOf(shelf).catalog.fileStates("library").size);
    [row.listing_build_ms] = timed(() => docTable(partsOf(shelf).catalog));
    [row.listing_again_ms] = timed(() => docTable(partsOf(shelf).catalog));
    row.server_rss_after_listing_mib = memory().rss;
    const libs = [{ name: "library", root: libRoot }];
    const inputs = { catalog: partsOf(shelf).catalog, libraries: libs };
    for (const key of ["graph_build_ms", "graph_again_ms"] as const) {
      const t = performance.now();
      await partsOf(shelf).graphs.graph(inputs);
      row[key] = performance.now() - t;
    }
    row.server_rss_after_graph_mib = memory().rss;
    row.server_peak_mib = memory().peak;
  } finally {
    await shelf.close();
  }
  return row;
}

/** Run `--measure` in a new process and the CLI's cold start; their figures. */
async function measureApart(work: string, data: string, ids: string[]): Promise<Row> {
  const idsFile = join(work, "ids.json");
  Deno.writeTextFileSync(idsFile, JSON.stringify(ids));
  const self = fileURLToPath(import.meta.url);
  const args = [self, "--measure", data, "--ids", idsFile, "--work", work];
  const out = await new Deno.Command("deno", { args: ["run", "-A", ...args], stderr: "inherit" })
    .output();
  if (!out.success) throw new Error("the measuring process failed");
  const row = JSON.parse(new TextDecoder().decode(out.stdout)) as Row;
  const cold: number[] = [];
  for (const q of questions().slice(0, 3)) {
    const t = performance.now();
    const c = await new Deno.Command("deno", {
      args: ["run", "-A", CLI, "search", q, "--data", data, "--embedder", "none"],
      stdout: "null",
      stderr: "null",
    }).output();
    if (!c.success) throw new Error(`shelfmark search failed (${c.code})`);
    cold.push(performance.now() - t);
  }
  row.cold_first_answer_ms = pct(cold, 50);
  return row;
}

function round(row: Row): Row {
  const out: Row = {};
  for (const [k, v] of Object.entries(row)) {
    out[k] = Number.isInteger(v) ? v : Number(v.toFixed(v >= 100 ? 0 : v >= 10 ? 1 : 2));
  }
  return out;
}

async function main() {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      docs: { type: "string", default: "1000000" },
      checkpoints: { type: "string", default: "100000,250000,500000" },
      work: { type: "string", default: "/tmp/shelfmark-catalog-scale" },
      corpus: { type: "string" },
      "max-minutes": { type: "string" },
      keep: { type: "boolean", default: false },
      "count-in-memory": { type: "boolean", default: false },
      resume: { type: "boolean", default: false },
      json: { type: "boolean", default: false },
      measure: { type: "string" },
      ids: { type: "string" },
    },
  });
  const work = resolve(values.work!);
  const libRoot = join(work, "library");
  if (values.measure) {
    console.log(JSON.stringify(await measure(values.measure, values.ids!, libRoot)));
    return;
  }
  const n = Number(values.docs);
  const marks = new Set(
    [...values.checkpoints!.split(","), String(n)].map(Number).filter((x) => x > 0 && x <= n),
  );
  const budgetMs = values["max-minutes"] ? Number(values["max-minutes"]) * 60_000 : Infinity;
  const log = (m: string) => console.error(`catalog_scale: ${m}`);
  if (!values.resume) await Deno.remove(work, { recursive: true }).catch(() => {});
  const data = join(work, "data");
  Deno.mkdirSync(data, { recursive: true });
  const sections = await sectionsOf(values.corpus ?? defaultCorpus());
  log(`${sections.length} real sections; storing up to ${n} documents in ${data}`);

  const filler = new Filler(
    join(data, "catalog.db"),
    { name: "library", root: libRoot },
    values["count-in-memory"],
  );
  const rows: Row[] = [];
  const sample: string[] = [];
  const pick = random(3);
  let started = performance.now();
  let segStart = started;
  let segCpu = cpuSeconds();
  let segDocs = 0;
  let bytes = 0;
  let i = 0;
  const checkpoint = async () => {
    filler.flush();
    const wall = (performance.now() - segStart) / 1000;
    const cpu = cpuSeconds() - segCpu;
    const docs = i - segDocs;
    const row: Row = {
      documents: i,
      text_mb: bytes / 1e6,
      fill_total_s: (performance.now() - started) / 1000,
      docs_per_s: docs / wall,
      cpu_share: cpu / wall,
    };
    for (const [k, v] of Object.entries(filler.ms)) row[`ms_per_doc_${k}`] = v / docs;
    const disk = diskMiB(data);
    row.catalog_db_mib = disk.db;
    row.wal_mib = disk.wal + disk.shm;
    row.mib_per_1000 = (disk.db + disk.wal + disk.shm) / (i / 1000);
    const mem = memory();
    row.fill_rss_mib = mem.rss;
    row.fill_peak_mib = mem.peak;
    row.fill_count_ms = median(() => filler.catalog.docCount());
    log(`${i} documents stored; measuring in a new process`);
    Object.assign(row, await measureApart(work, data, sample));
    const r = round(row);
    rows.push(r);
    log(`checkpoint ${JSON.stringify(r)}`);
    filler.catalog.begin();
    filler.ms = Filler.steps();
    segStart = performance.now();
    segCpu = cpuSeconds();
    segDocs = i;
  };

  const epoch = Date.UTC(2020, 0, 1);
  // `--resume`: the documents already stored are generated again (the same seeded
  // sequence), not stored, so the sample and the next documents are those of one run.
  const stored = values.resume ? filler.catalog.count() : 0;
  if (stored) log(`resuming after ${stored} stored documents`);
  for (const doc of libraryDocs(n, sections)) {
    // a modification time a minute apart, so `recent` has an order to keep
    const id = i < stored
      ? docIdFor(filler.pathOf(doc))
      : await filler.add(doc, epoch + i * 60_000);
    bytes += doc.text.length;
    i++;
    // reservoir sample of the documents read at checkpoints (the stored ones too)
    if (sample.length < SAMPLE) sample.push(id);
    else if (pick() < SAMPLE / i) sample[Math.floor(pick() * SAMPLE)] = id;
    if (i < stored) continue;
    if (i === stored) {
      started = segStart = performance.now();
      segDocs = i;
      continue;
    }
    if (i % 10_000 === 0) {
      const s = (performance.now() - started) / 1000;
      log(
        `${i} documents, ${s.toFixed(0)} s, ${
          ((i - segDocs) / (performance.now() - segStart) * 1000).toFixed(0)
        } docs/s since the last checkpoint`,
      );
    }
    if (marks.has(i)) await checkpoint();
    else if (performance.now() - started > budgetMs) {
      log(`time budget spent at ${i} documents`);
      await checkpoint();
      break;
    }
  }
  filler.flush();
  filler.catalog.close();
  if (!values.keep) await Deno.remove(work, { recursive: true });

  if (values.json) console.log(JSON.stringify(rows));
  else {
    console.log(
      `| measure | ${rows.map((r) => (r.documents ?? 0).toLocaleString("en-US")).join(" | ")} |`,
    );
    console.log(`| --- | ${rows.map(() => "---:").join(" | ")} |`);
    for (const k of Object.keys(rows[0] ?? {}).filter((k) => k !== "documents")) {
      console.log(`| ${k} | ${rows.map((r) => r[k]).join(" | ")} |`);
    }
  }
}

if (import.meta.main) await main();
