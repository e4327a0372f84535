/**
 * The table of tools. The MCP server registers these, the dispatcher validates and runs
 * them, the CLI maps its commands and help onto them: to add a tool, write its file and
 * list it here.
 *
 * @module
 */
import { z } from "zod";
import { outputFormat, type ToolSpec, waitForIndex } from "../tool.ts";
import { explore } from "./explore.ts";
import { findPaths } from "./find_paths.ts";
import { grep } from "./grep.ts";
import { listLibraries } from "./list_libraries.ts";
import { outline } from "./outline.ts";
import { read } from "./read.ts";
import { search } from "./search.ts";
import { similar } from "./similar.ts";
import { status } from "./status.ts";
import { browse } from "./browse.ts";
import { findDocuments } from "./find_documents.ts";
import { recent } from "./recent.ts";
import { listTags } from "./list_tags.ts";
import { links } from "./links.ts";
import { connection } from "./connection.ts";
import { context } from "./context.ts";
import { reindex } from "./reindex.ts";
import { write } from "./write.ts";
import { edit } from "./edit.ts";
import { move } from "./move.ts";
import { deleteTool } from "./delete.ts";
import { fetchTool } from "./fetch.ts";
import { history } from "./history.ts";
import { diff } from "./diff.ts";
import { sync } from "./sync.ts";

const TABLE = [
  search,
  outline,
  read,
  grep,
  listLibraries,
  explore,
  findPaths,
  status,
  similar,
  browse,
  findDocuments,
  recent,
  listTags,
  links,
  connection,
  context,
  reindex,
  write,
  edit,
  move,
  deleteTool,
  fetchTool,
  history,
  diff,
  sync,
] as const;

/** Tool names. */
export type ToolName =
  | "search"
  | "outline"
  | "read"
  | "grep"
  | "list_libraries"
  | "explore"
  | "find_paths"
  | "status"
  | "similar"
  | "browse"
  | "find_documents"
  | "recent"
  | "list_tags"
  | "links"
  | "connection"
  | "context"
  | "reindex"
  | "write"
  | "edit"
  | "move"
  | "delete"
  | "fetch"
  | "history"
  | "diff"
  | "sync";

// The names above are those of the table, no more and no fewer (a type error otherwise).
type Names = (typeof TABLE)[number]["name"];
const _same: [Names, ToolName] extends [ToolName, Names] ? true : never = true;

/** Every tool, in the order clients list them. */
// deno-lint-ignore no-explicit-any -- each entry keeps its own schema and answer types
export const TOOLS: readonly ToolSpec<ToolName, z.ZodRawShape, any>[] = TABLE;

/** A tool by name. */
export const toolByName: ReadonlyMap<string, ToolSpec<ToolName, z.ZodRawShape, unknown>> = new Map(
  TOOLS.map((t) => [t.name, t]),
);

/**
 * Arguments of every tool (zod shapes, `output_format` included, and `wait_for_index` for
 * the tools that read the index), by name.
 */
export const schemas: Record<ToolName, z.ZodRawShape> = Object.fromEntries(
  TOOLS.map((t): [ToolName, z.ZodRawShape] => [
    t.name,
    (t.waitsForIndex ?? true)
      ? { ...t.input, wait_for_index: waitForIndex, output_format: outputFormat }
      : { ...t.input, output_format: outputFormat },
  ]),
) as Record<ToolName, z.ZodRawShape>;

/** Each tool's argument schema as one strict object (unknown arguments are refused). */
export const argSchemas: Record<ToolName, z.ZodObject> = Object.fromEntries(
  TOOLS.map((t): [ToolName, z.ZodObject] => [t.name, z.object(schemas[t.name]).strict()]),
) as Record<ToolName, z.ZodObject>;
