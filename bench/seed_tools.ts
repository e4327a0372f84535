/**
 * Latency of `browse`, `find_documents` (plain and fuzzy), `recent`, `list_tags` and
 * `search` with front-matter filters, called in process through the dispatcher (argument
 * validation, the tool, its markdown answer) on an indexed data folder, warm.
 *
 * Run: `deno run -A bench/seed_tools.ts --data /root/smfull [--calls 500] [--json]`
 * (the data folder must be indexed by this version: `deno task cli index ... --data DIR`).
 *
 * @module
 */
import { parseArgs } from "node:util";
import { docTable } from "../core/listing.ts";
import { callTool } from "../server/dispatch.ts";
import type { ToolName } from "../server/tools/mod.ts";
import { Shelf } from "../shelf/shelf.ts";
import { partsOf } from "../shelf/_parts.ts";

const { values: flags } = parseArgs({
  options: {
    data: { type: "string", default: "/root/smfull" },
    calls: { type: "string", default: "500" },
    json: { type: "boolean", default: false },
  },
});
const CALLS = Number(flags.calls);
const WARMUP = 20;

/** A small deterministic generator (mulberry32), so runs ask the same calls. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = rng(14);
const pick = <T>(xs: T[]): T => xs[Math.floor(rand() * xs.length)]!;

/** One typo: two neighbouring letters swapped, or one dropped. */
function typo(word: string): string {
  if (word.length < 5) return word;
  const i = 1 + Math.floor(rand() * (word.length - 3));
  return rand() < 0.5
    ? word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2)
    : word.slice(0, i) + word.slice(i + 1);
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const shelf = await Shelf.open({ data: flags.data, embedder: "none", log: () => {}, workers: 0 });
try {
  const coldStart = performance.now();
  const { entries } = docTable(partsOf(shelf).catalog);
  const tableMs = performance.now() - coldStart;
  if (!entries.length) throw new Error(`${flags.data}: no document indexed by this version`);
  const libs = shelf.libraries.map((l) => l.name);
  const folders = [
    ...new Set(entries.flatMap((e) => {
      const parts = e.path.split("/").slice(0, -1);
      return parts.map((_, i) => parts.slice(0, i + 1).join("/"));
    })),
  ];
  const words = entries.flatMap((e) => {
    const stem = e.path.slice(e.path.lastIndexOf("/") + 1).replace(/\.[^.]+$/, "");
    return [stem, ...e.title.split(/\s+/).filter((w) => w.length >= 5)];
  });
  const tagged = shelf.libraries.flatMap((l) =>
    ["tags", "author", "type"].map((field) => ({ field, library: l.name }))
  );
  const fieldValues: { library: string; field: string; value: string }[] = [];
  for (const t of tagged) {
    const r = await callTool(shelf, "list_tags", { ...t, limit: 20, output_format: "json" });
    for (const v of r.json.values as { value: string }[]) {
      fieldValues.push({ ...t, value: v.value });
    }
  }

  const cases: { name: string; tool: ToolName; args: () => Record<string, unknown> }[] = [
    {
      name: "browse",
      tool: "browse",
      args: () => {
        const r = rand();
        return r < 0.05 ? {} : {
          path: r < 0.2 ? pick(libs) : pick(folders),
          sort: rand() < 0.5 ? "name" : "newest",
        };
      },
    },
    {
      name: "find_documents",
      tool: "find_documents",
      args: () => ({ query: pick(words).slice(0, 3 + Math.floor(rand() * 12)) }),
    },
    {
      name: "find_documents fuzzy",
      tool: "find_documents",
      args: () => ({ query: typo(pick(words)), fuzzy: true }),
    },
    {
      name: "recent",
      tool: "recent",
      args: () => {
        const r = rand();
        if (r < 0.3) return {};
        if (r < 0.6) return { library: pick(libs) };
        return { path_glob: `${pick(folders)}/*`, limit: 10 };
      },
    },
    {
      name: "list_tags",
      tool: "list_tags",
      args: () => ({ ...pick(tagged), ...(rand() < 0.3 ? { library: undefined } : {}) }),
    },
  ];
  if (fieldValues.length) {
    cases.push({
      name: "search + filters",
      tool: "search",
      args: () => {
        const f = pick(fieldValues);
        return { query: pick(words), library: f.library, filters: { [f.field]: f.value } };
      },
    });
  }

  const rows: Record<string, unknown>[] = [];
  for (const c of cases) {
    for (let i = 0; i < WARMUP; i++) {
      await callTool(shelf, c.tool, c.args()).then((a) => a.text).catch(() => {});
    }
    const ms: number[] = [];
    let errors = 0;
    for (let i = 0; i < CALLS; i++) {
      const args = c.args();
      const t0 = performance.now();
      try {
        (await callTool(shelf, c.tool, args)).text;
      } catch {
        errors++;
      }
      ms.push(performance.now() - t0);
    }
    ms.sort((a, b) => a - b);
    rows.push({
      tool: c.name,
      calls: CALLS,
      errors,
      p50_ms: +percentile(ms, 50).toFixed(2),
      p95_ms: +percentile(ms, 95).toFixed(2),
      max_ms: +ms.at(-1)!.toFixed(2),
    });
  }
  const summary = {
    data: flags.data,
    documents: entries.length,
    folders: folders.length,
    document_table_build_ms: +tableMs.toFixed(1),
    tools: rows,
  };
  if (flags.json) console.log(JSON.stringify(summary, null, 2));
  else {
    console.log(
      `${summary.documents} documents, ${summary.folders} folders; document table built in ${summary.document_table_build_ms} ms`,
    );
    console.log("tool                   calls  errors  p50 ms  p95 ms  max ms");
    for (const r of rows) {
      console.log(
        `${String(r.tool).padEnd(22)} ${String(r.calls).padStart(5)} ${
          String(r.errors).padStart(7)
        } ${String(r.p50_ms).padStart(7)} ${String(r.p95_ms).padStart(7)} ${
          String(r.max_ms).padStart(7)
        }`,
      );
    }
  }
} finally {
  await shelf.close();
}
