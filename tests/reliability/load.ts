/**
 * Load: `shelfmark serve --http` on loopback, N SDK clients issuing search / outline /
 * read / grep for a fixed time (and, with `atLeast`, until enough has happened) while files
 * of the library change (new, appended, deleted, touched) and the server re-indexes. Every
 * answer is checked against reference lines read before the load started: zero failed
 * requests and zero wrong answers expected.
 *
 * @module
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { join } from "node:path";
import { callTool, CHILD_ENV, MemorySampler, percentile, waitReady } from "./_helpers.ts";
import { startHttpServer } from "../cli_helper.ts";
import { testClient } from "../mcp_client.ts";

/** Options of a load run. */
export interface LoadOptions {
  /** Library folder; a `churn/` folder is created in it and changed during the run. */
  lib: string;
  /** Data directory. */
  data: string;
  /** Concurrent clients. */
  clients: number;
  /** Duration of the load, seconds. */
  seconds: number;
  /**
   * Keep the load going after `seconds` until this much has happened, so a slow machine
   * does fewer things per second but never fails for it (counts, not speed, are checked).
   */
  atLeast?: { requests?: number; changes?: number; reindexes?: number };
  /** Hang guard with `atLeast`: stop after this many seconds whatever the counts (600). */
  maxSeconds?: number;
  /** Documents used for checked answers. */
  docs?: number;
}

/** Result of a load run. */
export interface LoadReport {
  requests: number;
  failed: number;
  wrong: number;
  /** First problems, for the report. */
  problems: string[];
  byTool: Record<string, number>;
  p50: number;
  p95: number;
  p99: number;
  peakRss: number;
  /** Largest resident memory of the server and its child processes together. */
  peakTreeRss: number;
  /** File changes made during the run. */
  changes: number;
  /** Index runs that finished during the load (distinct `finished_at` seen by status). */
  reindexes: number;
}

interface RefDoc {
  id: string;
  lines: string[];
  words: string[];
}

async function connect(url: string): Promise<Client> {
  const c = testClient("load");
  await c.connect(new StreamableHTTPClientTransport(new URL(url)));
  return c;
}

/** Start the HTTP server on the library; resolves once it printed its URL. */
function startServer(lib: string, data: string) {
  return startHttpServer(["--data", data, lib], CHILD_ENV);
}

const rand = (n: number) => Math.floor(Math.random() * n);
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const GREP_CUT = 500;

async function reference(c: Client, want: number): Promise<RefDoc[]> {
  const ids = new Set<string>();
  for (const q of ["the", "file", "use", "data", "function", "install"]) {
    const r = await callTool(c, "search", { query: q, limit: 50, output_format: "json" });
    for (
      const x of (r.structuredContent?.results ?? []) as {
        doc_id: string;
        path: string;
        total_lines: number;
      }[]
    ) {
      if (!x.path.includes("/churn/") && x.total_lines > 0 && x.total_lines <= 3000) {
        ids.add(x.doc_id);
      }
    }
  }
  const out: RefDoc[] = [];
  for (const id of [...ids].slice(0, want)) {
    const lines: string[] = [];
    for (let off = 1;;) {
      const r = await callTool(c, "read", {
        doc_id: id,
        offset: off,
        limit: 500,
        output_format: "json",
      });
      const s = r.structuredContent as { lines: { text: string }[]; next_offset: number | null };
      lines.push(...s.lines.map((l) => l.text));
      if (!s.next_offset) break;
      off = s.next_offset;
    }
    const words = [...new Set(lines.join(" ").match(/[A-Za-z]{5,12}/g) ?? [])].slice(0, 40);
    if (words.length) out.push({ id, lines, words });
  }
  return out;
}

type Check = (
  r: {
    isError?: boolean;
    structuredContent?: Record<string, unknown>;
    content: { text: string }[];
  },
) => string | undefined;

function request(d: RefDoc): [string, Record<string, unknown>, Check] {
  const total = d.lines.length;
  switch (rand(4)) {
    case 0: {
      const offset = 1 + rand(total);
      const limit = 1 + rand(200);
      return ["read", { doc_id: d.id, offset, limit, output_format: "json" }, (r) => {
        const s = r.structuredContent as {
          lines: { n: number; text: string }[];
          offset: number;
          total_lines: number;
          next_offset: number | null;
        };
        if (s.offset !== offset || s.total_lines !== total) {
          return `read: offset/total ${s.offset}/${s.total_lines}`;
        }
        const end = Math.min(total, offset + limit - 1);
        if (s.lines.length !== end - offset + 1) {
          return `read: ${s.lines.length} lines for ${offset}-${end}`;
        }
        for (const [i, l] of s.lines.entries()) {
          if (l.n !== offset + i || l.text !== d.lines[offset + i - 1]) {
            return `read: line ${offset + i} differs`;
          }
        }
        if (s.next_offset !== (end < total ? end + 1 : null)) {
          return `read: next_offset ${s.next_offset}`;
        }
      }];
    }
    case 1: {
      const word = d.words[rand(d.words.length)]!;
      return ["grep", {
        doc_id: d.id,
        pattern: escapeRe(word),
        context: 1,
        limit: 100,
        output_format: "json",
      }, (r) => {
        const s = r.structuredContent as {
          total_matches: number;
          matches: { line: number; text: string }[];
        };
        const want = d.lines.filter((l) => l.includes(word)).length;
        if (s.total_matches < want) return `grep ${word}: ${s.total_matches} < ${want} matches`;
        for (const m of s.matches) {
          const ref = d.lines[m.line - 1] ?? "";
          if (!ref.startsWith(m.text.replace(/…$/, "").slice(0, GREP_CUT))) {
            return `grep: line ${m.line} differs`;
          }
        }
      }];
    }
    case 2:
      return ["outline", { doc_ids: [d.id], output_format: "json" }, (r) => {
        const doc = (r.structuredContent?.documents as {
          total_lines: number;
          nodes: { start_line: number; end_line: number }[];
        }[])[0]!;
        if (doc.total_lines !== total) return `outline: total_lines ${doc.total_lines}`;
        for (const n of doc.nodes ?? []) {
          if (n.start_line < 1 || n.end_line > total || n.start_line > n.end_line) {
            return `outline: node ${n.start_line}-${n.end_line}`;
          }
        }
      }];
    default: {
      const q = d.words.slice(rand(d.words.length), undefined).slice(0, 2).join(" ");
      return ["search", { query: q, limit: 10, output_format: "json" }, (r) => {
        const res = r.structuredContent?.results as { doc_id: string; path: string }[];
        if (!Array.isArray(res)) return "search: no results array";
        if (res.some((x) => !x.doc_id || !x.path)) return "search: result without id or path";
      }];
    }
  }
}

