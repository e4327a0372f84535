/**
 * What `tools/list` costs an agent: the tokens (o200k) of the answer the MCP server sends,
 * in all and per tool. Run: `deno run -A bench/tools_list.ts` (`--json` for the figures, `--structured` for
 * the list `serve --structured` sends, `--write` for the list with writing enabled, `--git`
 * for a shelf with a git library).
 *
 * @module
 */
import { encode } from "gpt-tokenizer/encoding/o200k_base";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { createServer } from "../server/mcp.ts";
import type { Shelf } from "../shelf/shelf.ts";
import { testClient } from "../tests/mcp_client.ts";

/**
 * Tokens of the whole `tools/list` answer and of each tool in it (with `structured`, as
 * `serve --structured` lists them: output schemas included; with `write`, as a server with
 * a writable library lists them: the write tools included; with `git`, as a shelf with a
 * git library lists them: the git tools included, `sync` when `write` is on too).
 */
export async function toolsListTokens(
  opts: { structured?: boolean; write?: boolean; git?: boolean } = {},
): Promise<{ total: number; tools: Record<string, number> }> {
  // Listing tools reads no index: the shelf is asked only which libraries are writable and
  // which are git work trees.
  const shelf = {
    writableLibraries: () => opts.write ? ["notes"] : [],
    gitLibraries: () => opts.git ? [{ name: "notes", root: "/" }] : [],
  } as unknown as Shelf;
  const server = createServer(shelf, { structured: opts.structured });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = testClient("bench");
  await client.connect(b);
  try {
    const r = await client.listTools();
    const tools = Object.fromEntries(
      r.tools.map((t: { name: string }) => [t.name, encode(JSON.stringify(t)).length]),
    );
    return { total: encode(JSON.stringify(r)).length, tools };
  } finally {
    await client.close();
    await server.close();
  }
}

if (import.meta.main) {
  const structured = Deno.args.includes("--structured");
  const write = Deno.args.includes("--write");
  const t = await toolsListTokens({ structured, write, git: Deno.args.includes("--git") });
  if (Deno.args.includes("--json")) console.log(JSON.stringify(t));
  else {
    console.log(
      `tools/list${structured ? " (--structured)" : ""}${
        write ? " (--write)" : ""
      }: ${t.total} tokens (o200k), ${Object.keys(t.tools).length} tools`,
    );
    for (const [name, n] of Object.entries(t.tools).sort((x, y) => y[1] - x[1])) {
      console.log(`  ${name.padEnd(16)} ${n}`);
    }
  }
}
