/**
 * What `tools/list` costs an agent: the tokens (o200k) of the answer the MCP server sends,
 * in all and per tool. Run: `deno run -A bench/tools_list.ts` (`--json` for the figures, `--structured` for
 * the list `serve --structured` sends, `--git` for a shelf with a git library).
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
 * `serve --structured` lists them: output schemas included; with `git`, as a shelf with a
 * writable git library lists them: the git tools included).
 */
export async function toolsListTokens(
  opts: { structured?: boolean; git?: boolean } = {},
): Promise<{ total: number; tools: Record<string, number> }> {
  // Listing tools reads no index: a shelf is never touched, only asked for git libraries
  // and where writing is on.
  const shelf = {
    gitLibraries: () => opts.git ? [{ name: "git", root: "/" }] : [],
    writableLibraries: () => opts.git ? ["git"] : [],
  };
  const server = createServer(shelf as unknown as Shelf, { structured: opts.structured });
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
  const t = await toolsListTokens({ structured, git: Deno.args.includes("--git") });
  if (Deno.args.includes("--json")) console.log(JSON.stringify(t));
  else {
    console.log(
      `tools/list${structured ? " (--structured)" : ""}: ${t.total} tokens (o200k), ${
        Object.keys(t.tools).length
      } tools`,
    );
    for (const [name, n] of Object.entries(t.tools).sort((x, y) => y[1] - x[1])) {
      console.log(`  ${name.padEnd(16)} ${n}`);
    }
  }
}
