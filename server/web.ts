/**
 * The web page of `serve --http`: its assets at `/` and `/web/...` (pdf.js served from
 * the `pdfjs-dist` package already imported), the tools as JSON at
 * `POST /api/tools/<name>`, and the original bytes of an indexed document at
 * `GET /api/file/<doc_id>` (resolved through the catalog, confined to the libraries).
 *
 * `/api/*` has the same bearer token as `/mcp`, and the same `Host`, `Origin` and
 * `Sec-Fetch-Site` checks, made by the HTTP server before this module sees a request
 * (`server/http_guard.ts`); the page and its assets hold no data.
 *
 * @module
 */
import { extname } from "node:path";
import { ToolError } from "../core/types.ts";
import { VERSION } from "../core/version.ts";
import type { Shelf } from "../shelf/shelf.ts";
import { callTool } from "./dispatch.ts";
import type { ToolName } from "./tools/mod.ts";
import { errorBody } from "./tool.ts";
import { toolByName } from "./tools/mod.ts";
import { buildAppHtml } from "./web/mcp_app.ts";
import { tokenMatches } from "./http_guard.ts";

/** What the web routes need from the HTTP server. */
export interface WebContext {
  /** The shelf whose tools the page calls. */
  shelf: Shelf;
  /** The server's bearer token, when it has one (then re-indexing is allowed). */
  token?: string;
  /** The page's files, kept by the server. */
  assets: PageAssets;
}

