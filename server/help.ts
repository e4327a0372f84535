/**
 * Help texts of the command line: the commands of their own (`index`, `serve`, `demo`)
 * and, from the table of tools, one line and a usage per tool.
 *
 * @module
 */
import { argFlags } from "./cli_flags.ts";
import { schemas, TOOLS } from "./tools/mod.ts";

/** The command a tool answers on the command line. */
export function commandOf(tool: { name: string; cli: { command?: string } }): string {
  return tool.cli.command ?? tool.name.replaceAll("_", "-");
}

/** Lines of two columns, the first padded to the widest. */
export function columns(rows: [string, string][], indent = "  "): string {
  const width = Math.max(...rows.map(([a]) => a.length)) + 2;
  return rows.map(([a, b]) => `${indent}${a.padEnd(width)}${b}`.trimEnd()).join("\n");
}

const OWN: Record<string, { synopsis: string; summary: string; usage: string }> = {
  index: {
    synopsis: "index [PATH...]",
    summary: "build or update the index (folders become libraries)",
    usage: `shelfmark index [PATH...] [--watch] [--quiet] [--no-ocr] [--memory MB]
  Index the configured libraries, adding each PATH as a library named after its folder.
  Unchanged files are not re-read; deleted files leave the index. Progress goes to stderr.
  --watch keeps running and re-indexes what changes. Keyword search works from the first
  documents on. Vectors: with the built-in model keyword search is the default (it ranks
  better), so index leaves them to serve (background) unless --vectors; with another model
  they are computed after the keyword index (a second progress bar) unless --no-vectors.
  Scanned PDF pages and images are then read by OCR (a progress bar of pages) unless
  --no-ocr; an unfinished OCR run resumes on the next index or serve (config "ocr":
  {"pdf_pages": false} turns it off for PDFs, {"images": false} for images).
  --memory MB is the goal, in MiB, for the memory (PSS) of shelfmark and its extraction
  processes while they index (default: config "limits": {"index_memory_mb"}, else 600; at
  least 300): more lets more files be read at once, less makes them take turns.`,
  },
  serve: {
    synopsis: "serve [PATH...] [--stdio|--http]",
    summary: "MCP server over stdio or HTTP; indexes in the background",
    usage:
      `shelfmark serve [PATH...] [--stdio | --http [--host 127.0.0.1] [--port 60606] [--token-file F]] [--no-watch] [--structured]
  Serve the MCP tools over stdio (the default) or Streamable HTTP at /mcp (the next free
  port is taken when 60606 is busy; a token is required beyond loopback; Host and Origin
  are checked). The token is read from --token-file F (first line), SHELFMARK_TOKEN or
  --token T (visible to other local users in ps). The handshake answers at once; indexing
  runs in the background and answers say index=building until it is done. File changes are
  picked up while serving (answers say stale until they are indexed); --no-watch turns that off.
  --structured declares every tool's outputSchema and puts the JSON answer in
  structuredContent of every result (for clients that read it; some hand the model that JSON
  instead of the shorter markdown). --memory MB: the indexing memory goal, as for index.`,
  },
  demo: {
    synopsis: "demo",
    summary: "index the bundled samples and walk through the tools",
    usage: `shelfmark demo
  Index the sample documents shipped with shelfmark into a temporary data directory and
  run search -> outline -> read -> grep on them.`,
  },
};

const COMMANDS: [string, string][] = [
  [OWN.index!.synopsis, OWN.index!.summary],
  [OWN.serve!.synopsis, OWN.serve!.summary],
  ...TOOLS.map((t): [string, string] => [t.cli.synopsis, t.cli.summary]),
  [OWN.demo!.synopsis, OWN.demo!.summary],
];

const COMMON: [string, string][] = [
  ["--data DIR", "data directory (default: $SHELFMARK_HOME or the user data folder)"],
  ["--json", "JSON output (the tools' structured answer)"],
  ["--full-paths", "show absolute paths"],
  ["--fresh", "index changed files before answering (MCP: wait_for_index)"],
  ["--extractor FILE", "load an extractor plugin (repeatable)"],
  ["--embedder NAME", "default (offline, built in), none, ollama:<model>, openai:<model> or"],
  ["", "onnx:<folder>; saved to shelfmark.json (also $SHELFMARK_EMBEDDER)"],
  ["--store URL", "keyword index in PostgreSQL: postgres://user@host:5432/db (no password:"],
  ["", "PGPASSWORD or ~/.pgpass); saved to shelfmark.json"],
  ["--store-read URL", "searches read this streaming replica of --store; saved to shelfmark.json"],
  ["-h, --help", "help for a command"],
];

/** The main help text. */
export const HELP = `shelfmark — a map of your local documents for AI agents

Usage: shelfmark <command> [args] [options]

Commands:
${columns(COMMANDS)}

Options for every command:
${columns(COMMON)}

A tool's arguments are its flags: doc_types is --doc-types, case_insensitive
--case-insensitive (a list comma-separated). Run \`shelfmark <command> --help\` for a command.
Exit codes: 0 ok, 1 error, 2 bad usage.`;

/** A schema's description, or that of the schema it wraps (`.optional()`, `.default()`). */
function describe(s: unknown): string {
  let t = s as { description?: string; _zod?: { def: { innerType?: unknown } } } | undefined;
  while (t && !t.description && t._zod?.def.innerType) t = t._zod.def.innerType as typeof t;
  return t?.description ?? "";
}

/** The flags of a tool's arguments, with their range and description, one a line. */
function flagLines(tool: (typeof TOOLS)[number]): string {
  const shape = schemas[tool.name];
  const short = Object.fromEntries(Object.entries(tool.cli.short ?? {}).map(([k, v]) => [v, k]));
  const rows = Object.entries(argFlags(shape, tool.cli)).map(([flag, f]): [string, string] => {
    const value = f.kind === "boolean"
      ? ""
      : f.kind === "int"
      ? f.max !== undefined ? ` ${f.min ?? 0}-${f.max}` : f.min !== undefined ? ` ${f.min}+` : " N"
      : f.kind === "list"
      ? " A,B"
      : f.values
      ? ` ${f.values.join("|")}`
      : " TEXT";
    const letter = short[flag] ? `-${short[flag]}, ` : "";
    const about = describe(shape[f.arg]);
    return [`${letter}--${flag}${value}`, about];
  });
  return rows.length ? `\n\nFlags (the tool's arguments):\n${columns(rows)}` : "";
}

/** Usage of one command. */
export function usage(cmd: string): string {
  const tool = TOOLS.find((t) => commandOf(t) === cmd);
  if (tool) return `${tool.cli.usage}${flagLines(tool)}`;
  return OWN[cmd]?.usage ?? HELP;
}
