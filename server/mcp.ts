/**
 * The MCP server: every tool registered with its zod schema and read-only annotations.
 * Transports (stdio, Streamable HTTP) are thin wrappers around `createServer`.
 *
 * @module
 */
import { z } from "zod";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import process from "node:process";
import type { Shelf } from "../shelf/shelf.ts";
import { VERSION } from "../core/version.ts";
import { ToolError } from "../core/types.ts";
import { runTool } from "./dispatch.ts";
import { canonicalArgs, errorBody } from "./tool.ts";
import { argSchemas, toolByName, TOOLS } from "./tools/mod.ts";
import { metaOut } from "./tools/_output.ts";
import { APP_MIME, APP_TOOLS, APP_URI } from "./web/mcp_app.ts";
import { PageAssets } from "./web.ts";

/** Server name and version sent in `initialize`. */
export const SERVER_INFO = { name: "shelfmark", version: VERSION };

const INSTRUCTIONS =
  "shelfmark indexes the user's local documents (PDF, Word, EPUB, HTML, Markdown, text, scans). " +
  "search returns one hit per document with its best passages: line range, page, section and the matching sentence; " +
  "read returns exactly those lines (offset/limit, a section, or a page); outline shows a document's sections with line ranges; " +
  "grep finds a regular expression in one document, or across a library (library, path_glob, doc_types). " +
  "Use find_paths when the user names a folder or collection, explore for an overview.";