/** The page's Content-Security-Policy: scripts, styles and data from this origin only. */
export const PAGE_CSP = [
  "default-src 'none'",
  // pdf.js decodes some images (JPEG 2000) with WebAssembly.
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self'",
  "img-src 'self' blob: data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

/** Headers of every page and asset. */
const COMMON = {
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-cache",
};

/** The page's own files, by URL path. */
const ASSETS: Record<string, [file: string, type: string]> = {
  "/": ["index.html", "text/html; charset=utf-8"],
  "/index.html": ["index.html", "text/html; charset=utf-8"],
  "/web/app.css": ["app.css", "text/css; charset=utf-8"],
  "/web/dom.js": ["dom.js", "text/javascript; charset=utf-8"],
  "/web/api.js": ["api.js", "text/javascript; charset=utf-8"],
  "/web/views.js": ["views.js", "text/javascript; charset=utf-8"],
  "/web/doc.js": ["doc.js", "text/javascript; charset=utf-8"],
  "/web/edit.js": ["edit.js", "text/javascript; charset=utf-8"],
  "/web/app.js": ["app.js", "text/javascript; charset=utf-8"],
};

/** Content types of the files the page shows as they are (PDF pages, scans). */
const FILE_TYPES: Record<string, string> = {
  ".pdf": "application/pdf",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".bmp": "image/bmp",
  ".tif": "image/tiff",
  ".tiff": "image/tiff",
};

const WEB_DIR = new URL("./web/", import.meta.url);

/**
 * The page's files, each read once, and the MCP App's HTML, built once: a server keeps
 * one (they go with it when it closes).
 */
export class PageAssets {
  #files = new Map<string, Promise<Uint8Array<ArrayBuffer>>>();
  #app?: Promise<string>;

  /** A file of the page (read once, then kept). */
  file(name: string): Promise<Uint8Array<ArrayBuffer>> {
    let b = this.#files.get(name);
    if (!b) {
      this.#files.set(name, b = Deno.readFile(new URL(name, WEB_DIR)));
      b.catch(() => this.#files.delete(name));
    }
    return b;
  }

  /** The HTML of the MCP App view: the page with everything inline (built once). */
  appHtml(): Promise<string> {
    if (!this.#app) {
      this.#app = buildAppHtml((name) => this.file(name));
      this.#app.catch(() => (this.#app = undefined));
    }
    return this.#app;
  }
}

/** The folder of the `pdfjs-dist` package, or undefined when it cannot be found on disk. */
function pdfjsDir(): string | undefined {
  try {
    const u = new URL(import.meta.resolve("pdfjs-dist/build/pdf.min.mjs"));
    return u.protocol === "file:"
      ? decodeURIComponent(u.pathname).replace(/build\/[^/]+$/, "")
      : undefined;
  } catch {
    return undefined;
  }
}

/** pdf.js files the page may load: the library, its worker and their data folders. */
const PDFJS_FILE =
  /^(build\/pdf(\.worker)?\.min\.mjs|(standard_fonts|cmaps|wasm)\/[A-Za-z0-9_.-]+)$/;

/** An error answer of the API: the contract's error body, with an HTTP status. */
function apiError(status: number, code: string, message: string, hint?: string): Response {
  return Response.json({ error: { code, message, hint } }, {
    status,
    headers: { ...COMMON, "x-shelfmark-error": code },
  });
}

/** HTTP status of a tool error code. */
function statusOf(code: string): number {
  if (code === "INTERNAL") return 500;
  if (code.endsWith("_NOT_FOUND")) return 404;
  if (code === "NOT_ALLOWED" || code === "PATH_OUTSIDE_LIBRARY") return 403;
  return 400;
}

/**
 * Answer a request of the web page, or undefined when the path is not one of its own
 * (then `/mcp` and the other routes apply).
 *
 * @param req the request
 * @param url its parsed URL
 * @param ctx the shelf and token of the server
 */
export async function serveWeb(
  req: Request,
  url: URL,
  ctx: WebContext,
): Promise<Response | undefined> {
  const path = url.pathname;
  const get = req.method === "GET" || req.method === "HEAD";
  // A browser sent to the printed /mcp URL is shown the page.
  if (
    path === "/mcp" && req.method === "GET" && !req.headers.get("mcp-session-id") &&
    (req.headers.get("accept") ?? "").includes("text/html")
  ) {
    return new Response(null, { status: 303, headers: { location: "/" } });
  }
  const a = ASSETS[path];
  if (a && get) {
    const body = await ctx.assets.file(a[0]);
    const headers: Record<string, string> = {
      ...COMMON,
      "content-type": a[1],
      "content-length": String(body.byteLength),
    };
    if (a[0].endsWith(".html")) headers["content-security-policy"] = PAGE_CSP;
    return new Response(req.method === "HEAD" ? null : body, { headers });
  }
  if (path.startsWith("/web/pdfjs/") && get) return await pdfjsFile(path.slice(11));
  if (!path.startsWith("/api/")) return undefined;

  if (ctx.token && !tokenMatches(req.headers.get("authorization"), ctx.token)) {
    return apiError(
      401,
      "UNAUTHORIZED",
      "Missing or wrong bearer token",
      "Open the page as /#token=TOKEN (the token of serve --token or SHELFMARK_TOKEN).",
    );
  }
  if (path === "/api/info" && get) {
    // `writable`: the libraries whose Markdown files the page may edit (token only); `git`: the
    // libraries whose documents show their history.
    const writable = ctx.token ? ctx.shelf.writableLibraries() : [];
    const git = ctx.shelf.gitLibraries().map((l) => l.name);
    const info = { name: "shelfmark", version: VERSION, writes: !!ctx.token, writable, git };
    return Response.json(info, {
      headers: COMMON,
    });
  }
  const tool = /^\/api\/tools\/([a-z_]{1,40})$/.exec(path)?.[1];
  if (tool !== undefined) {
    if (req.method !== "POST") return apiError(405, "BAD_REQUEST", "Use POST");
    return await toolCall(req, tool, ctx);
  }
  const file = /^\/api\/file\/([0-9a-f]{6,20})$/.exec(path)?.[1];
  if (file !== undefined && get) return await docFile(ctx.shelf, file, req.method === "HEAD");
  return apiError(404, "NOT_FOUND", `No route ${req.method} ${path}`);
}

/** `POST /api/tools/<name>`: the tool's JSON answer, or its error body. */
async function toolCall(req: Request, name: string, ctx: WebContext): Promise<Response> {
  const tool = toolByName.get(name);
  if (!tool) return apiError(404, "NOT_FOUND", `No tool named ${JSON.stringify(name)}`);
  let args: unknown;
  try {
    const text = await req.text();
    args = text.trim() ? JSON.parse(text) : {};
  } catch {
    return apiError(400, "INVALID_ARGUMENT", "Body is not JSON", "Send the tool's arguments.");
  }
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    return apiError(400, "INVALID_ARGUMENT", "Arguments must be a JSON object");
  }
  try {
    if (!(tool.readOnly ?? true) && !ctx.token) {
      throw new ToolError(
        "NOT_ALLOWED",
        `${name} changes the index and this HTTP server has no token`,
        "Start the server with --token (or SHELFMARK_TOKEN) to allow it, or use the CLI.",
      );
    }
    const r = await callTool(ctx.shelf, name as ToolName, { ...args, output_format: "json" });
    return Response.json(r.json, { headers: COMMON });
  } catch (e) {
    const body = errorBody(e, ctx.shelf.log);
    return Response.json(body, {
      status: statusOf(body.error.code),
      headers: { ...COMMON, "x-shelfmark-error": body.error.code },
    });
  }
}

/**
 * `GET /api/file/<doc_id>`: the bytes of an indexed document. The id is looked up in the
 * catalog; the file must still lie inside its library's root (symlinks resolved).
 */
async function docFile(shelf: Shelf, id: string, head: boolean): Promise<Response> {
  const found = shelf.documentFile(id);
  if (!found.ok) {
    return apiError(
      404,
      "DOCUMENT_NOT_FOUND",
      found.error === "not_found"
        ? `No document ${JSON.stringify(id)}`
        : `The file of ${id} is gone or moved`,
    );
  }
  const real = found.path;
  let f: Deno.FsFile;
  try {
    f = await Deno.open(real, { read: true });
    const st = await f.stat();
    if (!st.isFile) {
      f.close();
      return apiError(404, "DOCUMENT_NOT_FOUND", `The file of ${id} is not a file`);
    }
    const type = FILE_TYPES[extname(real).toLowerCase()] ?? "application/octet-stream";
    const file = found.name;
    const headers = {
      ...COMMON,
      "content-type": type,
      "content-length": String(st.size),
      // Never run as a page of this origin, whatever the file holds.
      "content-security-policy": "default-src 'none'; sandbox",
      "content-disposition": `inline; filename*=UTF-8''${encodeURIComponent(file)}`,
      "cache-control": "private, no-cache",
    };
    if (head) {
      f.close();
      return new Response(null, { headers });
    }
    return new Response(f.readable, { headers });
  } catch {
    return apiError(404, "DOCUMENT_NOT_FOUND", `The file of ${id} cannot be read`);
  }
}

/** `GET /web/pdfjs/<file>`: pdf.js itself, its worker, fonts, CMaps and WebAssembly. */
async function pdfjsFile(file: string): Promise<Response> {
  const dir = pdfjsDir();
  if (!PDFJS_FILE.test(file) || file.includes("..") || !dir) {
    return new Response("Not found", { status: 404, headers: COMMON });
  }
  try {
    const body = await Deno.readFile(dir + file);
    const ext = extname(file);
    const type = ext === ".mjs"
      ? "text/javascript; charset=utf-8"
      : ext === ".wasm"
      ? "application/wasm"
      : "application/octet-stream";
    return new Response(body, {
      headers: { ...COMMON, "content-type": type, "cache-control": "max-age=86400" },
    });
  } catch {
    return new Response("Not found", { status: 404, headers: COMMON });
  }
}
