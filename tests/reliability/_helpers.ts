/**
 * Shared parts of the reliability suite and the stress bench: the real CLI and server as
 * child processes, a real MCP SDK client over stdio, memory sampling from `/proc`, and
 * snapshots of a folder tree.
 *
 * @module
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { createHash } from "node:crypto";
import { join, relative } from "node:path";
import { PATIENT, stdioTransport, testClient } from "../mcp_client.ts";

/** The CLI entry point. */
export const CLI = new URL("../../server/cli.ts", import.meta.url).pathname;

/**
 * Environment of every child process: no vector embedding unless
 * `SHELFMARK_RELIABILITY_EMBEDDER` names one (the default model costs minutes of CPU).
 */
export const CHILD_ENV: Record<string, string> = {
  SHELFMARK_EMBEDDER: Deno.env.get("SHELFMARK_RELIABILITY_EMBEDDER") ?? "none",
};

/** Error codes a tool answer may carry (`INTERNAL` is a bug, never expected). */
export const ERROR_CODES = new Set([
  "DOCUMENT_NOT_FOUND",
  "LIBRARY_NOT_FOUND",
  "INVALID_ARGUMENT",
  "INVALID_PATTERN",
  "PATTERN_TIMEOUT",
  "QUERY_TIMEOUT",
  "PATH_OUTSIDE_LIBRARY",
  "INDEX_UNAVAILABLE",
  "NOT_ALLOWED",
  "NOT_GIT",
  "GIT_FAILED",
  "PUSH_REJECTED",
  // The write tools (writing enabled).
  "FILE_NOT_FOUND",
  "ALREADY_EXISTS",
  "CONFLICT",
  "NO_MATCH",
  "NOT_UNIQUE",
  "TOO_LARGE",
  "FETCH_FAILED",
  "REDIRECTED",
  "UNSUPPORTED_TYPE",
]);

