/**
 * MCP over Streamable HTTP on `Deno.serve`: one MCP server and transport per client
 * session, `Host`, `Origin` and `Sec-Fetch-Site` checked against DNS rebinding and
 * cross-site pages (`server/http_guard.ts`), a bearer token required whenever the
 * server listens beyond the loopback interface. Binds to 127.0.0.1:60606 by default and
 * takes the next free port when that one is busy.
 *
 * @module
 */
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import type { Shelf } from "../shelf/shelf.ts";
import { createServer } from "./mcp.ts";
import { PageAssets, serveWeb } from "./web.ts";
import { type GuardOptions, refusal, tokenMatches, wildcardNames } from "./http_guard.ts";
import { type ConnectionLimits, relayConnections } from "./conn_limit.ts";
import { join } from "node:path";

/** Options of the HTTP server. */
export interface HttpOptions {
  /** Interface to bind (default `127.0.0.1`). */
  host?: string;
  /** First port to try (default 60606); the next free one is taken when it is busy. */
  port?: number;
  /** Bearer token; required when `host` is not a loopback address. */
  token?: string;
  /** Declare output schemas and answer `structuredContent` always (see `ServerOptions`). */
  structured?: boolean;
  /** Extra allowed browser `Origin` values (the server's own origin is always allowed). */
  allowedOrigins?: string[];
  /** Extra host names the server may be reached as (loopback names always are). */
  allowedHosts?: string[];
  /** Connection caps and timeouts (defaults in `ConnectionLimits`). */
  limits?: ConnectionLimits;
  /** Stop serving. */
  signal?: AbortSignal;
}

/** A running HTTP server. */
export interface HttpServer {
  /** The URL of the MCP endpoint, e.g. `http://127.0.0.1:60606/mcp`. */
  url: string;
  /** The port taken. */
  port: number;
  /** Resolves when the server has stopped. */
  finished: Promise<void>;
  /** Stop the server and close every session. */
  shutdown(): Promise<void>;
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost|::1|\[::1\])$/i;

/** Largest request body accepted (tool arguments are a few KB at most). */
export const MAX_BODY_BYTES = 1024 * 1024;
/** Sessions kept at most; beyond it the least recently used one is closed. */
export const MAX_SESSIONS = 512;
/** A session unused this long is closed. */
export const SESSION_IDLE_MS = 30 * 60 * 1000;

/** The body of a request, read up to `max` bytes; undefined when it is longer. */
async function readBody(
  req: Request,
  max: number,
): Promise<Uint8Array<ArrayBuffer> | undefined> {
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > max) return undefined;
  if (!req.body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = req.body.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > max) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/** True for loopback host names and addresses. */
export function isLoopback(host: string): boolean {
  return LOOPBACK.test(host);
}

/** A JSON-RPC error answer with an HTTP status and an `x-shelfmark-error` code. */
function json(status: number, code: string, message: string): Response {
  return new Response(
    JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }),
    {
      status,
      headers: { "content-type": "application/json", "x-shelfmark-error": code },
    },
  );
}

/**
 * Serve the shelf's tools over Streamable HTTP at `/mcp` (and the web page at `/`).
 *
 * @param shelf the shelf whose tools it serves
 * @param opts where to listen, the bearer token, allowed origins, when to stop
 * @returns the running server: its URL, port and `shutdown()`
 * @throws {Error} when `host` is not a loopback address and no token is given
 * @example Serve on a free port and connect a client
 * ```ts
 * import { serveHttp } from "./http.ts";
 * import { Shelf } from "../shelf/shelf.ts";
 * import { Client } from "@modelcontextprotocol/sdk/client/index.js";
 * import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
 * import assert from "node:assert/strict";
 *
 * const shelf = await Shelf.open({ data: await Deno.makeTempDir(), embedder: "none", workers: 0 });
 * const http = serveHttp(shelf, { port: 0 });
 * assert.equal(http.url, `http://127.0.0.1:${http.port}/mcp`);
 * const client = new Client({ name: "example", version: "1.0.0" });
 * await client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
 * const { tools } = await client.listTools();
 * assert.ok(tools.some((t: { name: string }) => t.name === "read"));
 * await client.close();
 * await http.shutdown();
 * await shelf.close();
 * ```
 */
