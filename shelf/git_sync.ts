/**
 * `sync` of a git library: fetch, then fast-forward or rebase the local commits onto the
 * remote branch, then push. A real conflict keeps the remote version at the path and the
 * local one beside it as `NAME.conflict-<time>.EXT`, committed, and the answer says so.
 *
 * @module
 */
import { existsSync } from "node:fs";
import { rename } from "node:fs/promises";
import { join } from "node:path";
import { ToolError } from "../core/types.ts";
import { git, type GitAuthor, gitFailed, runGit } from "./git.ts";

/** A file kept both ways after a conflict. */
export interface SyncConflict {
  /** The path, now holding the remote version (or gone when the remote deleted it). */
  path: string;
  /** The sibling holding the local version (absent when the local side deleted it). */
  local_copy: string | null;
}

/** What `sync` did (or, with `dry_run`, would do). */
export interface SyncAnswer {
  /** The branch synced. */
  branch: string;
  /** Its upstream (`origin/main`). */
  upstream: string;
  /** Local commits the remote did not have. */
  ahead: number;
  /** Remote commits the local branch did not have. */
  behind: number;
  /** `up_to_date`, `fast_forward`, `rebase`, or `push_only`. */
  action: "up_to_date" | "fast_forward" | "rebase" | "push_only";
  /** Whether it only looked (fetched, changed nothing local, pushed nothing). */
  dry_run: boolean;
  /** Whether local commits were pushed. */
  pushed: boolean;
  /** Paths the pull changed, relative to the library root (at most 200). */
  changed: string[];
  /** Files that conflicted, each kept both ways. */
  conflicts: SyncConflict[];
}

/** Options of a sync. */
export interface SyncOptions {
  /** Look only. */
  dry_run: boolean;
  /** Author of the conflict commits. */
  author?: GitAuthor;
  /** The time put in conflict copies' names (default now). */
  now?: Date;
}

/** `NAME.conflict-<time>.EXT` beside `path`. */
export function conflictName(path: string, now: Date): string {
  const stamp = now.toISOString().replace(/\.\d+Z$/, "Z").replaceAll(":", "-");
  const slash = path.lastIndexOf("/");
  const file = path.slice(slash + 1);
  const dot = file.lastIndexOf(".");
  const [stem, ext] = dot > 0 ? [file.slice(0, dot), file.slice(dot)] : [file, ""];
  return `${path.slice(0, slash + 1)}${stem}.conflict-${stamp}${ext}`;
}

/** The branch, its remote and the remote's ref, or `GIT_FAILED` with a hint. */
async function upstreamOf(root: string): Promise<{ branch: string; remote: string; ref: string }> {
  const branch = (await runGit(root, ["symbolic-ref", "--quiet", "--short", "HEAD"])).stdout.trim();
  if (!branch) {
    throw new ToolError(
      "GIT_FAILED",
      "The library's repository is not on a branch (detached HEAD)",
      "Check out a branch in the library's folder (git switch <branch>).",
    );
  }
  const remote = (await runGit(root, ["config", "--get", `branch.${branch}.remote`])).stdout.trim();
  const ref = (await runGit(root, ["config", "--get", `branch.${branch}.merge`])).stdout.trim();
  if (!remote || !ref) {
    throw new ToolError(
      "GIT_FAILED",
      `Branch ${JSON.stringify(branch)} has no upstream to sync with`,
      `Set one in the library's folder: git branch --set-upstream-to=origin/${branch}`,
    );
  }
  return { branch, remote, ref };
}

/** Whether a rebase is under way (stopped on a conflict). */
function rebasing(gitDir: string): boolean {
  return existsSync(join(gitDir, "rebase-merge")) || existsSync(join(gitDir, "rebase-apply"));
}

/**
 * Resolve the conflicts of the rebase step that stopped: the remote version (`ours` while
 * rebasing) stays at the path, the local one (`theirs`) goes to a sibling.
 */
async function keepBoth(root: string, now: Date): Promise<SyncConflict[]> {
  const listed = await git(root, ["diff", "--name-only", "-z", "--diff-filter=U", "--relative"]);
  const out: SyncConflict[] = [];
  for (const path of listed.split("\0").filter(Boolean)) {
    const stages = await git(root, ["ls-files", "-u", "-z", "--", path]);
    const has = (n: number) => stages.split("\0").some((l) => l.split("\t")[0]!.endsWith(` ${n}`));
    let copy: string | null = null;
    if (has(3)) {
      // The local version goes through the work tree (never through memory): checked out
      // at the path, then renamed to its sibling.
      copy = conflictName(path, now);
      await git(root, ["checkout", "--theirs", "--", path]);
      await rename(join(root, path), join(root, copy));
      await git(root, ["add", "--", copy]);
    }
    if (has(2)) {
      await git(root, ["checkout", "--ours", "--", path]);
      await git(root, ["add", "--", path]);
    } else {
      await git(root, ["rm", "--quiet", "--cached", "--ignore-unmatch", "--", path]);
      await Deno.remove(join(root, path)).catch(() => {});
    }
    out.push({ path, local_copy: copy });
  }
  return out;
}

/**
 * Fail with `GIT_FAILED` naming the files changed and not committed (a rebase cannot run
 * over them; the vault's own writes are always committed).
 */