/** A tool result as the SDK client returns it. */
export interface ToolResult {
  content: { type: string; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** A connected stdio client with the server's pid. */
export interface StdioSession {
  client: Client;
  pid: number;
  close(): Promise<void>;
}

/** Start `shelfmark serve --data DATA LIBS...` over stdio and connect an SDK client. */
export async function startStdio(
  data: string,
  libs: string[],
  opts: {
    extra?: string[];
    cwd?: string;
    env?: Record<string, string>;
    stderr?: "ignore" | "inherit";
  } = {},
): Promise<StdioSession> {
  const transport = stdioTransport({
    command: Deno.execPath(),
    args: ["run", "-A", CLI, "serve", "--data", data, ...(opts.extra ?? []), ...libs],
    cwd: opts.cwd,
    env: { ...CHILD_ENV, ...opts.env },
    stderr: opts.stderr ?? "ignore",
  });
  const client = testClient("reliability");
  await client.connect(transport);
  return {
    client,
    pid: transport.pid ?? -1,
    close: async () => {
      await client.close().catch(() => {});
    },
  };
}

/**
 * Call a tool. No deadline (tests carry no wall-clock limits, and the SDK's 60 s request
 * default is lifted): a call that never answers hangs the test, which CI's limit ends.
 */
export async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<ToolResult> {
  return await client.callTool({ name, arguments: args }, undefined, PATIENT) as ToolResult;
}

/** The JSON body of an error answer, or a description of why it is not one. */
export function errorOf(r: ToolResult): { code: string; message: string; hint?: string } {
  const text = r.content?.[0]?.text ?? "";
  const body = JSON.parse(text) as { error?: { code: string; message: string; hint?: string } };
  if (!body.error || typeof body.error.code !== "string") {
    throw new Error(`error answer without {"error": {code}}: ${text.slice(0, 200)}`);
  }
  return body.error;
}

/** Wait until the server's index is ready (status tool). */
export async function waitReady(client: Client): Promise<Record<string, unknown>> {
  // No deadline (a loaded machine is slower; tests carry no wall-clock limits): a run that
  // ends says "ready" or "failed".
  for (;;) {
    const r = await callTool(client, "status", { output_format: "json" });
    const s = r.structuredContent as Record<string, unknown>;
    if (s?.state === "ready" || s?.state === "failed") return s;
    await new Promise((res) => setTimeout(res, 200));
  }
}

/** Resident memory of a process from `/proc/PID/status`: current and peak (VmHWM), bytes. */
export function memoryOf(pid: number): { rss: number; hwm: number } | undefined {
  try {
    const s = Deno.readTextFileSync(`/proc/${pid}/status`);
    const kb = (k: string) => Number(s.match(new RegExp(`^${k}:\\s+(\\d+) kB`, "m"))?.[1] ?? 0);
    return { rss: kb("VmRSS") * 1024, hwm: kb("VmHWM") * 1024 };
  } catch {
    return undefined;
  }
}

/** The process and all its descendants (extraction and embedding child processes). */
export function processTree(pid: number): number[] {
  const children = new Map<number, number[]>();
  try {
    for (const e of Deno.readDirSync("/proc")) {
      if (!/^\d+$/.test(e.name)) continue;
      try {
        const stat = Deno.readTextFileSync(`/proc/${e.name}/stat`);
        const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
        const list = children.get(ppid) ?? [];
        list.push(Number(e.name));
        children.set(ppid, list);
      } catch { /* exited meanwhile */ }
    }
  } catch {
    return [pid];
  }
  const out: number[] = [];
  const stack = [pid];
  while (stack.length) {
    const p = stack.pop()!;
    out.push(p);
    stack.push(...(children.get(p) ?? []));
  }
  return out;
}

/**
 * Samples the memory of a process and its descendants every `everyMs` until stopped:
 * `peak` is the largest single process (RSS or VmHWM), `peakTree` the largest sum of
 * the tree's resident memory at one sample.
 */
export class MemorySampler {
  peak = 0;
  peakTree = 0;
  #timer: ReturnType<typeof setInterval>;
  /** @param pid process to watch @param everyMs sampling period */
  constructor(readonly pid: number, everyMs = 50) {
    this.#timer = setInterval(() => this.sample(), everyMs);
  }
  /** Take one sample now. */
  sample(): void {
    let sum = 0;
    for (const p of processTree(this.pid)) {
      const m = memoryOf(p);
      if (!m) continue;
      sum += m.rss;
      this.peak = Math.max(this.peak, m.rss, m.hwm);
    }
    this.peakTree = Math.max(this.peakTree, sum);
  }
  /** Stop sampling; returns the peak of a single process in bytes. */
  stop(): number {
    this.sample();
    clearInterval(this.#timer);
    return this.peak;
  }
}

/** Run the CLI to completion; output decoded. */
export async function cli(
  args: string[],
  opts: { cwd?: string; env?: Record<string, string> } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", CLI, ...args],
    cwd: opts.cwd,
    env: { ...CHILD_ENV, ...opts.env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/** Start the CLI as a child process (for killing it). */
export function spawnCli(args: string[], stderr: "piped" | "null" = "null"): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", CLI, ...args],
    env: CHILD_ENV,
    stdin: "null",
    stdout: "null",
    stderr,
  }).spawn();
}

/** Parse the summary line of `shelfmark index` (`indexed N, unchanged N, skipped N, ...`). */
export function indexSummary(
  stderr: string,
): { indexed: number; unchanged: number; skipped: number; removed: number } {
  const m = stderr.match(/indexed (\d+), unchanged (\d+), skipped (\d+), removed (\d+)/);
  if (!m) throw new Error(`no index summary in: ${stderr.slice(-500)}`);
  return { indexed: +m[1]!, unchanged: +m[2]!, skipped: +m[3]!, removed: +m[4]! };
}

/** One entry of a tree snapshot. */
export interface Entry {
  kind: "file" | "dir" | "symlink";
  size: number;
  mtime: number;
  mode: number;
  hash?: string;
  target?: string;
}

/** Every entry under `root` (symlinks not followed) with size, mtime, mode and content hash. */
export async function snapshot(root: string): Promise<Map<string, Entry>> {
  const out = new Map<string, Entry>();
  const walk = async (dir: string) => {
    for await (const e of Deno.readDir(dir)) {
      const abs = join(dir, e.name);
      const st = await Deno.lstat(abs);
      const rel = relative(root, abs);
      const base = { size: st.size, mtime: st.mtime?.getTime() ?? 0, mode: st.mode ?? 0 };
      if (st.isSymlink) {
        out.set(rel, { kind: "symlink", ...base, target: await Deno.readLink(abs) });
      } else if (st.isDirectory) {
        out.set(rel, { kind: "dir", ...base });
        await walk(abs);
      } else {
        const bytes = await Deno.readFile(abs).catch(() => new Uint8Array());
        const hash = createHash("sha256").update(bytes).digest("hex");
        out.set(rel, { kind: "file", ...base, hash });
      }
    }
  };
  await walk(root);
  return out;
}

/** Differences between two snapshots, one line each (empty when identical). */
export function diffSnapshots(a: Map<string, Entry>, b: Map<string, Entry>): string[] {
  const out: string[] = [];
  for (const [k, v] of a) {
    const w = b.get(k);
    if (!w) out.push(`removed: ${k}`);
    else if (JSON.stringify(v) !== JSON.stringify(w)) out.push(`changed: ${k}`);
  }
  for (const k of b.keys()) if (!a.has(k)) out.push(`added: ${k}`);
  return out;
}

/** Copy the text-format libraries of the small corpus (fast to index) into `dest`. */
export async function copyLibraries(corpus: string, names: string[], dest: string): Promise<void> {
  for (const n of names) {
    await new Deno.Command("cp", { args: ["-rL", join(corpus, n), dest] }).output();
  }
}

/** Percentile (0-100) of a list of numbers. */
export function percentile(xs: number[], p: number): number {
  if (!xs.length) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}
