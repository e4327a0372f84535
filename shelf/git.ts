/**
 * Git for libraries that are git work trees: run Debian's `git`, commit what the vault
 * writes, and answer `history` and `diff`. (`sync` is in `git_sync.ts`.)
 *
 * Why a child process rather than a JS library: isomorphic-git, the one maintained pure-JS
 * implementation, has no rebase and no handling of merge conflicts beyond refusing, and
 * `sync` is a pull with rebase that must resolve conflicts; the `git` binary does all of
 * it, speaks every transport and credential helper the user already has, and is the same
 * program the user runs on the same repository.
 *
 * Every run has a clean environment (PATH, HOME and what ssh needs, nothing else), never
 * prompts (`GIT_TERMINAL_PROMPT=0`, `GIT_EDITOR=true`, ssh in batch mode), never writes the
 * user's global configuration (the author is given per run through the environment),
 * never signs (a passphrase would be a prompt),
 * takes paths only after `--` as literal pathspecs, and bounds its output and time.
 *
 * @module
 */
import { existsSync } from "node:fs";
import { dirname, isAbsolute, join } from "node:path";
import { ToolError } from "../core/types.ts";
import type { Library } from "../core/types.ts";

/** The git binary (Debian's). */
const GIT = "git";
/** Output kept from one git run by default (bytes). */
const DEFAULT_MAX_OUTPUT = 4 * 1024 * 1024;
/** Time limit of one git run (ms); network runs (fetch, push) get the same. */
const DEFAULT_TIMEOUT_MS = 120_000;

/** A commit author (`git.author` in `shelfmark.json`). */
export interface GitAuthor {
  /** Name. */
  name: string;
  /** Email. */
  email: string;
}

/** What one git run gave. */
export interface GitRun {
  /** Exit code (-1 when killed for time). */
  code: number;
  /** Standard output, cut at the output bound. */
  stdout: string;
  /** Standard error, cut at the output bound. */
  stderr: string;
  /** Whether standard output was cut. */
  cut: boolean;
}

/** Options of one git run. */
export interface GitRunOptions {
  /** Bytes of standard output kept (the run is stopped past it). */
  maxOutput?: number;
  /** Time limit (ms). */
  timeoutMs?: number;
  /** The author and committer of commits this run makes. */
  author?: GitAuthor;
}

/** The environment of a git run: what git and ssh need, nothing of the caller's else. */
function gitEnv(author?: GitAuthor): Record<string, string> {
  const env: Record<string, string> = {
    LANG: "C",
    LC_ALL: "C",
    GIT_TERMINAL_PROMPT: "0",
    GIT_EDITOR: "true",
    GIT_SEQUENCE_EDITOR: "true",
    GIT_MERGE_AUTOEDIT: "no",
    GIT_LITERAL_PATHSPECS: "1",
    GIT_PAGER: "cat",
    GIT_SSH_COMMAND: "ssh -o BatchMode=yes",
    GIT_ASKPASS: "true",
    SSH_ASKPASS: "true",
  };
  // HOME: the user's ssh keys and credential helpers (read, never written);
  // SSH_AUTH_SOCK: their ssh agent.
  for (const k of ["PATH", "HOME", "SSH_AUTH_SOCK", "XDG_CONFIG_HOME"]) {
    const v = Deno.env.get(k);
    if (v !== undefined) env[k] = v;
  }
  env.PATH ??= "/usr/bin:/bin";
  if (author) {
    env.GIT_AUTHOR_NAME = env.GIT_COMMITTER_NAME = author.name;
    env.GIT_AUTHOR_EMAIL = env.GIT_COMMITTER_EMAIL = author.email;
  }
  return env;
}

/** Read a stream up to `max` bytes; returns the text and whether more came. */
async function readBounded(
  stream: ReadableStream<Uint8Array>,
  max: number,
  onCut: () => void,
): Promise<{ text: string; cut: boolean }> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  let cut = false;
  for await (const chunk of stream) {
    if (cut) continue; // drain, so the process is never blocked on a full pipe
    const room = max - size;
    if (chunk.length > room) {
      chunks.push(chunk.subarray(0, room));
      size = max;
      cut = true;
      onCut();
      continue;
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.length;
  }
  return { text: new TextDecoder().decode(all), cut };
}

