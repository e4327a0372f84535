/**
 * The conventions of docs/tool-conventions.md, checked on every tool: argument names,
 * paging fields, old names accepted over MCP but not listed, flags derived from arguments,
 * unknown document types refused.
 */
import { join } from "node:path";
import { testClient } from "./mcp_client.ts";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { assert, assertEquals, assertMatch, assertRejects } from "./assert.ts";
import { openTestShelf } from "./shelf_helper.ts";
import { createServer } from "../server/mcp.ts";
import { callTool } from "../server/dispatch.ts";
import { argFlags, commandOptions, withoutAliases } from "../server/cli_flags.ts";
import { BUILTIN_DOC_TYPES, type Flags } from "../server/tool.ts";
import { schemas, TOOLS } from "../server/tools/mod.ts";
import type { ToolError } from "../core/types.ts";
import { builtinExtractors } from "../extractors/mod.ts";

Deno.test("tool arguments: limit_<thing>/offset_<thing>, sort, output_format, no old names", () => {
  for (const t of TOOLS) {
    for (const arg of Object.keys(schemas[t.name])) {
      assert(!/_(limit|offset)$/.test(arg), `${t.name}.${arg}: write limit_<thing>/offset_<thing>`);
      assert(!/^(time_sort|output_mode)$/.test(arg), `${t.name}.${arg}: an old name`);
      assert(!/sort$/.test(arg) || arg === "sort", `${t.name}.${arg}: the argument is sort`);
    }
    for (const old of Object.keys(t.aliases ?? {})) {
      assert(!(old in schemas[t.name]), `${t.name}: alias ${old} is also an argument`);
    }
  }
});

Deno.test("tool answers: a paging field is next_ + the offset argument it continues", () => {
  for (const t of TOOLS) {
    for (const field of Object.keys(t.output).filter((f) => f.startsWith("next_"))) {
      const arg = field.slice("next_".length);
      assert(arg in schemas[t.name], `${t.name}.${field}: no argument ${arg}`);
    }
  }
});

Deno.test("BUILTIN_DOC_TYPES names the built-in extractors", () => {
  assertEquals([...BUILTIN_DOC_TYPES].sort(), builtinExtractors().map((e) => e.name).sort());
});

Deno.test("cli flags: each argument is a flag of its name, old spellings fold into it", () => {
  const grep = TOOLS.find((t) => t.name === "grep")!;
  const flags = argFlags(schemas.grep);
  assertEquals(flags["case-insensitive"], { arg: "case_insensitive", kind: "boolean" });
  assertEquals(flags["limit-documents"]?.arg, "limit_documents");
  assertEquals(flags["doc-types"]?.kind, "list");
  assertEquals(flags["output-format"], undefined, "--json sets output_format");
  const opts = commandOptions(schemas.grep, grep.cli, {});
  assertEquals(opts["case-insensitive"], { type: "boolean", short: "i" });
  assertEquals(opts["ignore-case"], { type: "boolean" });
  assertEquals(opts.documents, { type: "string" });
  const given: Flags = { "ignore-case": true, documents: "3", type: "pdf" };
  assertEquals(withoutAliases(given, grep.cli), {
    "case-insensitive": true,
    "limit-documents": "3",
    "doc-types": "pdf",
  });
});

async function library() {
  const base = await Deno.makeTempDir({ prefix: "shelfmark-conv-" });
  const lib = join(base, "Lab");
  await Deno.mkdir(lib);
  await Deno.writeTextFile(join(lib, "a.md"), "# Gzip notes\n\ngzip compresses.\n");
  await Deno.writeTextFile(join(lib, "b.md"), "# More gzip\n\ngzip again, gzip.\n");
  const t = await openTestShelf({ base, folders: [lib] });
  await t.shelf.index();
  return t;
}

Deno.test("an unknown document type (or old value) is INVALID_ARGUMENT naming the known ones", async () => {
  await using t = await library();
  for (const tool of ["search", "grep"] as const) {
    const args = tool === "search" ? { query: "gzip" } : { pattern: "gzip" };
    const e = await assertRejects(() => callTool(t.shelf, tool, { ...args, doc_types: ["pfd"] }));
    assertEquals((e as ToolError).code, "INVALID_ARGUMENT");
    assertMatch((e as ToolError).message, /Unknown document type "pfd"/);
    assertMatch((e as ToolError).hint ?? "", /Known types: .*markdown.*pdf/);
  }
  const old = await assertRejects(() =>
    callTool(t.shelf, "grep", { pattern: "gzip", output_mode: "lines" })
  );
  assertEquals((old as ToolError).code, "INVALID_ARGUMENT", "an old name's bad value is refused");
  const ok = await callTool(t.shelf, "search", { query: "gzip", doc_types: ["PDF"] });
  assertMatch(ok.text, /No documents match/, "a known type nothing has is no error");
});

Deno.test({
  name: "mcp: old argument names work in tools/call and are absent from tools/list",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using t = await library();
    const server = createServer(t.shelf);
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(a);
    const client = testClient("test");
    await client.connect(b);
    try {
      const listed = JSON.stringify((await client.listTools()).tools);
      for (const old of ["time_sort", "output_mode", "skipped_offset", "skipped_limit"]) {
        assert(!listed.includes(old), `${old} is listed`);
      }
      type R = { content: { text: string }[]; isError?: boolean; structuredContent?: unknown };
      const call = async (name: string, args: Record<string, unknown>) =>
        await client.callTool({ name, arguments: args }) as R;
      const count = await call("grep", { pattern: "gzip", output_mode: "count" });
      assert(!count.isError, count.content[0]!.text);
      assertMatch(count.content[0]!.text, /^\[\w+\] Lab\/b\.md.*: 2 matches$/m);
      assert(!/gzip again/.test(count.content[0]!.text), "count only");
      const sorted = await call("search", { query: "gzip", time_sort: "newest" });
      assert(!sorted.isError, sorted.content[0]!.text);
      const status = await call("status", { skipped_limit: 0, output_format: "json" });
      assertEquals((status.structuredContent as { skipped: unknown[] }).skipped, []);
      const pfd = await call("search", { query: "gzip", doc_types: ["pfd"] });
      assert(pfd.isError);
      assertMatch(pfd.content[0]!.text, /INVALID_ARGUMENT.*Known types/);
    } finally {
      await client.close();
      await server.close();
    }
  },
});
