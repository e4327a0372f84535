/**
 * `deno task bench [CORPUS_DIR]`: index the full shared corpus (every library whose format
 * is supported so far) and print a table of speed, size, latency and retrieval quality.
 * Not a test: numbers, not assertions.
 *
 * The corpus comes from `$SHELFMARK_CORPUS_FULL`, the first argument, or
 * `~/.cache/shelfmark/corpus-full` (built with `../shared/corpus/build.sh` when missing).
 */
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { DatabaseSync } from "node:sqlite";
import { Shelf } from "../shelf/shelf.ts";
import { estimateTokens } from "../core/budget.ts";
import { callTool } from "../server/dispatch.ts";
import { agentCost, agentCostRows, devQuestions, type Question } from "./agent_cost.ts";
import { STOP_WORDS } from "../core/tokenize.ts";
import { flattenOutline } from "../core/outline.ts";
import { groundTruth, titleF1 } from "../tests/corpus.ts";
import { cliCost, coldStart, httpLoad } from "./serve_bench.ts";
import { ocrQuality, officeSpeed, pdfScanQuality, pdfSpeed } from "./formats_bench.ts";
import { modeStats, modeTable, vectorsReady } from "./vectors_bench.ts";
import { dirSize } from "./stats.ts";
import { compareRecoll, comparisonTable } from "./recoll.ts";
import { profileIndex, profileTables } from "./profile_index.ts";
// Titles compared without section numbers ("2.1 Overview" = "Overview").
import { unnumbered } from "./pdf_headings.ts";
import { partsOf } from "../shelf/_parts.ts";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const SHARED = Deno.env.get("SHELFMARK_SHARED") ?? resolve(repo, "..", "shared");
const LIBRARIES = [
  "markdown",
  "html",
  "text",
  "nested",
  "pdf-manuals",
  "pdf-plain",
  "word",
  "ebooks",
  "scans",
];

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
}

async function corpusDir(): Promise<string> {
  const dir = Deno.args[0] ?? Deno.env.get("SHELFMARK_CORPUS_FULL") ??
    join(Deno.env.get("HOME") ?? "/tmp", ".cache", "shelfmark", "corpus-full");
  if (!existsSync(join(dir, "MANIFEST.tsv"))) {
    console.error(`building the full corpus in ${dir} ...`);
    const out = await new Deno.Command("bash", {
      args: [join(SHARED, "corpus", "build.sh"), dir],
      stdout: "inherit",
      stderr: "inherit",
    }).output();
    if (!out.success) throw new Error("corpus build failed");
  }
  return dir;
}

/** Bytes of the files directly in a folder (its subfolders not counted). */
function topFilesSize(dir: string): number {
  let n = 0;
  for (const e of Deno.readDirSync(dir)) {
    if (e.isFile) n += Deno.statSync(join(dir, e.name)).size;
  }
  return n;
}

/** Plain whole-document BM25 over the extracted text, words OR-ed: the baseline. */
function baseline(shelf: Shelf) {
  const db = new DatabaseSync(":memory:");
  db.exec("CREATE VIRTUAL TABLE t USING fts5(doc_id UNINDEXED, body)");
  const ins = db.prepare("INSERT INTO t (doc_id, body) VALUES (?, ?)");
  db.exec("BEGIN");
  for (const r of partsOf(shelf).catalog.iterTexts()) ins.run(r.doc_id, r.text);
  db.exec("COMMIT");
  const q = db.prepare("SELECT doc_id FROM t WHERE t MATCH ? ORDER BY rank LIMIT 10");
  return (question: string): string[] => {
    const words = question.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
    const terms = words.filter((w) => !STOP_WORDS.has(w)).map((w) => `"${w}"`);
    if (!terms.length) return [];
    return q.all(terms.join(" OR ")).map((r) => r.doc_id as string);
  };
}

