/// <reference lib="dom" />
/**
 * The web page of `serve --http`, end to end in a real browser (Debian's chromium driven
 * by playwright-core): search the small corpus, open a hit, jump with the outline, see a
 * PDF page rendered, browse folders, see the status; a hostile file name renders as text;
 * with a token the API answers 401 without it. And the MCP App: the `ui://` resource and
 * the tools that link to it, then the App itself in the browser, its tool calls going
 * through a stand-in host.
 *
 * Set `SHELFMARK_SCREENSHOT=docs/window.png` to keep the screenshot of the README.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { assert, assertEquals } from "./assert.ts";
import { CHROMIUM, launchChromium as launch } from "./browser.ts";
import { ready, startHttpServer } from "./cli_helper.ts";
import { smallCorpus } from "./corpus.ts";
import { noteMissing } from "./have.ts";
import { openTestShelf } from "./shelf_helper.ts";
import { createServer } from "../server/mcp.ts";
import { testClient } from "./mcp_client.ts";

const noChromium = noteMissing(
  !existsSync(CHROMIUM),
  `web_test: ${CHROMIUM} is missing (apt-get install -y chromium)`,
);
const HOSTILE = "<img src=x onerror=alert(1)>";

/** A library with a hostile file name, title and body. */
async function hostileLibrary(base: string): Promise<string> {
  const dir = join(base, "hostile");
  await Deno.mkdir(dir);
  await Deno.writeTextFile(
    join(dir, `${HOSTILE}.md`),
    `# ${HOSTILE}\n\nA hostile <script>alert(2)</script> note about zebras.\n\n` +
      `## <b onmouseover=alert(3)>Second</b>\n\nMore zebra text.\n`,
  );
  return dir;
}

/** Dark pixels and samples of the PDF canvas (a blank page has no dark pixel). */
function inkOf(page: Page): Promise<{ dark: number; total: number }> {
  return page.evaluate(() => {
    const c = document.querySelector("canvas.page") as HTMLCanvasElement;
    const d = c.getContext("2d")!.getImageData(0, 0, c.width, c.height).data;
    let dark = 0;
    let total = 0;
    for (let i = 0; i < d.length; i += 4 * 97) {
      total++;
      if (d[i]! < 128 && d[i + 1]! < 128 && d[i + 2]! < 128 && d[i + 3]! > 0) dark++;
    }
    return { dark, total };
  });
}

