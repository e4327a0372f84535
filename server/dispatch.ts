/**
 * One entry point for every tool: validate the arguments once, run the tool, and render
 * the answer in the format asked for, with the index state. MCP and the CLI both call it.
 *
 * @module
 */
import type { Shelf } from "../shelf/shelf.ts";
import { ToolError } from "../core/types.ts";
import { argSchemas, toolByName, type ToolName } from "./tools/mod.ts";
import { canonicalArgs, checkDocTypes, flagOf, type Render, WAIT_FOR_INDEX_MS } from "./tool.ts";

/** A tool's answer; the markdown and the JSON form are each built when first read. */
export interface ToolAnswer {
  /** Markdown with the `[meta]` footer. */
  readonly text: string;
  /** JSON with `_meta`. */
  readonly json: Record<string, unknown>;
  /** Which of the two the caller asked for. */
  readonly format: "markdown" | "json";
}

/** The `_meta` object of every answer. */
export function meta(shelf: Shelf) {
  return {
    now: new Date().toISOString().replace(/\.\d{3}Z$/, "Z"),
    index: {
      state: shelf.status.state,
      vectors: shelf.vectorStatus()?.state ?? "unavailable",
      stale: shelf.stale,
    },
  };
}

/** The markdown footer: `[meta] now=... index=building stale`. */
export function footer(shelf: Shelf): string {
  const m = meta(shelf);
  let s = `[meta] now=${m.now}`;
  if (m.index.state !== "ready") s += ` index=${m.index.state}`;
  if (m.index.vectors === "pending" || m.index.vectors === "failed") {
    s += ` vectors=${m.index.vectors}`;
  }
  if (m.index.stale) s += " stale";
  return s;
}

/**
 * Validate arguments against a tool's schema (old argument names renamed first, see
 * `ToolSpec.aliases`); throws `INVALID_ARGUMENT` naming the field.
 */
export function parseArgs(
  name: ToolName,
  args: unknown,
  render: Render = { cli: false },
): Record<string, unknown> {
  const schema = argSchemas[name];
  if (!schema) throw new ToolError("INVALID_ARGUMENT", `No tool named ${JSON.stringify(name)}`);
  const r = schema.safeParse(canonicalArgs(toolByName.get(name)?.aliases, args ?? {}));
  if (!r.success) {
    const issue = r.error.issues[0];
    const field = issue?.path.join(".") || "arguments";
    const cmd = toolByName.get(name)?.cli.command ?? flagOf(name);
    throw new ToolError(
      "INVALID_ARGUMENT",
      `${render.cli ? `--${flagOf(String(issue?.path[0] ?? field))}` : field}: ${
        issue?.message ?? "invalid"
      }`,
      render.cli ? `See shelfmark ${cmd} --help.` : `See the ${name} tool's input schema.`,
    );
  }
  return r.data as Record<string, unknown>;
}

/**
 * Validate a tool's arguments and run it; throws `ToolError` for failures the caller should see.
 *
 * @param shelf the shelf
 * @param name the tool
 * @param args its arguments, validated here
 * @param render who reads the markdown (default: an agent over MCP)
 * @returns the answer
 */
export async function callTool(
  shelf: Shelf,
  name: ToolName,
  args: unknown,
  render: Render = { cli: false },
): Promise<ToolAnswer> {
  return await runTool(shelf, name, parseArgs(name, args, render), render);
}

/** Tools whose calls can take seconds and hundreds of MB; they run a few at a time. */
const HEAVY_TOOLS: ReadonlySet<string> = new Set(["search", "grep", "outline", "explore"]);

/**
 * Run a tool on arguments already validated against its schema (the MCP server's SDK
 * validates them with the same schema, so they are validated once).
 *
 * @param shelf the shelf
 * @param name the tool
 * @param a validated arguments, defaults applied
 * @param render who reads the markdown (default: an agent over MCP)
 * @returns the answer
 */
export async function runTool(
  shelf: Shelf,
  name: ToolName,
  a: Record<string, unknown>,
  render: Render = { cli: false },
): Promise<ToolAnswer> {
  const tool = toolByName.get(name)!;
  if (Array.isArray(a.doc_types)) checkDocTypes(shelf, a.doc_types as string[]);
  if (tool.waitsForIndex ?? true) {
    if (a.wait_for_index === true) await shelf.waitForFresh(WAIT_FOR_INDEX_MS);
    else await shelf.waitForFirstIndex();
  }
  const run = () => Promise.resolve(tool.run(shelf, a));
  // an idle shelf gives memory back; a call holds it off
  const answer = await shelf.during(() => HEAVY_TOOLS.has(name) ? shelf.heavyCalls(run) : run());
  let text: string | undefined;
  let json: Record<string, unknown> | undefined;
  return {
    format: a.output_format as "markdown" | "json",
    get text() {
      return text ??= `${tool.markdown(answer, render)}\n\n${footer(shelf)}`;
    },
    get json() {
      if (!json) {
        const body = tool.json ? tool.json(answer) : answer;
        json = JSON.parse(JSON.stringify(body)) as Record<string, unknown>;
        json._meta = meta(shelf);
      }
      return json;
    },
  };
}
