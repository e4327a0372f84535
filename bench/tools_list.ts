/**
 * What `tools/list` costs an agent: the tokens (o200k) of the answer the MCP server sends,
 * in all and per tool. Run: `deno run -A bench/tools_list.ts` (`--json` for the figures).
 *
 * @module
 */
import { encode } from "gpt-tokenizer/encoding/o200k_base";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { createServer } from "../server/mcp.ts";
import type { Shelf } from "../shelf/shelf.ts";

/** Tokens of the whole `tools/list` answer and of each tool in it. */
export async function toolsListTokens(): Promise<{ total: number; tools: Record<string, number> }> {
  // Listing tools reads no index: a shelf is never touched.
  const server = createServer({} as Shelf);
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: "bench", version: "1" });
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
  const t = await toolsListTokens();
  if (Deno.args.includes("--json")) console.log(JSON.stringify(t));
  else {
    console.log(`tools/list: ${t.total} tokens (o200k), ${Object.keys(t.tools).length} tools`);
    for (const [name, n] of Object.entries(t.tools).sort((x, y) => y[1] - x[1])) {
      console.log(`  ${name.padEnd(16)} ${n}`);
    }
  }
}