Deno.test({
  name: "web page: search, outline jump, PDF page, folders, status, hostile names, token",
  ignore: noChromium,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const corpus = await smallCorpus();
    const base = await Deno.makeTempDir({ prefix: "shelfmark-web-" });
    const hostile = await hostileLibrary(base);
    const libs = ["markdown", "pdf-manuals", "scans"].map((l) => join(corpus, l));
    const env = { SHELFMARK_EMBEDDER: "none" };
    const server = await startHttpServer(
      [...libs, hostile, "--data", join(base, "db"), "--no-watch"],
      env,
    );
    const site = server.url.replace(/\/mcp$/, "");
    const browser = await launch();
    const page = await browser.newPage({ viewport: { width: 1200, height: 760 } });
    page.setDefaultTimeout(0); // no wall-clock limits in tests: wait as long as it takes
    const dialogs: string[] = [];
    const errors: string[] = [];
    page.on("dialog", (d) => {
      dialogs.push(d.message());
      d.dismiss().catch(() => {});
    });
    page.on("pageerror", (e) => errors.push(e.message));
    try {
      await ready(site);

      await t.step("the page and its API answer with strict headers", async () => {
        const r = await fetch(`${site}/`);
        await r.body?.cancel();
        const csp = r.headers.get("content-security-policy") ?? "";
        assert(/script-src 'self'/.test(csp) && !/unsafe-inline/.test(csp), csp);
        assertEquals(r.headers.get("x-content-type-options"), "nosniff");
        const evil = await fetch(`${site}/api/tools/status`, {
          method: "POST",
          body: "{}",
          headers: { origin: "http://evil.example" },
        });
        assertEquals(evil.status, 403);
        await evil.body?.cancel();
        const bad = await fetch(`${site}/api/tools/read`, { method: "POST", body: "{}" });
        assertEquals(bad.status, 400);
        assertEquals((await bad.json()).error.code, "INVALID_ARGUMENT");
        const none = await fetch(`${site}/api/file/999999999999999`);
        assertEquals(none.status, 404);
        assertEquals((await none.json()).error.code, "DOCUMENT_NOT_FOUND");
        const raw = await fetch(`${site}/api/file/..%2f..%2fetc%2fpasswd`);
        assertEquals(raw.status, 404);
        await raw.body?.cancel();
        const write = await fetch(`${site}/api/tools/reindex`, { method: "POST", body: "{}" });
        assertEquals(write.status, 403, "no token: no re-index");
        await write.body?.cancel();
      });

      await t.step("search, move with the arrows, open, jump with the outline", async () => {
        await page.goto(`${site}/`);
        await page.keyboard.press("/");
        assertEquals(await page.evaluate(() => document.activeElement?.id), "q");
        await page.keyboard.type("dictionary compression");
        await page.keyboard.press("Enter");
        await page.waitForSelector("#results .card");
        const cards = page.locator("#results > .card");
        assert((await cards.count()) > 1, "several results");
        await page.keyboard.press("ArrowDown");
        await page.keyboard.press("ArrowDown");
        assertEquals(
          await page.locator("#results > .card.selected").getAttribute("data-index"),
          "1",
        );
        await page.keyboard.press("ArrowUp");
        assertEquals(
          await page.locator("#results > .card.selected").getAttribute("data-index"),
          "0",
        );
        assert((await cards.first().locator(".snippet mark").count()) > 0, "snippet highlighted");
        await page.keyboard.press("Enter");
        await page.waitForSelector("#reader .line");
        assert(new URL(page.url()).searchParams.get("doc"), page.url());
        assert(/#L\d+(-\d+)?$/.test(page.url()), `line range in the URL: ${page.url()}`);

        const node = page.locator("#outline .node", { hasText: /dictionary/i }).first();
        const from = Number(await node.getAttribute("data-from"));
        const to = Number(await node.getAttribute("data-to"));
        await page.locator("#outline .node").first().click(); // elsewhere first
        await node.click();
        const line = page.locator(`#L${from}`);
        await line.waitFor();
        assert(await line.evaluate((el) => el.classList.contains("sel")), "line selected");
        const inView = await line.evaluate((el) => {
          const r = el.getBoundingClientRect();
          const box = document.getElementById("reader")!.getBoundingClientRect();
          return r.top >= box.top && r.bottom <= box.bottom;
        });
        assert(inView, `line ${from} is in the reader's view`);
        const marks = await line.locator("mark").allTextContents();
        assert(marks.some((m) => /dictionary/i.test(m)), `term highlighted: ${marks}`);
        assert(page.url().endsWith(`#L${from}-${to}`), page.url());
        // A line range typed in the address jumps within the document.
        await page.evaluate(() => location.hash = "#L3-4");
        await page.waitForSelector("#L3.sel");
        assert(await page.locator("#L4").evaluate((el) => el.classList.contains("sel")));
      });

      await t.step("a PDF hit shows its page beside the text", async () => {
        await page.goto(`${site}/`);
        await page.fill("#q", "parameter expansion");
        await page.locator("#filters summary").click();
        await page.selectOption("select[name=type]", "pdf");
        await page.locator("#q").press("Enter");
        await page.waitForSelector("#results .card");
        const href = await page.locator("#results > .card").first().getAttribute("data-href");
        const want = new URLSearchParams(href!.replace(/#.*/, "")).get("p");
        assert(want, `the hit has a page: ${href}`);
        await page.locator("#results > .card a.title").first().click();
        await page.waitForSelector("canvas.page[data-rendered]");
        assertEquals(await page.locator("canvas.page").getAttribute("data-rendered"), want);
        const ink = await inkOf(page);
        assert(ink.dark > ink.total / 200, `the page is not blank: ${JSON.stringify(ink)}`);
        const shot = Deno.env.get("SHELFMARK_SCREENSHOT");
        const png = await page.screenshot({ path: shot || undefined });
        assertEquals([...png.subarray(1, 4)], [0x50, 0x4e, 0x47], "a PNG");
      });

      await t.step("folders: libraries, a folder, a document", async () => {
        await page.locator("header nav a", { hasText: "Folders" }).click();
        await page.locator("main a", { hasText: "markdown/" }).click();
        await page.waitForSelector("main .crumbs a:has-text('markdown')");
        await page.locator("main a", { hasText: "zstd/" }).click();
        await page.waitForSelector("main .crumbs a:has-text('zstd')");
        assert(page.url().includes("view=browse"), page.url());
        await page.locator("main ul.folders a", { hasText: "zstd/" }).click(); // markdown/zstd/zstd
        await page.waitForFunction(() => document.querySelectorAll("main .crumbs a").length === 4);
        await page.locator("main ul.docs a", { hasText: "README.md" }).first().click();
        await page.waitForSelector("#reader .line");
        assert(new URL(page.url()).searchParams.get("doc"), page.url());
      });

      await t.step("status: libraries, counts, no re-index button without a token", async () => {
        await page.locator("header nav a", { hasText: "Status" }).click();
        await page.waitForSelector("main h2:has-text('Index status')");
        const text = await page.locator("main").innerText();
        for (const l of ["markdown", "pdf-manuals", "scans", "hostile"]) {
          assert(text.includes(l), `library ${l} listed`);
        }
        assert(/ready/.test(text), text);
        assertEquals(await page.locator("#reindex").count(), 0);
      });

      await t.step("a hostile file name and title render as text", async () => {
        await page.goto(`${site}/?view=browse&path=hostile`);
        const link = page.locator("main ul.docs a").first();
        await link.waitFor();
        assertEquals(await link.textContent(), `${HOSTILE}.md`);
        await link.click();
        await page.waitForSelector("#reader .line");
        assertEquals(await page.locator("main h2").textContent(), HOSTILE);
        assert((await page.locator("#reader").innerText()).includes("<script>alert(2)</script>"));
        await page.goto(`${site}/?q=zebra`);
        await page.waitForSelector("#results .card");
        assertEquals(await page.locator("#results .card a.title").first().textContent(), HOSTILE);
        assertEquals(await page.locator("main img").count(), 0, "no element from document text");
        assertEquals(dialogs, [], "no dialog fired");
      });
      assertEquals(errors, [], "no script error on the page");
    } finally {
      await browser.close();
      server.child.kill();
      await server.child.status;
    }

    await t.step(
      "with a token: 401 without it, the page asks for it and works with it",
      async () => {
        const secured = await startHttpServer(
          [hostile, "--data", join(base, "db2"), "--no-watch", "--token", "s3cret"],
          env,
        );
        const site2 = secured.url.replace(/\/mcp$/, "");
        const browser2 = await launch();
        try {
          await ready(site2);
          const anon = await fetch(`${site2}/api/tools/status`, { method: "POST", body: "{}" });
          assertEquals(anon.status, 401);
          assertEquals((await anon.json()).error.code, "UNAUTHORIZED");
          const p = await browser2.newPage();
          p.setDefaultTimeout(0);
          await p.goto(`${site2}/?view=status`);
          await p.waitForSelector("#token-box:not([hidden])");
          await p.goto(`${site2}/?view=status#token=s3cret`);
          await p.waitForSelector("#reindex");
          assert(!p.url().includes("s3cret"), `token left the address: ${p.url()}`);
        } finally {
          await browser2.close();
          secured.child.kill();
          await secured.child.status;
        }
      },
    );
  },
});

Deno.test({
  name: "MCP App: the ui:// resource, the tools linking it, and the view through a host",
  ignore: noChromium,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const base = await Deno.makeTempDir({ prefix: "shelfmark-app-" });
    const lib = join(base, "notes");
    await Deno.mkdir(lib);
    await Deno.writeTextFile(
      join(lib, "otters.md"),
      "# Otters\n\n## Food\n\nSea otters eat urchins.\n\n## Tools\n\nOtters use stones.\n",
    );
    await using ts = await openTestShelf({ base, folders: [lib] });
    await ts.shelf.index();
    const server = createServer(ts.shelf);
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(a);
    const client = testClient("app-test");
    await client.connect(b);
    let html = "";
    try {
      await t.step("tools/list: search, outline and read carry _meta.ui.resourceUri", async () => {
        const { tools } = await client.listTools();
        for (const tool of tools) {
          const uri = (tool._meta as { ui?: { resourceUri?: string } } | undefined)?.ui
            ?.resourceUri;
          const linked = ["search", "outline", "read"].includes(tool.name);
          assertEquals(uri, linked ? "ui://shelfmark/view.html" : undefined, tool.name);
        }
      });
      await t.step("resources/read: the HTML, self-contained, with the App MIME type", async () => {
        const { resources } = await client.listResources();
        assert(resources.some((r: { uri: string }) => r.uri === "ui://shelfmark/view.html"));
        const r = await client.readResource({ uri: "ui://shelfmark/view.html" });
        const c = r.contents[0] as { mimeType?: string; text?: string };
        assertEquals(c.mimeType, "text/html;profile=mcp-app");
        html = c.text ?? "";
        assert(html.startsWith("<!doctype html>"), html.slice(0, 40));
        assert(html.includes("globalThis.McpExtApps="), "the ext-apps bundle is inline");
        assert(!/src="\/web\/|href="\/web\//.test(html), "no file loaded from the server");
      });
      // A stand-in host: the view in an iframe, its JSON-RPC messages answered here, its
      // tool calls run on the MCP client above.
      const browser = await launch();
      try {
        await t.step("in a host, search input shows the hits, read through the host", async () => {
          const page = await browser.newPage();
          page.setDefaultTimeout(0);
          const calls: string[] = [];
          await page.exposeFunction("hostCallTool", async (name: string, args: unknown) => {
            calls.push(name);
            return await client.callTool({ name, arguments: args as Record<string, unknown> });
          });
          await page.setContent(`<iframe id="f" style="width:1000px;height:700px"></iframe>`);
          await page.evaluate((src) => {
            const f = document.getElementById("f") as HTMLIFrameElement;
            const reply = (id: unknown, result: unknown) =>
              f.contentWindow!.postMessage({ jsonrpc: "2.0", id, result }, "*");
            addEventListener("message", async (e) => {
              if (e.source !== f.contentWindow) return;
              const m = e.data;
              if (m.method === "ui/initialize") {
                reply(m.id, {
                  protocolVersion: m.params.protocolVersion,
                  hostInfo: { name: "test-host", version: "1" },
                  hostCapabilities: { serverTools: {} },
                  hostContext: {},
                });
              } else if (m.method === "ui/notifications/initialized") {
                f.contentWindow!.postMessage({
                  jsonrpc: "2.0",
                  method: "ui/notifications/tool-input",
                  params: { arguments: { query: "otters urchins" } },
                }, "*");
              } else if (m.method === "tools/call") {
                // deno-lint-ignore no-explicit-any
                const call = (globalThis as any).hostCallTool;
                reply(m.id, await call(m.params.name, m.params.arguments));
              } else if (m.id !== undefined) reply(m.id, {});
            });
            f.srcdoc = src;
          }, html);
          const view = page.frameLocator("#f");
          await view.locator("#results .card").first().waitFor();
          assertEquals(
            await view.locator("#results .card a.title").first().textContent(),
            "Otters",
          );
          await view.locator("#results .card a.title").first().click();
          await view.locator("#reader .line mark").first().waitFor();
          assert(calls.includes("search") && calls.includes("read"), calls.join(","));
        });
      } finally {
        await browser.close();
      }
    } finally {
      await client.close();
      await server.close();
    }
  },
});
