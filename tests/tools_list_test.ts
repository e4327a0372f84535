/**
 * The `tools/list` answer an agent reads before its first call stays under its budget
 * (5,000 tokens, o200k) with every tool, and says nothing twice.
 */
import { assert, assertEquals } from "./assert.ts";
import { toolsListTokens } from "../bench/tools_list.ts";
import { TOOLS } from "../server/tools/mod.ts";

Deno.test("tools/list: every tool that applies to every shelf, under 5,000 tokens", async () => {
  const t = await toolsListTokens();
  assertEquals(
    Object.keys(t.tools).sort(),
    TOOLS.filter((x) => !x.listed).map((x) => x.name).sort(),
  );
  assert(t.total < 5000, `tools/list is ${t.total} tokens: ${JSON.stringify(t.tools)}`);
});

Deno.test("tools/list: with a git library, every tool, under 7,000 tokens", async () => {
  const t = await toolsListTokens({ git: true });
  assertEquals(Object.keys(t.tools).sort(), TOOLS.map((x) => x.name).sort());
  for (const name of ["history", "diff", "sync"]) assert(name in t.tools, name);
  assert(t.total < 7000, `tools/list is ${t.total} tokens: ${JSON.stringify(t.tools)}`);
});
