/**
 * DNS rebinding and cross-site pages: a request naming another `Host`, coming from a
 * foreign (even loopback, other port) `Origin`, or sent by a browser for another site
 * (`Sec-Fetch-Site: cross-site`, as for an `<img src>` on an attacker's page) gets no
 * document; the server's own origin, configured origins and plain clients still do.
 */
import { join } from "node:path";
import { assertEquals } from "../assert.ts";
import { openTestShelf } from "../shelf_helper.ts";
import { serveHttp } from "../../server/http.ts";
import { rawRequest } from "./raw_http.ts";
import { hostAllowed, wildcardNames } from "../../server/http_guard.ts";
import { partsOf } from "../../shelf/_parts.ts";

Deno.test({
  name: "serveHttp() refuses foreign Host, foreign Origin and cross-site fetches",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const base = await Deno.makeTempDir({ prefix: "shelfmark-guard-" });
    const lib = join(base, "lib");
    await Deno.mkdir(lib);
    await Deno.writeTextFile(join(lib, "secret.md"), "# Secret\n\nThe vault code.\n");
    await using t = await openTestShelf({ base, folders: [lib] });
    await t.shelf.index();
    const id = partsOf(t.shelf).catalog.ids()[0]!;
    const http = serveHttp(t.shelf, {
      port: 0,
      allowedOrigins: ["http://app.example"],
      allowedHosts: ["box.lan"],
    });
    const p = http.port;
    const file = `/api/file/${id}`;
    const get = (headers: Record<string, string>) => rawRequest(p, "GET", file, headers);
    try {
      // The rebinding attack of the report, and its variants.
      assertEquals((await get({ host: `evil.example:${p}` })).status, 421);
      assertEquals((await get({ host: `127.0.0.1:${p + 1}` })).status, 421);
      assertEquals((await get({ host: "127.0.0.1" })).status, 421);
      assertEquals((await get({})).status, 421);
      assertEquals((await rawRequest(p, "GET", "/", { host: `evil.example:${p}` })).status, 421);
      // The names of this server.
      for (const host of [`127.0.0.1:${p}`, `localhost:${p}`, `LOCALHOST:${p}`, `box.lan:${p}`]) {
        const r = await get({ host });
        assertEquals(r.status, 200, host);
        assertEquals(r.body, "# Secret\n\nThe vault code.\n");
      }
      const host = `127.0.0.1:${p}`;
      // A page elsewhere embedding the file as an image, or fetching it.
      assertEquals(
        (await get({ host, "sec-fetch-site": "cross-site", "sec-fetch-dest": "image" })).status,
        403,
      );
      assertEquals((await get({ host, "sec-fetch-site": "same-site" })).status, 403);
      assertEquals((await get({ host, "sec-fetch-site": "same-origin" })).status, 200);
      assertEquals((await get({ host, "sec-fetch-site": "none" })).status, 200);
      // Origins: only this server's own and the configured ones.
      const call = (origin: string) =>
        rawRequest(p, "POST", "/api/tools/search", {
          host,
          origin,
          "content-type": "application/json",
        }, JSON.stringify({ query: "vault" }));
      assertEquals((await call(`http://localhost:${p + 1}`)).status, 403);
      assertEquals((await call(`http://127.0.0.1:${p + 1}`)).status, 403);
      assertEquals((await call("http://evil.example")).status, 403);
      assertEquals((await call("null")).status, 403);
      assertEquals((await call(`http://127.0.0.1:${p}`)).status, 200);
      assertEquals((await call(`http://localhost:${p}`)).status, 200);
      assertEquals((await call("http://app.example")).status, 200);
      // /mcp has the same rules.
      const mcp = await rawRequest(p, "POST", "/mcp", {
        host: `evil.example:${p}`,
        "content-type": "application/json",
      }, "{}");
      assertEquals(mcp.status, 421);
      const mcpOrigin = await rawRequest(p, "POST", "/mcp", {
        host,
        origin: `http://localhost:${p + 1}`,
        "content-type": "application/json",
      }, "{}");
      assertEquals(mcpOrigin.status, 403);
    } finally {
      await http.shutdown();
    }
  },
});

Deno.test("hostAllowed() on 0.0.0.0 takes the machine's own addresses, not others", () => {
  // Checked without binding 0.0.0.0: the tests listen on loopback only.
  const opts = { host: "0.0.0.0", port: 8080, allowedHosts: wildcardNames("0.0.0.0") };
  const own = Deno.networkInterfaces().find((i) => i.family === "IPv4")!.address;
  assertEquals(hostAllowed(`${own}:8080`, opts), true);
  assertEquals(hostAllowed("127.0.0.1:8080", opts), true);
  assertEquals(hostAllowed(`${own}:8081`, opts), false);
  assertEquals(hostAllowed("evil.example:8080", opts), false);
  assertEquals(hostAllowed("0.0.0.0:8080", opts), false);
  assertEquals(wildcardNames("127.0.0.1"), []);
});
