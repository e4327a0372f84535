/**
 * Crash safety: SIGKILL the indexer (`shelfmark index`, or `shelfmark serve`) at several
 * points of a full index on one data directory, restart it each time, and check that the
 * catalog stays consistent, that nothing committed is lost or redone, and that the final
 * catalog holds the same documents (ids, file hashes) as a run without crashes.
 *
 * `index` runs with `--no-ocr`: the text pass is what is checked. The background OCR stores
 * an image or scanned PDF again once its text is read, by design, which is no redone work
 * (its own resume is tested in `shelf/ocr_test.ts`).
 *
 * @module
 */
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { CHILD_ENV, CLI, cli, indexSummary } from "./_helpers.ts";
import {
  catalogDigest,
  checkCatalog,
  type ConsistencyCheck,
  documentCount,
} from "./consistency.ts";

/** Options of a kill-point run. */
export interface CrashOptions {
  /** Library folders to index. */
  libs: string[];
  /** Scratch folder (two data directories go in it). */
  work: string;
  /** Kill when this share of the reference document count is committed, one per kill. */
  points: number[];
  /** Which process to kill at each point (default: `index`, the last one `serve`). */
  modes?: ("index" | "serve")[];
  /** Extra consistency checks (e.g. vectors). */
  extra?: ConsistencyCheck[];
  /** Progress lines. */
  log?: (m: string) => void;
}

/** What one kill point did. */
export interface KillPoint {
  mode: "index" | "serve";
  target: number;
  /** Documents committed when the process was killed. */
  atKill: number;
  /** False when the run finished before the kill point was reached. */
  killed: boolean;
  /** Consistency problems right after the kill. */
  problems: string[];
}

/** Result of a whole crash run. */
export interface CrashReport {
  reference: number;
  points: KillPoint[];
  /** Problems of the final catalog (consistency, lost or redone work, differences). */
  final: string[];
  /** Summary of the final, uninterrupted run. */
  resumed: ReturnType<typeof indexSummary>;
}

function indexedAt(file: string): Map<string, string> {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const out = new Map<string, string>();
    for (const r of db.prepare("SELECT doc_id, indexed_at, hash FROM documents").all()) {
      out.set(r.doc_id as string, `${r.indexed_at}|${r.hash}`);
    }
    return out;
  } finally {
    db.close();
  }
}

async function killAt(
  data: string,
  libs: string[],
  mode: "index" | "serve",
  target: number,
): Promise<{ killed: boolean }> {
  const args = mode === "index"
    ? ["index", "--quiet", "--no-ocr", "--data", data, ...libs]
    : ["serve", "--no-watch", "--data", data, ...libs];
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", CLI, ...args],
    env: CHILD_ENV,
    stdin: mode === "serve" ? "piped" : "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  let exited = false;
  const status = child.status.then((s) => {
    exited = true;
    return s;
  });
  const db = join(data, "catalog.db");
  while (!exited && documentCount(db) < target) await new Promise((r) => setTimeout(r, 20));
  // Somewhere inside the next batch, not just at a commit boundary.
  if (!exited) await new Promise((r) => setTimeout(r, Math.random() * 400));
  const killed = !exited;
  if (killed) {
    try {
      child.kill("SIGKILL");
    } catch { /* already gone */ }
  }
  await status;
  return { killed };
}

/** Run the kill points; see the module doc. */
export async function crashRun(opts: CrashOptions): Promise<CrashReport> {
  const log = opts.log ?? (() => {});
  const refData = join(opts.work, "reference");
  const ref = await cli(["index", "--quiet", "--no-ocr", "--data", refData, ...opts.libs]);
  if (ref.code !== 0) throw new Error(`reference index failed: ${ref.stderr}`);
  const refDb = join(refData, "catalog.db");
  const reference = documentCount(refDb);
  log(`reference: ${reference} documents`);
  const data = join(opts.work, "crashed");
  const db = join(data, "catalog.db");
  const points: KillPoint[] = [];
  const committed: Map<string, string>[] = [];
  for (let i = 0; i < opts.points.length; i++) {
    const mode = opts.modes?.[i] ?? (i === opts.points.length - 1 ? "serve" : "index");
    const target = Math.max(documentCount(db) + 1, Math.floor(opts.points[i]! * reference));
    const { killed } = await killAt(data, opts.libs, mode, target);
    const atKill = documentCount(db);
    const problems = await checkCatalog(db, opts.extra);
    committed.push(indexedAt(db));
    points.push({ mode, target, atKill, killed, problems });
    log(
      `kill ${i + 1} (${mode}) at ${atKill}/${reference}: ${killed ? "killed" : "finished first"}` +
        (problems.length ? `, ${problems.length} problems` : ", consistent"),
    );
  }
  const atLastKill = documentCount(db);
  const res = await cli(["index", "--no-ocr", "--data", data, ...opts.libs]);
  if (res.code !== 0) throw new Error(`resumed index failed: ${res.stderr}`);
  const resumed = indexSummary(res.stderr);
  const final = await checkCatalog(db, opts.extra);
  if (resumed.unchanged !== atLastKill) {
    final.push(
      `resume redid work: ${atLastKill} documents were committed, ${resumed.unchanged} unchanged`,
    );
  }
  const now = indexedAt(db);
  for (const [i, snap] of committed.entries()) {
    for (const [id, v] of snap) {
      if (!now.has(id)) final.push(`document ${id} committed before kill ${i + 1} is lost`);
      else if (now.get(id) !== v) {
        final.push(`document ${id} committed before kill ${i + 1} was redone`);
      }
    }
  }
  const a = catalogDigest(refDb);
  const b = catalogDigest(db);
  for (const [p, v] of a.docs) {
    if (!b.docs.has(p)) final.push(`missing after crashes: ${p}`);
    else if (b.docs.get(p) !== v) final.push(`different id or file after crashes: ${p}`);
  }
  for (const p of b.docs.keys()) if (!a.docs.has(p)) final.push(`extra after crashes: ${p}`);
  return { reference, points, final, resumed };
}
