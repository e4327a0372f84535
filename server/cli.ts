/**
 * The `shelfmark` command line: the tools one to one (same defaults, same text), plus
 * `index`, `serve`, `libraries` and `demo`.
 *
 * ```sh
 * shelfmark index ~/Papers
 * shelfmark search "docker deployment" --limit 5 --doc-types pdf,docx --json
 * shelfmark serve ~/Papers
 * ```
 *
 * Exit codes: 0 ok, 1 error, 2 bad usage.
 *
 * @module
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { dataDir, MAX_INDEX_MEMORY_MB, MIN_INDEX_MEMORY_MB } from "../core/config.ts";
import { ToolError } from "../core/types.ts";
import { VERSION } from "../core/version.ts";
import { Shelf } from "../shelf/shelf.ts";
import type { IndexProgress } from "../shelf/indexer.ts";
import { watchLibraries } from "../shelf/watch.ts";
import { errorBody } from "./tool.ts";
import {
  commandOptions,
  flagArgs,
  intFlag,
  joinNegativeValues,
  unknownFlag,
  withoutAliases,
} from "./cli_flags.ts";
import { progressBar } from "./progress.ts";
import { type Flag, type Flags, type Terminal, UsageError } from "./tool.ts";
import { count } from "./tools/_listing.ts";
import type { ToolName } from "./tools/mod.ts";
import { idleReleaseMs } from "../shelf/idle.ts";
import { fixMmapThreshold } from "../core/malloc.ts";

/** Flags of every command, and of the commands that are not tools. */
const COMMON: Record<string, Flag> = {
  data: { type: "string" },
  "full-paths": { type: "boolean" },
  extractor: { type: "string", multiple: true },
  embedder: { type: "string" },
  store: { type: "string" },
  "store-read": { type: "string" },
  "no-vectors": { type: "boolean" },
  vectors: { type: "boolean" },
  "no-ocr": { type: "boolean" },
  memory: { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean" },
  // index / serve
  watch: { type: "boolean" },
  "no-watch": { type: "boolean" },
  stdio: { type: "boolean" },
  http: { type: "boolean" },
  host: { type: "string" },
  port: { type: "string" },
  token: { type: "string" },
  "token-file": { type: "string" },
  structured: { type: "boolean" },
  quiet: { type: "boolean", short: "q" },
  // tools: index the changes first (the tools' wait_for_index)
  fresh: { type: "boolean" },
  // serve and the write tools: libraries writable for this run
  write: { type: "string", multiple: true },
};

/** The commands that are not tools: they take the common flags. */
const OWN_COMMANDS = new Set(["index", "serve", "demo", "help"]);

/**
 * The table of tools and the help: loaded by the commands that run a tool or show help,
 * not by `index` or `serve` (a process that indexes holds only what it uses).
 */
async function toolTable() {
  const [{ TOOLS, schemas }, { commandOf, HELP, usage }] = await Promise.all([
    import("./tools/mod.ts"),
    import("./help.ts"),
  ]);
  return { TOOLS, schemas, commandOf, HELP, usage };
}

/** The table of tools, as {@link toolTable} loads it. */
type ToolTable = Awaited<ReturnType<typeof toolTable>>;

/** The flags of a command: a tool's (see `cli_flags.ts`), else the common ones. */
function optionsOf(table: ToolTable, cmd: string | undefined): Record<string, Flag> {
  const tool = table.TOOLS.find((t) => table.commandOf(t) === cmd);
  return tool ? commandOptions(table.schemas[tool.name], tool.cli, COMMON) : COMMON;
}

/** Every command's flags at once: enough to find the command in the arguments. */
function anyOptions(table: ToolTable): Record<string, Flag> {
  return Object.assign({}, ...table.TOOLS.map((t) => optionsOf(table, table.commandOf(t))), COMMON);
}

/**
 * The options of the command in the arguments. A command of its own with only common flags
 * needs no table of tools (its options are the common ones, and with every flag known the
 * command is where a parse with every command's flags finds it); else the table tells.
 */
async function optionsFor(argv: string[]): Promise<Record<string, Flag>> {
  const own = parseArgs({
    args: argv,
    options: COMMON,
    allowPositionals: true,
    strict: false,
    tokens: true,
  });
  const cmd = own.positionals[0];
  const known = own.tokens.every((t) => t.kind !== "option" || Object.hasOwn(COMMON, t.name));
  if (known && (cmd === undefined || OWN_COMMANDS.has(cmd))) return COMMON;
  const table = await toolTable();
  const first = parseArgs({
    args: argv,
    options: anyOptions(table),
    allowPositionals: true,
    strict: false,
  });
  return optionsOf(table, first.positionals[0]);
}

/** The common flags, typed. */
interface CommonFlags {
  data?: string;
  "full-paths"?: boolean;
  extractor?: string[];
  embedder?: string;
  store?: string;
  "store-read"?: string;
  "no-vectors"?: boolean;
  vectors?: boolean;
  "no-ocr"?: boolean;
  memory?: string;
  json?: boolean;
  help?: boolean;
  version?: boolean;
  watch?: boolean;
  "no-watch"?: boolean;
  stdio?: boolean;
  http?: boolean;
  host?: string;
  port?: string;
  token?: string;
  "token-file"?: string;
  structured?: boolean;
  quiet?: boolean;
  fresh?: boolean;
  write?: string[];
}

/** The token in `--token-file PATH` (its first line), kept out of `ps` and shell history. */
function readTokenFile(path: string | undefined): string | undefined {
  if (path === undefined) return undefined;
  let text: string;
  try {
    text = Deno.readTextFileSync(path);
  } catch (e) {
    throw new UsageError(`--token-file ${path}: cannot read it (${(e as Error).name})`);
  }
  const token = text.split(/\r?\n/)[0]!.trim();
  if (!token) throw new UsageError(`--token-file ${path}: the first line is empty`);
  return token;
}

/** Parsed flags: the common ones typed, each tool's read by the tool. */
type CliFlags = CommonFlags & Flags;

/**
 * The command's flags and positional arguments, in two passes: the first finds the
 * command, the second reads the flags of that command only (an unknown one is named, with
 * the nearest known flag).
 */
async function parse(argv: string[]): Promise<{ values: CliFlags; positionals: string[] }> {
  const options = await optionsFor(argv);
  try {
    const r = parseArgs({
      args: joinNegativeValues(argv, options),
      options,
      allowPositionals: true,
      strict: true,
    });
    return { values: r.values as CliFlags, positionals: r.positionals };
  } catch (e) {
    throw new UsageError(parseError(e as Error & { code?: string }, Object.keys(options)));
  }
}

/** `parseArgs`'s error in a terminal's words. */
function parseError(e: Error & { code?: string }, known: string[]): string {
  // "Option '-n, --limit <value>' argument missing": the long name.
  const option = /'(?:-\w, )?(-[^' ,]+)/.exec(e.message)?.[1] ?? "";
  if (e.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") return unknownFlag(option, known);
  if (/does not take an argument/.test(e.message)) return `${option} takes no value`;
  if (/argument missing/.test(e.message)) return `${option} needs a value`;
  if (/ambiguous/.test(e.message)) {
    return `${option} needs a value (write ${option}=VALUE for one that starts with -)`;
  }
  return e.message.split(". ")[0]!;
}

