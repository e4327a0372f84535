/**
 * The `shelfmark` command line: the tools one to one (same defaults, same text), plus
 * `index`, `serve`, `libraries` and `demo`.
 *
 * ```sh
 * shelfmark index ~/Papers
 * shelfmark search "docker deployment" --limit 5 --type pdf,docx --json
 * shelfmark serve ~/Papers
 * ```
 *
 * Exit codes: 0 ok, 1 error, 2 bad usage.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { dataDir, loadConfig, saveConfig } from "../core/config.ts";
import { ToolError } from "../core/types.ts";
import { VERSION } from "../core/version.ts";
import { Shelf } from "../shelf/shelf.ts";
import type { IndexProgress } from "../shelf/indexer.ts";
import { watchLibraries } from "../shelf/watch.ts";
import { callTool, parseArgs as toolArgsOf } from "./dispatch.ts";
import { errorBody } from "./tool.ts";
import { commandOf, HELP, usage } from "./help.ts";
import { isLoopback, serveHttp } from "./http.ts";
import { serveStdio } from "./mcp.ts";
import { progressBar } from "./progress.ts";
import { checkLibrary, type Flag, type Flags, UsageError } from "./tool.ts";
import { type ToolName, TOOLS } from "./tools/mod.ts";

/** Flags of every command, and of the commands that are not tools. */
const COMMON: Record<string, Flag> = {
  data: { type: "string" },
  "full-paths": { type: "boolean" },
  extractor: { type: "string", multiple: true },
  embedder: { type: "string" },
  "no-vectors": { type: "boolean" },
  vectors: { type: "boolean" },
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
  // libraries add
  description: { type: "string" },
  quiet: { type: "boolean", short: "q" },
  // tools: index the changes first (the tools' wait_for_index)
  fresh: { type: "boolean" },
};

/** Every flag: the common ones and each tool's (tools that share a flag declare it alike). */
const OPTIONS: Record<string, Flag> = Object.assign(
  {},
  ...TOOLS.map((t) => t.cli.flags ?? {}),
  COMMON,
);