async function main() {
  const corpus = await corpusDir();
  const data = await Deno.makeTempDir({ prefix: "shelfmark-bench-" });
  let peakRss = 0;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, Deno.memoryUsage().rss);
  }, 100);
  const t0 = performance.now();
  const shelf = await Shelf.open({
    data,
    folders: LIBRARIES.map((l) => join(corpus, l)),
    log: () => {},
  });
  let firstAnswer = 0;
  const indexing = shelf.index((p) => {
    if (p.done % 200 === 0) {
      Deno.stderr.writeSync(new TextEncoder().encode(`\rindexing ${p.done}/${p.total}`));
    }
  });
  const probe = (async () => {
    while (!firstAnswer) {
      try {
        const r = await callTool(shelf, "search", {
          query: "configuration",
          limit: 1,
          output_format: "json",
        });
        if ((r.json.results as unknown[]).length) firstAnswer = performance.now() - t0;
      } catch { /* not yet */ }
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  const progress = await indexing;
  const indexMs = performance.now() - t0;
  // OCR of scanned PDF pages runs after the text pass, in the background (beside the
  // vectors): its end is reported beside the keyword index's, which `indexMs` measures.
  const ocrEnd = shelf.ocrDone().then((s) =>
    s && {
      ms: performance.now() - t0,
      done: s.pages_done,
      failed: s.pages_failed,
      skipped: s.pages_skipped,
    }
  );
  await probe;
  console.error("\nembedding ...");
  const docs = partsOf(shelf).catalog.count();
  const vectors = await vectorsReady(shelf);
  const vectorBytes = dirSize(join(data, "vectors"));
  const scanned = await ocrEnd;

  // Questions whose targets are in the indexed libraries.
  const questions = (await Deno.readTextFile(join(SHARED, "eval", "questions.dev.jsonl")))
    .split("\n").filter(Boolean).map((l) => JSON.parse(l) as Question)
    .filter((q) => [q.target, ...q.alt_targets].some((p) => partsOf(shelf).catalog.idByPath(p)));
  const base = baseline(shelf);
  const kinds = new Map<string, { n: number; r1: number; r5: number; r10: number; mrr: number }>();
  const baseAll = { n: 0, r5: 0, mrr: 0 };
  const add = (kind: string, rank: number) => {
    const k = kinds.get(kind) ?? { n: 0, r1: 0, r5: 0, r10: 0, mrr: 0 };
    k.n++;
    if (rank >= 1) {
      k.r1 += rank <= 1 ? 1 : 0;
      k.r5 += rank <= 5 ? 1 : 0;
      k.r10 += rank <= 10 ? 1 : 0;
      k.mrr += 1 / rank;
    }
    kinds.set(kind, k);
  };
  const modes = await modeStats(shelf, questions);
  const cost = await agentCost(
    shelf,
    (await devQuestions(SHARED)).filter((q) => questions.some((x) => x.id === q.id)),
    "keyword",
  );
  const searchMs: number[] = [];
  const outlineMs: number[] = [];
  const readMs: number[] = [];
  const hitsOf = new Map<string, string[]>();
  for (let round = 0; searchMs.length < 500; round++) {
    for (const q of questions) {
      const s = performance.now();
      const r = await callTool(shelf, "search", {
        query: q.question,
        limit: 10,
        output_format: "json",
      });
      searchMs.push(performance.now() - s);
      const ids = r.json.results as { doc_id: string; path: string }[];
      if (round === 0) {
        const targets = new Set([q.target, ...q.alt_targets]);
        const rank = ids.findIndex((h) => targets.has(h.path)) + 1;
        add(q.kind, rank);
        add("all", rank);
        const bids = base(q.question).map((id) => partsOf(shelf).catalog.get(id)?.card.path);
        const brank = bids.findIndex((p) => p && targets.has(p)) + 1;
        baseAll.n++;
        if (brank >= 1 && brank <= 5) baseAll.r5++;
        if (brank >= 1) baseAll.mrr += 1 / brank;
        hitsOf.set(q.id, ids.map((h) => h.doc_id));
      }
    }
    if (!questions.length) break;
  }
  const allIds = [...hitsOf.values()].flat();
  for (let i = 0; outlineMs.length < 500 && allIds.length; i++) {
    const id = allIds[i % allIds.length]!;
    let s = performance.now();
    await callTool(shelf, "outline", { doc_ids: [id] });
    outlineMs.push(performance.now() - s);
    s = performance.now();
    await callTool(shelf, "read", { doc_id: id, offset: 1, limit: 200 });
    readMs.push(performance.now() - s);
  }
  // Heading F1 of the outlines against the corpus's ground truth, per library.
  const truth = await groundTruth(corpus);
  const f1s = new Map<string, number[]>();
  for (const [path, row] of truth) {
    if (!row.headings) continue;
    const id = partsOf(shelf).catalog.idByPath(path);
    if (!id) continue;
    const doc = partsOf(shelf).catalog.get(id)!;
    const lib = path.startsWith("text/")
      ? path.split("/").slice(0, 2).join("/")
      : path.split("/")[0]!;
    const list = f1s.get(lib) ?? [];
    list.push(
      titleF1(
        flattenOutline(doc.outline).map((n) => unnumbered(n.title)),
        row.headings.map((h) => unnumbered(h.title)),
      ),
    );
    f1s.set(lib, list);
  }
  // Outline sizes of the outline tool's default answer (without the [meta] footer), over
  // every document.
  let under500 = 0;
  let total = 0;
  for (const id of partsOf(shelf).catalog.ids()) {
    const o = await callTool(shelf, "outline", { doc_ids: [id] });
    total++;
    if (estimateTokens(o.text.split("\n\n[meta]")[0]!) < 500) under500++;
  }
  // Serving: HTTP load on the built index, then a cold start of a real server process.
  const idleRss = Deno.memoryUsage().rss;
  peakRss = Math.max(peakRss, idleRss);
  const loads = [];
  clearInterval(sampler);
  await shelf.close();
  for (
    const [clients, mode] of [[1, "keyword"], [8, "keyword"], [32, "keyword"], [
      8,
      "hybrid",
    ]] as const
  ) {
    loads.push(
      await httpLoad(
        data,
        questions.map((q) => q.question),
        clients,
        Math.ceil(320 / clients),
        mode,
      ),
    );
  }
  const size = topFilesSize(data);
  const cli = await cliCost(data);
  await Deno.remove(data, { recursive: true });
  const cold = await coldStart(LIBRARIES.map((l) => join(corpus, l)), "configuration");
  const pdfs = await pdfSpeed(corpus);
  const office = await officeSpeed(corpus);
  const ocr = await ocrQuality(corpus, truth);
  const scans = await pdfScanQuality(corpus);

  const f = (x: number, d = 2) => x.toFixed(d);
  const rows: [string, string][] = [
    ["libraries", LIBRARIES.join(", ")],
    [
      "CLI search / CLI status, whole process (median of 5)",
      `${f(cli.search, 0)} / ${f(cli.status, 0)} ms = ${f(cli.search / cli.status)}x`,
    ],
    ["documents indexed / files seen", `${docs} / ${progress.total} (${progress.skipped} skipped)`],
    ["index time (cold)", `${f(indexMs / 1000, 1)} s`],
    ["documents / second", f(docs / (indexMs / 1000), 1)],
    ["time until keyword search answers", `${f(firstAnswer / 1000, 2)} s`],
    ["time until every text page is searchable (OCR excluded)", `${f(indexMs / 1000, 1)} s`],
    [
      "time until OCR of scanned PDF pages is done (from the start)",
      scanned
        ? `${f(scanned.ms / 1000, 1)} s (${scanned.done} pages read, ${scanned.failed} failed, ` +
          `${scanned.skipped} passed over)`
        : "OCR of PDF pages off",
    ],
    [
      "time until vectors are ready (after indexing)",
      `${f(vectors.seconds, 1)} s (${f(vectors.rate, 1)} documents embedded / s, ${
        partsOf(shelf).vectors?.embedder.model ?? "no embedder"
      })`,
    ],
    [
      "vector table size",
      `${f((vectorBytes / 2 ** 20) * (1000 / Math.max(docs, 1)), 2)} MiB per 1,000 documents`,
    ],
    [
      "peak RSS (bench process; extraction runs in child processes)",
      `${f(peakRss / 2 ** 20, 0)} MiB`,
    ],
    ["index size on disk", `${f(size / 2 ** 20, 1)} MiB`],
    [
      "search (hybrid) p50 / p95",
      `${f(pct(searchMs, 50))} / ${f(pct(searchMs, 95))} ms (${searchMs.length} calls)`,
    ],
    [
      "outline p50 / p95",
      `${f(pct(outlineMs, 50))} / ${f(pct(outlineMs, 95))} ms (${outlineMs.length} calls)`,
    ],
    ["read p50 / p95", `${f(pct(readMs, 50))} / ${f(pct(readMs, 95))} ms (${readMs.length} calls)`],
    ["outlines under 500 tokens", `${f((100 * under500) / Math.max(total, 1), 1)} % of ${total}`],
    [
      "PDF extraction vs pdftotext (after a 2-PDF warm-up)",
      `${f(pdfs.ours, 0)} vs ${f(pdfs.pdftotext, 0)} pages/s = ${f(pdfs.ratio)}x wall, ${
        f(pdfs.cpuRatio)
      }x CPU time, ${
        f(pdfs.cpuMsPerPage, 1)
      } CPU ms/page (${pdfs.files} PDFs, ${pdfs.pages} pages)`,
    ],
    ["DOCX / EPUB extraction", `${f(office.docx, 1)} / ${f(office.epub, 1)} documents/s`],
    [
      "OCR (tesseract.js, eng)",
      `${f(ocr.secondsPerPage, 1)} s/page, CER ${f(ocr.cer, 3)} (${ocr.pages} scans)`,
    ],
    [
      "OCR of image-only PDF pages (background)",
      scans
        ? `CER ${f(scans.cer, 3)}, ${f(1 / scans.cpuSecondsPerPage, 2)} pages/s per core, ` +
          `peak PSS ${f(scans.peakPssMb, 0)} MiB of the tree (OCR worker process ` +
          `${f(scans.workerPssMb, 0)} MiB; RSS ${f(scans.peakMb, 0)} MiB) ` +
          `(${scans.pages} R FAQ pages at 150 dpi)`
        : "not measured (needs pdftoppm and img2pdf)",
    ],
    ["serve: first tools/list answer (cold)", `${f(cold.toolsList / 1000, 2)} s`],
    ["serve: first search answer (cold)", `${f(cold.firstSearch / 1000, 2)} s`],
    ["serve: tools/list p95 while indexing", `${f(cold.listDuringIndexP95)} ms`],
    ...loads.map((l): [string, string] => [
      `HTTP search (${l.mode}), ${l.clients} client${l.clients > 1 ? "s" : ""}: p50 / p95 / p99`,
      `${f(l.p50)} / ${f(l.p95)} / ${f(l.p99)} ms (${l.requests} req, ${l.errors} errors, ${
        f(l.rps, 0)
      } req/s)`,
    ]),
    [
      "RSS after indexing (idle) / peak",
      `${f(idleRss / 2 ** 20, 0)} / ${f(peakRss / 2 ** 20, 0)} MiB`,
    ],
    ...[...f1s.entries()].sort().map(([lib, xs]): [string, string] => [
      `heading F1, ${lib}`,
      `${f(xs.reduce((a, b) => a + b, 0) / xs.length, 3)} (${xs.length} docs)`,
    ]),
  ];
  console.log("| measure | value |\n| --- | --- |");
  for (const [k, v] of rows) console.log(`| ${k} | ${v} |`);
  console.log(
    "\n| kind | questions | Recall@1 | Recall@5 | Recall@10 | MRR |\n| --- | ---: | ---: | ---: | ---: | ---: |",
  );
  const order = [...kinds.keys()].filter((k) => k !== "all").sort();
  for (const k of [...order, "all"]) {
    const v = kinds.get(k)!;
    console.log(
      `| ${k} | ${v.n} | ${f(v.r1 / v.n)} | ${f(v.r5 / v.n)} | ${f(v.r10 / v.n)} | ${
        f(v.mrr / v.n)
      } |`,
    );
  }
  console.log(
    `| baseline: plain BM25, words OR-ed | ${baseAll.n} | | ${
      f(baseAll.r5 / Math.max(baseAll.n, 1))
    } | | ${f(baseAll.mrr / Math.max(baseAll.n, 1))} |`,
  );
  console.log(`\n${modeTable(modes)}`);
  console.log(`\n| what an agent spends (dev questions) | value |\n| --- | --- |`);
  console.log(agentCostRows(cost, "keyword"));
  // Recoll beside shelfmark's keyword index, both built in this run (installed when missing).
  console.log(`\n${comparisonTable(await compareRecoll(corpus, LIBRARIES, SHARED))}`);
  // Where the CPU of a first keyword index goes, by stage and by format (one file at a time).
  const profileData = await Deno.makeTempDir({ prefix: "shelfmark-profile-" });
  try {
    const libs = LIBRARIES.map((name) => ({ name, root: join(corpus, name) }));
    console.log(`\n${profileTables(await profileIndex(libs, profileData))}`);
  } finally {
    await Deno.remove(profileData, { recursive: true }).catch(() => {});
  }
}

if (import.meta.main) await main();
