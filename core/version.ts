/**
 * The version of shelfmark, in one place (the CLI's `--version` and MCP's `initialize`).
 * `deno.json` carries the same number for publishing; a test checks that they agree.
 *
 * @module
 */

/** The version of shelfmark. */
export const VERSION = "0.1.0";
