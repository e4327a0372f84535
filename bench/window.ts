/**
 * The web page's speed and weight: time to first render of the page, of search results,
 * of a document view and of a PDF page (a fresh browser context each run, so nothing is
 * cached), measured in Debian's chromium driven by playwright-core; and the size of the
 * page's assets (raw and gzip), of pdf.js (loaded only for a PDF) and of the MCP App.
 *
 *   deno run -A bench/window.ts [--runs 5] [--query "..."] [FOLDER...]
 *   deno run -A bench/window.ts --data DIR         (an existing index and its libraries)
 *
 * Without folders or `--data`: the small corpus's markdown, pdf-manuals and scans.
 */
import { parseArgs } from "node:util";
import { join } from "node:path";
import { launchChromium } from "../tests/browser.ts";
import { startHttpServer } from "../tests/cli_helper.ts";
import { smallCorpus } from "../tests/corpus.ts";
import { PageAssets } from "../server/web.ts";
import { SCRIPTS } from "../server/web/mcp_app.ts";

const { values: o, positionals } = parseArgs({
  args: Deno.args,
  allowPositionals: true,
  options: {
    runs: { type: "string", default: "5" },
    query: { type: "string", default: "configuration file" },
    "pdf-query": { type: "string", default: "parameter expansion" },
    data: { type: "string" },
  },
});
const runs = Number(o.runs);

async function gzipSize(b: Uint8Array<ArrayBuffer>): Promise<number> {
  const s = new Blob([b]).stream().pipeThrough(new CompressionStream("gzip"));
  return (await new Response(s).arrayBuffer()).byteLength;
}

const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;

async function sizes() {
  const assets = new PageAssets();
  const files = ["index.html", "app.css", ...SCRIPTS];
  let raw = 0;
  let gz = 0;
  console.log("Assets of the page (loaded on every visit):");
  for (const f of files) {
    const b = await assets.file(f);
    const g = await gzipSize(b);
    raw += b.byteLength;
    gz += g;
    console.log(`  ${f.padEnd(12)} ${kb(b.byteLength).padStart(10)} ${kb(g).padStart(10)} gzip`);
  }
  console.log(`  ${"total".padEnd(12)} ${kb(raw).padStart(10)} ${kb(gz).padStart(10)} gzip`);
  const pdf = new URL(import.meta.resolve("pdfjs-dist/build/pdf.min.mjs"));
  const worker = new URL(import.meta.resolve("pdfjs-dist/build/pdf.worker.min.mjs"));
  for (const [name, u] of [["pdf.min.mjs", pdf], ["pdf.worker.min.mjs", worker]] as const) {
    const b = await Deno.readFile(u);
    console.log(
      `  pdf.js ${name.padEnd(19)} ${kb(b.byteLength)} (${kb(await gzipSize(b))} gzip), PDFs only`,
    );
  }
  const app = new TextEncoder().encode(await assets.appHtml());
  console.log(`MCP App resource: ${kb(app.byteLength)} (${kb(await gzipSize(app))} gzip)`);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
}

async function main() {
  await sizes();
  let args: string[];
  let what: string;
  if (o.data) {
    args = ["--data", o.data, ...positionals];
    what = `index in ${o.data}`;
  } else {
    const folders = positionals.length
      ? positionals
      : ["markdown", "pdf-manuals", "scans"].map((l) => join(corpusDir, l));
    args = ["--data", await Deno.makeTempDir({ prefix: "shelfmark-window-" }), ...folders];
    what = folders.join(", ");
  }
  const server = await startHttpServer(["--no-watch", ...args], { SHELFMARK_EMBEDDER: "none" });
  const site = server.url.replace(/\/mcp$/, "");
  const browser = await launchChromium();
  try {
    for (;;) {
      const h = await fetch(`${site}/health`).then((r) => r.json());
      if (h.state === "ready") break;
      await new Promise((r) => setTimeout(r, 500));
    }
    const status = await (await fetch(`${site}/api/tools/status`, {
      method: "POST",
      body: "{}",
    })).json();
    console.log(`\nServer on ${what}: ${status.documents_indexed} documents`);
    const hits = async (q: string, type?: string) =>
      (await (await fetch(`${site}/api/tools/search`, {
        method: "POST",
        body: JSON.stringify({ query: q, doc_types: type ? [type] : [], limit: 1 }),
      })).json()).results as {
        doc_id: string;
        passages?: { start_line: number; end_line: number; page?: number }[];
      }[];
    const href = (h: Awaited<ReturnType<typeof hits>>[number], q: string) => {
      const p = h.passages?.[0];
      const u = new URLSearchParams({ doc: h.doc_id, q });
      if (p?.page) u.set("p", String(p.page));
      return `/?${u}${p ? `#L${p.start_line}-${p.end_line}` : ""}`;
    };
    const cases: [string, string, string][] = [
      ["page (home: libraries, recent)", "/", "main h3"],
      [`search results (“${o.query}”)`, `/?q=${encodeURIComponent(o.query!)}`, "#results .card"],
    ];
    const doc = (await hits(o.query!))[0];
    if (doc) cases.push(["document view (outline + reader)", href(doc, o.query!), "#reader .line"]);
    const pdf = (await hits(o["pdf-query"]!, "pdf"))[0];
    if (pdf) {
      cases.push([
        "PDF document, page rendered",
        href(pdf, o["pdf-query"]!),
        "canvas.page[data-rendered]",
      ]);
    }
    console.log(`Time to first render, median of ${runs} cold loads (fresh context each):`);
    for (const [name, path, selector] of cases) {
      const total: number[] = [];
      const fcp: number[] = [];
      for (let i = 0; i < runs + 1; i++) {
        const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
        const page = await ctx.newPage();
        const t0 = performance.now();
        await page.goto(site + path);
        await page.waitForSelector(selector, { timeout: 120_000 });
        const ms = performance.now() - t0;
        const paint = await page.evaluate(() =>
          performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? NaN
        );
        await ctx.close();
        if (i === 0) continue; // the first load warms the server and the browser
        total.push(ms);
        fcp.push(paint);
      }
      console.log(
        `  ${name.padEnd(44)} ${median(total).toFixed(0).padStart(6)} ms` +
          `   (first contentful paint ${median(fcp).toFixed(0)} ms)`,
      );
    }
  } finally {
    await browser.close();
    server.child.kill();
    await server.child.status;
  }
}

const corpusDir = o.data || positionals.length ? "" : await smallCorpus();
await main();
