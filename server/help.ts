/**
 * Help texts of the command line: the commands of their own (`index`, `serve`, `demo`)
 * and, from the table of tools, one line and a usage per tool.
 *
 * @module
 */
import { TOOLS } from "./tools/mod.ts";

/** The command a tool answers on the command line. */
export function commandOf(tool: { name: string; cli: { command?: string } }): string {
  return tool.cli.command ?? tool.name.replaceAll("_", "-");
}

const OWN: Record<string, { summary: string; usage: string }> = {
  index: {
    summary: "index [PATH...]                 build or update the index (folders become libraries)",
    usage: `shelfmark index [PATH...] [--watch] [--quiet]
  Index the configured libraries, adding each PATH as a library named after its folder.
  Unchanged files are not re-read; deleted files leave the index. Progress goes to stderr.
  --watch keeps running and re-indexes what changes. Keyword search works from the first
  documents on. Vectors: with the built-in model keyword search is the default (it ranks
  better), so index leaves them to serve (background) unless --vectors; with another model
  they are computed after the keyword index (a second progress bar) unless --no-vectors.`,
  },
  serve: {
    summary:
      "serve [PATH...] [--stdio|--http] MCP server over stdio or HTTP; indexes in the background",
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
  instead of the shorter markdown).`,
  },
  demo: {
    summary: "demo                            index the bundled samples and walk through the tools",
    usage: `shelfmark demo
  Index the sample documents shipped with shelfmark into a temporary data directory and
  run search -> outline -> read -> grep on them.`,
  },
};

/** The main help text. */
export const HELP = `shelfmark — a map of your local documents for AI agents

Usage: shelfmark <command> [args] [options]

Commands:
  ${OWN.index!.summary}
  ${OWN.serve!.summary}
${TOOLS.map((t) => `  ${t.cli.summary}`).join("\n")}
  ${OWN.demo!.summary}

Options for every command:
  --data DIR        data directory (default: $SHELFMARK_HOME or the user data folder)
  --json            JSON output (the tools' structured answer)
  --full-paths      show absolute paths
  --fresh           index changed files before answering (MCP: wait_for_index)
  --extractor FILE  load an extractor plugin (repeatable)
  --embedder NAME   default (offline, built in), none, ollama:<model>, openai:<model> or
                    onnx:<folder>; saved to shelfmark.json (also $SHELFMARK_EMBEDDER)
  -h, --help        help for a command

Run \`shelfmark <command> --help\` for the options of a command.
Exit codes: 0 ok, 1 error, 2 bad usage.`;

/** Usage of one command. */
export function usage(cmd: string): string {
  const tool = TOOLS.find((t) => commandOf(t) === cmd);
  return tool?.cli.usage ?? OWN[cmd]?.usage ?? HELP;
}
