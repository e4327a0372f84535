/**
 * What a tool is: one declaration holds its name, title and description, its argument
 * schema, its handler, its markdown rendering and its command-line form. The MCP server,
 * the dispatcher, the CLI and its help are all derived from the table of these
 * (`server/tools/mod.ts`), so adding a tool is one new file there.
 *
 * Also here: the helpers several tools share (resolving a `doc_id`, checking a library
 * name, the paths and one-line fields they show).
 *
 * @module
 */
import { z } from "zod";
import { ToolError } from "../core/types.ts";
import type { Shelf } from "../shelf/shelf.ts";

/** The `output_format` argument every tool takes. */
export const outputFormat: z.ZodDefault<z.ZodEnum<{ markdown: "markdown"; json: "json" }>> = z
  .enum(["markdown", "json"]).default("markdown").describe("json: the structured answer");
/** The `wait_for_index` argument of the tools that read the index. */
export const waitForIndex: z.ZodOptional<z.ZodBoolean> = z.boolean().optional().describe(
  "Wait (max 30 s) for pending changes to be indexed",
);
/** How long `wait_for_index` waits at most. */
export const WAIT_FOR_INDEX_MS = 30_000;
/** Who reads a markdown answer: an agent over MCP, or a person at a terminal (CLI). */
export interface Render {
  /** A person at a terminal: hints name flags (`--offset 61`), not arguments (`offset=61`). */
  cli: boolean;
}

/**
 * Arguments of a follow-up call as the reader writes them: `offset=61 limit=20` for an
 * agent, `--offset 61 --limit 20` at a terminal.
 *
 * @example
 * ```ts
 * import { argHint } from "./tool.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(argHint({ cli: false }, { skipped_offset: 20 }), "skipped_offset=20");
 * assert.equal(argHint({ cli: true }, { skipped_offset: 20 }), "--skipped-offset 20");
 * ```
 */
export function argHint(render: Render, args: Record<string, string | number>): string {
  return Object.entries(args).map(([k, v]) =>
    render.cli ? `--${k.replaceAll("_", "-")} ${v}` : `${k}=${v}`
  ).join(" ");
}

/** A `doc_id` argument. */
export const docIdArg: z.ZodString = z.string().min(1).max(4096).describe(
  "A doc_id from search (or a path <library>/<path inside it>)",
);
/** A `library` argument. */
export const libraryArg: z.ZodString = z.string().min(1).max(256).describe(
  "Library name (see list_libraries)",
);

/** A command-line flag, as `node:util` `parseArgs` declares it. */
export type Flag = { type: "string" | "boolean"; short?: string; multiple?: boolean };

/** Command-line flags after parsing. */
export type Flags = Record<string, string | boolean | string[] | undefined>;

/** Bad command-line usage (exit code 2). */
export class UsageError extends Error {}

/** How a tool appears on the command line. */
export interface CliForm {
  /** Command name (default: the tool name with `-` for `_`). */
  command?: string;
  /** One line for the main help: the command's arguments and what it does. */
  summary: string;
  /** The command's usage, shown by `shelfmark <command> --help`. */
  usage: string;
  /** Flags of its own (`--json`, `--data`, ... are common to every command). */
  flags?: Record<string, Flag>;
  /** Tool arguments from the positional arguments and flags (undefined values are dropped). */
  args(pos: string[], flags: Flags): Record<string, unknown>;
}

/** One tool, declared once. */
export interface ToolSpec<
  N extends string = string,
  S extends z.ZodRawShape = z.ZodRawShape,
  R = unknown,
> {
  /** Tool name. */
  name: N;
  /** Title, as clients list it. */
  title: string;
  /** What it does and when to use it, as clients list it. */
  description: string;
  /** Argument schema (zod shape); `output_format` is added to every tool. */
  input: S;
  /**
   * The shape of the JSON answer (zod; loose objects, see `tools/_output.ts`): the tool's
   * `outputSchema` when the server runs with `--structured`. `_meta` is added to each.
   */
  output: z.ZodRawShape;
  /** Whether the tool only reads (default true): MCP's read-only annotations. */
  readOnly?: boolean;
  /**
   * Whether a call waits (bounded) for a first index still being built (default true;
   * `status` answers at once).
   */
  waitsForIndex?: boolean;
  /** The handler: validated arguments in, the answer out (its JSON form unless `json` says). */
  run(shelf: Shelf, args: z.infer<z.ZodObject<S>>): R | Promise<R>;
  /** The answer as compact markdown (its hints in the reader's syntax, see {@link Render}). */
  markdown(answer: R, render: Render): string;
  /** The answer's JSON form, when it is not the answer itself. */
  json?(answer: R): Record<string, unknown>;
  /** Its command-line form. */
  cli: CliForm;
}

