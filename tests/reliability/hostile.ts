/**
 * Hostile files: build the bad inputs of `../shared/corpus/bad-inputs.sh` next to ordinary
 * documents in one library, index it with the real CLI while sampling its memory from
 * `/proc`, and judge every file against `EXPECT.tsv`; apart, stop an extraction that never
 * ends with the least time limit.
 *
 * @module
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { SHARED } from "../corpus.ts";
import { cli, indexSummary, MemorySampler, spawnCli } from "./_helpers.ts";
import { catalogDigest, checkCatalog } from "./consistency.ts";

/** Where a cached Debian package for the script may already be. */
function debCache(): string | undefined {
  const home = Deno.env.get("HOME") ?? "/root";
  const small = Deno.env.get("SHELFMARK_CORPUS_SMALL") ??
    join(home, ".cache", "shelfmark", "corpus-small");
  const candidates = [
    Deno.env.get("CORPUS_CACHE"),
    // The small corpus's build downloads the same package into its cache.
    join(small, ".cache"),
    join(home, ".cache", "shelfmark", "bad-inputs"),
    "/work/bad/.cache",
    join(SHARED, "..", "bad", ".cache"),
  ];
  for (const c of candidates) {
    if (!c || !existsSync(join(c, "debs"))) continue;
    for (const e of Deno.readDirSync(join(c, "debs"))) {
      if (e.name.startsWith("developers-reference_")) return c;
    }
  }
  return undefined;
}

function which(cmd: string): boolean {
  const path = Deno.env.get("PATH") ?? "";
  return path.split(":").some((d) => d && existsSync(join(d, cmd)));
}

/**
 * Why `bad-inputs.sh` cannot run on this machine (missing script or tools, no cached
 * package and no permission to download it), or undefined when it can. Cheap: meant for
 * `Deno.test({ ignore })` at module load.
 */
export function badInputsUnavailable(): string | undefined {
  const script = join(SHARED, "corpus", "bad-inputs.sh");
  if (!existsSync(script)) return `${script} not found`;
  const missing = ["bash", "qpdf", "dpkg-deb", "gzip"].filter((c) => !which(c));
  if (!existsSync("/usr/bin/python3")) missing.push("/usr/bin/python3");
  if (missing.length) return `bad-inputs.sh needs ${missing.join(", ")}`;
  if (!debCache() && Deno.env.get("SHELFMARK_BAD_INPUTS_FETCH") !== "1") {
    return "bad-inputs.sh needs the developers-reference .deb: no cache found (set " +
      "CORPUS_CACHE, or SHELFMARK_BAD_INPUTS_FETCH=1 to let it run apt-get download)";
  }
  return undefined;
}

/**
 * Run `bad-inputs.sh OUT`. Resolves to undefined on success, else why it could not run
 * ({@linkcode badInputsUnavailable}) or how it failed.
 */
export async function buildBadInputs(out: string): Promise<string | undefined> {
  const unavailable = badInputsUnavailable();
  if (unavailable) return unavailable;
  const script = join(SHARED, "corpus", "bad-inputs.sh");
  const cache = debCache();
  const env: Record<string, string> = { ...Deno.env.toObject() };
  if (cache) env.CORPUS_CACHE = cache;
  const r = await new Deno.Command("bash", {
    args: [script, out],
    env,
    stdout: "piped",
    stderr: "piped",
  })
    .output();
  if (!r.success) {
    return `bad-inputs.sh failed: ${new TextDecoder().decode(r.stderr).slice(-400)}`;
  }
  return undefined;
}

/** Remove a tree the script made (it leaves mode-000 entries behind). */
export async function removeTree(dir: string): Promise<void> {
  await new Deno.Command("chmod", { args: ["-R", "u+rwx", dir] }).output().catch(() => {});
  await Deno.remove(dir, { recursive: true }).catch(() => {});
}

/**
 * Per-file time limit of the hostile run, seconds: its hard limit is 40 minutes of wall time
 * (four times it), its soft wall-time cut 32, far over what any of its files takes even at
 * load 20 on two cores, so that no file is cut short or stopped however busy the machine.
 * With 20 s (a hard limit of 80 s) `huge/huge-50MB.html` was stopped at load 15-20, and the
 * second run, which tries a stopped file again with more time, indexed it. A hostile file
 * that hangs is still stopped, after 40 minutes.
 */
export const TIME_LIMIT_S = 600;