/** Change files under `lib/churn` (and touch stable files) until `stop` is set. */
async function churn(
  lib: string,
  touch: string[],
  stop: { done: boolean; changes: number },
): Promise<number> {
  const dir = join(lib, "churn");
  await Deno.mkdir(dir, { recursive: true });
  let n = 0;
  while (!stop.done) {
    const i = n++;
    await Deno.writeTextFile(
      join(dir, `note-${i}.md`),
      `# Note ${i}\n\nChurn text ${i} alpha beta.\n`,
    );
    if (i > 0) {
      await Deno.writeTextFile(join(dir, `note-${i - 1}.md`), `More ${i}.\n`, { append: true });
    }
    if (i > 3) await Deno.remove(join(dir, `note-${i - 4}.md`)).catch(() => {});
    const t = touch[i % Math.max(1, touch.length)];
    if (t) await Deno.utime(t, new Date(), new Date()).catch(() => {});
    // Bursts with pauses longer than the watcher's debounce (1 s), or no run would start.
    await new Promise((r) => setTimeout(r, 1300));
    stop.changes = n;
  }
  return n;
}

/** Run the load; see the module doc. */
export async function loadRun(o: LoadOptions): Promise<LoadReport> {
  const { child, url } = await startServer(o.lib, o.data);
  const mem = new MemorySampler(child.pid, 200);
  const r: LoadReport = {
    requests: 0,
    failed: 0,
    wrong: 0,
    problems: [],
    byTool: {},
    p50: 0,
    p95: 0,
    p99: 0,
    peakRss: 0,
    peakTreeRss: 0,
    changes: 0,
    reindexes: 0,
  };
  const clients: Client[] = [];
  try {
    const first = await connect(url);
    clients.push(first);
    await waitReady(first);
    const docs = await reference(first, o.docs ?? 20);
    if (!docs.length) throw new Error("no documents to check answers against");
    for (let i = 1; i < o.clients; i++) clients.push(await connect(url));
    const touch: string[] = [];
    for await (const e of Deno.readDir(o.lib)) if (e.isFile) touch.push(join(o.lib, e.name));
    const stop = { done: false, changes: 0 };
    const churning = churn(o.lib, touch, stop);
    const times: number[] = [];
    const deadline = Date.now() + o.seconds * 1000;
    const guard = Date.now() + (o.maxSeconds ?? 600) * 1000;
    // Each finished index run leaves a new `finished_at`, kept while the next one builds
    // (under load, runs follow each other with no moment of "ready" between them).
    const runs = new Set<string>();
    const enough = () => {
      const want = o.atLeast ?? {};
      return r.requests >= (want.requests ?? 0) && stop.changes >= (want.changes ?? 0) &&
        runs.size - 1 >= (want.reindexes ?? 0);
    };
    const going = () => Date.now() < guard && (Date.now() < deadline || !enough());
    const watcher = (async () => {
      while (going()) {
        const s = await callTool(first, "status", { output_format: "json" }).catch(() => undefined);
        const at = s?.structuredContent?.finished_at;
        if (typeof at === "string") runs.add(at);
        await new Promise((res) => setTimeout(res, 100));
      }
      r.reindexes = Math.max(0, runs.size - 1);
    })();
    const note = (m: string) => r.problems.length < 10 && r.problems.push(m);
    await Promise.all(clients.map(async (c) => {
      while (going()) {
        const d = docs[rand(docs.length)]!;
        const [tool, args, check] = request(d);
        const t0 = performance.now();
        r.requests++;
        r.byTool[tool] = (r.byTool[tool] ?? 0) + 1;
        try {
          const res = await callTool(c, tool, args);
          times.push(performance.now() - t0);
          if (res.isError) {
            r.failed++;
            note(`${tool} ${JSON.stringify(args)}: ${res.content[0]?.text.slice(0, 200)}`);
          } else {
            const bad = check(res);
            if (bad) {
              r.wrong++;
              note(`${bad} (${JSON.stringify(args)})`);
            }
          }
        } catch (e) {
          r.failed++;
          note(`${tool}: ${(e as Error).message}`);
        }
      }
    }));
    stop.done = true;
    r.changes = await churning;
    await watcher;
    r.p50 = percentile(times, 50);
    r.p95 = percentile(times, 95);
    r.p99 = percentile(times, 99);
  } finally {
    for (const c of clients) await c.close().catch(() => {});
    r.peakRss = mem.stop();
    r.peakTreeRss = mem.peakTree;
    try {
      child.kill("SIGTERM");
    } catch { /* gone */ }
    const t = setTimeout(() => {
      try {
        child.kill("SIGKILL");
      } catch { /* gone */ }
    }, 5000);
    await child.status;
    clearTimeout(t);
  }
  return r;
}
