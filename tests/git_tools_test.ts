/**
 * The git tools (`history`, `diff`, `sync`) on a shelf whose library is a git clone of a
 * local bare repository: answers, re-indexing after a sync, structured errors, and their
 * place in `tools/list`.
 */
import { join } from "node:path";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { assert, assertEquals, assertMatch, assertRejects } from "./assert.ts";
import { repos } from "./git_fixture.ts";
import { openTestShelf } from "./shelf_helper.ts";
import { callTool } from "../server/dispatch.ts";
import { createServer } from "../server/mcp.ts";
import { testClient } from "./mcp_client.ts";
import type { ToolName } from "../server/tools/mod.ts";
import type { Shelf } from "../shelf/shelf.ts";
import { git } from "../shelf/git.ts";

async function json(shelf: Shelf, tool: ToolName, args: Record<string, unknown>) {
  return (await callTool(shelf, tool, { ...args, output_format: "json" })).json;
}

async function code(shelf: Shelf, tool: ToolName, args: Record<string, unknown>) {
  const e = await assertRejects(() => callTool(shelf, tool, args));
  return (e as { code?: string }).code;
}

Deno.test("history and diff show the vault's commits; sync pulls and re-indexes", async () => {
  const { dir, a, b } = await repos();
  await using t = await openTestShelf({ base: dir, folders: [a], write: ["a"] });
  const shelf = t.shelf;
  await shelf.index();
  assertEquals(shelf.gitLibraries().map((l) => l.name), ["a"]);
  const committer = shelf.gitCommitter();
  await Deno.writeTextFile(join(a, "notes/a.md"), "# A\n\none\nchanged\n");
  const hash = await committer.commit(a, ["notes/a.md"], "shelfmark: edit notes/a.md");

  const h = await json(shelf, "history", { doc_id: "a/notes/a.md" });
  assertEquals(h.path, "a/notes/a.md");
  assertEquals(
    (h.commits as { subject: string }[]).map((c) => c.subject),
    ["shelfmark: edit notes/a.md", "first"],
  );
  assertEquals((h.commits as { commit: string }[])[0]!.commit, hash);
  // By doc_id too, and the whole library (the only git library) without one.
  const id = shelf.findDocument("a/notes/a.md")!;
  assertEquals((await json(shelf, "history", { doc_id: id })).path, "a/notes/a.md");
  const all = await json(shelf, "history", { limit: 1 });
  assertEquals([all.library, all.path, all.next_offset], ["a", null, 1]);
  const md = (await callTool(shelf, "history", { limit: 1 })).text;
  assertMatch(
    md,
    /1 commit touching a, newest first:\n- [0-9a-f]{10} \d{4}-\d\d-\d\d \w+: shelfmark: edit/,
  );
  assertMatch(md, /Next: offset=1\./);

  const d = await json(shelf, "diff", { doc_id: id, commit: "HEAD~1", to: "head" });
  assertMatch(d.diff as string, /^-two$/m);
  assertMatch(d.diff as string, /^\+changed$/m);
  const cut = await callTool(shelf, "diff", { doc_id: id, commit: "HEAD~1", max_bytes: 1000 });
  assertEquals(cut.json.truncated, false);

  // Another clone pushes a new note; sync fast-forwards and the note is searchable.
  await Deno.writeTextFile(join(b, "pulled.md"), "# Pulled\n\nzanzibarquux arrives\n");
  await git(b, ["add", "pulled.md"]);
  await git(b, ["commit", "-q", "-m", "b adds"]);
  await git(b, ["push", "-q"]);
  const dry = await json(shelf, "sync", { dry_run: true });
  assertEquals([dry.behind, dry.changed, dry.dry_run], [1, ["a/pulled.md"], true]);
  assertEquals(shelf.findDocument("a/pulled.md"), undefined);
  const s = await json(shelf, "sync", {});
  assertEquals([s.action, s.pushed, s.changed], ["rebase", true, ["a/pulled.md"]]);
  assert((s.reindexed as number) >= 1);
  assert(shelf.findDocument("a/pulled.md"), "the pulled note is not indexed");
  const found = await json(shelf, "search", { query: "zanzibarquux" });
  assertEquals((found.results as { path: string }[]).map((x) => x.path), ["a/pulled.md"]);
});

