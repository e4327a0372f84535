/**
 * One entry point for every tool: validate the arguments, run the tool, and render
 * the answer as markdown or JSON with the index state. MCP and the CLI both call it.
 *
 * @module
 */
import { z } from "zod";
import type { Shelf } from "../shelf/shelf.ts";
import { ToolError } from "../core/types.ts";
import { explore } from "./explore.ts";
import {
  exploreMd,
  findPathsMd,
  footer,
  grepMd,
  librariesMd,
  meta,
  outlineMd,
  readMd,
  searchMd,
  similarMd,
  statusMd,
} from "./render.ts";
import { schemas, type ToolArgs, type ToolName } from "./schemas.ts";
import {
  findPathsTool,
  grep,
  listLibraries,
  outline,
  read,
  search,
  similar,
  status,
} from "./tools.ts";

/** A tool's answer in both forms. */
export interface ToolAnswer {
  /** Markdown with the `[meta]` footer. */
  text: string;
  /** JSON with `_meta`. */
  json: Record<string, unknown>;
  /** Which of the two the caller asked for. */
  format: "markdown" | "json";
}

/** The JSON body of an error answer. */
export interface ErrorBody {
  error: { code: string; message: string; hint?: string };
}

async function run(shelf: Shelf, name: ToolName, a: Record<string, unknown>) {
  switch (name) {
    case "search": {
      const r = await search(shelf, a as ToolArgs<"search">);
      return { json: r, md: searchMd(r) };
    }
    case "outline": {
      const r = outline(shelf, a as ToolArgs<"outline">);
      return { json: r.json, md: outlineMd(r) };
    }
    case "read": {
      const r = read(shelf, a as ToolArgs<"read">);
      return { json: r, md: readMd(r) };
    }
    case "grep": {
      const r = await grep(shelf, a as ToolArgs<"grep">);
      return { json: r, md: grepMd(r) };
    }
    case "list_libraries": {
      const r = listLibraries(shelf);
      return { json: r, md: librariesMd(r) };
    }
    case "explore": {
      const r = explore(shelf, a as ToolArgs<"explore">);
      return { json: r, md: exploreMd(r) };
    }
    case "find_paths": {
      const r = findPathsTool(shelf, a as ToolArgs<"find_paths">);
      return { json: r, md: findPathsMd(r) };
    }
    case "status": {
      const r = status(shelf, a as ToolArgs<"status">);
      return { json: r, md: statusMd(r) };
    }
    case "similar": {
      const r = await similar(shelf, a as ToolArgs<"similar">);
      return { json: r, md: similarMd(r) };
    }
  }
}

/** Validate arguments against a tool's schema; throws `INVALID_ARGUMENT` naming the field. */
export function parseArgs(name: ToolName, args: unknown): Record<string, unknown> {
  const schema = z.object(schemas[name]).strict();
  const r = schema.safeParse(args ?? {});
  if (!r.success) {
    const issue = r.error.issues[0];
    const field = issue?.path.join(".") || "arguments";
    throw new ToolError(
      "INVALID_ARGUMENT",
      `${field}: ${issue?.message ?? "invalid"}`,
      `See the ${name} tool's input schema.`,
    );
  }
  return r.data as Record<string, unknown>;
}

/** Run a tool; throws `ToolError` for failures the caller should see. */
export async function callTool(shelf: Shelf, name: ToolName, args: unknown): Promise<ToolAnswer> {
  const a = parseArgs(name, args);
  const r = await run(shelf, name, a);
  const json = JSON.parse(JSON.stringify(r.json)) as Record<string, unknown>;
  json._meta = meta(shelf);
  return {
    text: `${r.md}\n\n${footer(shelf)}`,
    json,
    format: a.output_format as "markdown" | "json",
  };
}

/** Turn any failure into the error body of the contract (no stack traces). */
export function errorBody(e: unknown, log?: (m: string) => void): ErrorBody {
  if (e instanceof ToolError) {
    return { error: { code: e.code, message: e.message, hint: e.hint } };
  }
  log?.(`shelfmark: internal error: ${(e as Error)?.stack ?? e}`);
  return {
    error: {
      code: "INTERNAL",
      message: `Internal error: ${(e as Error)?.message ?? String(e)}`.slice(0, 500),
      hint: "This is a bug in shelfmark; the server keeps running. Check its log (stderr).",
    },
  };
}
