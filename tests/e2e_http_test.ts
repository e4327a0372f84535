/**
 * End to end over Streamable HTTP: the real server in-process on a free loopback port,
 * two SDK clients at once, a foreign Origin refused, the token enforced.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { serveHttp } from "../server/http.ts";
import { assert, assertEquals } from "./assert.ts";
import { openTestShelf } from "./shelf_helper.ts";
import { TOOLS } from "../server/tools/mod.ts";
import { testClient } from "./mcp_client.ts";

const SAMPLES = new URL("../samples", import.meta.url).pathname;

async function client(url: string, token?: string): Promise<Client> {
  const c = testClient("http-e2e");
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  await c.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return c;
}

type Result = {
  content: { text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

Deno.test({
  name:
    "http server: two clients search, outline and read; foreign Origin and missing token refused",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const t = await openTestShelf({ folders: [SAMPLES] });
    const shelf = t.shelf;
    await shelf.index();
    const http = serveHttp(shelf, {
      port: 0,
      token: "s3cret",
      allowedOrigins: ["http://localhost:3000"],
    });
    const [a, b] = await Promise.all([client(http.url, "s3cret"), client(http.url, "s3cret")]);
    try {
      // Every tool that applies: not the write tools nor the git tools (writing is off).
      assertEquals(
        (await a.listTools()).tools.map((t: { name: string }) => t.name).sort(),
        TOOLS.filter((t) => !t.vault && (t.listed?.(shelf) ?? true)).map((t) => t.name).sort(),
      );
      const [ra, rb] = (await Promise.all([
        a.callTool({
          name: "search",
          arguments: { query: "sqlite archive", output_format: "json" },
        }),
        b.callTool({
          name: "search",
          arguments: { query: "zstd compression", output_format: "json" },
        }),
      ])) as Result[];
      const hitA = (ra!.structuredContent!.results as { path: string; doc_id: string }[])[0]!;
      assertEquals(hitA.path, "samples/sqlite/sqlar.html");
      assert(
        (rb!.structuredContent!.results as { path: string }[])[0]!.path.startsWith("samples/zstd/"),
      );
      const ol =
        (await b.callTool({ name: "outline", arguments: { doc_ids: [hitA.doc_id] } })) as Result;
      assert(ol.content[0]!.text.includes("[1]"));
      const rd = (await a.callTool({
        name: "read",
        arguments: { doc_id: hitA.doc_id, offset: 1, limit: 2 },
      })) as Result;
      assert(rd.content[0]!.text.includes("Showing lines 1-2 of"));

      const init = JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "x", version: "1" },
        },
      });
      const headers = {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: "Bearer s3cret",
      };
      const evil = await fetch(http.url, {
        method: "POST",
        body: init,
        headers: { ...headers, origin: "http://evil.example" },
      });
      assertEquals(evil.status, 403);
      await evil.body?.cancel();
      const noToken = await fetch(http.url, {
        method: "POST",
        body: init,
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
      });
      assertEquals(noToken.status, 401);
      await noToken.body?.cancel();
      const local = await fetch(http.url, {
        method: "POST",
        body: init,
        headers: { ...headers, origin: "http://localhost:3000" },
      });
      assertEquals(local.status, 200);
      await local.body?.cancel();
    } finally {
      await a.close();
      await b.close();
      await http.shutdown();
      await t.close();
    }
  },
});

Deno.test("serveHttp() refuses a non-loopback address without a token", async () => {
  await using t = await openTestShelf();
  let message = "";
  try {
    serveHttp(t.shelf, { host: "0.0.0.0", port: 0 });
  } catch (e) {
    message = (e as Error).message;
  }
  assert(message.includes("without a token"), message);
});

Deno.test("serveHttp() takes the next port when the first is busy", async () => {
  const t = await openTestShelf();
  const shelf = t.shelf;
  const first = serveHttp(shelf, { port: 0 });
  const second = serveHttp(shelf, { port: first.port });
  try {
    assert(second.port > first.port, `${second.port} after ${first.port}`);
  } finally {
    await first.shutdown();
    await second.shutdown();
    await t.close();
  }
});
