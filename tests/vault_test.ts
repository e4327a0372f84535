/**
 * The write tools over MCP: hidden and refused while writing is off (and over HTTP without
 * a token), each tool's answer and errors, `read`'s version tag with `if_match`, two
 * clients editing one file, and 200 write -> search rounds on one stdio connection with
 * the file watcher on.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { join } from "node:path";
import { createServer, type ServerOptions } from "../server/mcp.ts";
import { serveHttp } from "../server/http.ts";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Shelf } from "../shelf/shelf.ts";
import { assert, assertEquals, assertMatch } from "./assert.ts";
import { stdioTransport, testClient } from "./mcp_client.ts";
import { openTestShelf } from "./shelf_helper.ts";
import { runCli } from "./cli_helper.ts";

const CLI = new URL("../server/cli.ts", import.meta.url).pathname;
const WRITE_TOOLS = ["delete", "edit", "move", "write"];

type Result = {
  content: { type: string; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

async function connect(shelf: Shelf, opts: ServerOptions = {}): Promise<Client> {
  const [a, b] = InMemoryTransport.createLinkedPair();
  await createServer(shelf, opts).connect(a);
  const client = testClient("vault");
  await client.connect(b);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<Result> {
  return (await client.callTool({ name, arguments: { ...args, output_format: "json" } })) as Result;
}

async function ok(client: Client, name: string, args: Record<string, unknown>) {
  const r = await call(client, name, args);
  assert(!r.isError, `${name} failed: ${r.content[0]?.text}`);
  return r.structuredContent as Record<string, unknown>;
}

async function failed(client: Client, name: string, args: Record<string, unknown>) {
  const r = await call(client, name, args);
  assert(r.isError, `${name} did not fail: ${r.content[0]?.text}`);
  return (JSON.parse(r.content[0]!.text) as { error: Record<string, unknown> }).error;
}

async function setup(write: string[]) {
  const base = await Deno.makeTempDir({ prefix: "shelfmark-vault-mcp-" });
  const notes = join(base, "Notes");
  await Deno.mkdir(notes);
  await Deno.writeTextFile(join(notes, "log.md"), "# Log\n\nFirst entry: herons.\n");
  const t = await openTestShelf({ base, folders: [notes], write });
  await t.shelf.index();
  return { t, notes };
}

async function names(client: Client): Promise<string[]> {
  return (await client.listTools()).tools.map((t: { name: string }) => t.name);
}

Deno.test("write tools: not listed and refused while writing is off; nothing written", async () => {
  const { t, notes } = await setup([]);
  await using _ = t;
  const client = await connect(t.shelf);
  try {
    const listed = await names(client);
    assertEquals(WRITE_TOOLS.filter((n) => listed.includes(n)), []);
    assert(listed.includes("read"));
    const cases: [string, Record<string, unknown>][] = [
      ["write", { path: "Notes/new.md", text: "x" }],
      ["edit", { path: "Notes/log.md", old_text: "herons", new_text: "egrets" }],
      ["move", { from: "Notes/log.md", to: "Notes/b.md" }],
      ["delete", { path: "Notes/log.md" }],
    ];
    for (const [name, args] of cases) {
      assertEquals((await failed(client, name, args)).code, "NOT_ALLOWED", name);
    }
    assertEquals([...Deno.readDirSync(notes)].map((e) => e.name), ["log.md"]);
    assertEquals(Deno.readTextFileSync(join(notes, "log.md")), "# Log\n\nFirst entry: herons.\n");
  } finally {
    await client.close();
  }
});

Deno.test("write tools: over HTTP without a token they stay hidden and refused, --write or not", async () => {
  const { t, notes } = await setup(["Notes"]);
  await using _ = t;
  // The HTTP server builds its MCP servers with allowWrites: !!token.
  const client = await connect(t.shelf, { allowWrites: false });
  try {
    const listed = await names(client);
    assertEquals(WRITE_TOOLS.filter((n) => listed.includes(n)), []);
    assertEquals(
      (await failed(client, "write", { path: "Notes/new.md", text: "x" })).code,
      "NOT_ALLOWED",
    );
    assertEquals([...Deno.readDirSync(notes)].map((e) => e.name), ["log.md"]);
  } finally {
    await client.close();
  }
});

Deno.test({
  name: "write tools over real HTTP: only with a token; the web API refuses them without one",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const { t, notes } = await setup(["Notes"]);
    await using _ = t;
    const open = serveHttp(t.shelf, { port: 0 });
    const locked = serveHttp(t.shelf, { port: 0, token: "s3cret" });
    const connectHttp = async (url: string, token?: string) => {
      const c = testClient("vault-http");
      const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
      await c.connect(
        new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }),
      );
      return c;
    };
    const [anon, authed] = [await connectHttp(open.url), await connectHttp(locked.url, "s3cret")];
    try {
      const anonListed = await names(anon);
      assertEquals(WRITE_TOOLS.filter((n) => anonListed.includes(n)), []);
      const refused = await failed(anon, "write", { path: "Notes/http.md", text: "x" });
      assertEquals(refused.code, "NOT_ALLOWED");
      const api = await fetch(open.url.replace(/\/mcp$/, "/api/tools/write"), {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ path: "Notes/api.md", text: "x" }),
      });
      const body = await api.json() as { error?: { code: string } };
      assertEquals(body.error?.code, "NOT_ALLOWED");
      assertEquals([...Deno.readDirSync(notes)].map((e) => e.name), ["log.md"]);
      const authedListed = await names(authed);
      assertEquals(WRITE_TOOLS.filter((n) => authedListed.includes(n)), WRITE_TOOLS);
      const w = await ok(authed, "write", {
        path: "Notes/http.md",
        text: "# Over HTTP\n\negrets\n",
      });
      assertEquals(w.created, true);
      assertEquals(Deno.readTextFileSync(join(notes, "http.md")), "# Over HTTP\n\negrets\n");
    } finally {
      await anon.close();
      await authed.close();
      await open.shutdown();
      await locked.shutdown();
    }
  },
});

Deno.test("write tools: listed when a library is writable; write, read's version, edit, move, delete", async () => {
  const { t, notes } = await setup(["Notes"]);
  await using _ = t;
  const client = await connect(t.shelf);
  try {
    const listed = await names(client);
    assertEquals(WRITE_TOOLS.filter((n) => listed.includes(n)), WRITE_TOOLS);
    const w = await ok(client, "write", {
      path: "Notes/day/2.md",
      text: "Second entry: ospreys.\n",
      front_matter: { tags: ["birds"] },
    });
    assertEquals(w.created, true);
    const read = await ok(client, "read", { doc_id: "Notes/day/2.md" });
    assertEquals(read.version, w.version);
    assertEquals((read.lines as { text: string }[])[0]!.text, "---");
    // The markdown of read shows the tag too.
    const md = await client.callTool({ name: "read", arguments: { doc_id: "Notes/day/2.md" } });
    assertMatch((md as Result).content[0]!.text, new RegExp(`Version ${w.version}\\.`));
    const e = await ok(client, "edit", {
      path: "Notes/day/2.md",
      old_text: "ospreys",
      new_text: "kites",
      if_match: read.version,
    });
    assertEquals(e.match_type, "exact");
    const stale = await failed(client, "edit", {
      path: "Notes/day/2.md",
      old_text: "kites",
      new_text: "hawks",
      if_match: read.version,
    });
    assertEquals(stale.code, "CONFLICT");
    assertEquals(stale.current_version, e.version);
    const miss = await failed(client, "edit", {
      path: "Notes/day/2.md",
      old_text: "Second entry: eagles.",
      new_text: "x",
    });
    assertEquals(miss.code, "NO_MATCH");
    assertEquals(miss.differs_at, { line: 5, column: 15 });
    const found = await ok(client, "search", { query: "kites" });
    assertEquals((found.results as { path: string }[]).map((r) => r.path), ["Notes/day/2.md"]);
    const m = await ok(client, "move", { from: "Notes/day/2.md", to: "Notes/archive/2.md" });
    assertEquals(m.to, "Notes/archive/2.md");
    const exists = await failed(client, "move", { from: "Notes/log.md", to: "Notes/archive/2.md" });
    assertEquals(exists.code, "ALREADY_EXISTS");
    const d = await ok(client, "delete", { path: "Notes/archive/2.md", if_match: e.version });
    assertEquals(d.version, e.version);
    const gone = await ok(client, "search", { query: "kites" });
    assertEquals(gone.results, []);
    const outside = await failed(client, "write", { path: "Notes/../x.md", text: "x" });
    assertEquals(outside.code, "PATH_OUTSIDE_LIBRARY");
    const badTag = await failed(client, "delete", { path: "Notes/log.md", if_match: "xyz" });
    assertEquals(badTag.code, "INVALID_ARGUMENT");
    assertEquals([...Deno.readDirSync(notes)].map((e) => e.name).sort(), [
      "archive",
      "day",
      "log.md",
    ]);
  } finally {
    await client.close();
  }
});

Deno.test("write tools: two clients edit one file with the same if_match; one wins, one gets CONFLICT", async () => {
  const { t, notes } = await setup(["Notes"]);
  await using _ = t;
  const [c1, c2] = [await connect(t.shelf), await connect(t.shelf)];
  try {
    const v = (await ok(c1, "read", { doc_id: "Notes/log.md" })).version;
    assertEquals((await ok(c2, "read", { doc_id: "Notes/log.md" })).version, v);
    const [r1, r2] = await Promise.all([
      call(c1, "edit", {
        path: "Notes/log.md",
        old_text: "herons",
        new_text: "cranes",
        if_match: v,
      }),
      call(c2, "edit", { path: "Notes/log.md", old_text: "First", new_text: "Early", if_match: v }),
    ]);
    assertEquals([r1.isError ?? false, r2.isError ?? false].sort(), [false, true]);
    const loser = r1.isError ? r1 : r2;
    const err = (JSON.parse(loser.content[0]!.text) as { error: Record<string, unknown> }).error;
    assertEquals(err.code, "CONFLICT");
    const winner = (r1.isError ? r2 : r1).structuredContent!;
    assertEquals(err.current_version, winner.version);
    // The loser reads again and redoes its change on the new version: nothing is lost.
    const again = await ok(r1.isError ? c1 : c2, "read", { doc_id: "Notes/log.md" });
    assertEquals(again.version, winner.version);
    await ok(r1.isError ? c1 : c2, "edit", {
      path: "Notes/log.md",
      old_text: r1.isError ? "herons" : "First",
      new_text: r1.isError ? "cranes" : "Early",
      if_match: again.version,
    });
    assertEquals(Deno.readTextFileSync(join(notes, "log.md")), "# Log\n\nEarly entry: cranes.\n");
  } finally {
    await c1.close();
    await c2.close();
  }
});

Deno.test({
  name:
    "write tools: 200 write -> search rounds on one stdio connection find the new text every time",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const base = await Deno.makeTempDir({ prefix: "shelfmark-vault-rounds-" });
    const notes = join(base, "Notes");
    await Deno.mkdir(notes);
    await Deno.writeTextFile(join(notes, "start.md"), "# Start\n\nNothing yet.\n");
    const transport = stdioTransport({
      command: Deno.execPath(),
      args: ["run", "-A", CLI, "serve", "--data", join(base, "data"), notes, "--write", "Notes"],
      env: { SHELFMARK_EMBEDDER: "none" },
      stderr: "ignore",
    });
    const client = testClient("rounds");
    await client.connect(transport);
    try {
      // The first index is built (the watcher is on: serve watches by default).
      await ok(client, "search", { query: "nothing", wait_for_index: true });
      const before = await ok(client, "status", {});
      let stale = 0;
      for (let i = 0; i < 200; i++) {
        const word = `zq${i.toString(36)}marker${i % 7 === 0 ? "x" : ""}`;
        // New files, and overwrites of one file (its old word must be gone).
        const path = i % 2 ? `Notes/round/${i}.md` : "Notes/same.md";
        await ok(client, "write", { path, text: `# Round ${i}\n\nThe word is ${word}.\n` });
        const r = await ok(client, "search", { query: word });
        const paths = (r.results as { path: string }[]).map((h) => h.path);
        assertEquals(paths, [path], `round ${i}: ${word}`);
        if ((r._meta as { index: { stale: boolean } }).index.stale) stale++;
        if (i % 2 === 0 && i > 0) {
          const old = `zq${(i - 2).toString(36)}marker${(i - 2) % 7 === 0 ? "x" : ""}`;
          assertEquals((await ok(client, "search", { query: old })).results, [], `round ${i}`);
        }
      }
      assertEquals(stale, 0, "the vault's own writes never make the index stale");
      // Past the watcher's debounce: no run was started for the vault's own writes.
      await new Promise((r) => setTimeout(r, 2500));
      const after = await ok(client, "status", {});
      assert(before.started_at, "the first run is reported");
      assertEquals(after.started_at, before.started_at);
      assertEquals((after._meta as { index: { stale: boolean } }).index.stale, false);
    } finally {
      await client.close();
      await Deno.remove(base, { recursive: true }).catch(() => {});
    }
  },
});

Deno.test("write tools at a terminal: --write LIBRARY enables them for one run", async () => {
  const base = await Deno.makeTempDir({ prefix: "shelfmark-vault-cli-" });
  try {
    const notes = join(base, "Notes");
    await Deno.mkdir(notes);
    await Deno.writeTextFile(join(notes, "a.md"), "# A\n\nalpha\n");
    const data = ["--data", join(base, "data")];
    assertEquals((await runCli(["index", notes, ...data, "-q"])).code, 0);
    const off = await runCli(["write", "Notes/b.md", "--text", "beta", ...data]);
    assertEquals(off.code, 1);
    assertMatch(off.stderr, /NOT_ALLOWED|not enabled/);
    assert(!(await Deno.stat(join(notes, "b.md")).catch(() => undefined)));
    const on = await runCli(["write", "Notes/b.md", "--text", "beta", "--write", "Notes", ...data]);
    assertEquals(on.code, 0, on.stderr);
    assertMatch(on.stdout, /Created Notes\/b\.md \(4 bytes\)\. Version [0-9a-f]{16}/);
    const found = await runCli(["search", "beta", ...data, "--json"]);
    assertMatch(found.stdout, /Notes\/b\.md/);
    const unknown = await runCli([
      "write",
      "Notes/c.md",
      "--text",
      "x",
      "--write",
      "Nope",
      ...data,
    ]);
    assertEquals(unknown.code, 1);
    assertMatch(unknown.stderr, /--write Nope: no library/);
  } finally {
    await Deno.remove(base, { recursive: true }).catch(() => {});
  }
});
