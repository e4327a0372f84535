/**
 * `serve --structured`: every tool declares an `outputSchema`, and every answer (markdown
 * too) carries `structuredContent` that matches it — checked by the SDK's own client, which
 * validates results against the schemas it listed, and again here with the tool's zod shape.
 * Without the option, no schema is listed and markdown answers carry no JSON.
 */
import { z } from "zod";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { assert, assertEquals } from "./assert.ts";
import { openTestShelf } from "./shelf_helper.ts";
import { createServer } from "../server/mcp.ts";
import { TOOLS } from "../server/tools/mod.ts";
import type { Shelf } from "../shelf/shelf.ts";
import { testClient } from "./mcp_client.ts";
import { repos } from "./git_fixture.ts";

const SAMPLES = new URL("../samples", import.meta.url).pathname;

type Result = {
  content: { type: string; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

async function connect(shelf: Shelf, structured: boolean) {
  const server = createServer(shelf, { structured });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = testClient("test");
  await client.connect(b);
  return {
    client,
    call: async (name: string, args: Record<string, unknown>) =>
      await client.callTool({ name, arguments: args }) as Result,
    async [Symbol.asyncDispose]() {
      await client.close();
      await server.close();
    },
  };
}

Deno.test({
  name: "serve --structured: every tool's answers match its outputSchema, markdown ones too",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    // A writable library beside the samples, for the write tools, and a git clone with a
    // remote, for history, diff and sync.
    const git = await repos();
    const base = git.dir;
    await Deno.mkdir(`${base}/notes`);
    // A page for fetch, on loopback (reached through the test-only allow-list).
    await using page = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen() {} },
      () =>
        new Response("<title>P</title><p>A page.</p>", {
          headers: { "content-type": "text/html" },
        }),
    );
    await using t = await openTestShelf({
      base,
      folders: [SAMPLES, `${base}/notes`, git.a],
      write: ["notes", "a"],
      fetchTestAllow: [`127.0.0.1:${page.addr.port}`],
    });
    await t.shelf.index();
    await using mcp = await connect(t.shelf, true);
    const listed = (await mcp.client.listTools()).tools;
    for (const tool of listed) {
      assertEquals(tool.outputSchema?.type, "object", `${tool.name} has an outputSchema`);
    }
    const first = await mcp.call("search", { query: "compression level", output_format: "json" });
    const hits = first.structuredContent!.results as { doc_id: string }[];
    assert(hits.length >= 2, "the samples answer the query");
    const [a, b] = [hits[0]!.doc_id, hits[1]!.doc_id];
    const calls: [string, Record<string, unknown>][] = [
      ["search", { query: "compression level", limit_passages: 3 }],
      ["search", { queries: ["compression", "git lfs batch"] }],
      ["search", { query: "zzzznothing" }],
      ["outline", { doc_ids: [a, "nope"] }],
      ["read", { doc_id: a, limit: 3 }],
      ["read", { doc_id: a, offset: 2, limit: 500 }],
      ["grep", { doc_id: a, pattern: "level", context: 1 }],
      ["grep", { doc_id: a, pattern: "level", output_mode: "count" }],
      ["grep", { pattern: "level", library: "samples" }],
      ["grep", { pattern: "level", output_mode: "count" }],
      ["list_libraries", {}],
      ["explore", {}],
      ["find_paths", { patterns: ["zstd"] }],
      ["status", {}],
      ["similar", { doc_id: a }],
      ["browse", {}],
      ["browse", { path: "samples/zstd" }],
      ["find_documents", { query: "readme" }],
      ["find_documents", { query: "redme", fuzzy: true }],
      ["recent", {}],
      ["list_tags", {}],
      ["links", { doc_id: a }],
      ["links", { kind: "broken" }],
      ["links", { kind: "orphans" }],
      ["links", { kind: "most_linked" }],
      ["connection", { from: a, to: b }],
      ["context", { doc_id: a }],
      ["reindex", {}],
      // The write tools, once per format (their files differ: f is the format).
      ["write", { path: "notes/f.md", text: "# F\n\nfirst\n", front_matter: { tags: ["x"] } }],
      ["edit", { path: "notes/f.md", old_text: "first", new_text: "second" }],
      ["edit", { path: "notes/f.md", start_line: 1, end_line: 1, new_text: "---" }],
      ["move", { from: "notes/f.md", to: "notes/moved/f.md" }],
      ["delete", { path: "notes/moved/f.md" }],
      ["fetch", { url: `http://127.0.0.1:${page.addr.port}/p.html`, library: "notes" }],
      ["history", { library: "a" }],
      ["history", { doc_id: "a/notes/a.md", limit: 1 }],
      ["diff", { doc_id: "a/notes/a.md", commit: "HEAD" }],
      ["sync", { library: "a", dry_run: true }],
      ["sync", { library: "a" }],
    ];
    const called = new Set<string>();
    for (const [name, args] of calls) {
      const shape = TOOLS.find((x) => x.name === name)!.output;
      for (const output_format of ["markdown", "json"]) {
        const own = JSON.parse(JSON.stringify(args).replaceAll("f.md", `${output_format}.md`));
        // The SDK's client throws when structuredContent does not match the listed schema.
        const r = await mcp.call(name, { ...own, output_format });
        const what = `${name} ${JSON.stringify(args)} ${output_format}`;
        assert(!r.isError, `${what}: ${r.content[0]?.text}`);
        assert(r.structuredContent, `${what} carries structuredContent`);
        const check = z.looseObject(shape).safeParse(r.structuredContent);
        assert(check.success, `${what}: ${check.error?.message}`);
        if (output_format === "markdown") {
          assert(!r.content[0]!.text.startsWith("{"), `${what}: the text stays markdown`);
        }
      }
      called.add(name);
    }
    assertEquals([...called].sort(), TOOLS.map((x) => x.name).sort(), "every tool was called");
    // An error is an error answer (its body as text), not a client-side schema failure.
    const bad = await mcp.call("read", { doc_id: "nope" });
    assert(bad.isError && bad.content[0]!.text.includes("DOCUMENT_NOT_FOUND"));
    const badArg = await mcp.call("read", { doc_id: a, limit: -1 });
    assert(badArg.isError && badArg.content[0]!.text.includes("INVALID_ARGUMENT"));
    // The schemas say something: a read answer without its lines does not pass.
    const readShape = TOOLS.find((x) => x.name === "read")!.output;
    assert(!z.looseObject(readShape).safeParse({ doc_id: a, title: "t", path: "p" }).success);
  },
});

Deno.test({
  name: "serve without --structured: no outputSchema, markdown answers without JSON",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using t = await openTestShelf({ folders: [SAMPLES] });
    await t.shelf.index();
    await using mcp = await connect(t.shelf, false);
    for (const tool of (await mcp.client.listTools()).tools) {
      assertEquals(tool.outputSchema, undefined, tool.name);
    }
    const md = await mcp.call("search", { query: "compression level" });
    assertEquals(md.structuredContent, undefined);
    const json = await mcp.call("search", { query: "compression level", output_format: "json" });
    assert(Array.isArray(json.structuredContent?.results));
  },
});
