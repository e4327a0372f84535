/**
 * HTTP limits: a request body over the limit (declared or streamed) gets 413 without
 * being read into memory, and the server keeps answering ordinary clients.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { join } from "node:path";
import { assertEquals } from "../tests/assert.ts";
import { openTestShelf } from "../tests/shelf_helper.ts";
import { MAX_BODY_BYTES, serveHttp } from "./http.ts";

Deno.test({
  name: "http: oversized bodies get 413, the server keeps answering",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const base = await Deno.makeTempDir({ prefix: "shelfmark-http-limits-" });
    const lib = join(base, "lib");
    await Deno.mkdir(lib);
    await Deno.writeTextFile(join(lib, "a.md"), "# A\n\nText.\n");
    const t = await openTestShelf({ base, folders: [lib] });
    const shelf = t.shelf;
    await shelf.index();
    const http = serveHttp(shelf, { port: 0 });
    try {
      const big = new Uint8Array(MAX_BODY_BYTES + 1).fill(32);
      const declared = await fetch(http.url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: big,
      });
      await declared.body?.cancel();
      assertEquals(declared.status, 413);
      let sent = 0;
      const stream = new ReadableStream<Uint8Array>({
        pull(c) {
          if (sent > MAX_BODY_BYTES * 4) return c.close();
          sent += 65536;
          c.enqueue(new Uint8Array(65536).fill(32));
        },
      });
      const streamed = await fetch(http.url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: stream,
      });
      await streamed.body?.cancel();
      assertEquals(streamed.status, 413);
      const c = new Client({ name: "limits", version: "1" });
      await c.connect(new StreamableHTTPClientTransport(new URL(http.url)));
      const r = await c.callTool({ name: "read", arguments: { doc_id: "lib/a.md" } });
      assertEquals(r.isError, undefined);
      await c.close();
    } finally {
      await http.shutdown();
      await t.close();
    }
  },
});
