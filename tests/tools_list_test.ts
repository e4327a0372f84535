/**
 * The `tools/list` answer an agent reads before its first call stays under its budget
 * (5,000 tokens, o200k; 7,000 with the write and git tools, listed only when writing is
 * enabled and a library is a git work tree),
 * and says nothing twice.
 */
import { assert, assertEquals } from "./assert.ts";
import { toolsListTokens } from "../bench/tools_list.ts";
import { TOOLS } from "../server/tools/mod.ts";

Deno.test("tools/list: every tool but the write and git tools, under 5,000 tokens", async () => {
  const t = await toolsListTokens();
  assertEquals(
    Object.keys(t.tools).sort(),
    TOOLS.filter((x) => !x.vault && !x.listed).map((x) => x.name).sort(),
  );
  assert(t.total < 5000, `tools/list is ${t.total} tokens: ${JSON.stringify(t.tools)}`);
});

Deno.test("tools/list: with writing enabled and a git library, every tool, under 7,000 tokens", async () => {
  const t = await toolsListTokens({ write: true, git: true });
  assertEquals(Object.keys(t.tools).sort(), TOOLS.map((x) => x.name).sort());
  assertEquals(
    TOOLS.filter((x) => x.vault).map((x) => x.name).sort(),
    ["delete", "edit", "fetch", "move", "sync", "write"],
    "write, edit, move, delete, fetch, and sync (a write)",
  );
  for (const name of ["history", "diff", "sync"]) assert(name in t.tools, name);
  assert(t.total < 7000, `tools/list is ${t.total} tokens: ${JSON.stringify(t.tools)}`);
});

Deno.test("tools/list: a git library with writing off lists no git tool (list unchanged)", async () => {
  const plain = await toolsListTokens();
  const t = await toolsListTokens({ git: true });
  assertEquals(Object.keys(t.tools).sort(), Object.keys(plain.tools).sort());
  assertEquals(t.total, plain.total);
});
