/**
 * shelfmark: a map of local documents for AI agents. Every document gets a card and an
 * outline with line ranges; agents `search` -> `outline` -> `read`, over MCP or the CLI.
 *
 * This module is the library API: open a {@linkcode Shelf} on a data directory, index its
 * folders, and call the tools with {@linkcode callTool} or serve them over MCP
 * ({@linkcode serveStdio}, {@linkcode serveHttp}). Extractor plugins import
 * `@shelfmark/shelfmark/plugin` instead.
 *
 * @example Index a folder and search it
 * ```ts
 * import { callTool, Shelf } from "@shelfmark/shelfmark";
 * import assert from "node:assert/strict";
 *
 * const notes = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${notes}/tea.md`, "# Green tea\n\nSteep green tea for two minutes.\n");
 * const data = await Deno.makeTempDir();
 * const shelf = await Shelf.open({ data, folders: [notes], embedder: "none", workers: 0 });
 * const progress = await shelf.index();
 * assert.equal(progress.indexed, 1);
 *
 * const answer = await callTool(shelf, "search", { query: "steep tea" });
 * assert.match(answer.text, /tea\.md/);
 * await shelf.close();
 * ```
 *
 * @module
 */
export { type IndexStatus, Shelf, type ShelfOptions } from "./shelf/shelf.ts";
export type { IndexProgress } from "./shelf/indexer.ts";
export type { Embedder, ErrorCode, Library } from "./core/types.ts";
export { ToolError } from "./core/types.ts";
export {
  type Config,
  ConfigError,
  dataDir,
  type EmbedderConfig,
  type GitConfig,
  type Limits,
  loadConfig,
  type OcrConfig,
} from "./core/config.ts";
export { callTool, type ToolAnswer } from "./server/dispatch.ts";
export type { Render } from "./server/tool.ts";
export type { ToolName } from "./server/tools/mod.ts";
export { createServer, type ServerOptions, serveStdio } from "./server/mcp.ts";
export { type HttpOptions, type HttpServer, serveHttp } from "./server/http.ts";

// The plain data the Shelf's use cases return (see `Shelf`).
export type {
  Card,
  Hit,
  OutlineNode,
  Passage,
  PassageHit,
  SearchFilters,
  Skipped,
} from "./core/types.ts";
export type { FieldValues } from "./core/fields.ts";
export type { DocEntry } from "./core/listing.ts";
export type { GraphDoc, LinkKind } from "./core/graph.ts";
export type { SearchMode, SearchOutcome, SearchRequest } from "./search/search.ts";
export type { MatchKind, NameMatch } from "./search/names.ts";
export type { PathAggregate } from "./search/path.ts";
export type { VectorState, VectorStatus } from "./shelf/vectors.ts";
export type { OcrStatus } from "./shelf/ocr.ts";
export type { DocumentFile, DocumentOutline, ReadLines, ReadRequest } from "./shelf/documents.ts";
export type {
  BrokenItem,
  ChainDoc,
  ChainLink,
  Connection,
  DocumentLinks,
  InLink,
  KindCounts,
  LinkedItem,
  LinkReport,
  LinkReportKind,
  LinksRequest,
  Outgoing,
  OutLink,
  Page,
} from "./shelf/links.ts";
export type {
  BrowseRequest,
  Folder,
  FolderListing,
  LibraryOverview,
  NameMatches,
  NameRequest,
} from "./shelf/listings.ts";
export type { ContextEntry, DocumentContext } from "./shelf/context.ts";
export type {
  DocMatches,
  GrepDocumentAnswer,
  GrepDocumentOptions,
  GrepDocumentsAnswer,
  GrepDocumentsOptions,
  GrepOptions,
} from "./shelf/grep.ts";
export type { GrepMatch } from "./shelf/grep_worker.ts";
export type { ConnectionLimits } from "./server/conn_limit.ts";
export type { CommitInfo, DiffAnswer, GitAuthor, GitCommitter, History } from "./shelf/git.ts";
export type { SyncAnswer, SyncConflict } from "./shelf/git_sync.ts";
export type {
  ShelfDiff,
  ShelfDiffRequest,
  ShelfHistory,
  ShelfHistoryRequest,
  ShelfSync,
} from "./shelf/git_library.ts";
export type {
  DeleteAnswer,
  DeleteRequest,
  EditAnswer,
  EditRequest,
  MoveAnswer,
  MoveRequest,
  VaultCommitter,
  WriteAnswer,
  WriteRequest,
} from "./shelf/vault.ts";
export type { FetchAnswer, FetchRequest } from "./shelf/fetch.ts";
export type { MatchType } from "./shelf/vault_match.ts";
