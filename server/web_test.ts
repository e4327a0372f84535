import { assert, assertEquals } from "../tests/assert.ts";
import { PageAssets } from "./web.ts";

Deno.test("PageAssets reads a page file once per instance; another instance reads it again", async () => {
  const a = new PageAssets();
  const css = await a.file("app.css");
  assert(css === await a.file("app.css"), "the same bytes, kept");
  const b = new PageAssets();
  const again = await b.file("app.css");
  assert(again !== css, "a new instance holds its own copy");
  assertEquals(again, css);
});

Deno.test("PageAssets builds the MCP App view once, with the page's scripts inline", async () => {
  const a = new PageAssets();
  const html = a.appHtml();
  assert(html === a.appHtml(), "built once");
  const text = await html;
  assert(text.includes("globalThis.McpExtApps="), "the ext-apps bundle is inline");
  assert(!/<script type="module" src=/.test(text), "no script is loaded from the server");
});

Deno.test("PageAssets: a file the page does not have fails with NotFound", async () => {
  const err = await new PageAssets().file("nope.js").catch((e) => e);
  assert(err instanceof Deno.errors.NotFound, String(err));
});
