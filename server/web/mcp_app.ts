/**
 * The web page as an MCP App: one self-contained HTML resource (`ui://shelfmark/view.html`,
 * MIME `text/html;profile=mcp-app`) that an Apps-capable client shows for `search`,
 * `outline` and `read`. It holds the page's styles and scripts inline, with the browser
 * bundle of `@modelcontextprotocol/ext-apps` (its `App` class talks to the host over
 * `postMessage`); the view calls the server's tools through the host (`callServerTool`),
 * never over a second channel.
 *
 * @module
 */

/** URI of the view. */
export const APP_URI = "ui://shelfmark/view.html";
/** MIME type of an MCP App's HTML. */
export const APP_MIME = "text/html;profile=mcp-app";
/** The tools whose results the view shows. */
export const APP_TOOLS: ReadonlySet<string> = new Set(["search", "outline", "read"]);

/** Scripts of the page, in the order they run (the view inlines them in this order). */
export const SCRIPTS = ["dom.js", "api.js", "views.js", "doc.js", "edit.js", "app.js"];

/** Script text put inside a `<script>` element without ending it early. */
function inline(text: string): string {
  // `\x3C` is `<` in a string, a template or a regular expression alike.
  return text.replace(/<(\/(?:script|style)|!--)/gi, "\\x3C$1");
}

/**
 * The ext-apps browser bundle (an ES module) with its `export { a as B, ... }` turned into
 * `globalThis.McpExtApps = { B: a, ... }`, so the page's scripts find it without imports.
 */
async function extAppsBundle(): Promise<string> {
  const url = new URL(import.meta.resolve("@modelcontextprotocol/ext-apps/app-with-deps"));
  if (url.protocol !== "file:") {
    throw new Error(
      "@modelcontextprotocol/ext-apps is not installed: run `deno install` in the checkout",
    );
  }
  const src = await Deno.readTextFile(url);
  const at = src.lastIndexOf("export{");
  const end = src.indexOf("}", at);
  if (at < 0 || end < 0 || src.slice(end + 1).trim().replace(/;$/, "") !== "") {
    throw new Error("Unexpected shape of the ext-apps bundle (no final export list)");
  }
  const names = src.slice(at + 7, end).split(",").map((s) => s.trim()).filter(Boolean).map(
    (s) => {
      const [local, exported] = s.split(/\s+as\s+/);
      return `${JSON.stringify(exported ?? local)}:${local}`;
    },
  );
  return `${src.slice(0, at)}globalThis.McpExtApps={${names.join(",")}};`;
}

/**
 * The HTML of the view: the web page with everything inline.
 *
 * @param asset reads a file of the page (`index.html`, `app.css`, the scripts)
 */
export async function buildAppHtml(
  asset: (file: string) => Promise<Uint8Array>,
): Promise<string> {
  const dec = new TextDecoder();
  let html = dec.decode(await asset("index.html"));
  const css = dec.decode(await asset("app.css"));
  const scripts = [await extAppsBundle()];
  for (const s of SCRIPTS) scripts.push(dec.decode(await asset(s)));
  html = html.replace(/\s*<script type="module" src="[^"]*"><\/script>/g, "");
  html = html.replace(
    /<link rel="stylesheet" href="\/web\/app.css">/,
    () => `<style>${css.replace(/<\/style/gi, "<\\/style")}</style>`,
  );
  const tags = scripts.map((s) => `<script type="module">${inline(s)}</script>`).join("\n");
  return html.replace("</body>", () => `${tags}\n</body>`);
}