Deno.test("write, edit, move and delete each make one commit; history and diff show them", async () => {
  const { dir, a } = await repos();
  const plain = join(dir, "plain");
  await Deno.mkdir(plain);
  await using t = await openTestShelf({ base: dir, folders: [a, plain], write: ["a", "plain"] });
  const shelf = t.shelf;
  await shelf.index();
  const commits = async () => Number((await git(a, ["rev-list", "--count", "HEAD"])).trim());
  const n0 = await commits();
  const w = await shelf.writeFile({ path: "a/notes/log.md", text: "# Log\n\nday one\n" });
  assertMatch(w.commit!, /^[0-9a-f]{40}$/);
  const e = await shelf.editFile({
    path: "a/notes/log.md",
    oldText: "day one",
    newText: "day two",
    message: "log: day two",
  });
  const m = await shelf.moveFile({ from: "a/notes/log.md", to: "a/archive/log.md" });
  const d = await shelf.deleteFile({ path: "a/notes/a.md" });
  assertEquals(await commits(), n0 + 4);
  assertEquals(
    new Set([w.commit, e.commit, m.commit, d.commit]).size,
    4,
    "each write is its own commit",
  );
  assertEquals((await git(a, ["status", "--porcelain"])).trim(), "");
  const moved = await git(a, ["show", "--name-status", "--format=", "-M", m.commit!]);
  assertMatch(moved, /^R\d+\tnotes\/log\.md\tarchive\/log\.md$/m);

  const h = await json(shelf, "history", { doc_id: "a/archive/log.md" });
  assertEquals(
    (h.commits as { commit: string; subject: string }[]).map((c) => c.commit),
    [m.commit, e.commit, w.commit],
  );
  assertEquals((h.commits as { subject: string }[])[1]!.subject, "log: day two");
  const all = await json(shelf, "history", { library: "a", limit: 4 });
  assertEquals((all.commits as { commit: string }[])[0]!.commit, d.commit);
  const diff = await json(shelf, "diff", {
    doc_id: "a/archive/log.md",
    commit: w.commit,
    to: "head",
  });
  assertMatch(diff.diff as string, /^-day one$/m);
  assertMatch(diff.diff as string, /^\+day two$/m);

  // Through the tools: the write tool's message is the commit's, and history shows it.
  const tw = await json(shelf, "write", {
    path: "a/tool.md",
    text: "# Tool\n",
    message: "notes: via the write tool",
  });
  assertMatch(tw.commit as string, /^[0-9a-f]{40}$/);
  assertEquals(await commits(), n0 + 5);
  const th = await json(shelf, "history", { doc_id: "a/tool.md" });
  assertEquals(
    (th.commits as { commit: string; subject: string }[]).map((c) => [c.commit, c.subject]),
    [[tw.commit, "notes: via the write tool"]],
  );

  // A library that is not a repository: the write works and makes no commit.
  const p = await shelf.writeFile({ path: "plain/x.md", text: "x\n" });
  assertEquals(p.commit, undefined);
});

