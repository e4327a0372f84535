/**
 * The `fetch` tool end to end over MCP (in memory, real shelf, real HTTP server on
 * loopback): a web page becomes a Markdown file in the library that the next `search` on
 * the same connection finds; other types are saved byte for byte; every address that is
 * not public is refused without the loopback server seeing a request, redirects are
 * reported and not followed, an oversized body is refused and nothing is written; writing
 * off means no fetch at all.
 *
 * The loopback server is reached through the shelf's test-only allow-list
 * (`fetchTestAllow`, an option of `Shelf.open` that no tool call or configuration sets).
 */
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { assert, assertEquals } from "./assert.ts";
import { openTestShelf, type TestShelf } from "./shelf_helper.ts";
import { createServer } from "../server/mcp.ts";
import type { Shelf } from "../shelf/shelf.ts";

type Result = {
  isError?: boolean;
  content: { type: string; text: string }[];
  structuredContent?: Record<string, unknown>;
};

/** An MCP client talking to the shelf's server in memory. */
async function connect(shelf: Shelf) {
  const [a, b] = InMemoryTransport.createLinkedPair();
  await createServer(shelf).connect(a);
  const client = new Client({ name: "fetch-test", version: "1" });
  await client.connect(b);
  return {
    client,
    call: async (name: string, args: Record<string, unknown>) =>
      await client.callTool({ name, arguments: { output_format: "json", ...args } }) as Result,
    [Symbol.asyncDispose]: () => client.close(),
  };
}

/** The JSON of an answer (its error body for an error). */
function body(r: Result): Record<string, unknown> & { error?: { code: string; message: string } } {
  return JSON.parse(r.content[0]!.text);
}

const PAGE = `<!doctype html><html><head><title>Quokka field notes</title></head><body>
<nav><a href="/">Home</a></nav>
<main><h1>Quokka field notes</h1>
<p>The zanzibarine quokka was seen near the <a href="/island">island station</a> at dawn.</p>
<h2>Diet</h2><p>Leaves and grasses.</p></main></body></html>`;

/** A loopback server that notes every request. */
function pageServer() {
  const seen: string[] = [];
  const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 1, 2, 255]);
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    const path = new URL(req.url).pathname;
    seen.push(path);
    if (path === "/notes.html") {
      return new Response(PAGE, { headers: { "content-type": "text/html; charset=utf-8" } });
    }
    if (path === "/latin") {
      // "Café notes" / "Crème brûlée" in ISO-8859-1, declared in the header only.
      const page = "<title>Caf\xe9 notes</title><p>Cr\xe8me br\xfbl\xe9e, a recipe.</p>";
      const bytes = Uint8Array.from(page, (c) => c.charCodeAt(0));
      return new Response(bytes, { headers: { "content-type": "text/html; charset=ISO-8859-1" } });
    }
    if (path === "/pixel") return new Response(png, { headers: { "content-type": "image/png" } });
    if (path === "/moved") {
      return new Response(null, { status: 302, headers: { location: "http://10.0.0.1/admin" } });
    }
    if (path === "/big") {
      let sent = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(c) {
          if (sent > 17 * 1024 * 1024) return c.close();
          sent += 1 << 20;
          c.enqueue(new Uint8Array(1 << 20).fill(120));
        },
      });
      return new Response(body, { headers: { "content-type": "text/plain" } });
    }
    return new Response("missing", { status: 404 });
  });
  const port = server.addr.port;
  return { port, seen, png, close: () => server.shutdown() };
}

/** A shelf with one writable library (`vault`), reaching `allow` as the tests' servers. */
async function vaultShelf(allow: string[], write = true): Promise<TestShelf & { lib: string }> {
  const base = await Deno.makeTempDir({ prefix: "shelfmark-fetch-" });
  const lib = join(base, "vault");
  await Deno.mkdir(lib);
  await Deno.writeTextFile(join(lib, "start.md"), "# Start\n\nA first note.\n");
  const t = await openTestShelf({
    base,
    folders: [lib],
    write: write ? ["vault"] : undefined,
    fetchTestAllow: allow,
  });
  await t.shelf.index();
  return Object.assign(t, { lib });
}

async function files(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(dir)) out.push(e.name);
  return out.sort();
}

type Session = {
  s: ReturnType<typeof pageServer>;
  t: TestShelf & { lib: string };
  mcp: Awaited<ReturnType<typeof connect>>;
};

/** A loopback server, a shelf (reaching the server when `allow`) and a client, closed after. */
async function session(
  o: { allow: boolean; write?: boolean },
  fn: (x: Session) => Promise<void>,
): Promise<void> {
  const s = pageServer();
  try {
    await using t = await vaultShelf(o.allow ? [`127.0.0.1:${s.port}`] : [], o.write ?? true);
    await using mcp = await connect(t.shelf);
    await fn({ s, t, mcp });
  } finally {
    await s.close();
  }
}