type ToolResult = {
  content: { type: "text"; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

/**
 * An error answer: the error body as text, and as `structuredContent` unless the tools
 * declare output schemas (clients check any `structuredContent` against the tool's schema,
 * errors included: the SDK's client throws instead of showing the error).
 */
function errorResult(body: ReturnType<typeof errorBody>, structured = false): ToolResult {
  const text = JSON.stringify(body);
  return structured ? { content: [{ type: "text", text }], isError: true } : {
    content: [{ type: "text", text }],
    structuredContent: body as unknown as Record<string, unknown>,
    isError: true,
  };
}

/** Options of {@link createServer}. */
export interface ServerOptions {
  /**
   * Whether tools that change the index (`reindex`) may run (default true). The HTTP
   * server allows them only when it was started with a token.
   */
  allowWrites?: boolean;
  /**
   * Declare each tool's `outputSchema` and put the JSON answer in `structuredContent` of
   * every result, markdown answers too (default false). Off by default because clients
   * that see `structuredContent` may hand the model the JSON instead of the compact
   * markdown (Claude Code does), which costs the agent several times the tokens.
   */
  structured?: boolean;
  /**
   * The web page's files, for the MCP App view (default: the server's own). The HTTP
   * server shares its own with every session.
   *
   * @ignore internal: the HTTP server passes its own
   */
  assets?: PageAssets;
}

/**
 * Build the MCP server for a shelf; connect it to any MCP transport.
 *
 * @param shelf the shelf whose tools it serves
 * @param opts whether `reindex` may run, and whether answers carry `structuredContent`
 * @returns the server, not yet connected
 * @example Talk to it in memory
 * ```ts
 * import { createServer } from "./mcp.ts";
 * import { Shelf } from "../shelf/shelf.ts";
 * import { Client } from "@modelcontextprotocol/sdk/client/index.js";
 * import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
 * import assert from "node:assert/strict";
 *
 * const shelf = await Shelf.open({ data: await Deno.makeTempDir(), embedder: "none", workers: 0 });
 * const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
 * await createServer(shelf).connect(serverSide);
 * const client = new Client({ name: "example", version: "1.0.0" });
 * await client.connect(clientSide);
 * const { tools } = await client.listTools();
 * assert.ok(tools.some((t: { name: string }) => t.name === "search"));
 * await client.close();
 * await shelf.close();
 * ```
 */
export function createServer(shelf: Shelf, opts: ServerOptions = {}): McpServer {
  const assets = opts.assets ?? new PageAssets();
  const server = new McpServer(SERVER_INFO, {
    capabilities: { tools: {} },
    instructions: INSTRUCTIONS,
  });
  // Arguments that fail the schema come back from the SDK as a bare message; give them
  // the structured error body of the contract instead.
  (server as unknown as { createToolError: (m: string) => ToolResult }).createToolError = (
    message: string,
  ) =>
    errorResult({
      error: {
        code: "INVALID_ARGUMENT",
        message: message.replace(/^MCP error -?\d+: /, ""),
        hint: "Check the tool's input schema (tools/list).",
      },
    }, opts.structured);
  // The write tools are listed and run only where writing is enabled (and allowed).
  const vaultOn = () => opts.allowWrites !== false && (shelf.writableLibraries?.().length ?? 0) > 0;
  for (const tool of TOOLS) {
    const name = tool.name;
    const readOnly = tool.readOnly ?? true;
    server.registerTool(
      name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: argSchemas[name],
        outputSchema: opts.structured
          ? z.looseObject({ ...tool.output, _meta: metaOut.optional() })
          : undefined,
        // Apps-capable clients show the result in the view (server/web/mcp_app.ts).
        _meta: APP_TOOLS.has(name) ? { ui: { resourceUri: APP_URI } } : undefined,
        // destructiveHint and idempotentHint mean something only when a tool writes.
        annotations: readOnly ? { readOnlyHint: true, openWorldHint: false } : {
          readOnlyHint: false,
          destructiveHint: false,
          idempotentHint: false,
          openWorldHint: false,
        },
      },
      async (args: Record<string, unknown>): Promise<ToolResult> => {
        try {
          if (!readOnly && opts.allowWrites === false) {
            throw new ToolError(
              "NOT_ALLOWED",
              `${name} changes the index and this HTTP server has no token`,
              "Start the server with --token (or SHELFMARK_TOKEN) to allow it, or use the CLI.",
            );
          }
          if (tool.vault && !vaultOn()) {
            throw new ToolError(
              "NOT_ALLOWED",
              `${name} writes files and writing is not enabled for any library`,
              'Set "write": true on a library in shelfmark.json, or start the server with --write LIBRARY.',
            );
          }
          const r = await runTool(shelf, name, args);
          if (r.format === "json") {
            return {
              content: [{ type: "text", text: JSON.stringify(r.json) }],
              structuredContent: r.json,
            };
          }
          return opts.structured
            ? { content: [{ type: "text", text: r.text }], structuredContent: r.json }
            : { content: [{ type: "text", text: r.text }] };
        } catch (e) {
          return errorResult(errorBody(e, shelf.log), opts.structured);
        }
      },
    );
  }
  server.registerResource(
    "view",
    APP_URI,
    {
      title: "shelfmark view",
      description: "Search results, outline and reader of the user's documents",
      mimeType: APP_MIME,
    },
    async () => ({
      contents: [{ uri: APP_URI, mimeType: APP_MIME, text: await assets.appHtml() }],
    }),
  );
  // Hidden: the write tools while writing is off, and the tools that do not apply to this
  // shelf (git tools without a git library).
  compactToolsList(
    server,
    (name) => {
      const tool = toolByName.get(name);
      return (!!tool?.vault && !vaultOn()) || !(tool?.listed?.(shelf) ?? true);
    },
  );
  acceptOldNames(server);
  objectArguments(server, opts.structured);
  return server;
}

/** The SDK's request handlers, to wrap `tools/call`. */
type Handler<R> = (req: R, extra: unknown) => Promise<unknown>;
function handlersOf<R>(server: McpServer): Map<string, Handler<R>> | undefined {
  return (server.server as unknown as { _requestHandlers?: Map<string, Handler<R>> })
    ._requestHandlers;
}

/**
 * Old argument names (`time_sort`, `output_mode`, ...) renamed before the SDK checks the
 * arguments against the schema, which lists only the new ones.
 */
function acceptOldNames(server: McpServer): void {
  type Req = { params?: { name?: string; arguments?: unknown } };
  const handlers = handlersOf<Req>(server);
  const call = handlers?.get("tools/call");
  if (!handlers || !call) return;
  handlers.set("tools/call", (req, extra) => {
    const p = req.params;
    const aliases = p?.name ? toolByName.get(p.name)?.aliases : undefined;
    if (!p || !aliases) return call(req, extra);
    return call(
      { ...req, params: { ...p, arguments: canonicalArgs(aliases, p.arguments) } },
      extra,
    );
  });
}

/**
 * `tools/call` with `arguments` that are not an object (an array, a string) fails the
 * SDK's request schema before any tool runs, and the client got an internal error with
 * the raw validation dump; answer the contract's INVALID_ARGUMENT error instead.
 */
function objectArguments(server: McpServer, structured?: boolean): void {
  type Req = { params?: { arguments?: unknown } };
  const handlers = handlersOf<Req>(server);
  const call = handlers?.get("tools/call");
  if (!handlers || !call) return;
  handlers.set("tools/call", (req, extra) => {
    const args = req.params?.arguments;
    if (args === undefined || (typeof args === "object" && args !== null && !Array.isArray(args))) {
      return call(req, extra);
    }
    const kind = args === null ? "null" : Array.isArray(args) ? "an array" : `a ${typeof args}`;
    return Promise.resolve(errorResult({
      error: {
        code: "INVALID_ARGUMENT",
        message: `arguments must be a JSON object, not ${kind}`,
        hint: "Check the tool's input schema (tools/list).",
      },
    }, structured));
  });
}

/**
 * Every `tools/list` answer is read by the agent: leave out what says nothing (each
 * schema's `$schema` line, the default `execution` of every tool; about 20 tokens a tool)
 * and the tools that are `hidden` (the write tools while writing is off, the git tools
 * without a git library).
 */
function compactToolsList(server: McpServer, hidden: (name: string) => boolean): void {
  type Handler = (req: unknown, extra: unknown) => Promise<{ tools: Record<string, unknown>[] }>;
  const handlers = (server.server as unknown as { _requestHandlers?: Map<string, Handler> })
    ._requestHandlers;
  const list = handlers?.get("tools/list");
  if (!handlers || !list) return; // another SDK version: the full answer goes out
  handlers.set("tools/list", async (req, extra) => {
    const r = await list(req, extra);
    r.tools = r.tools.filter((t) => !hidden(String(t.name)));
    for (const t of r.tools) {
      delete (t.inputSchema as Record<string, unknown> | undefined)?.$schema;
      delete (t.outputSchema as Record<string, unknown> | undefined)?.$schema;
      const ex = t.execution as { taskSupport?: string } | undefined;
      if (ex && Object.keys(ex).length === 1 && ex.taskSupport === "forbidden") delete t.execution;
    }
    return r;
  });
}

/** Serve a shelf over stdio (logs go to stderr only). */
export async function serveStdio(shelf: Shelf, opts: ServerOptions = {}): Promise<void> {
  const server = createServer(shelf, opts);
  const transport = new StdioServerTransport();
  await new Promise<void>((resolve) => {
    server.server.onclose = () => resolve();
    process.stdin.on("end", () => {
      server.close().finally(resolve);
    });
    server.connect(transport).catch((e: unknown) => {
      shelf.log(`shelfmark: stdio transport failed: ${(e as Error).message}`);
      resolve();
    });
    answerBadLines(transport);
  });
}

/**
 * A line that is not JSON, or not a JSON-RPC message, gets the JSON-RPC error it calls for
 * (-32700 parse error, -32600 invalid request, both with id null) instead of silence. The
 * SDK hands such lines to `onerror` only; `connect` has set that handler synchronously.
 */
function answerBadLines(transport: StdioServerTransport): void {
  const inner = transport.onerror;
  transport.onerror = (e: Error) => {
    const parse = e instanceof SyntaxError;
    if (parse || e.name === "ZodError") {
      const error = parse
        ? { code: -32700, message: "Parse error: the line is not JSON" }
        : { code: -32600, message: "Invalid request: not a JSON-RPC 2.0 message" };
      const answer = { jsonrpc: "2.0", id: null, error };
      transport.send(answer as unknown as JSONRPCMessage).catch(() => {});
    }
    inner?.(e);
  };
}
