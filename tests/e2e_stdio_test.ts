/**
 * End to end over MCP stdio: the real server process, driven by the SDK's `Client`,
 * on the markdown/, html/, text/ and nested/ libraries of the small shared corpus.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { assert, assertEquals, assertMatch } from "./assert.ts";
import { join } from "node:path";
import { smallCorpus } from "./corpus.ts";
import { stdioTransport, testClient } from "./mcp_client.ts";

const CLI = new URL("../server/cli.ts", import.meta.url).pathname;

type Result = {
  content: { type: string; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

async function connect(corpus: string, data: string, extra: string): Promise<Client> {
  const transport = stdioTransport({
    command: Deno.execPath(),
    args: [
      "run",
      "-A",
      CLI,
      "serve",
      "--data",
      data,
      ...["markdown", "html", "text", "nested"].map((l) => join(corpus, l)),
      extra,
    ],
    // Keyword search only: nothing here needs vectors, and the model costs minutes of CPU.
    env: { SHELFMARK_EMBEDDER: "none" },
    stderr: "ignore",
  });
  const client = testClient("e2e");
  await client.connect(transport);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<Result> {
  return (await client.callTool({ name, arguments: args })) as Result;
}

async function json(client: Client, name: string, args: Record<string, unknown>) {
  const r = await call(client, name, { ...args, output_format: "json" });
  assert(!r.isError, `${name} failed: ${r.content[0]?.text}`);
  return r.structuredContent as Record<string, unknown>;
}

Deno.test({
  name: "stdio server: search -> outline -> read -> grep on the small corpus",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const corpus = await smallCorpus();
    const data = await Deno.makeTempDir({ prefix: "shelfmark-e2e-" });
    // A library of our own with a line that makes a backtracking regex explode.
    const extra = join(data, "evil");
    await Deno.mkdir(extra);
    await Deno.writeTextFile(join(extra, "evil.txt"), `Evil\n\n${"a".repeat(40)}!\n`);
    const client = await connect(corpus, join(data, "db"), extra);
    try {
      await t.step("tools/list names every tool, all read-only but reindex", async () => {
        const { tools } = await client.listTools();
        const names = tools.map((x: { name: string }) => x.name).sort();
        assertEquals(names, [
          "browse",
          "connection",
          "context",
          "explore",
          "find_documents",
          "find_paths",
          "grep",
          "links",
          "list_libraries",
          "list_tags",
          "outline",
          "read",
          "recent",
          "reindex",
          "search",
          "similar",
          "status",
        ]);
        const writers = tools.filter((x: { annotations?: { readOnlyHint?: boolean } }) =>
          x.annotations?.readOnlyHint !== true
        ).map((x: { name: string }) => x.name);
        assertEquals(writers, ["reindex"], "only reindex changes anything");
      });

      await t.step("status reaches ready with the libraries indexed", async () => {
        // No deadline: a loaded machine takes longer, and a run that ends says "failed".
        let s: Record<string, unknown> = {};
        for (;;) {
          s = await json(client, "status", {});
          if (s.state === "ready" || s.state === "failed") break;
          await new Promise((r) => setTimeout(r, 250));
        }
        assertEquals(s.state, "ready");
        assert((s.documents_indexed as number) >= 100, `indexed ${s.documents_indexed}`);
      });

      let docId = "";
      await t.step(
        "search finds the SQLite page on measuring CPU performance by its words",
        async () => {
          const r = await json(client, "search", {
            query: "measuring sqlite cpu performance cachegrind",
            limit: 5,
          });
          const results = r.results as { doc_id: string; path: string; relevance: number }[];
          assert(results.length > 0);
          assertEquals(results[0]!.path, "html/sqlite3-doc/cpu.html");
          assert(results[0]!.relevance > 0 && results[0]!.relevance <= 1);
          docId = results[0]!.doc_id;
          const meta = r._meta as { now: string; index: { state: string } };
          assertMatch(meta.now, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
        },
      );

      await t.step("markdown search answer has the meta footer", async () => {
        const r = await call(client, "search", { query: "zstd compression level" });
        assert(!r.isError);
        assertMatch(r.content[0]!.text, /\[meta\] now=\d{4}-/);
      });

      let start = 0;
      let end = 0;
      await t.step("outline gives nodes with line ranges", async () => {
        const r = await json(client, "outline", { doc_ids: [docId] });
        const doc =
          (r.documents as { nodes: { start_line: number; end_line: number; title: string }[] }[])[
            0
          ]!;
        assertEquals(doc.nodes[0]!.title, "1. Overview");
        assertEquals(doc.nodes[1]!.title, "2. Measuring Performance");
        start = doc.nodes[1]!.start_line;
        end = doc.nodes[1]!.end_line;
        assert(end > start);
      });

      await t.step("read returns exactly the lines of the section", async () => {
        const r = await json(client, "read", {
          doc_id: docId,
          offset: start,
          limit: end - start + 1,
        });
        const lines = r.lines as { n: number; text: string }[];
        assertEquals(lines[0]!.n, start);
        assertMatch(lines[0]!.text, /Measuring Performance/);
        assertEquals(lines.length, Math.min(end - start + 1, 500));
        const md = await call(client, "read", { doc_id: docId, offset: start, limit: 3 });
        assertMatch(md.content[0]!.text, new RegExp(`^\\s*${start} \\| `));
        assertMatch(
          md.content[0]!.text,
          new RegExp(`Showing lines ${start}-${start + 2} of \\d+\\.`),
        );
      });

      await t.step("grep finds a pattern with its line", async () => {
        const r = await json(client, "grep", {
          pattern: "cachegrind",
          doc_id: docId,
          case_insensitive: true,
        });
        assert((r.total_matches as number) > 0);
        const m = (r.matches as { line: number; text: string }[])[0]!;
        const line = await json(client, "read", { doc_id: docId, offset: m.line, limit: 1 });
        assertEquals((line.lines as { text: string }[])[0]!.text, m.text);
      });

      await t.step(
        "a catastrophic pattern fails with PATTERN_TIMEOUT and the server lives",
        async () => {
          const r = await call(client, "grep", { pattern: "^(a+)+$", doc_id: "evil/evil.txt" });
          assert(r.isError);
          assertEquals(JSON.parse(r.content[0]!.text).error.code, "PATTERN_TIMEOUT");
          const again = await json(client, "grep", { pattern: "a{40}!", doc_id: "evil/evil.txt" });
          assertEquals(again.total_matches, 1);
        },
      );

      await t.step("find_paths buckets folders", async () => {
        const r = await json(client, "find_paths", { patterns: ["sqlite"] });
        const dirs = r.directories as { path: string; file_count: number }[];
        assert(dirs.some((d) => d.path === "html/sqlite3-doc"));
      });

      await t.step("explore and list_libraries describe the libraries", async () => {
        const libs = await json(client, "list_libraries", {});
        assertEquals(
          (libs.libraries as { name: string }[]).map((l) => l.name).sort(),
          ["evil", "html", "markdown", "nested", "text"],
        );
        const ex = await json(client, "explore", { library: "html" });
        assert((ex.document_count as number) > 10);
        assert("html" in (ex.doc_types as Record<string, number>));
      });

      await t.step("errors: missing doc, path outside the library, bad argument", async () => {
        const missing = await call(client, "read", { doc_id: "0000000000ff" });
        assert(missing.isError);
        assertEquals(JSON.parse(missing.content[0]!.text).error.code, "DOCUMENT_NOT_FOUND");
        const outside = await call(client, "read", { doc_id: "html/../../../etc/passwd" });
        assert(outside.isError);
        assertEquals(JSON.parse(outside.content[0]!.text).error.code, "PATH_OUTSIDE_LIBRARY");
        const abs = await call(client, "outline", { doc_ids: ["/etc/passwd"] });
        assert(abs.isError);
        assertEquals(JSON.parse(abs.content[0]!.text).error.code, "PATH_OUTSIDE_LIBRARY");
        const bad = await call(client, "read", { doc_id: docId, limit: 10_000 });
        assert(bad.isError);
        assertEquals(JSON.parse(bad.content[0]!.text).error.code, "INVALID_ARGUMENT");
        const noLib = await call(client, "search", { query: "x", library: "nope" });
        assertEquals(JSON.parse(noLib.content[0]!.text).error.code, "LIBRARY_NOT_FOUND");
        const badRe = await call(client, "grep", { pattern: "(", doc_id: docId });
        assertEquals(JSON.parse(badRe.content[0]!.text).error.code, "INVALID_PATTERN");
      });
    } finally {
      await client.close();
      await Deno.remove(data, { recursive: true }).catch(() => {});
    }
  },
});