Deno.test({
  name: "fetch saves a page as Markdown that search finds on the same connection",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () =>
    session({ allow: true }, async ({ s, t, mcp }) => {
      const url = `http://127.0.0.1:${s.port}/notes.html`;
      const r = await mcp.call("fetch", { url });
      assert(!r.isError, r.content[0]!.text);
      const a = body(r);
      assertEquals(a.path, "vault/Quokka field notes.md");
      assertEquals(a.created, true);
      assertEquals(a.content_type, "text/html");
      assertEquals(a.title, "Quokka field notes");
      const md = await Deno.readTextFile(join(t.lib, "Quokka field notes.md"));
      assert(md.startsWith("---\n"), md);
      assert(md.includes(`source: ${url}`), md);
      assert(md.includes("# Quokka field notes"), md);
      assert(md.includes(`[island station](http://127.0.0.1:${s.port}/island)`), md);
      assert(!md.includes("<p>") && !md.includes("Home"), "markup and navigation left out");
      assertEquals(a.bytes, new TextEncoder().encode(md).length);
      // The next search on this connection finds the new text.
      const found = body(await mcp.call("search", { query: "zanzibarine quokka" }));
      const paths = (found.results as { path: string }[]).map((h) => h.path);
      assertEquals(paths[0], "vault/Quokka field notes.md");
      // Again: a new name, the first file is kept.
      const again = body(await mcp.call("fetch", { url }));
      assertEquals(again.path, "vault/Quokka field notes-2.md");
      // A path given: the extension is added; a second fetch there replaces it.
      const named = body(await mcp.call("fetch", { url, path: "web/quokka" }));
      assertEquals([named.path, named.created], ["vault/web/quokka.md", true]);
      const replaced = body(await mcp.call("fetch", { url, path: "vault/web/quokka.md" }));
      assertEquals([replaced.path, replaced.created], ["vault/web/quokka.md", false]);
      // The charset of the Content-Type header is honoured.
      const latin = body(await mcp.call("fetch", { url: `http://127.0.0.1:${s.port}/latin` }));
      assertEquals(latin.path, "vault/Café notes.md");
      assert((await Deno.readTextFile(join(t.lib, "Café notes.md"))).includes("Crème brûlée"));
      // Other types are saved byte for byte.
      const img = body(await mcp.call("fetch", { url: `http://127.0.0.1:${s.port}/pixel` }));
      assertEquals([img.path, img.content_type, img.bytes], ["vault/pixel.png", "image/png", 12]);
      assertEquals(await Deno.readFile(join(t.lib, "pixel.png")), s.png);
      const wrongExt = body(
        await mcp.call("fetch", { url: `http://127.0.0.1:${s.port}/pixel`, path: "a.pdf" }),
      );
      assertEquals(wrongExt.error?.code, "INVALID_ARGUMENT");
    }),
});

Deno.test({
  name: "fetch refuses every non-public address before a request leaves, and writes nothing",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () =>
    session({ allow: false }, async ({ s, t, mcp }) => {
      const before = await files(t.lib);
      const p = s.port;
      for (
        const url of [
          `http://127.0.0.1:${p}/notes.html`,
          `http://[::1]:${p}/notes.html`,
          `http://0x7f.1:${p}/notes.html`,
          `http://[::ffff:127.0.0.1]:${p}/notes.html`,
          `http://localhost:${p}/notes.html`,
          `http://2130706433:${p}/notes.html`,
          "http://127.0.0.1/",
          "http://[::1]/",
          "http://169.254.169.254/latest/meta-data/",
          "http://10.0.0.1/",
          "http://0x7f.1/",
          "http://[::ffff:127.0.0.1]/",
        ]
      ) {
        const r = await mcp.call("fetch", { url });
        assert(r.isError, `${url} was fetched`);
        assertEquals(body(r).error?.code, "NOT_ALLOWED", url);
      }
      for (const url of ["ftp://example.org/x", "file:///etc/passwd", "http://", "no url"]) {
        const r = await mcp.call("fetch", { url });
        assertEquals(body(r).error?.code, "INVALID_ARGUMENT", url);
      }
      assertEquals(s.seen, [], "no request reached the loopback server");
      assertEquals(await files(t.lib), before, "nothing was written");
    }),
});

Deno.test({
  name: "fetch reports a redirect to a private address and refuses an oversized body",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () =>
    session({ allow: true }, async ({ s, t, mcp }) => {
      const before = await files(t.lib);
      const moved = body(await mcp.call("fetch", { url: `http://127.0.0.1:${s.port}/moved` }));
      assertEquals(moved.error?.code, "REDIRECTED");
      assert(moved.error!.message.includes("http://10.0.0.1/admin"), moved.error!.message);
      // The target is a field of the error too, for an agent that means to follow it.
      assertEquals((moved.error as Record<string, unknown>).location, "http://10.0.0.1/admin");
      const big = body(await mcp.call("fetch", { url: `http://127.0.0.1:${s.port}/big` }));
      assertEquals(big.error?.code, "TOO_LARGE");
      assertEquals(s.seen, ["/moved", "/big"], "the redirect was not followed");
      assertEquals(await files(t.lib), before, "nothing was written");
    }),
});

Deno.test({
  name: "fetch with writing off: hidden, refused, and no request made",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () =>
    session({ allow: true, write: false }, async ({ s, mcp }) => {
      const names = (await mcp.client.listTools()).tools.map((x: { name: string }) => x.name);
      assert(!names.includes("fetch"), "fetch is not listed");
      const r = await mcp.call("fetch", { url: `http://127.0.0.1:${s.port}/notes.html` });
      assert(r.isError);
      assertEquals(body(r).error?.code, "NOT_ALLOWED");
      assertEquals(s.seen, []);
    }),
});