/**
 * Per-file time limit of the run over the extraction that never ends, seconds: the least
 * the configuration allows (its hard limit is then 31 s of wall time). That extraction
 * never finishes, so its stop does not depend on the machine's speed.
 */
export const HANG_LIMIT_S = 1;

/** One row of `EXPECT.tsv`. */
export interface ExpectRow {
  path: string;
  expect: string;
  reason: string;
}

/** Parse `EXPECT.tsv` (paths escape `\\`, tab and newline). */
export function readExpect(file: string): ExpectRow[] {
  const lines = Deno.readTextFileSync(file).split("\n").slice(1).filter(Boolean);
  return lines.map((l) => {
    const [p, expect, reason] = l.split("\t");
    const path = p!.replace(/\\(\\|t|n)/g, (_, c) => (c === "t" ? "\t" : c === "n" ? "\n" : "\\"));
    return { path, expect: expect!, reason: reason ?? "" };
  });
}

/** What happened to one file of `EXPECT.tsv`. */
export interface Verdict extends ExpectRow {
  outcome: "indexed" | "skipped" | "not listed" | "policy";
  detail?: string;
  ok: boolean;
}

/** Result of indexing a library full of hostile files. */
export interface HostileReport {
  verdicts: Verdict[];
  /** Ordinary documents that were not indexed. */
  goodMissing: string[];
  /** Largest single process of the indexer's tree (RSS or high-water mark). */
  peakBytes: number;
  /** Largest resident memory of the indexer and its child processes together. */
  peakTreeBytes: number;
  exitCode: number;
  consistency: string[];
  /** Summary of a second run over the same files (nothing should be redone). */
  rerun: ReturnType<typeof indexSummary>;
  elapsedMs: number;
  /** Whether `read` returns the line after a NUL byte. */
  nulTail: boolean;
  /** What `status` says about a file whose extractor never finishes. */
  timedOut: string;
  /** Documents `status` lists as cut short by the time limit (none expected). */
  partial: string[];
  /** Files of the library the time limit stopped (none expected). */
  stopped: string[];
}

/** The skip reason a row must get, where EXPECT.tsv leaves no choice. */
const REASONS: [RegExp, string][] = [
  [/^zero-byte file/, "empty:"],
  [/ELOOP/, "symlink_loop:"],
  [/^dangling symlink/, "dangling_link:"],
  [/^symlink leaving/, "outside_root:"],
  [/^encrypted: a user password/, "encrypted:"],
];

function judge(row: ExpectRow, docs: Set<string>, skipped: Map<string, string>): Verdict {
  const key = `lib/${row.path}`;
  const isRoot = Deno.uid() === 0;
  if (row.expect === "do not follow") {
    const followed = [...docs].some((d) => d.startsWith(`${key}/`));
    return { ...row, outcome: followed ? "indexed" : "policy", ok: !followed };
  }
  const base = row.path.split("/").at(-1)!;
  if (docs.has(key)) {
    const mayIndex = row.expect !== "skip" || /or index|then index/.test(row.reason) ||
      (isRoot && row.path.startsWith("permissions/"));
    return { ...row, outcome: "indexed", ok: mayIndex };
  }
  if (skipped.has(key)) {
    const detail = skipped.get(key)!;
    const want = REASONS.find(([re]) => re.test(row.reason))?.[1];
    // Hidden files are skipped and listed as `hidden` (a policy EXPECT.tsv leaves open).
    const policy = /is a policy/.test(row.reason) && detail.startsWith("hidden");
    const ok = policy ||
      (row.expect !== "index" && detail !== "" && (!want || detail.startsWith(want)));
    return { ...row, outcome: "skipped", detail, ok };
  }
  if (base.startsWith(".")) return { ...row, outcome: "policy", detail: "hidden", ok: true };
  if (row.path === "permissions/unreadable-dir" && isRoot) {
    const ok = docs.has(`${key}/inside.txt`);
    return { ...row, outcome: "indexed", detail: "readable as root", ok };
  }
  return { ...row, outcome: "not listed", ok: false };
}

/**
 * Index `bad` (a folder built by `buildBadInputs`) plus `good` ordinary documents, in one
 * library named `lib` under `work`, and judge the result.
 */
