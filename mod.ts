/**
 * shelfmark: a map of local documents for AI agents. Every document gets a card and an
 * outline with line ranges; agents `search` -> `outline` -> `read`, over MCP or the CLI.
 *
 * This module is the public API for library users and plugin authors:
 *
 * ```ts
 * import { Shelf, callTool } from "@shelfmark/shelfmark";
 *
 * const data = await Deno.makeTempDir();
 * const shelf = await Shelf.open({ data, folders: ["./samples"], embedder: "none" });
 * await shelf.index();
 * const answer = await callTool(shelf, "search", { query: "sqlite archive" });
 * console.log(answer.text);
 * await shelf.close();
 * ```
 *
 * A custom extractor is a module that default-exports an {@linkcode Extractor}.
 *
 * @module
 */
export * from "./core/types.ts";
export { type IndexStatus, Shelf, type ShelfOptions } from "./shelf/shelf.ts";
export type { IndexProgress } from "./shelf/indexer.ts";
export {
  type Config,
  ConfigError,
  dataDir,
  type EmbedderConfig,
  type Limits,
  loadConfig,
  type OcrConfig,
} from "./core/config.ts";
export { ExtractorRegistry } from "./core/registry.ts";
export { builtinExtractors } from "./extractors/mod.ts";
export { callTool, type ToolAnswer } from "./server/dispatch.ts";
export { createServer, serveStdio } from "./server/mcp.ts";
export { type HttpOptions, type HttpServer, serveHttp } from "./server/http.ts";
export type { ToolName } from "./server/tools/mod.ts";