/** The tool a command runs, with its arguments from the command line. */
function toolArgs(
  table: ToolTable,
  cmd: string,
  pos: string[],
  given: Flags,
): [ToolName, Record<string, unknown>] {
  const tool = table.TOOLS.find((t) => table.commandOf(t) === cmd);
  if (!tool) throw new UsageError(`unknown command "${cmd}" (see shelfmark --help)`);
  const f = withoutAliases(given, tool.cli);
  let args: Record<string, unknown>;
  try {
    args = {
      ...flagArgs(table.schemas[tool.name], tool.cli, f),
      ...clean(tool.cli.args(pos, f)),
    };
  } catch (e) {
    if (e instanceof UsageError) throw new UsageError(`${cmd}: ${e.message}`);
    throw e;
  }
  args.output_format = f.json ? "json" : "markdown";
  return [tool.name, clean(args)];
}

/**
 * Fail unless the data directory holds an index or a configuration: a mistyped `--data`
 * must not answer "no documents" from a new, empty catalog.
 */
function needIndex(dir: string): void {
  if (existsSync(join(dir, "catalog.db")) || existsSync(join(dir, "shelfmark.json"))) return;
  throw new NoIndexError(
    `no index at ${dir} (the default data folder is ${dataDir()}); ` +
      `make one with \`shelfmark index FOLDER${dir === dataDir() ? "" : ` --data ${dir}`}\``,
  );
}

/** The data directory holds no index (exit code 1). */
class NoIndexError extends Error {}

/** The shelf could not be opened: a bad configuration or embedder (exit code 1). */
class OpenError extends Error {}

function clean(args: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(args).filter(([, v]) => v !== undefined));
}