/**
 * Run git in a folder, with a clean environment and bounded output and time.
 *
 * @param cwd the folder (a library root)
 * @param args git's arguments (paths after `--`)
 * @param opts output bound, time limit, author
 * @returns exit code, output, and whether the output was cut
 * @example
 * ```ts
 * import { runGit } from "./git.ts";
 * import assert from "node:assert/strict";
 *
 * const r = await runGit(Deno.cwd(), ["--version"]);
 * assert.equal(r.code, 0);
 * assert.match(r.stdout, /^git version /);
 * ```
 */
export async function runGit(
  cwd: string,
  args: string[],
  opts: GitRunOptions = {},
): Promise<GitRun> {
  const max = opts.maxOutput ?? DEFAULT_MAX_OUTPUT;
  const child = new Deno.Command(GIT, {
    // No signing: a key's passphrase would be a prompt (pinentry), and these commits are
    // the vault's, made on the user's behalf without a person at hand.
    args: [
      ...["-c", "core.quotePath=false", "-c", "color.ui=false"],
      ...["-c", "commit.gpgSign=false", "-c", "tag.gpgSign=false"],
      ...args,
    ],
    cwd,
    clearEnv: true,
    env: gitEnv(opts.author),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let killed = false;
  const kill = () => {
    if (killed) return;
    killed = true;
    try {
      child.kill("SIGKILL");
    } catch { /* already gone */ }
  };
  const timer = setTimeout(kill, opts.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  try {
    const [out, err, status] = await Promise.all([
      readBounded(child.stdout, max, kill),
      readBounded(child.stderr, 64 * 1024, () => {}),
      child.status,
    ]);
    const timedOut = killed && !out.cut;
    return {
      code: timedOut ? -1 : out.cut ? 0 : status.code,
      stdout: out.text,
      stderr: timedOut
        ? `git timed out after ${opts.timeoutMs ?? DEFAULT_TIMEOUT_MS} ms`
        : err.text,
      cut: out.cut,
    };
  } finally {
    clearTimeout(timer);
  }
}

/** Run git and fail with `GIT_FAILED` (git's own message) unless it exits 0. */
export async function git(cwd: string, args: string[], opts: GitRunOptions = {}): Promise<string> {
  const r = await runGit(cwd, args, opts);
  if (r.code !== 0) throw gitFailed(args, r);
  return r.stdout;
}

/** The error of a failed git run: git's first lines, quoted. */
export function gitFailed(args: string[], r: GitRun, hint?: string): ToolError {
  const said = (r.stderr || r.stdout).trim().split("\n").slice(0, 6).join(" | ").slice(0, 600);
  return new ToolError(
    "GIT_FAILED",
    `git ${args.find((a) => !a.startsWith("-")) ?? ""} failed: ${said || `exit ${r.code}`}`,
    hint ?? "Check the repository with git status in the library's folder.",
  );
}

/**
 * Whether a library is a git work tree: `"git": true` (or false) in its configuration, else
 * a `.git` (folder, or file of a linked work tree) in its root or a parent folder.
 *
 * @example
 * ```ts
 * import { isGitLibrary } from "./git.ts";
 * import assert from "node:assert/strict";
 *
 * const root = await Deno.makeTempDir();
 * assert.equal(isGitLibrary({ name: "a", root }), false);
 * assert.equal(isGitLibrary({ name: "a", root, git: true }), true);
 * await Deno.mkdir(`${root}/.git`);
 * assert.equal(isGitLibrary({ name: "a", root }), true);
 * assert.equal(isGitLibrary({ name: "a", root, git: false }), false);
 * ```
 */
export function isGitLibrary(lib: Library): boolean {
  if (lib.git !== undefined) return lib.git;
  for (let dir = lib.root;; dir = dirname(dir)) {
    if (existsSync(join(dir, ".git"))) return true;
    if (dirname(dir) === dir) return false;
  }
}

/**
 * A path inside a library as git takes it: relative, `/`-separated, no `..`, no NUL, not
 * inside `.git`. Fails with `PATH_OUTSIDE_LIBRARY` otherwise.
 *
 * @example
 * ```ts
 * import { gitPath } from "./git.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(gitPath("notes/a.md"), "notes/a.md");
 * assert.throws(() => gitPath("../x"), { code: "PATH_OUTSIDE_LIBRARY" });
 * ```
 */
export function gitPath(path: string): string {
  const p = path.replaceAll("\\", "/").replace(/^\.\//, "");
  const parts = p.split("/");
  if (
    !p || isAbsolute(p) || p.includes("\0") ||
    parts.some((s) => s === ".." || s === ".git") || parts.every((s) => s === "" || s === ".")
  ) {
    throw new ToolError(
      "PATH_OUTSIDE_LIBRARY",
      `Path ${JSON.stringify(path.slice(0, 200))} is not a file path inside the library`,
      "Give a path relative to the library's root, without '..'.",
    );
  }
  return parts.filter((s) => s !== "" && s !== ".").join("/");
}

/** The author of a commit: the configured one, else git's own config, else shelfmark's. */
async function authorFor(root: string, configured?: GitAuthor): Promise<GitAuthor | undefined> {
  if (configured) return configured;
  const email = await runGit(root, ["config", "user.email"]);
  if (email.code === 0 && email.stdout.trim()) return undefined;
  return { name: "shelfmark", email: "shelfmark@localhost" };
}

/**
 * Commits the vault's writes: each write is one commit of the paths it wrote, and of
 * nothing else the user may have staged or changed.
 */
export class GitCommitter {
  readonly #author?: GitAuthor;
  readonly #roots?: Set<string>;

  /**
   * Create a committer.
   *
   * @param opts.author the configured author (`git.author`), else git's own user
   * @param opts.roots the roots of the git libraries (as configured or real paths): a write
   *   elsewhere makes no commit (default: every root)
   */
  constructor(opts: { author?: GitAuthor; roots?: string[] } = {}) {
    this.#author = opts.author;
    this.#roots = opts.roots && new Set(opts.roots.flatMap((r) => [r, realOr(r)]));
  }

  /**
   * Commit the given paths (written, moved or deleted) as one commit.
   *
   * @param libraryRoot the library's root folder (inside a git work tree)
   * @param paths paths relative to the root: for a move, the old and the new path
   * @param message the commit message
   * @returns the new commit's hash, or undefined when the paths did not change (or the
   *   library is not one of the git libraries)
   */
  async commit(libraryRoot: string, paths: string[], message: string): Promise<string | undefined> {
    if (this.#roots && !this.#roots.has(libraryRoot) && !this.#roots.has(realOr(libraryRoot))) {
      return undefined;
    }
    const rel = [...new Set(paths.map(gitPath))];
    if (!rel.length) return undefined;
    for (let attempt = 1;; attempt++) {
      try {
        return await this.#commit(libraryRoot, rel, message);
      } catch (e) {
        // Someone else's git (the user's, an editor's) holds the index for a moment.
        if (attempt < 3 && e instanceof ToolError && /index\.lock/.test(e.message)) {
          await new Promise((r) => setTimeout(r, 250 * attempt));
          continue;
        }
        if (!(e instanceof ToolError)) throw e;
        throw new ToolError(
          e.code,
          `The file was written and indexed, but not committed: ${e.message}`,
          "Commit it by hand in the library's folder (git status shows it); do not write it again.",
        );
      }
    }
  }

  async #commit(libraryRoot: string, rel: string[], message: string): Promise<string | undefined> {
    // Ignored paths are the user's choice: written, not committed.
    const ignored = await runGit(libraryRoot, ["check-ignore", "--no-index", "--", ...rel]);
    const skip = new Set(ignored.code === 0 ? ignored.stdout.split("\n").filter(Boolean) : []);
    const kept = rel.filter((p) => !skip.has(p));
    if (!kept.length) return undefined;
    // `-A` stages a deleted path's removal too; paths git never knew and that are gone
    // are dropped first (git add refuses them).
    const known = await git(libraryRoot, ["ls-files", "-z", "--", ...kept]);
    const knownSet = new Set(known.split("\0").filter(Boolean));
    const present = kept.filter((p) => knownSet.has(p) || existsSync(join(libraryRoot, p)));
    if (!present.length) return undefined;
    await git(libraryRoot, ["add", "-A", "--", ...present]);
    const staged = await runGit(libraryRoot, ["diff", "--cached", "--quiet", "--", ...present]);
    if (staged.code === 0) return undefined;
    const author = await authorFor(libraryRoot, this.#author);
    await git(
      libraryRoot,
      ["commit", "--no-verify", "--quiet", "-m", message || "shelfmark: write", "--", ...present],
      { author },
    );
    return (await git(libraryRoot, ["rev-parse", "HEAD"])).trim();
  }
}

/** A folder's real path, or the path itself when it cannot be resolved. */
function realOr(path: string): string {
  try {
    return Deno.realPathSync(path);
  } catch {
    return path;
  }
}

/** One commit in `history`. */
export interface CommitInfo {
  /** Full hash. */
  commit: string;
  /** Author name. */
  author: string;
  /** Author email. */
  email: string;
  /** Author date, RFC 3339. */
  date: string;
  /** First line of the message. */
  subject: string;
  /** Paths it changed, relative to the library root (at most 20). */
  files: string[];
  /** How many paths it changed. */
  file_count: number;
}

/** A `history` request. */
export interface HistoryRequest {
  /** A path inside the library (its commits only, following renames); whole library when absent. */
  path?: string;
  /** Commits after this date (ISO 8601). */
  since?: string;
  /** Commits before this date (ISO 8601). */
  until?: string;
  /** Commits per page. */
  limit: number;
  /** Commits skipped (paging). */
  offset: number;
}

/** A page of commits, newest first. */
export interface History {
  /** The commits. */
  commits: CommitInfo[];
  /** Offset of the next page, or null. */
  next_offset: number | null;
}

/** The last date git reads (2099-12-31), in seconds. */
const LAST_GIT_DATE = 4_102_444_799;

/** A date argument in seconds since 1970, or `INVALID_ARGUMENT` quoting it. */
function epoch(date: string, arg: string): number {
  const ms = /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(date)
    ? Date.parse(date)
    : NaN;
  if (Number.isNaN(ms)) {
    throw new ToolError(
      "INVALID_ARGUMENT",
      `${arg}: not a date: ${JSON.stringify(date.slice(0, 100))}`,
      "Give a date as YYYY-MM-DD or an ISO 8601 time (2026-01-31T12:00:00Z).",
    );
  }
  return Math.floor(ms / 1000);
}

const FIELD = "\x1f";
const RECORD = "\x1e";

/**
 * Commits that touched a path (or any file of the library), newest first.
 *
 * @param root the library's root
 * @param r path, dates and page
 */
export async function gitHistory(root: string, r: HistoryRequest): Promise<History> {
  const head = await runGit(root, ["rev-parse", "--verify", "--quiet", "HEAD"]);
  if (head.code !== 0) return { commits: [], next_offset: null };
  const args = [
    "log",
    `--format=${RECORD}%H${FIELD}%an${FIELD}%ae${FIELD}%aI${FIELD}%s`,
    "--name-only",
    "--relative",
    // Not --skip: with --follow, git skips before it filters by path.
    `--max-count=${r.offset + r.limit + 1}`,
  ];
  const since = r.since === undefined ? undefined : epoch(r.since, "since");
  const until = r.until === undefined ? undefined : epoch(r.until, "until");
  // git reads no date past 2099: a later start has no commit, a later end is no bound.
  if (since !== undefined && since > LAST_GIT_DATE) return { commits: [], next_offset: null };
  if (since !== undefined) args.push(`--since=@${Math.max(0, since)}`);
  if (until !== undefined && until < 0) return { commits: [], next_offset: null };
  if (until !== undefined && until <= LAST_GIT_DATE) args.push(`--until=@${until}`);
  if (r.path) args.push("--follow");
  args.push("--", r.path ? gitPath(r.path) : ".");
  const out = await git(root, args, { maxOutput: 8 * 1024 * 1024 });
  const commits = out.split(RECORD).slice(1 + r.offset).map((rec): CommitInfo => {
    const [line, ...rest] = rec.split("\n");
    const [commit, author, email, date, subject] = line!.split(FIELD);
    const files = rest.filter(Boolean);
    return {
      commit: commit!,
      author: author ?? "",
      email: email ?? "",
      date: date ?? "",
      subject: subject ?? "",
      files: files.slice(0, 20),
      file_count: files.length,
    };
  });
  if (!commits.length && r.path) await mustExist(root, gitPath(r.path));
  const more = commits.length > r.limit;
  return { commits: commits.slice(0, r.limit), next_offset: more ? r.offset + r.limit : null };
}

/**
 * Fail with `DOCUMENT_NOT_FOUND` when a path is neither on disk nor in any commit (a typo
 * is an error, not an empty history).
 */
async function mustExist(root: string, path: string): Promise<void> {
  if (existsSync(join(root, path))) return;
  const any = await runGit(root, ["log", "-1", "--all", "--format=%H", "--", path]);
  if (any.code === 0 && any.stdout.trim()) return;
  throw new ToolError(
    "DOCUMENT_NOT_FOUND",
    `No file ${JSON.stringify(path)} on disk or in any commit`,
    "Check the path (history without a document lists the library's commits).",
  );
}

/** A `diff` request. */
export interface DiffRequest {
  /** A path inside the library. */
  path: string;
  /** The commit to compare from (default `HEAD`). */
  commit?: string;
  /** Compare to `HEAD` or to the file on disk (default). */
  to: "head" | "worktree";
  /** Bytes of diff returned at most. */
  max_bytes: number;
}

/** A diff of one path. */
export interface DiffAnswer {
  /** The path, relative to the library root. */
  path: string;
  /** The commit compared from (full hash). */
  from: string;
  /** `HEAD` (its hash) or `worktree`. */
  to: string;
  /** The unified diff (empty when nothing changed). */
  diff: string;
  /** Whether the diff was cut at `max_bytes`. */
  truncated: boolean;
}

/** A revision as a commit hash, or `INVALID_ARGUMENT` naming it. */
export async function resolveCommit(root: string, rev: string): Promise<string> {
  if (!/^[A-Za-z0-9_][A-Za-z0-9_./~^@{}-]{0,199}$/.test(rev) || rev.includes("..")) {
    throw new ToolError(
      "INVALID_ARGUMENT",
      `Not a commit: ${JSON.stringify(rev.slice(0, 200))}`,
      "Give a commit hash from history (or HEAD, HEAD~1, a branch or tag name).",
    );
  }
  const r = await runGit(root, [
    "rev-parse",
    "--verify",
    "--quiet",
    "--end-of-options",
    `${rev}^{commit}`,
  ]);
  if (r.code !== 0) {
    throw new ToolError(
      "INVALID_ARGUMENT",
      `No commit ${JSON.stringify(rev)} in this repository`,
      "Give a commit hash from history (or HEAD, HEAD~1, a branch or tag name).",
    );
  }
  return r.stdout.trim();
}

/**
 * The name a file had at a commit: the file's renames since then, followed back (the
 * path itself when it was not renamed).
 */
async function pathAt(root: string, from: string, path: string): Promise<string> {
  const log = await runGit(root, [
    "log",
    "--follow",
    "--format=",
    "--name-status",
    "--relative",
    `${from}..HEAD`,
    "--",
    path,
  ], { maxOutput: 1024 * 1024 });
  const oldest = log.stdout.split("\n").filter(Boolean).at(-1)?.split("\t");
  if (log.code !== 0 || !oldest || oldest.length < 2) return path;
  // `R100 old new` for a rename, else `M name`: the name before the oldest change.
  return /^[RC]/.test(oldest[0]!) ? oldest[1]! : oldest.at(-1)!;
}

/**
 * The diff of one path between a commit and `HEAD` or the working tree, cut at
 * `max_bytes` (and said so).
 *
 * @param root the library's root
 * @param r path, commit, what to compare to, size cap
 */
export async function gitDiff(root: string, r: DiffRequest): Promise<DiffAnswer> {
  const path = gitPath(r.path);
  const from = await resolveCommit(root, r.commit ?? "HEAD");
  const to = r.to === "head" ? await resolveCommit(root, "HEAD") : undefined;
  const old = await pathAt(root, from, path);
  const inFrom = await inCommit(root, from, old);
  const tracked = to ? await inCommit(root, to, path) : await inIndex(root, path);
  const onDisk = !to && existsSync(join(root, path));
  if (!inFrom && !tracked && !onDisk) {
    throw new ToolError(
      "DOCUMENT_NOT_FOUND",
      `No file ${JSON.stringify(path)} in commit ${from.slice(0, 10)} nor ${
        to ? "at HEAD" : "on disk"
      }`,
      "Check the path (history lists the commits that touched it).",
    );
  }
  // A file git does not know yet: compared with nothing (git diff would show nothing).
  const args = !to && !tracked && !inFrom
    ? ["diff", "--no-index", "--no-ext-diff", "--no-textconv", "--", "/dev/null", path]
    : ["diff", "--no-ext-diff", "--no-textconv", "--find-renames", from, ...(to ? [to] : [])];
  if (args[1] !== "--no-index") args.push("--", ...new Set([old, path]));
  const run = await runGit(root, args, { maxOutput: r.max_bytes });
  // --no-index exits 1 when the files differ.
  if (run.code !== 0 && !(run.code === 1 && args[1] === "--no-index")) throw gitFailed(args, run);
  return { path, from, to: to ?? "worktree", diff: run.stdout, truncated: run.cut };
}

/** Whether a commit holds a file (a path relative to the folder git runs in). */
async function inCommit(root: string, commit: string, path: string): Promise<boolean> {
  const r = await runGit(root, ["ls-tree", "--name-only", commit, "--", path]);
  return r.code === 0 && r.stdout.trim() !== "";
}

/** Whether git's index holds a file. */
async function inIndex(root: string, path: string): Promise<boolean> {
  const r = await runGit(root, ["ls-files", "--", path]);
  return r.code === 0 && r.stdout.trim() !== "";
}
