/**
 * `reindex` and `wait_for_index`: a queued run answers at once and indexes what changed
 * (or, with `full`, every file again); a read tool asked to wait sees a change noticed but
 * not yet indexed; over HTTP without a token, `reindex` is refused.
 */
import { join } from "node:path";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { assert, assertEquals } from "./assert.ts";
import { openTestShelf } from "./shelf_helper.ts";
import { callTool } from "../server/dispatch.ts";
import { createServer } from "../server/mcp.ts";
import { testClient } from "./mcp_client.ts";
import { partsOf } from "../shelf/_parts.ts";

async function vault(): Promise<string> {
  const base = await Deno.makeTempDir();
  const lib = join(base, "notes");
  await Deno.mkdir(lib);
  await Deno.writeTextFile(join(lib, "a.md"), "# Alpha\n\nThe aardvark sleeps.\n");
  await Deno.writeTextFile(join(lib, "b.md"), "# Beta\n\nThe badger digs.\n");
  return base;
}

Deno.test("reindex: queued at once; changes, or every file with full", async () => {
  const base = await vault();
  await using t = await openTestShelf({ base, folders: [join(base, "notes")] });
  const first = await t.shelf.index();
  assertEquals(first.indexed, 2);

  await Deno.writeTextFile(join(base, "notes", "c.md"), "# Gamma\n\nThe capybara swims.\n");
  const r = await callTool(t.shelf, "reindex", { output_format: "json" });
  assertEquals(r.json.queued, "changes");
  assertEquals(r.json.libraries, ["notes"]);
  assert(/queued for notes/.test(r.text), r.text);
  await t.shelf.idle();
  assertEquals(partsOf(t.shelf).catalog.count(), 3);

  const again = await t.shelf.index();
  assertEquals(again.indexed, 0, "nothing changed: nothing extracted");

  const full = await callTool(t.shelf, "reindex", { library: "notes", full: true });
  assert(/Full re-index queued/.test(full.text), full.text);
  await t.shelf.idle();
  assertEquals(t.shelf.status.progress.indexed, 3, "the full run extracted every file");
});

Deno.test("reindex: a full run extracts every file again", async () => {
  const base = await vault();
  await using t = await openTestShelf({ base, folders: [join(base, "notes")] });
  await t.shelf.index();
  const p = await t.shelf.index(undefined, ["notes"]);
  assertEquals(p.indexed, 2);
  assertEquals(p.unchanged, 0);
});

Deno.test("status: a run queued during another shows when that one finished", async () => {
  const base = await vault();
  await using t = await openTestShelf({ base, folders: [join(base, "notes")] });
  await t.shelf.index();
  const before = t.shelf.status.finished_at;
  assert(before, "the first run finished");
  await Deno.writeTextFile(join(base, "notes", "c.md"), "# Gamma\n\nThe capybara swims.\n");
  const first = t.shelf.index();
  // Asked during the run: one more run follows it at once, with no moment in between.
  const queued = t.shelf.index();
  assertEquals(queued, first);
  await first;
  const s = t.shelf.status;
  assertEquals(s.state, "building", "the queued run started as the first ended");
  assert(s.finished_at && s.finished_at >= before, JSON.stringify(s));
  const json = (await callTool(t.shelf, "status", { output_format: "json" })).json;
  assertEquals(json.finished_at, s.finished_at);
  await t.shelf.idle();
  assert(t.shelf.status.finished_at! >= s.finished_at, "the queued run's end replaces it");
});

Deno.test("reindex: an unknown library is a structured error", async () => {
  const base = await vault();
  await using t = await openTestShelf({ base, folders: [join(base, "notes")] });
  await t.shelf.index();
  let code = "";
  try {
    await callTool(t.shelf, "reindex", { library: "nope" });
  } catch (e) {
    code = (e as { code: string }).code;
  }
  assertEquals(code, "LIBRARY_NOT_FOUND");
});

Deno.test("wait_for_index: a read tool sees a change noticed but not yet indexed", async () => {
  const base = await vault();
  await using t = await openTestShelf({ base, folders: [join(base, "notes")] });
  await t.shelf.index();
  await Deno.writeTextFile(join(base, "notes", "d.md"), "# Delta\n\nThe dormouse naps.\n");
  t.shelf.markStale(); // what the watcher does on a file event

  const before = await callTool(t.shelf, "search", { query: "dormouse", output_format: "json" });
  assertEquals((before.json.results as unknown[]).length, 0);
  assertEquals((before.json._meta as { index: { stale: boolean } }).index.stale, true);

  const after = await callTool(t.shelf, "search", {
    query: "dormouse",
    wait_for_index: true,
    output_format: "json",
  });
  assertEquals((after.json.results as { path: string }[]).map((h) => h.path), ["notes/d.md"]);
  assertEquals((after.json._meta as { index: { stale: boolean } }).index.stale, false);
});

Deno.test("reindex over MCP: refused without writes allowed, queued with", async () => {
  const base = await vault();
  await using t = await openTestShelf({ base, folders: [join(base, "notes")] });
  await t.shelf.index();
  for (const allowWrites of [false, true]) {
    const server = createServer(t.shelf, { allowWrites });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(a);
    const client = testClient("test");
    await client.connect(b);
    try {
      const r = await client.callTool({ name: "reindex", arguments: {} }) as {
        isError?: boolean;
        content: { text: string }[];
      };
      const text = r.content[0]?.text ?? "";
      if (allowWrites) assert(!r.isError && /queued/.test(text), text);
      else {
        assert(r.isError === true);
        assertEquals(JSON.parse(text).error.code, "NOT_ALLOWED");
      }
    } finally {
      await client.close();
      await server.close();
    }
  }
  await t.shelf.idle();
});

Deno.test("reindex: the server answers searches while the queued run goes on", async () => {
  const base = await vault();
  await using t = await openTestShelf({ base, folders: [join(base, "notes")] });
  await t.shelf.index();
  for (let i = 0; i < 40; i++) {
    await Deno.writeTextFile(
      join(base, "notes", `n${i}.md`),
      `# Note ${i}\n\nThe ocelot ${i} hunts.\n`,
    );
  }
  const r = await callTool(t.shelf, "reindex", { full: true, output_format: "json" });
  assertEquals(r.json.queued, "full");
  assertEquals(t.shelf.status.state, "building");
  // Answered during the run, from what is indexed so far.
  const during = await callTool(t.shelf, "search", { query: "aardvark", output_format: "json" });
  assertEquals((during.json.results as { path: string }[])[0]?.path, "notes/a.md");
  await t.shelf.idle();
  const after = await callTool(t.shelf, "search", {
    query: "ocelot",
    limit: 50,
    output_format: "json",
  });
  assertEquals((after.json.results as unknown[]).length, 40);
});