/** The common flags, typed. */
interface CommonFlags {
  data?: string;
  "full-paths"?: boolean;
  extractor?: string[];
  embedder?: string;
  "no-vectors"?: boolean;
  vectors?: boolean;
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
  description?: string;
  quiet?: boolean;
  fresh?: boolean;
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

function int(v: string | undefined, name: string): number | undefined {
  if (v === undefined) return undefined;
  if (!/^-?\d+$/.test(v)) throw new UsageError(`--${name} must be a whole number, not "${v}"`);
  return Number(v);
}

function parse(argv: string[]): { values: CliFlags; positionals: string[] } {
  try {
    const r = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
    return { values: r.values as CliFlags, positionals: r.positionals };
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

/** The tool a command runs, with its arguments from the command line. */
function toolArgs(cmd: string, pos: string[], f: Flags): [string, Record<string, unknown>] {
  const tool = TOOLS.find((t) => commandOf(t) === cmd);
  if (!tool) throw new UsageError(`Unknown command "${cmd}"\n\n${HELP}`);
  let args: Record<string, unknown>;
  try {
    args = tool.cli.args(pos, f);
  } catch (e) {
    if (e instanceof UsageError) throw new UsageError(`${cmd}: ${e.message}`);
    throw e;
  }
  args.output_format = f.json ? "json" : "markdown";
  return [tool.name, clean(args)];
}

function clean(args: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(args).filter(([, v]) => v !== undefined));
}

async function openShelf(f: CliFlags, folders: string[], searchWorkers = 0): Promise<Shelf> {
  return await Shelf.open({
    searchWorkers,
    data: dataDir(f.data),
    folders,
    extractors: f.extractor,
    fullPaths: f["full-paths"],
    embedder: f.embedder ?? Deno.env.get("SHELFMARK_EMBEDDER"),
    saveEmbedder: f.embedder !== undefined,
  });
}

async function embedWithProgress(shelf: Shelf, quiet: boolean): Promise<void> {
  const total = shelf.vectorStatus()?.pending ?? 0;
  if (total === 0) return;
  const bar = quiet ? undefined : progressBar("embedding", "docs");
  // The index run started the embedding when it finished; wait for it.
  const s = await shelf.embedded((s) =>
    bar?.update({
      done: total - s.pending,
      total,
      indexed: 0,
      unchanged: 0,
      skipped: 0,
      removed: 0,
    })
  );
  if (!s) return;
  bar?.done(
    s.error && s.pending
      ? `${s.pending} documents still without vectors: ${s.error}`
      : `${s.embedded} documents have vectors (${s.model})`,
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
  bar?.done(
    `indexed ${p.indexed}, unchanged ${p.unchanged}, skipped ${p.skipped}, removed ${p.removed}; ` +
      `${shelf.documentCount()} of ${
        shelf.documentCount() + shelf.skippedFiles().length
      } documents indexed in ${shelf.libraries.length} libraries` +
      (searchable !== undefined ? `; keyword search answered from ${secs(searchable)} on` : ""),
  );
  return p;
}

async function librariesCmd(pos: string[], f: CliFlags): Promise<number> {
  const dir = dataDir(f.data);
  const config = loadConfig(dir);
  const [sub, name, path] = pos;
  if (sub === "add") {
    if (!name || !path) throw new UsageError(`libraries add: NAME and PATH are required`);
    const st = await Deno.stat(path).catch(() => undefined);
    if (!st?.isDirectory) throw new UsageError(`libraries add: not a folder: ${path}`);
    if (config.libraries.some((l) => l.name === name)) {
      throw new UsageError(`libraries add: a library named "${name}" exists`);
    }
    config.libraries.push({ name, path: await Deno.realPath(path), description: f.description });
    saveConfig(dir, config);
    console.log(`Added library ${name}. Run \`shelfmark index\` to index it.`);
    return 0;
  }
  if (sub === "remove") {
    if (!name) throw new UsageError(`libraries remove: NAME is required`);
    const n = config.libraries.length;
    config.libraries = config.libraries.filter((l) => l.name !== name);
    if (config.libraries.length === n) throw new UsageError(`No library named "${name}"`);
    saveConfig(dir, config);
    console.log(`Removed library ${name}; its documents leave the index at the next run.`);
    return 0;
  }
  if (sub !== undefined) throw new UsageError(`libraries: unknown subcommand "${sub}"`);
  return -1;
}

/** Run the CLI with arguments; resolves to the exit code. */
export async function main(argv: string[]): Promise<number> {
  const { values: f, positionals } = parse(argv);
  const [cmd, ...pos] = positionals;
  if (f.version) {
    console.log(`shelfmark ${VERSION}`);
    return 0;
  }
  if (!cmd || cmd === "help") {
    console.log(HELP);
    return cmd || f.help ? 0 : 2;
  }
  if (f.help) {
    console.log(usage(cmd));
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
    if (f.watch) {
      console.error("shelfmark: watching for changes (Ctrl-C to stop)");
      await watchLibraries(shelf);
    }
    await shelf.close();
    return 0;
  }
  if (cmd === "serve") {
    if (f.http && f.stdio) throw new UsageError("serve: choose --stdio or --http, not both");
    const port = int(f.port, "port");
    if (port !== undefined && (port < 0 || port > 65535)) {
      throw new UsageError(`--port must be 0-65535, not ${port}`);
    }
    const token = f.token ?? readTokenFile(f["token-file"]) ?? Deno.env.get("SHELFMARK_TOKEN");
    const host = f.host ?? "127.0.0.1";
    if (f.http && !isLoopback(host) && !token) {
      throw new UsageError(
        `serve --http --host ${host}: listening beyond loopback needs --token (or SHELFMARK_TOKEN)`,
      );
    }
    // Keyword searches from many clients run on worker threads, one per core.
    const shelf = await openShelf(f, pos, Math.min(4, navigator.hardwareConcurrency || 2));
    shelf.index().catch(() => {});
    const stop = new AbortController();
    if (!f["no-watch"]) watchLibraries(shelf, { signal: stop.signal }).catch(() => {});
    if (f.http) {
      const http = serveHttp(shelf, { host, port, token, structured: f.structured });
      console.error(`shelfmark: MCP over Streamable HTTP at ${http.url}`);
      console.error(
        `shelfmark: web page at ${new URL("/", http.url)}${
          token ? " (add #token=<token> once)" : ""
        }`,
      );
      const quit = () => http.shutdown();
      Deno.addSignalListener("SIGINT", quit);
      Deno.addSignalListener("SIGTERM", quit);
      await http.finished;
    } else {
      await serveStdio(shelf, { structured: f.structured });
    }
    stop.abort();
    return 0;
  }
  if (cmd === "demo") {
    const { demo } = await import("./demo.ts");
    return await demo();
  }
  if (cmd === "libraries") {
    const code = await librariesCmd(pos, f);
    if (code >= 0) return code;
  }
  const [tool, args] = toolArgs(cmd, pos, f);
  const shelf = await openShelf(f, []);
  try {
    const empty = shelf.documentCount() === 0 && tool !== "list_libraries";
    if ((empty || f.fresh) && shelf.libraries.length && tool !== "reindex") {
      await indexWithProgress(shelf, f.quiet ?? false);
    }
    if (tool === "reindex") {
      // At a terminal the run is waited for, with its progress (MCP answers at once).
      const a = toolArgsOf("reindex", args) as { library?: string; full: boolean };
      checkLibrary(shelf, a.library);
      const names = a.library ? [a.library] : shelf.libraries.map((l) => l.name);
      const p = await indexWithProgress(shelf, f.quiet ?? false, a.full ? names : undefined);
      if (f.json) console.log(JSON.stringify({ ...p, libraries: names, full: a.full }, null, 2));
      return 0;
    }
    const r = await callTool(shelf, tool as ToolName, args, { cli: true });
    console.log(r.format === "json" ? JSON.stringify(r.json, null, 2) : r.text);
    return 0;
  } catch (e) {
    const body = errorBody(e, (m) => console.error(m));
    if (f.json) console.log(JSON.stringify(body, null, 2));
    else {console.error(
        `error: ${body.error.message}${body.error.hint ? `\nhint: ${body.error.hint}` : ""}`,
      );}
    return e instanceof ToolError && (e.code === "INVALID_ARGUMENT" || e.code === "INVALID_PATTERN")
      ? 2
      : 1;
  } finally {
    await shelf.close();
  }
}

if (import.meta.main) {
  let code: number;
  try {
    code = await main(Deno.args);
  } catch (e) {
    if (e instanceof UsageError) {
      console.error(`shelfmark: ${e.message}`);
      code = 2;
    } else {
      console.error(`shelfmark: ${(e as Error)?.message ?? e}`);
      code = 1;
    }
  }
  Deno.exit(code);
}