/**
 * Declare a tool (an identity function that keeps the types of its schema and answer).
 *
 * @param spec the tool
 * @returns the same tool
 * @example
 * ```ts
 * import { z } from "zod";
 * import { defineTool } from "./tool.ts";
 * import assert from "node:assert/strict";
 *
 * const hello = defineTool({
 *   name: "hello",
 *   title: "Say hello",
 *   description: "Greets the caller.",
 *   input: { who: z.string().default("world") },
 *   output: { greeting: z.string() },
 *   run: (_shelf, a) => ({ greeting: `hello ${a.who}` }),
 *   markdown: (r) => r.greeting,
 *   cli: { summary: "hello [WHO]", usage: "shelfmark hello [WHO]", args: (pos) => ({ who: pos[0] }) },
 * });
 * assert.equal(hello.name, "hello");
 * assert.deepEqual(hello.cli.args(["Ann"], {}), { who: "Ann" });
 * ```
 */
export function defineTool<N extends string, S extends z.ZodRawShape, R>(
  spec: ToolSpec<N, S, R>,
): ToolSpec<N, S, R> {
  return spec;
}

/** A whole number from a flag; a usage error names the flag otherwise. */
export function intFlag(v: unknown, name: string): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== "string" || !/^-?\d+$/.test(v)) {
    throw new UsageError(`--${name} must be a whole number, not "${v}"`);
  }
  return Number(v);
}

/** A comma-separated list from a flag. */
export function listFlag(v: unknown): string[] | undefined {
  return typeof v === "string" ? v.split(",").map((s) => s.trim()).filter(Boolean) : undefined;
}

/** Fail with a usage error when fewer than `n` positional arguments were given. */
export function needArgs(pos: string[], n: number, what: string, usage: string): void {
  if (pos.length < n) throw new UsageError(`missing ${what}\n${usage}`);
}

/** Resolve a `doc_id` argument (an id, or a path inside a library) to a stored id. */
export function resolveDoc(shelf: Shelf, arg: string): string {
  const found = shelf.findDocument(arg);
  if (found) return found;
  throw new ToolError(
    "DOCUMENT_NOT_FOUND",
    `No document ${JSON.stringify(arg)}`,
    "Use a doc_id from search results (or a path such as <library>/<folder>/<file>).",
  );
}

/** Fail with `LIBRARY_NOT_FOUND` unless `name` is undefined or a configured library. */
export function checkLibrary(shelf: Shelf, name?: string): void {
  if (name !== undefined && !shelf.libraries.some((l) => l.name === name)) {
    throw new ToolError(
      "LIBRARY_NOT_FOUND",
      `No library named ${JSON.stringify(name)}`,
      `Libraries: ${shelf.libraries.map((l) => l.name).join(", ") || "(none)"}`,
    );
  }
}

/** The path to show: the display path, or the absolute one with `--full-paths`. */
export function shownPath(shelf: Shelf, path: string): string {
  if (!shelf.fullPaths) return path;
  const [name, ...rest] = path.split("/");
  const lib = shelf.libraries.find((l) => l.name === name);
  return lib ? [lib.root, ...rest].join("/") : path;
}

/** Entries with their paths as answers show them (absolute with `--full-paths`). */
export function shownPaths<T extends { path: string | null }>(shelf: Shelf, items: T[]): T[] {
  return items.map((e) => (e.path === null ? e : { ...e, path: shownPath(shelf, e.path) }));
}

// deno-lint-ignore no-control-regex
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/g;

/**
 * Control characters (newline, tab, ...) written as escapes, for one-line markdown fields.
 *
 * @example
 * ```ts
 * import { escapeControl } from "./tool.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(escapeControl("a\nb"), "a\\nb");
 * ```
 */
export function escapeControl(s: string): string {
  return s.replace(
    CONTROL_CHARS,
    (c) =>
      c === "\n"
        ? "\\n"
        : c === "\t"
        ? "\\t"
        : `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`,
  );
}

/** A number as people read it (`1,234`). */
export const n = (x: number): string => x.toLocaleString("en-US");

/** The JSON body of an error answer. */
export interface ErrorBody {
  error: { code: string; message: string; hint?: string };
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