async function openShelf(f: CliFlags, folders: string[], searchWorkers = 0): Promise<Shelf> {
  return await Shelf.open({
    searchWorkers,
    idleReleaseMs: idleReleaseMs(Deno.env.get("SHELFMARK_IDLE_S")),
    data: dataDir(f.data),
    folders,
    extractors: f.extractor,
    fullPaths: f["full-paths"],
    embedder: f.embedder ?? Deno.env.get("SHELFMARK_EMBEDDER"),
    saveEmbedder: f.embedder !== undefined,
    store: f.store,
    storeRead: f["store-read"],
    write: f.write,
    indexMemoryMb: intFlag(f.memory, "memory", MIN_INDEX_MEMORY_MB, MAX_INDEX_MEMORY_MB),
  });
}

/** Progress of a step after indexing (vectors, OCR) in the form the progress bar shows. */
function steps(done: number, total: number): IndexProgress {
  return { done, total, indexed: 0, unchanged: 0, skipped: 0, removed: 0 };
}

async function embedWithProgress(shelf: Shelf, quiet: boolean): Promise<void> {
  const total = shelf.vectorStatus()?.pending ?? 0;
  if (total === 0) return;
  const bar = quiet ? undefined : progressBar("embedding", "docs");
  // The index run started the embedding when it finished; wait for it.
  const s = await shelf.embedded((s) => bar?.update(steps(total - s.pending, total)));
  if (!s) return;
  bar?.done(
    s.error && s.pending
      ? `${count(s.pending, "document")} still without vectors: ${s.error}`
      : `${count(s.embedded, "document")} ${
        s.embedded === 1 ? "has" : "have"
      } vectors (${s.model})`,
  );
}

async function ocrWithProgress(shelf: Shelf, quiet: boolean): Promise<void> {
  const first = shelf.ocrStatus();
  if (!first || first.state === "idle") return;
  const bar = quiet ? undefined : progressBar("reading scans", "pages");
  const s = await shelf.ocrDone((s) =>
    bar?.update(steps(
      s.pages_done + s.pages_skipped + s.pages_failed,
      s.pages_done + s.pages_skipped + s.pages_failed + s.pages_waiting,
    ))
  );
  if (!s) return;
  bar?.done(
    `${count(s.pages_done, "scanned page")} read by OCR` +
      (s.pages_failed ? `, ${s.pages_failed} failed` : "") +
      (s.pages_waiting ? `, ${s.pages_waiting} still waiting` : "") +
      (s.error && (s.pages_failed || s.pages_waiting) ? ` (${s.error})` : ""),
  );
}

async function indexWithProgress(
  shelf: Shelf,
  quiet: boolean,
  full?: string[],
): Promise<IndexProgress> {
  const bar = quiet ? undefined : progressBar("indexing");
  const started = performance.now();
  let searchable: number | undefined;
  const p = await shelf.index((p) => {
    // Keyword search answers from the first document indexed on.
    if (searchable === undefined && p.indexed > 0) searchable = performance.now() - started;
    bar?.update(p);
  }, full);
  const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const indexed = await shelf.documentCount();
  bar?.done(
    `indexed ${p.indexed}, unchanged ${p.unchanged}, skipped ${p.skipped}, removed ${p.removed}` +
      (p.restored ? `, restored to the keyword index ${p.restored}` : "") + "; " +
      `${indexed} of ${count(indexed + shelf.skippedFiles().length, "document")} indexed in ${
        count(shelf.libraries.length, "library", "libraries")
      }` +
      (searchable !== undefined ? `; keyword search answered from ${secs(searchable)} on` : ""),
  );
  return p;
}

