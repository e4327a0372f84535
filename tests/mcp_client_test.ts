import { join } from "node:path";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { assert, assertEquals } from "./assert.ts";
import { childEnv, PATIENT, stdioTransport, testClient } from "./mcp_client.ts";

Deno.test("childEnv() hands the child the whole environment, extra variables on top", () => {
  const env = childEnv({ SHELFMARK_TEST_EXTRA: "given" });
  assertEquals(env.SHELFMARK_TEST_EXTRA, "given");
  for (const k of ["PATH", "DENO_DIR", "XDG_CACHE_HOME", "HTTPS_PROXY"]) {
    assertEquals(env[k], Deno.env.get(k), k);
  }
  assertEquals(Object.keys(env).length, Object.keys(Deno.env.toObject()).length + 1);
});

Deno.test("stdioTransport() starts a child that sees the parent's variables", async () => {
  const dir = await Deno.makeTempDir();
  const marker = `marker-${crypto.randomUUID()}`;
  Deno.env.set("SHELFMARK_TEST_MARKER", marker);
  const out = join(dir, "env.txt");
  const transport = stdioTransport({
    command: "sh",
    args: ["-c", `printf '%s|%s' "$SHELFMARK_TEST_MARKER" "$EXTRA" > "${out}"`],
    env: { EXTRA: "given" },
    stderr: "ignore",
  });
  try {
    const exited = new Promise<void>((resolve) => transport.onclose = resolve);
    await transport.start();
    await exited;
    assertEquals(await Deno.readTextFile(out), `${marker}|given`);
  } finally {
    Deno.env.delete("SHELFMARK_TEST_MARKER");
    await transport.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("testClient() waits as PATIENT says, not the SDK's 60 s, unless a call says otherwise", async () => {
  const server = new McpServer({ name: "s", version: "1" });
  server.registerTool(
    "hi",
    { description: "hi" },
    () => ({ content: [{ type: "text", text: "hi" }] }),
  );
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(b);
  const client = testClient("t");
  const delays: number[] = [];
  const real = globalThis.setTimeout;
  globalThis.setTimeout = ((fn: () => void, ms?: number) => {
    delays.push(ms ?? 0);
    return real(fn, ms);
  }) as typeof setTimeout;
  try {
    await client.connect(a);
    await client.listTools();
    await client.callTool({ name: "hi", arguments: {} });
    await client.callTool({ name: "hi", arguments: {} }, undefined, { timeout: 12_345 });
  } finally {
    globalThis.setTimeout = real;
    await client.close();
    await server.close();
  }
  assert(!delays.includes(60_000), `delays: ${delays}`);
  assertEquals(delays.filter((d) => d === PATIENT.timeout).length, 3, `delays: ${delays}`);
  assert(delays.includes(12_345), `delays: ${delays}`);
});