export async function hostileRun(
  work: string,
  bad: string,
  good: string[],
): Promise<HostileReport> {
  const lib = join(work, "lib");
  await Deno.mkdir(join(lib, "good"), { recursive: true });
  for (const entry of Deno.readDirSync(bad)) {
    if (entry.name === ".cache") continue;
    await new Deno.Command("cp", { args: ["-a", join(bad, entry.name), lib] }).output();
  }
  for (const g of good) {
    await new Deno.Command("cp", { args: ["-rL", g, join(lib, "good")] }).output();
  }
  // GNU info files carry NUL bytes (index markers, after the first 8 KB that sniffing
  // looks at); the text after them must survive.
  await Deno.writeTextFile(
    join(lib, "good", "nul-markers.txt"),
    Array.from({ length: 400 }, (_, i) => `Line ${i + 1} of the manual.`).join("\n") +
      "\n\0\b[index\0\b]\n* Menu:\n" + "line\n".repeat(50) + "THE LAST LINE\n",
  );
  const data = join(work, "data");
  await Deno.mkdir(data, { recursive: true });
  await Deno.writeTextFile(
    join(data, "shelfmark.json"),
    JSON.stringify({ libraries: [], limits: { file_timeout_s: TIME_LIMIT_S } }),
  );
  const t0 = Date.now();
  const child = spawnCli(["index", "--quiet", "--data", data, lib], "piped");
  const mem = new MemorySampler(child.pid, 50);
  const out = await child.output();
  const peakBytes = mem.stop();
  const elapsedMs = Date.now() - t0;
  const status = await cli(["status", "--json", "--data", data]);
  const st = JSON.parse(status.stdout) as {
    skipped: { path: string; reason: string; message: string }[];
    partial: { path: string; warnings: string[] }[];
  };
  const skipped = new Map(st.skipped.map((s) => [s.path, `${s.reason}: ${s.message}`]));
  const db = join(data, "catalog.db");
  const docs = new Set(catalogDigest(db).docs.keys());
  const verdicts = readExpect(join(bad, "EXPECT.tsv")).map((r) => judge(r, docs, skipped));
  const goodMissing: string[] = [];
  const walk = (dir: string, rel: string) => {
    for (const e of Deno.readDirSync(dir)) {
      if (e.isDirectory) walk(join(dir, e.name), `${rel}/${e.name}`);
      else if (e.isFile && !e.name.startsWith(".") && !docs.has(`${rel}/${e.name}`)) {
        goodMissing.push(`${rel}/${e.name}${skipped.has(`${rel}/${e.name}`) ? " (skipped)" : ""}`);
      }
    }
  };
  walk(join(lib, "good"), "lib/good");
  const tail = await cli(["read", "lib/good/nul-markers.txt", "--offset", "440", "--data", data]);
  const nulTail = tail.stdout.includes("THE LAST LINE");
  const rerun = indexSummary((await cli(["index", "--data", data, lib])).stderr);
  return {
    verdicts,
    goodMissing,
    peakBytes,
    peakTreeBytes: mem.peakTree,
    exitCode: out.code,
    consistency: await checkCatalog(db),
    rerun,
    elapsedMs,
    nulTail,
    timedOut: await hangRun(work),
    partial: st.partial.map((d) => `${d.path}: ${d.warnings.join("; ")}`),
    stopped: st.skipped.filter((s) => s.reason === "timeout").map((s) => `${s.path}: ${s.message}`),
  };
}

/**
 * Index a library of one file whose extractor (a plugin) never finishes, with the least
 * time limit, in a data folder of its own; resolves to what `status` says about the file.
 */
async function hangRun(work: string): Promise<string> {
  const lib = join(work, "hang");
  const data = join(work, "hang-data");
  await Deno.mkdir(lib);
  await Deno.mkdir(data);
  const plugin = join(work, "hang_plugin.ts");
  await Deno.writeTextFile(
    plugin,
    'export default { name: "hang", extensions: [".hang"], extract: () => new Promise(() => {}) };\n',
  );
  await Deno.writeTextFile(join(lib, "never-ends.hang"), "this extraction never ends\n");
  await Deno.writeTextFile(
    join(data, "shelfmark.json"),
    JSON.stringify({
      libraries: [],
      extractors: [plugin],
      limits: { file_timeout_s: HANG_LIMIT_S },
    }),
  );
  await cli(["index", "--quiet", "--data", data, lib]);
  const status = JSON.parse((await cli(["status", "--json", "--data", data])).stdout) as {
    skipped: { path: string; reason: string; message: string }[];
  };
  const s = status.skipped.find((x) => x.path === "hang/never-ends.hang");
  return s ? `${s.reason}: ${s.message}` : "not listed";
}
