import { join } from "node:path";
import { assert, assertEquals, assertRejects } from "../tests/assert.ts";
import { smallCorpus } from "../tests/corpus.ts";
import { ExtractError } from "../core/extractor.ts";
import type { PageOcr } from "../extractors/_pdf_ocr.ts";
import { MAX_LOST_IN_A_ROW, OcrPool } from "./ocr_pool.ts";
import { ocrAll } from "../tests/scans.ts";

const SCAN = new URL("../extractors/testdata/scans/r-faq-p6-scan.pdf", import.meta.url).pathname;

Deno.test("OcrPool reads pages in a child process, not in this one", async () => {
  const pool = new OcrPool({ pageTimeoutMs: 600_000, isolation: "process" });
  const bytes = await Deno.readFile(SCAN);
  const pids: number[] = [];
  const out: PageOcr[] = [];
  try {
    // The same page twice: the document's bytes cross once, the worker is reused.
    for await (const r of pool.pages(bytes, [1, 1])) {
      out.push(r);
      pids.push(...pool.pids);
    }
    assertEquals(pool.started, 1);
  } finally {
    pool.close();
  }
  assertEquals(out.map((r) => r.page), [1, 1]);
  for (const r of out) assert("lines" in r && r.lines.length > 5, JSON.stringify(r));
  assertEquals(new Set(pids).size, 1);
  assert(!pids.includes(Deno.pid));
});

Deno.test("OcrPool gives a page up when the worker goes over its memory limit", async () => {
  // 128 MiB cannot hold pdf.js, tesseract and a page: every worker is killed by the
  // watchdog. The pages fail (never hang), and after a few in a row the rest are given up
  // without starting a worker for each.
  const pool = new OcrPool({ pageTimeoutMs: 600_000, memoryMb: 128, isolation: "process" });
  const pages = [1, 1, 1, 1, 1];
  const out = await ocrAll(pool, await Deno.readFile(SCAN), pages);
  assertEquals(out.length, pages.length);
  for (const r of out) assert("error" in r, JSON.stringify(r));
  const reasons = out.map((r) => "error" in r ? r.reason : "");
  assert(
    reasons.slice(0, MAX_LOST_IN_A_ROW).every((x) => x === "out_of_memory" || x === "start"),
    reasons.join(),
  );
  const rest = out.slice(MAX_LOST_IN_A_ROW);
  for (const r of rest) {
    assert("error" in r && r.error.startsWith("given up after"), JSON.stringify(r));
  }
  assert(pool.started <= MAX_LOST_IN_A_ROW * 2, `${pool.started} workers started`);
});

Deno.test("OcrPool refuses a file that is no PDF with a clear error", async () => {
  const pool = new OcrPool({ pageTimeoutMs: 600_000, isolation: "process" });
  const bytes = new TextEncoder().encode("%PDF-1.4 not really");
  const e = await assertRejects(() => ocrAll(pool, bytes, [1]));
  assert(e instanceof ExtractError, String(e));
  assertEquals(e.reason, "corrupt");
  assert(e.message.startsWith("cannot open PDF"), e.message);
});

Deno.test("OcrPool reads pages in a worker thread where processes cannot run", async () => {
  // A compiled binary cannot `deno run` a module: the OCR worker is then a thread (a time
  // limit, no memory limit), still off the thread that serves requests.
  const pool = new OcrPool({ pageTimeoutMs: 600_000, isolation: "thread" });
  const [r, ...rest] = await ocrAll(pool, await Deno.readFile(SCAN), [1]);
  assertEquals(rest, []);
  assert(r && "lines" in r, JSON.stringify(r));
  assert(r.lines.some((l) => l.includes("R-devel@R-project.org")), r.lines.join("\n"));
  assertEquals(pool.pids, []);
});

Deno.test("OcrPool reads image files in the same child process, and answers bad ones", async () => {
  const png = await Deno.readFile(join(await smallCorpus(), "scans", "R-FAQ-p9.png"));
  // A PNG header of 20000×20000 with no pixel data: refused from the header (400 MP).
  const huge = png.slice(0, 33);
  new DataView(huge.buffer).setUint32(16, 20000);
  new DataView(huge.buffer).setUint32(20, 20000);
  const pool = new OcrPool({ pageTimeoutMs: 600_000, isolation: "process" });
  const out: PageOcr[] = [];
  const pids: number[] = [];
  try {
    for (const bytes of [png, huge, new Uint8Array(64).fill(7), png]) {
      for await (const r of pool.image(bytes)) out.push(r);
      pids.push(...pool.pids);
    }
    // Bad files cost no worker: the one that read the first image reads the last.
    assertEquals(pool.started, 1);
  } finally {
    pool.close();
  }
  assertEquals(out.map((r) => r.page), [1, 1, 1, 1]);
  assert("lines" in out[0]! && out[0].lines.length > 20, JSON.stringify(out[0]));
  assertEquals(out[1], { page: 1, skipped: "too_large" });
  assert("error" in out[2]! && out[2].reason === "corrupt", JSON.stringify(out[2]));
  assertEquals(out[3], out[0]);
  assert(!pids.includes(Deno.pid));
});
