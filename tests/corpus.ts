/**
 * The shared test corpus: built once by `../shared/corpus/build.sh DIR --small`
 * and cached (in `$SHELFMARK_CORPUS_SMALL`, else `~/.cache/shelfmark/corpus-small`).
 *
 * @module
 */
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** Folder of the shared material (`SPEC.md`, `corpus/`, `eval/`). */
export const SHARED = Deno.env.get("SHELFMARK_SHARED") ?? resolve(repo, "..", "shared");

/** One row of `GROUND_TRUTH.jsonl`. */
export interface Truth {
  path: string;
  source: string;
  headings?: { level: number; title: string; page?: number }[];
  text?: string;
  [key: string]: unknown;
}

let building: Promise<string> | undefined;

/** Path of the small corpus, building it on first use. */
export function smallCorpus(): Promise<string> {
  building ??= (async () => {
    const dir = Deno.env.get("SHELFMARK_CORPUS_SMALL") ??
      join(Deno.env.get("HOME") ?? "/tmp", ".cache", "shelfmark", "corpus-small");
    if (existsSync(join(dir, "GROUND_TRUTH.jsonl"))) return dir;
    const out = await new Deno.Command("bash", {
      args: [join(SHARED, "corpus", "build.sh"), dir, "--small"],
      stdout: "inherit",
      stderr: "inherit",
    }).output();
    if (!out.success) throw new Error(`corpus build failed with code ${out.code}`);
    return dir;
  })();
  return building;
}

/** The ground truth rows of a corpus, by path. */
export async function groundTruth(dir: string): Promise<Map<string, Truth>> {
  const text = await Deno.readTextFile(join(dir, "GROUND_TRUTH.jsonl"));
  const rows = new Map<string, Truth>();
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    const row = JSON.parse(line) as Truth;
    rows.set(row.path, row);
  }
  return rows;
}

/** Normalise a heading title for comparison (case, whitespace, trailing punctuation). */
export function normTitle(t: string): string {
  return t.toLowerCase().replace(/[¶#*`_]/g, "").replace(/\s+/g, " ").trim().replace(/[.:]$/, "");
}

/** F1 of two lists of titles as multisets. */
export function titleF1(found: string[], truth: string[]): number {
  if (found.length === 0 && truth.length === 0) return 1;
  const pool = new Map<string, number>();
  for (const t of truth.map(normTitle)) pool.set(t, (pool.get(t) ?? 0) + 1);
  let hit = 0;
  for (const t of found.map(normTitle)) {
    const n = pool.get(t) ?? 0;
    if (n > 0) {
      hit++;
      pool.set(t, n - 1);
    }
  }
  const p = found.length ? hit / found.length : 0;
  const r = truth.length ? hit / truth.length : 0;
  return p + r === 0 ? 0 : (2 * p * r) / (p + r);
}
