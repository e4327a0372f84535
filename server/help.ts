/**
 * Help texts of the command line.
 *
 * @module
 */

/** The main help text. */
export const HELP = `shelfmark — a map of your local documents for AI agents

Usage: shelfmark <command> [args] [options]

Commands:
  index [PATH...]                 build or update the index (folders become libraries)
  serve [PATH...] [--stdio|--http] MCP server over stdio or HTTP; indexes in the background
  search QUERY                    documents for a query
  outline ID [ID...]              table of contents with line ranges
  read ID                         numbered lines of a document
  grep PATTERN ID                 regex matches inside a document
  find-paths PATTERN...           folders whose path contains a keyword
  libraries [add NAME PATH | remove NAME]
  explore [LIBRARY]               what a library holds
  similar ID                      documents nearest in meaning to one document
  status                          index state, vectors and skipped files
  demo                            index the bundled samples and walk through the tools

Options for every command:
  --data DIR        data directory (default: $SHELFMARK_HOME or the user data folder)
  --json            JSON output (the tools' structured answer)
  --full-paths      show absolute paths
  --extractor FILE  load an extractor plugin (repeatable)
  --embedder NAME   default (offline, built in), none, ollama:<model> or openai:<model>;
                    saved to shelfmark.json (also $SHELFMARK_EMBEDDER)
  -h, --help        help for a command

Run \`shelfmark <command> --help\` for the options of a command.
Exit codes: 0 ok, 1 error, 2 bad usage.`;

const USAGE: Record<string, string> = {
  index: `shelfmark index [PATH...] [--watch] [--quiet]
  Index the configured libraries, adding each PATH as a library named after its folder.
  Unchanged files are not re-read; deleted files leave the index. Progress goes to stderr.
  --watch keeps running and re-indexes what changes. Document vectors are computed after
  the keyword index (a second progress bar); --no-vectors leaves them for later.`,
  serve:
    `shelfmark serve [PATH...] [--stdio | --http [--host 127.0.0.1] [--port 60606] [--token T]] [--no-watch]
  Serve the MCP tools over stdio (the default) or Streamable HTTP at /mcp (the next free
  port is taken when 60606 is busy; a token is required beyond loopback; Origin is checked). The handshake answers at once; indexing
  runs in the background and answers say index=building until it is done. File changes are
  picked up while serving (answers say stale until they are indexed); --no-watch turns that off.`,
  search:
    `shelfmark search QUERY [--limit 20] [--type pdf,docx] [--library NAME] [--glob 'Lib/dir/*']
                 [--after 2024-01-01] [--before 2024-12-31] [--sort default|newest|oldest]
                 [--mode hybrid|keyword|semantic] [--json]
  Query syntax: words (ranked, need not all match), "a phrase" (must match), -word (exclude),
  +word (require), a|b (alternatives).`,
  outline: `shelfmark outline ID [ID...] [--expand 2,3.1] [--max-tokens 2000] [--json]`,
  read: `shelfmark read ID [--offset 1] [--limit 200] [--page N] [--json]`,
  grep:
    `shelfmark grep PATTERN ID [-C 3] [-B N] [-A N] [-i] [--count] [--limit 20] [--offset 0] [--json]`,
  "find-paths": `shelfmark find-paths PATTERN... [--library NAME] [--limit 10] [--json]`,
  libraries: `shelfmark libraries [--json]
shelfmark libraries add NAME PATH [--description TEXT]
shelfmark libraries remove NAME`,
  explore: `shelfmark explore [LIBRARY] [--json]`,
  status: `shelfmark status [--skipped-offset 0] [--skipped-limit 100] [--json]`,
  similar: `shelfmark similar ID [--limit 10] [--json]
  Documents nearest to ID by their document vectors (needs the vectors: see status).`,
  demo: `shelfmark demo
  Index the sample documents shipped with shelfmark into a temporary data directory and
  run search -> outline -> read -> grep on them.`,
};

/** Usage of one command. */
export function usage(cmd: string): string {
  return USAGE[cmd] ?? HELP;
}