export function serveHttp(shelf: Shelf, opts: HttpOptions = {}): HttpServer {
  const host = opts.host ?? "127.0.0.1";
  const token = opts.token;
  if (!isLoopback(host) && !token) {
    throw new Error(
      `Refusing to listen on ${host} without a token: pass --token or set SHELFMARK_TOKEN`,
    );
  }
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  /** Last use of each session, oldest first (a Map keeps insertion order). */
  const used = new Map<string, number>();
  const touch = (sid: string) => {
    used.delete(sid);
    used.set(sid, Date.now());
  };
  const forget = (sid: string) => {
    sessions.delete(sid);
    used.delete(sid);
  };
  const closeSession = (sid: string) => {
    const t = sessions.get(sid);
    forget(sid);
    t?.close().catch(() => {});
  };
  /** Close idle sessions, and the least recently used ones beyond the cap. */
  const evict = () => {
    const now = Date.now();
    for (const [sid, at] of used) {
      if (now - at < SESSION_IDLE_MS && used.size < MAX_SESSIONS) break;
      closeSession(sid);
    }
  };
  /** The web page and its API (`server/web.ts`): the same token. */
  const web = { shelf, token, assets: new PageAssets() };
  /** Who may call; its port is set once taken (requests come only after). */
  const guard: GuardOptions = {
    host,
    port: 0,
    allowedHosts: [...(opts.allowedHosts ?? []), ...wildcardNames(host)],
    allowedOrigins: opts.allowedOrigins,
  };
  const sweeper = setInterval(evict, 60_000);
  Deno.unrefTimer(sweeper);

  const handler = async (req: Request): Promise<Response> => {
    const path = new URL(req.url).pathname;
    const no = refusal(req, guard, path === "/mcp" || path.startsWith("/api/"));
    if (no && path.startsWith("/api/")) {
      return Response.json({ error: { code: no.code, message: no.message } }, {
        status: no.status,
        headers: { "x-shelfmark-error": no.code },
      });
    }
    if (no) return json(no.status, no.code, no.message);
    if (req.method === "POST" && req.body) {
      const body = await readBody(req, MAX_BODY_BYTES);
      if (!body) {
        return json(413, "TOO_LARGE", `Request body over ${MAX_BODY_BYTES} bytes`);
      }
      req = new Request(req.url, {
        method: req.method,
        headers: req.headers,
        body,
        signal: req.signal,
      });
    }
    return await route(req);
  };

  const route = async (req: Request): Promise<Response> => {
    const url = new URL(req.url);
    if (url.pathname === "/health") {
      return Response.json({ ok: true, state: shelf.status.state });
    }
    const page = await serveWeb(req, url, web);
    if (page) return page;
    if (url.pathname !== "/mcp") return json(404, "NOT_FOUND", "Not found: use /mcp");
    if (token && !tokenMatches(req.headers.get("authorization"), token)) {
      return json(401, "UNAUTHORIZED", "Missing or wrong bearer token");
    }
    const sid = req.headers.get("mcp-session-id");
    if (sid) {
      const t = sessions.get(sid);
      if (!t) return json(404, "SESSION_NOT_FOUND", "Unknown session; initialize again");
      touch(sid);
      return await t.handleRequest(req);
    }
    if (req.method !== "POST") return json(400, "BAD_REQUEST", "Initialize with a POST first");
    let body: unknown;
    try {
      body = await req.json();
    } catch {
      return json(400, "PARSE_ERROR", "Body is not JSON");
    }
    if (!isInitializeRequest(body)) {
      return json(400, "BAD_REQUEST", "No session: the first request must be initialize");
    }
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      enableJsonResponse: true,
      onsessioninitialized: (id: string) => {
        evict();
        sessions.set(id, transport);
        touch(id);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) forget(transport.sessionId);
    };
    await createServer(shelf, {
      allowWrites: !!token,
      structured: opts.structured,
      assets: web.assets,
    }).connect(transport);
    return await transport.handleRequest(req, { parsedBody: body });
  };

  let listener: Deno.TcpListener | undefined;
  let port = opts.port ?? 60606;
  for (let tries = 0; tries < 50; tries++, port++) {
    try {
      listener = Deno.listen({ hostname: host, port });
      break;
    } catch (e) {
      if (!(e instanceof Deno.errors.AddrInUse)) throw e;
    }
  }
  if (!listener) throw new Error(`No free port from ${opts.port ?? 60606} on ${host}`);
  // The server itself listens on a Unix socket in a folder of this user's alone; the
  // public port is the relay's, which caps connections and times out slow clients.
  const dir = Deno.makeTempDirSync({ prefix: "shelfmark-http-" });
  const server = Deno.serve({ path: join(dir, "http.sock"), onListen: () => {} }, handler);
  const relay = relayConnections(listener, join(dir, "http.sock"), opts.limits);
  const taken = listener.addr.port;
  guard.port = taken;
  const shown = host.includes(":") ? `[${host}]` : host;
  let stopping: Promise<void> | undefined;
  const shutdown = () =>
    stopping ??= (async () => {
      clearInterval(sweeper);
      relay.close();
      for (const t of sessions.values()) await t.close().catch(() => {});
      sessions.clear();
      used.clear();
      await server.shutdown();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    })();
  opts.signal?.addEventListener("abort", () => shutdown(), { once: true });
  return {
    url: `http://${shown}:${taken}/mcp`,
    port: taken,
    finished: Promise.all([server.finished, relay.closed]).then(() => {}),
    shutdown,
  };
}