Deno.test("sync reports a conflict with the sibling file, and the copy is indexed", async () => {
  const { dir, a, b } = await repos();
  await using t = await openTestShelf({ base: dir, folders: [a], write: ["a"] });
  const shelf = t.shelf;
  await shelf.index();
  await Deno.writeTextFile(join(b, "notes/a.md"), "# A\n\ntheirs\n");
  await git(b, ["commit", "-q", "-am", "b edits"]);
  await git(b, ["push", "-q"]);
  await Deno.writeTextFile(join(a, "notes/a.md"), "# A\n\nours\n");
  await shelf.gitCommitter().commit(a, ["notes/a.md"], "a edits");
  const r = await callTool(shelf, "sync", {});
  const c = (r.json.conflicts as { path: string; local_copy: string }[])[0]!;
  assertEquals(c.path, "a/notes/a.md");
  assertMatch(c.local_copy, /^a\/notes\/a\.conflict-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ\.md$/);
  assertMatch(
    r.text,
    /Conflict in a\/notes\/a\.md: it now holds the remote version; your version is in a\/notes\/a\.conflict-/,
  );
  assertEquals(await Deno.readTextFile(join(a, "notes/a.md")), "# A\n\ntheirs\n");
  assert(shelf.findDocument(c.local_copy), "the conflict copy is not indexed");
});

Deno.test("git tools: bad arguments are structured errors", async () => {
  const { dir, a } = await repos();
  const plain = join(dir, "plain");
  await Deno.mkdir(plain);
  await Deno.writeTextFile(join(plain, "p.md"), "# P\n");
  await using t = await openTestShelf({ base: dir, folders: [a, plain], write: ["plain"] });
  const shelf = t.shelf;
  await shelf.index();
  assertEquals(await code(shelf, "history", { library: "plain" }), "NOT_GIT");
  assertEquals(await code(shelf, "history", { doc_id: "plain/p.md" }), "NOT_GIT");
  assertEquals(await code(shelf, "history", { library: "nope" }), "LIBRARY_NOT_FOUND");
  assertEquals(await code(shelf, "history", { since: "yesterday" }), "INVALID_ARGUMENT");
  assertEquals(await code(shelf, "history", { doc_id: "a/../x" }), "PATH_OUTSIDE_LIBRARY");
  assertEquals(await code(shelf, "history", { doc_id: "nolib" }), "DOCUMENT_NOT_FOUND");
  assertEquals(await code(shelf, "history", { limit: 0 }), "INVALID_ARGUMENT");
  assertEquals(
    await code(shelf, "diff", { doc_id: "a/notes/a.md", commit: "--output=/tmp/x" }),
    "INVALID_ARGUMENT",
  );
  assertEquals(
    await code(shelf, "diff", { doc_id: "a/notes/a.md", commit: "0000000" }),
    "INVALID_ARGUMENT",
  );
  assertEquals(await code(shelf, "sync", { library: "plain" }), "NOT_GIT");
  // sync writes: refused where writing is not enabled.
  const e = await assertRejects(() => callTool(shelf, "sync", { library: "a" }));
  assertEquals((e as { code?: string }).code, "NOT_ALLOWED");
  assertMatch((e as { hint?: string }).hint!, /--write a/);
});

Deno.test("tools/list shows the git tools where a git library is writable; history answers anyway", async () => {
  const { dir, a } = await repos();
  const plain = join(dir, "plain");
  await Deno.mkdir(plain);
  const cases = [
    { folders: [plain], write: [], reads: false, sync: false },
    { folders: [plain, a], write: ["plain"], reads: false, sync: false },
    { folders: [plain, a], write: ["a"], reads: true, sync: true },
  ];
  for (const c of cases) {
    await using t = await openTestShelf({ folders: c.folders, write: c.write });
    const server = createServer(t.shelf);
    const [x, y] = InMemoryTransport.createLinkedPair();
    await server.connect(x);
    const client = testClient("git-tools");
    await client.connect(y);
    const names = (await client.listTools()).tools.map((t: { name: string }) => t.name);
    const what = JSON.stringify(c);
    assertEquals(names.includes("history"), c.reads, what);
    assertEquals(names.includes("diff"), c.reads, what);
    assertEquals(names.includes("sync"), c.sync, what);
    assert(names.includes("search"));
    // Listed or not, history answers on a git library (it only reads).
    if (c.folders.length > 1) {
      const h = await client.callTool({ name: "history", arguments: { library: "a" } });
      assert(!h.isError, JSON.stringify(h));
    }
    await client.close();
    await server.close();
  }
  await Deno.remove(dir, { recursive: true });
});
