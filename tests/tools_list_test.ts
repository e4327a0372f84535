/**
 * The `tools/list` answer an agent reads before its first call stays under its budget
 * (5,000 tokens, o200k) with every tool, and says nothing twice.
 */
import { assert, assertEquals } from "./assert.ts";
import { toolsListTokens } from "../bench/tools_list.ts";
import { TOOLS } from "../server/tools/mod.ts";

Deno.test("tools/list: every tool, under 5,000 tokens", async () => {
  const t = await toolsListTokens();
  assertEquals(Object.keys(t.tools).sort(), TOOLS.map((x) => x.name).sort());
  assert(t.total < 5000, `tools/list is ${t.total} tokens: ${JSON.stringify(t.tools)}`);
});