async function refuseUncommitted(root: string): Promise<void> {
  const st = await git(root, ["status", "--porcelain", "-z", "--untracked-files=no", "--", "."]);
  const files = st.split("\0").filter(Boolean).map((l) => l.slice(3));
  if (!files.length) return;
  throw new ToolError(
    "GIT_FAILED",
    `The library has changes not committed: ${files.slice(0, 5).join(", ")}${
      files.length > 5 ? `, +${files.length - 5}` : ""
    }`,
    "Commit or stash them in the library's folder, then sync again.",
  );
}

/** Whether git's push output says the remote has commits the local branch lacks. */
export function nonFastForward(stderr: string): boolean {
  // A remote branch that moved on: before the push (non-fast-forward, fetch first), or
  // during it (the ref is no longer where the push expected it).
  return /non-fast-forward|\[rejected\]|fetch first|stale info|cannot lock ref|failed to update ref/i
    .test(stderr);
}

/**
 * Push the branch to its upstream; a rejection as non-fast-forward fails with
 * `PUSH_REJECTED` and says to sync (pull) first.
 */
export async function pushUpstream(root: string): Promise<void> {
  const { remote, ref } = await upstreamOf(root);
  const args = ["push", "--porcelain", "--", remote, `HEAD:${ref}`];
  const r = await runGit(root, args);
  if (r.code === 0) return;
  if (nonFastForward(r.stderr + r.stdout)) {
    throw new ToolError(
      "PUSH_REJECTED",
      `The remote ${
        JSON.stringify(remote)
      } has commits this library does not (push rejected as non-fast-forward)`,
      "Run sync again: it pulls the remote commits (rebasing the local ones) before pushing.",
    );
  }
  throw gitFailed(args, r, "Check the remote's address and your access to it (git push by hand).");
}

/**
 * Pull with rebase, then push.
 *
 * @param root the library's root (in a git work tree with an upstream)
 * @param opts dry run, author of conflict commits
 */
export async function gitSync(root: string, opts: SyncOptions): Promise<SyncAnswer> {
  const now = opts.now ?? new Date();
  const { branch, remote } = await upstreamOf(root);
  const gitDir = (await git(root, ["rev-parse", "--absolute-git-dir"])).trim();
  if (rebasing(gitDir)) {
    throw new ToolError(
      "GIT_FAILED",
      "A rebase is already under way in the library's repository",
      "Finish or abort it there (git rebase --continue or git rebase --abort).",
    );
  }
  if (!opts.dry_run) await refuseUncommitted(root);
  const fetchArgs = ["fetch", "--quiet", "--", remote];
  const fetched = await runGit(root, fetchArgs);
  if (fetched.code !== 0) {
    throw gitFailed(fetchArgs, fetched, "Check the remote's address and your access to it.");
  }
  const upstream = (await git(root, ["rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{u}"]))
    .trim();
  const counts = (await git(root, ["rev-list", "--left-right", "--count", "HEAD...@{u}"])).trim();
  const [ahead, behind] = counts.split(/\s+/).map(Number) as [number, number];
  const action = behind === 0
    ? (ahead === 0 ? "up_to_date" : "push_only")
    : (ahead === 0 ? "fast_forward" : "rebase");
  const base: SyncAnswer = {
    branch,
    upstream,
    ahead,
    behind,
    action,
    dry_run: opts.dry_run,
    pushed: false,
    changed: [],
    conflicts: [],
  };
  if (opts.dry_run) {
    const incoming = behind
      ? await git(root, ["diff", "--name-only", "-z", "--relative", "HEAD...@{u}"])
      : "";
    return { ...base, changed: incoming.split("\0").filter(Boolean).slice(0, 200) };
  }
  const before = (await git(root, ["rev-parse", "HEAD"])).trim();
  const conflicts: SyncConflict[] = [];
  if (action === "fast_forward") {
    await git(root, ["merge", "--ff-only", "--quiet", "@{u}"]);
  } else if (action === "rebase") {
    let step = await runGit(root, ["rebase", "--quiet", "@{u}"], { author: opts.author });
    for (let round = 0; step.code !== 0; round++) {
      if (!rebasing(gitDir) || round > 1000) {
        await runGit(root, ["rebase", "--abort"]);
        throw gitFailed(["rebase"], step, "Nothing was changed; sync by hand (git pull --rebase).");
      }
      const kept = await keepBoth(root, now);
      if (!kept.length) {
        await runGit(root, ["rebase", "--abort"]);
        throw gitFailed(["rebase"], step, "Nothing was changed; sync by hand (git pull --rebase).");
      }
      conflicts.push(...kept);
      step = await runGit(root, ["-c", "core.editor=true", "rebase", "--continue"], {
        author: opts.author,
      });
    }
  }
  const changed = before === (await git(root, ["rev-parse", "HEAD"])).trim()
    ? ""
    : await git(root, ["diff", "--name-only", "-z", "--relative", before, "HEAD"]);
  let pushed = false;
  const localAhead = Number(
    (await git(root, ["rev-list", "--count", "@{u}..HEAD"])).trim(),
  );
  if (localAhead > 0) {
    await pushUpstream(root);
    pushed = true;
  }
  return {
    ...base,
    pushed,
    changed: changed.split("\0").filter(Boolean).slice(0, 200),
    conflicts,
  };
}
