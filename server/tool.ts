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
import { checkFields } from "../core/fields.ts";
import { ToolError } from "../core/types.ts";
import type { Shelf } from "../shelf/shelf.ts";
import type { IndexProgress } from "../shelf/indexer.ts";
import { documentNotFound } from "../shelf/documents.ts";

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
 * assert.equal(argHint({ cli: false }, { offset_skipped: 20 }), "offset_skipped=20");
 * assert.equal(argHint({ cli: true }, { offset_skipped: 20 }), "--offset-skipped 20");
 * ```
 */
export function argHint(render: Render, args: Record<string, string | number>): string {
  return Object.entries(args).map(([k, v]) => render.cli ? `--${flagOf(k)} ${v}` : `${k}=${v}`)
    .join(" ");
}

/**
 * Argument names as the reader writes them: `path_glob` for an agent, `--path-glob` at a
 * terminal; several are joined as a list ("a, b or c").
 *
 * @example
 * ```ts
 * import { argNames } from "./tool.ts";
 * argNames({ cli: true }, "library", "path_glob"); // "--library or --path-glob"
 * ```
 */
export function argNames(render: Render, ...args: string[]): string {
  const names = args.map((a) => render.cli ? `--${flagOf(a)}` : a);
  return names.length < 2
    ? names.join("")
    : `${names.slice(0, -1).join(", ")} or ${names[names.length - 1]}`;
}

/** A `doc_id` argument. */
export const docIdArg: z.ZodString = z.string().min(1).max(4096).describe(
  "A doc_id from search (or a path <library>/<path inside it>)",
);
/** A `library` argument. */
export const libraryArg: z.ZodString = z.string().min(1).max(256).describe(
  "Library name (see list_libraries)",
);

/**
 * The flag of an argument: `-` for `_`.
 *
 * @example
 * ```ts
 * import { flagOf } from "./tool.ts";
 * flagOf("doc_types"); // "doc-types"
 * ```
 */
export function flagOf(arg: string): string {
  return arg.replaceAll("_", "-");
}

/** A command-line flag, as `node:util` `parseArgs` declares it. */
export type Flag = { type: "string" | "boolean"; short?: string; multiple?: boolean };

/** Command-line flags after parsing. */
export type Flags = Record<string, string | boolean | string[] | undefined>;

/** Bad command-line usage (exit code 2). */
export class UsageError extends Error {}

/**
 * How a tool appears on the command line. Every argument is also a flag named after it
 * (`doc_types` -> `--doc-types`, see `server/cli_flags.ts`); the form adds what a terminal
 * writes differently: positional arguments, short flags and the old spellings.
 */
export interface CliForm {
  /** Command name (default: the tool name with `-` for `_`). */
  command?: string;
  /** The command with its positional arguments, for the main help: `search QUERY`. */
  synopsis: string;
  /** What it does, one line for the main help. */
  summary: string;
  /** The command's usage, shown by `shelfmark <command> --help`. */
  usage: string;
  /** Arguments given as positional arguments only (no flag of their own): `["pattern"]`. */
  positional?: string[];
  /** Flags that are no argument's (`--json`, `--data`, ... are common to every command). */
  flags?: Record<string, Flag>;
  /** One-letter flags: letter -> the flag it stands for (`{ n: "limit" }`). */
  short?: Record<string, string>;
  /** Hidden old spellings: old flag -> the flag it now is (`{ type: "doc-types" }`). */
  aliases?: Record<string, string>;
  /**
   * Tool arguments from the positional arguments and the flags of {@link flags} (undefined
   * values are dropped; the flags named after arguments are added to these).
   */
  args(pos: string[], flags: Flags): Record<string, unknown>;
  /**
   * A terminal's own way to run the command (`reindex` waits with a progress bar,
   * `libraries add` edits the configuration): the text to print, or undefined to answer
   * as the tool does.
   */
  run?(term: Terminal, pos: string[], args: Record<string, unknown>): Promise<string | undefined>;
}

/** What a command run at a terminal may use besides the tool (see {@link CliForm.run}). */
export interface Terminal {
  /** The data directory. */
  data: string;
  /** The flags given. */
  flags: Flags;
  /** The shelf of the data directory (opened on first call). */
  shelf(): Promise<Shelf>;
  /** Index, with a progress bar on stderr; `full`: these libraries' files all again. */
  index(shelf: Shelf, full?: string[]): Promise<IndexProgress>;
}

/**
 * An old argument name a tool still accepts, hidden from `tools/list` and help: the name
 * it now has, or a function giving the new arguments for the old value.
 */
export type ArgAlias = string | ((value: unknown) => Record<string, unknown>);

/**
 * Arguments with their old names replaced by the new (a new name given too wins).
 *
 * @example
 * ```ts
 * import { canonicalArgs } from "./tool.ts";
 * canonicalArgs({ time_sort: "sort" }, { time_sort: "newest" }); // { sort: "newest" }
 * ```
 */
export function canonicalArgs(
  aliases: Record<string, ArgAlias> | undefined,
  args: unknown,
): unknown {
  if (!aliases || typeof args !== "object" || args === null || Array.isArray(args)) return args;
  const a = args as Record<string, unknown>;
  if (!Object.keys(aliases).some((k) => k in a)) return args;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(a)) {
    const alias = aliases[k];
    if (alias === undefined) out[k] = v;
    else {
      const renamed = typeof alias === "string" ? { [alias]: v } : alias(v);
      for (const [nk, nv] of Object.entries(renamed)) if (nk === k || !(nk in a)) out[nk] = nv;
    }
  }
  return out;
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
  /**
   * Whether `tools/list` shows the tool on this shelf (default: always); a tool not listed
   * still answers a call, with a structured error when it does not apply (`history` on a
   * shelf without a git library). The git tools are listed when a git library is writable.
   */
  listed?(shelf: Shelf): boolean;
  /** Whether the tool only reads (default true): MCP's read-only annotations. */
  readOnly?: boolean;
  /**
   * A write tool of the vault (`write`, `edit`, `move`, `delete`): not listed, and refused,
   * unless writing is enabled for a library (and, over HTTP, the server has a token).
   */
  vault?: boolean;
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
  /** Old argument names still accepted (hidden from `tools/list` and help). */
  aliases?: Record<string, ArgAlias>;
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
 *   cli: {
 *     synopsis: "hello [WHO]",
 *     summary: "greet someone",
 *     usage: "shelfmark hello [WHO]",
 *     args: (pos) => ({ who: pos[0] }),
 *   },
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

/** Fail with a usage error when fewer than `n` positional arguments were given. */
export function needArgs(pos: string[], n: number, what: string, usage: string): void {
  if (pos.length < n) throw new UsageError(`missing ${what}\n${usage}`);
}

/** Resolve a `doc_id` argument (an id, or a path inside a library) to a stored id. */
export function resolveDoc(shelf: Shelf, arg: string): string {
  return shelf.findDocument(arg) ?? notFound(arg);
}

/**
 * As {@link resolveDoc}, through the shelf's catalog store (the tools that read a document
 * from it: `read`, `outline`, `context`).
 */
export async function resolveStoredDoc(
  shelf: Shelf,
  arg: string,
  check = true,
): Promise<string> {
  return await shelf.findStoredDocument(arg, check) ?? notFound(arg);
}

/** The answer to a `doc_id` argument that names no stored document. */
function notFound(arg: string): never {
  throw documentNotFound(arg);
}

/** Fail with `LIBRARY_NOT_FOUND` unless `name` is undefined or a configured library. */
export function checkLibrary(shelf: Shelf, name?: string): void {
  if (name !== undefined && !shelf.libraries.some((l) => l.name === name)) {
    throw libraryNotFound(name, shelf.libraries.map((l) => l.name));
  }
}

/**
 * As {@link checkLibrary}, for a tool answering from the store: another machine's library
 * of a shared PostgreSQL store (`laptop:Papers`) is one too.
 */
export async function checkStoreLibrary(shelf: Shelf, name?: string): Promise<void> {
  if (name === undefined || shelf.libraries.some((l) => l.name === name)) return;
  const names = [...shelf.libraries.map((l) => l.name), ...await shelf.otherLibraries()];
  if (!names.includes(name)) throw libraryNotFound(name, names);
}

/**
 * Refuse fields `library` does not index ({@link checkFields}): another machine's library
 * of a shared store (and every library) is checked against the fields its documents hold.
 */
export async function checkStoreFields(
  shelf: Shelf,
  library: string | undefined,
  names: string[],
): Promise<void> {
  const own = shelf.libraries.some((l) => l.name === library);
  checkFields(shelf.libraries, library, names, own ? undefined : await shelf.otherLibraryFields());
}

/** The error for a library argument that names none of `names`. */
function libraryNotFound(name: string, names: string[]): ToolError {
  return new ToolError(
    "LIBRARY_NOT_FOUND",
    `No library named ${JSON.stringify(name)}`,
    `Libraries: ${names.join(", ") || "(none)"}`,
  );
}

/** The document types of the built-in extractors (`builtinExtractors()`, checked by a test). */
export const BUILTIN_DOC_TYPES: readonly string[] = [
  ...["text", "markdown", "html", "pdf", "docx", "epub", "image", "man"],
  ...["pptx", "xlsx", "odt", "ods", "odp", "rtf", "compressed"],
];

/**
 * Fail with `INVALID_ARGUMENT` naming the known types unless every type is one of the
 * built-in extractors' or one the catalog holds (a plugin's).
 */
export function checkDocTypes(shelf: Shelf, types: readonly string[]): void {
  const unknown = types.filter((t) => !BUILTIN_DOC_TYPES.includes(t.toLowerCase()));
  if (!unknown.length) return;
  // Only for a type no built-in extractor makes: a plugin's, if the catalog holds it.
  const stored = shelf.documentTypes();
  const bad = unknown.filter((t) => !stored.includes(t.toLowerCase()));
  if (!bad.length) return;
  const known = [...new Set([...BUILTIN_DOC_TYPES, ...stored])];
  throw new ToolError(
    "INVALID_ARGUMENT",
    `Unknown document ${bad.length === 1 ? "type" : "types"} ${
      bad.map((t) => JSON.stringify(t)).join(", ")
    }`,
    `Known types: ${known.join(", ")}.`,
  );
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
  error: { code: string; message: string; hint?: string; [fact: string]: unknown };
}

/** Turn any failure into the error body of the contract (no stack traces). */
export function errorBody(e: unknown, log?: (m: string) => void): ErrorBody {
  if (e instanceof ToolError) {
    return { error: { code: e.code, message: e.message, hint: e.hint, ...e.details } };
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
