/**
 * The shared test corpus: built once by `../shared/corpus/build.sh DIR --small`
 * and cached (in `$SHELFMARK_CORPUS_SMALL`, else `~/.cache/shelfmark/corpus-small`).
 *
 * Test files run in parallel processes (`deno test --parallel`), and CI may build the
 * corpus too, so the build is serialised by an exclusive lock on `DIR.lock` and goes
 * into a private temporary folder renamed into place when complete: a half-built
 * corpus is never visible at `DIR` (see {@linkcode buildOnce}).
 *
 * Run as a script (`deno run -A tests/corpus.ts`) to build it the same way, e.g. in CI.
 *
 * @module
 */
import { existsSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
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

/** Where the small corpus lives: `$SHELFMARK_CORPUS_SMALL`, else `~/.cache/shelfmark/corpus-small`. */
export function smallCorpusDir(): string {
  return Deno.env.get("SHELFMARK_CORPUS_SMALL") ??
    join(Deno.env.get("HOME") ?? "/tmp", ".cache", "shelfmark", "corpus-small");
}

let building: Promise<string> | undefined;

/** Path of the small corpus, building it on first use (once per machine, see {@linkcode buildOnce}). */
export function smallCorpus(): Promise<string> {
  const script = join(SHARED, "corpus", "build.sh");
  if (!existsSync(join(smallCorpusDir(), "GROUND_TRUTH.jsonl")) && !existsSync(script)) {
    return Promise.reject(
      new Error(
        `no test corpus: ${script} is missing. The shared material sits next to the checkout ` +
          `(../shared, or set SHELFMARK_SHARED); building the corpus needs Debian, root and apt ` +
          `(see README.md, Development).`,
      ),
    );
  }
  building ??= buildOnce({
    dir: smallCorpusDir(),
    marker: "GROUND_TRUTH.jsonl",
    build: runBuilder("bash", [join(SHARED, "corpus", "build.sh")], ["--small"]),
  });
  return building;
}

/** Options of {@linkcode buildOnce}. */
export interface BuildOnceOptions {
  /** The folder to produce. */
  dir: string;
  /** A file the builder writes last: `dir` is complete when it holds this file. */
  marker: string;
  /**
   * Fill `into`, an empty private folder beside `dir` (same file system), and resolve
   * when done. `into` is renamed to `dir` only if it then holds the marker.
   */
  build: (into: string) => Promise<void>;
  /** Told once when another process holds the lock (default: `console.warn`). */
  log?: (message: string) => void;
}

/**
 * Produce `dir` once, whatever the number of processes asking at the same time.
 *
 * - A complete `dir` (one holding the marker) is returned at once.
 * - Otherwise an exclusive lock is taken on `dir.lock` (an OS file lock, `flock`: it is
 *   released by the kernel when its holder exits or is killed, so a lock left by a dead
 *   process never blocks; the file keeps the holder's pid for the waiting message).
 *   Whoever waited for the lock looks again and usually finds the work done.
 * - The holder builds into `dir.tmp-<pid>-<random>` and renames it to `dir`, so `dir`
 *   is never half-built. An incomplete `dir` left by an older build is moved aside (its
 *   `.cache` of downloaded packages is kept for the new build) and removed.
 *
 * @returns `dir`
 */
export async function buildOnce(o: BuildOnceOptions): Promise<string> {
  const { dir, marker } = o;
  const done = () => existsSync(join(dir, marker));
  if (done()) return dir;
  const parent = dirname(resolve(dir));
  await Deno.mkdir(parent, { recursive: true });
  const lockFile = await Deno.open(`${resolve(dir)}.lock`, {
    read: true,
    write: true,
    create: true,
  });
  try {
    await lockWaiting(lockFile, `${resolve(dir)}.lock`, o.log ?? console.warn);
    if (done()) return dir; // built by the process we waited for
    await lockFile.truncate(0);
    await lockFile.write(new TextEncoder().encode(`${Deno.pid}\n`));
    const unique = `${Deno.pid}-${crypto.randomUUID().slice(0, 8)}`;
    const tmp = join(parent, `${basename(dir)}.tmp-${unique}`);
    await Deno.mkdir(tmp);
    try {
      let old: string | undefined;
      if (existsSync(dir)) {
        // Incomplete (no marker) and nobody builds it now: we hold the lock.
        old = join(parent, `${basename(dir)}.old-${unique}`);
        await Deno.rename(dir, old);
        if (existsSync(join(old, ".cache"))) {
          await Deno.rename(join(old, ".cache"), join(tmp, ".cache"));
        }
      }
      await o.build(tmp);
      if (!existsSync(join(tmp, marker))) {
        throw new Error(`building ${dir}: the builder finished without writing ${marker}`);
      }
      await Deno.rename(tmp, dir);
      if (old) await Deno.remove(old, { recursive: true }).catch(() => {});
    } finally {
      await Deno.remove(tmp, { recursive: true }).catch(() => {});
    }
    return dir;
  } finally {
    lockFile.close(); // releases the lock
  }
}

/** Take the exclusive lock on `file`, telling `log` once if another process holds it. */
async function lockWaiting(file: Deno.FsFile, path: string, log: (m: string) => void) {
  let acquired = false;
  const locking = file.lock(true).then(() => acquired = true);
  const timer = setTimeout(() => {
    if (acquired) return;
    let holder = "";
    try {
      holder = Deno.readTextFileSync(path).trim();
    } catch { /* unreadable: say nothing about the holder */ }
    log(`waiting for ${holder ? `process ${holder}` : "another process"} (lock ${path})`);
  }, 1000);
  try {
    await locking;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A builder for {@linkcode buildOnce} that runs `cmd ...before INTO ...after`, its output
 * on this process's stderr, and rejects if it fails.
 */
export function runBuilder(
  cmd: string,
  before: string[],
  after: string[] = [],
): (into: string) => Promise<void> {
  return async (into) => {
    const out = await new Deno.Command(cmd, {
      args: [...before, into, ...after],
      stdin: "null",
      stdout: "inherit",
      stderr: "inherit",
    }).output();
    if (!out.success) throw new Error(`${cmd} ${before.join(" ")}: failed with code ${out.code}`);
  };
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

if (import.meta.main) {
  console.log(await smallCorpus());
}
