/**
 * Git with Debian's `git` and a local bare repository as the remote: the committer, history,
 * diff and sync (fast-forward, clean rebase, real conflict, push rejected).
 */
import { join } from "node:path";
import { assert, assertEquals, assertMatch, assertRejects } from "../tests/assert.ts";
import { git, GitCommitter, gitDiff, gitHistory, runGit } from "./git.ts";
import { repos } from "../tests/git_fixture.ts";
import { conflictName, gitSync, pushUpstream } from "./git_sync.ts";

const count = async (root: string) =>
  Number((await git(root, ["rev-list", "--count", "HEAD"])).trim());
const subject = async (root: string) => (await git(root, ["log", "-1", "--format=%s"])).trim();

Deno.test("GitCommitter.commit() makes one commit per write, edit, move and delete", async () => {
  const { dir, a } = await repos();
  try {
    const c = new GitCommitter();
    // Something the user has staged and changed stays out of the vault's commits.
    await Deno.writeTextFile(join(a, "user.md"), "mine\n");
    await git(a, ["add", "user.md"]);
    const n0 = await count(a);

    await Deno.writeTextFile(join(a, "notes/new.md"), "# New\n");
    const h1 = await c.commit(a, ["notes/new.md"], "shelfmark: write notes/new.md");
    assertMatch(h1!, /^[0-9a-f]{40}$/);
    assertEquals(await count(a), n0 + 1);
    assertEquals(await subject(a), "shelfmark: write notes/new.md");

    await Deno.writeTextFile(join(a, "notes/new.md"), "# New\n\nedited\n");
    await c.commit(a, ["notes/new.md"], "edit it");
    assertEquals(await count(a), n0 + 2);

    await Deno.rename(join(a, "notes/new.md"), join(a, "notes/moved.md"));
    await c.commit(a, ["notes/new.md", "notes/moved.md"], "move it");
    assertEquals(await count(a), n0 + 3);
    const moved = await git(a, ["show", "--name-status", "--format=", "-M", "HEAD"]);
    assertMatch(moved, /^R\d+\tnotes\/new\.md\tnotes\/moved\.md$/m);

    await Deno.remove(join(a, "notes/moved.md"));
    await c.commit(a, ["notes/moved.md"], "delete it");
    assertEquals(await count(a), n0 + 4);
    assertEquals((await git(a, ["ls-files", "notes"])).trim(), "notes/a.md");

    // Nothing changed: no commit. The user's staged file is still staged, not committed.
    assertEquals(await c.commit(a, ["notes/a.md"], "same"), undefined);
    assertEquals(await count(a), n0 + 4);
    assertEquals((await git(a, ["diff", "--cached", "--name-only"])).trim(), "user.md");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("GitCommitter.commit() uses the configured author, in a library below the top", async () => {
  const { dir, a } = await repos();
  try {
    const lib = join(a, "notes");
    await Deno.writeTextFile(join(lib, "b.md"), "b\n");
    const c = new GitCommitter({ author: { name: "Vault Bot", email: "bot@example.org" } });
    await c.commit(lib, ["b.md"], "write b");
    assertEquals(
      (await git(a, ["log", "-1", "--format=%an <%ae> %cn", "--name-only"])).trim(),
      "Vault Bot <bot@example.org> Vault Bot\n\nnotes/b.md",
    );
    assertMatch(
      (await assertRejects(() => c.commit(lib, ["../x.md"], "out"))).message,
      /not a file path/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("GitCommitter.commit() waits out a brief index.lock, and says when it cannot commit", async () => {
  const { dir, a } = await repos();
  try {
    const c = new GitCommitter();
    const lock = join(a, ".git/index.lock");
    await Deno.writeTextFile(lock, "");
    const freed = new Promise((r) => setTimeout(() => Deno.remove(lock).then(r), 100));
    await Deno.writeTextFile(join(a, "l1.md"), "1\n");
    assertMatch((await c.commit(a, ["l1.md"], "l1"))!, /^[0-9a-f]{40}$/);
    await freed;
    await Deno.writeTextFile(lock, "");
    await Deno.writeTextFile(join(a, "l2.md"), "2\n");
    const e = await assertRejects(() => c.commit(a, ["l2.md"], "l2"));
    assertEquals((e as { code?: string }).code, "GIT_FAILED");
    assertMatch(e.message, /^The file was written and indexed, but not committed: .*index\.lock/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("gitHistory() lists a path's commits newest first, paged; gitDiff() shows them", async () => {
  const { dir, a } = await repos();
  try {
    const c = new GitCommitter();
    for (const word of ["four", "five", "six"]) {
      await Deno.writeTextFile(join(a, "notes/a.md"), `# A\n\none\n${word}\n`);
      await c.commit(a, ["notes/a.md"], `a: ${word}`);
    }
    await Deno.writeTextFile(join(a, "other.md"), "other\n");
    await c.commit(a, ["other.md"], "other");

    const page1 = await gitHistory(a, { path: "notes/a.md", limit: 2, offset: 0 });
    assertEquals(page1.commits.map((x) => x.subject), ["a: six", "a: five"]);
    assertEquals(page1.next_offset, 2);
    assertEquals(page1.commits[0]!.files, ["notes/a.md"]);
    const page2 = await gitHistory(a, { path: "notes/a.md", limit: 2, offset: 2 });
    assertEquals(page2.commits.map((x) => x.subject), ["a: four", "first"]);
    assertEquals(page2.next_offset, null);
    const all = await gitHistory(a, { limit: 10, offset: 0 });
    assertEquals(all.commits[0]!.subject, "other");
    assertEquals(all.commits.length, 5);
    const future = await gitHistory(a, { since: "2999-01-01", limit: 10, offset: 0 });
    assertEquals(future.commits, []);
    const typo = await assertRejects(() =>
      gitHistory(a, { path: "notes/typo.md", limit: 10, offset: 0 })
    );
    assertEquals((typo as { code?: string }).code, "DOCUMENT_NOT_FOUND");

    const fourCommit = page2.commits[0]!.commit;
    const d = await gitDiff(a, {
      path: "notes/a.md",
      commit: fourCommit,
      to: "head",
      max_bytes: 10_000,
    });
    assertMatch(d.diff, /^-four$/m);
    assertMatch(d.diff, /^\+six$/m);
    assertEquals(d.truncated, false);
    await Deno.writeTextFile(join(a, "notes/a.md"), "# A\n\nunsaved\n");
    const w = await gitDiff(a, { path: "notes/a.md", to: "worktree", max_bytes: 10_000 });
    assertEquals(w.to, "worktree");
    assertMatch(w.diff, /^\+unsaved$/m);
    const cut = await gitDiff(a, {
      path: "notes/a.md",
      commit: fourCommit,
      to: "worktree",
      max_bytes: 40,
    });
    assertEquals(cut.truncated, true);
    // A new file git does not know yet shows whole; a path that is nowhere is an error.
    await Deno.writeTextFile(join(a, "notes/fresh.md"), "fresh\n");
    const fresh = await gitDiff(a, { path: "notes/fresh.md", to: "worktree", max_bytes: 10_000 });
    assertMatch(fresh.diff, /^\+fresh$/m);
    const nowhere = await assertRejects(() =>
      gitDiff(a, { path: "notes/nowhere.md", to: "worktree", max_bytes: 10_000 })
    );
    assertEquals((nowhere as { code?: string }).code, "DOCUMENT_NOT_FOUND");
    assertEquals(cut.diff.length, 40);
    assertMatch(
      (await assertRejects(() =>
        gitDiff(a, { path: "notes/a.md", commit: "--output=/tmp/x", to: "head", max_bytes: 100 })
      )).message,
      /Not a commit/,
    );
    assertMatch(
      (await assertRejects(() =>
        gitDiff(a, { path: "notes/a.md", commit: "deadbeef", to: "head", max_bytes: 100 })
      )).message,
      /No commit/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("gitSync() pushes, fast-forwards, and rebases cleanly", async () => {
  const { dir, a, b } = await repos();
  try {
    const c = new GitCommitter();
    await Deno.writeTextFile(join(a, "notes/from-a.md"), "from a\n");
    await c.commit(a, ["notes/from-a.md"], "a adds");
    const dry = await gitSync(a, { dry_run: true });
    assertEquals([dry.action, dry.ahead, dry.pushed], ["push_only", 1, false]);
    const pushed = await gitSync(a, { dry_run: false });
    assertEquals([pushed.action, pushed.pushed], ["push_only", true]);

    const ff = await gitSync(b, { dry_run: false });
    assertEquals([ff.action, ff.behind, ff.changed], ["fast_forward", 1, ["notes/from-a.md"]]);
    assertEquals(await Deno.readTextFile(join(b, "notes/from-a.md")), "from a\n");

    // Both sides commit different files: a clean rebase, then a push.
    await Deno.writeTextFile(join(a, "notes/a2.md"), "a2\n");
    await c.commit(a, ["notes/a2.md"], "a2");
    await gitSync(a, { dry_run: false });
    await Deno.writeTextFile(join(b, "notes/b2.md"), "b2\n");
    await c.commit(b, ["notes/b2.md"], "b2");
    const r = await gitSync(b, { dry_run: false });
    assertEquals([r.action, r.ahead, r.behind, r.pushed, r.conflicts], ["rebase", 1, 1, true, []]);
    assertEquals((await git(b, ["log", "--format=%s", "-3"])).trim().split("\n"), [
      "b2",
      "a2",
      "a adds",
    ]);
    assertEquals((await gitSync(b, { dry_run: false })).action, "up_to_date");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("gitSync() keeps a real conflict both ways and says so", async () => {
  const { dir, a, b } = await repos();
  try {
    const c = new GitCommitter();
    await Deno.writeTextFile(join(a, "notes/a.md"), "# A\n\nremote line\n");
    await c.commit(a, ["notes/a.md"], "a edits");
    await gitSync(a, { dry_run: false });
    await Deno.writeTextFile(join(b, "notes/a.md"), "# A\n\nlocal line\n");
    await c.commit(b, ["notes/a.md"], "b edits");
    const now = new Date("2026-01-02T03:04:05.678Z");
    const r = await gitSync(b, { dry_run: false, now });
    const copy = "notes/a.conflict-2026-01-02T03-04-05Z.md";
    assertEquals(r.conflicts, [{ path: "notes/a.md", local_copy: copy }]);
    assertEquals(r.pushed, true);
    assertEquals(await Deno.readTextFile(join(b, "notes/a.md")), "# A\n\nremote line\n");
    assertEquals(await Deno.readTextFile(join(b, copy)), "# A\n\nlocal line\n");
    assertEquals((await git(b, ["status", "--porcelain"])).trim(), "");
    // The copy is committed and pushed: the other side gets it.
    await gitSync(a, { dry_run: false });
    assertEquals(await Deno.readTextFile(join(a, copy)), "# A\n\nlocal line\n");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("pushUpstream() rejected as non-fast-forward says to sync first", async () => {
  const { dir, a, b } = await repos();
  try {
    const c = new GitCommitter();
    await Deno.writeTextFile(join(a, "x.md"), "x\n");
    await c.commit(a, ["x.md"], "x");
    await pushUpstream(a);
    await Deno.writeTextFile(join(b, "y.md"), "y\n");
    await c.commit(b, ["y.md"], "y");
    const e = await assertRejects(() => pushUpstream(b));
    assertEquals((e as { code?: string }).code, "PUSH_REJECTED");
    assertMatch((e as { hint?: string }).hint!, /sync again/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("gitSync() without an upstream, or over uncommitted changes, says so and changes nothing", async () => {
  const { dir, a } = await repos();
  try {
    await git(a, ["branch", "--unset-upstream"]);
    const head = (await git(a, ["rev-parse", "HEAD"])).trim();
    const e = await assertRejects(() => gitSync(a, { dry_run: false }));
    assertEquals((e as { code?: string }).code, "GIT_FAILED");
    assertMatch((e as { hint?: string }).hint!, /set-upstream-to=origin\/main/);
    assertEquals((await git(a, ["rev-parse", "HEAD"])).trim(), head);
    // Changes not committed are named, and left alone.
    await git(a, ["branch", "--quiet", "--set-upstream-to=origin/main"]);
    await Deno.writeTextFile(join(a, "notes/a.md"), "mine\n");
    const dirty = await assertRejects(() => gitSync(a, { dry_run: false }));
    assertMatch(dirty.message, /changes not committed: notes\/a\.md/);
    assertEquals(await Deno.readTextFile(join(a, "notes/a.md")), "mine\n");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("gitSync() whose push loses a race to another clone says to sync again", async () => {
  const { dir, a, b } = await repos();
  try {
    await Deno.writeTextFile(join(b, "b.md"), "b\n");
    await git(b, ["add", "b.md"]);
    await git(b, ["commit", "-qm", "b"]);
    // A's pre-push hook (run once) lets B push first: the remote moves during A's push.
    const hook = join(a, ".git/hooks/pre-push");
    await Deno.writeTextFile(
      hook,
      `#!/bin/sh\nrm -f "$0"\nenv -u GIT_DIR -u GIT_WORK_TREE -u GIT_INDEX_FILE git -C "${b}" push -q\n`,
    );
    await Deno.chmod(hook, 0o755);
    await Deno.writeTextFile(join(a, "a2.md"), "a\n");
    await new GitCommitter().commit(a, ["a2.md"], "a2");
    const e = await assertRejects(() => gitSync(a, { dry_run: false }));
    assertEquals((e as { code?: string }).code, "PUSH_REJECTED");
    assertMatch((e as { hint?: string }).hint!, /sync again/);
    // And syncing again does: rebased onto B's commit, pushed.
    const r = await gitSync(a, { dry_run: false });
    assertEquals([r.action, r.pushed], ["rebase", true]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("conflictName() puts the time before the extension", () => {
  const t = new Date("2026-11-26T10:00:00Z");
  assertEquals(conflictName("n/a.md", t), "n/a.conflict-2026-11-26T10-00-00Z.md");
  assertEquals(conflictName("README", t), "README.conflict-2026-11-26T10-00-00Z");
});

Deno.test("runGit() bounds output and never prompts", async () => {
  const { dir, a } = await repos();
  try {
    const r = await runGit(a, ["log", "-p"], { maxOutput: 10 });
    assertEquals([r.cut, r.stdout.length], [true, 10]);
    // A remote that would ask for a password fails instead of waiting for one.
    const p = await runGit(a, ["ls-remote", "https://127.0.0.1:1/none.git"], { timeoutMs: 20_000 });
    assert(p.code !== 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