/** Run the CLI with arguments; resolves to the exit code. */
export async function main(argv: string[]): Promise<number> {
  const { values: f, positionals } = await parse(argv);
  const [cmd, ...pos] = positionals;
  if (f.version) {
    console.log(`shelfmark ${VERSION}`);
    return 0;
  }
  if (!cmd || cmd === "help") {
    console.log((await toolTable()).HELP);
    return cmd || f.help ? 0 : 2;
  }
  if (f.help) {
    console.log((await toolTable()).usage(cmd));
    return 0;
  }
  if (cmd === "index") {
    const shelf = await openShelf(f, pos);
    if (!shelf.libraries.length) {
      throw new UsageError("No libraries: give a folder (`shelfmark index ~/Papers`) or add one.");
    }
    await indexWithProgress(shelf, f.quiet ?? false);
    // Vectors the search uses by default are computed now; those of a model that is not
    // the default (the built-in one: keyword ranks better) only with --vectors (serve
    // computes them in the background).
    const byDefault = shelf.defaultSearchMode().mode !== "keyword";
    if (f.vectors || (byDefault && !f["no-vectors"])) {
      await embedWithProgress(shelf, f.quiet ?? false);
    }
    if (!f["no-ocr"]) await ocrWithProgress(shelf, f.quiet ?? false);
    if (f.watch) {
      console.error("shelfmark: watching for changes (Ctrl-C to stop)");
      await watchLibraries(shelf);
    }
    await shelf.close();
    return 0;
  }
  if (cmd === "serve") {
    if (f.http && f.stdio) throw new UsageError("serve: choose --stdio or --http, not both");
    const port = intFlag(f.port, "port", 0, 65535);
    const token = f.token ?? readTokenFile(f["token-file"]) ?? Deno.env.get("SHELFMARK_TOKEN");
    const host = f.host ?? "127.0.0.1";
    // The server's modules (the MCP SDK, HTTP, the web page) only for the command that serves.
    const http = f.http ? await import("./http.ts") : undefined;
    if (http && !http.isLoopback(host) && !token) {
      throw new UsageError(
        `serve --http --host ${host}: listening beyond loopback needs --token (or SHELFMARK_TOKEN)`,
      );
    }
    // Keyword searches from many clients run on worker threads, one per core.
    const shelf = await openShelf(f, pos, Math.min(4, navigator.hardwareConcurrency || 2));
    shelf.index().catch(() => {});
    const stop = new AbortController();
    if (!f["no-watch"]) watchLibraries(shelf, { signal: stop.signal }).catch(() => {});
    if (http) {
      const server = http.serveHttp(shelf, { host, port, token, structured: f.structured });
      console.error(`shelfmark: MCP over Streamable HTTP at ${server.url}`);
      console.error(
        `shelfmark: web page at ${new URL("/", server.url)}${
          token ? " (add #token=<token> once)" : ""
        }`,
      );
      const quit = () => server.shutdown();
      Deno.addSignalListener("SIGINT", quit);
      Deno.addSignalListener("SIGTERM", quit);
      await server.finished;
    } else {
      const { serveStdio } = await import("./mcp.ts");
      await serveStdio(shelf, { structured: f.structured });
    }
    stop.abort();
    return 0;
  }
  if (cmd === "demo") {
    const { demo } = await import("./demo.ts");
    return await demo();
  }
  const table = await toolTable();
  const [tool, args] = toolArgs(table, cmd, pos, f);
  const form = table.TOOLS.find((t) => t.name === tool)!.cli;
  const data = dataDir(f.data);
  let shelf: Shelf | undefined;
  const open = async () => {
    if (shelf) return shelf;
    needIndex(data);
    try {
      shelf = await openShelf(f, []);
    } catch (e) {
      // A bad configuration or embedder: its message, not an internal error with a stack.
      throw new OpenError((e as Error)?.message ?? String(e), { cause: e });
    }
    // A library never indexed is indexed first; one that is empty stays so without a run.
    const first = shelf.unindexedLibraries().length > 0 && tool !== "list_libraries";
    if ((first || f.fresh) && shelf.libraries.length && tool !== "reindex") {
      await indexWithProgress(shelf, f.quiet ?? false);
    }
    return shelf;
  };
  const term: Terminal = {
    data,
    flags: f,
    shelf: open,
    index: (s, full) => indexWithProgress(s, f.quiet ?? false, full),
  };
  try {
    const own = await form.run?.(term, pos, args);
    if (own !== undefined) {
      if (own) console.log(own);
      return 0;
    }
    const { callTool } = await import("./dispatch.ts");
    const r = await callTool(await open(), tool, args, { cli: true });
    console.log(r.format === "json" ? JSON.stringify(r.json, null, 2) : r.text);
    return 0;
  } catch (e) {
    if (e instanceof UsageError) throw e;
    const body = e instanceof NoIndexError
      ? { error: { code: "NO_INDEX", message: e.message, hint: undefined } }
      : e instanceof OpenError
      ? { error: { code: "INDEX_UNAVAILABLE", message: e.message, hint: undefined } }
      : errorBody(e, (m) => console.error(m));
    if (f.json) console.log(JSON.stringify(body, null, 2));
    else {console.error(
        `error: ${body.error.message}${body.error.hint ? `\nhint: ${body.error.hint}` : ""}`,
      );}
    return e instanceof ToolError && (e.code === "INVALID_ARGUMENT" || e.code === "INVALID_PATTERN")
      ? 2
      : 1;
  } finally {
    await shelf?.close();
  }
}

if (import.meta.main) {
  // large buffers given back to the system when freed (see core/malloc.ts)
  fixMmapThreshold();
  let code: number;
  try {
    code = await main(Deno.args);
  } catch (e) {
    console.error(`error: ${(e as Error)?.message ?? e}`);
    code = e instanceof UsageError ? 2 : 1;
  }
  Deno.exit(code);
}
