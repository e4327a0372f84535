/**
 * `edit`: replace text in a text file of a writable library (hidden unless writing is on).
 *
 * @module
 */
import { z } from "zod";
import { defineTool } from "../tool.ts";
import {
  ifMatchArg,
  messageArg,
  pathCommand,
  shown,
  vaultOut,
  vaultPath,
  vaultTail,
} from "./_vault.ts";
import { MAX_WRITE_BYTES } from "../../shelf/vault.ts";

const USAGE =
  `shelfmark edit PATH --new-text TEXT [--old-text TEXT] [--start-line N] [--end-line M] [--if-match V]
  --old-text alone: that text, which must occur once, is replaced (exactly, else after
  normalizing quotes, dashes and spaces); a line range alone: those lines; both: the text
  inside the range. Needs --write LIBRARY (or "write": true in shelfmark.json).`;

const line = z.number().int().min(1);

/** The `edit` tool. */
export const edit = defineTool({
  name: "edit",
  title: "Edit a file",
  readOnly: false,
  vault: true,
  waitsForIndex: false,
  description:
    "Replace old_text (must occur once; quotes/dashes/spaces normalized if no exact match) or the file's lines start_line-end_line (read numbers Markdown and text the same), or old_text within them, by new_text. Indexed before the answer.",
  input: {
    path: vaultPath,
    old_text: z.string().min(1).max(MAX_WRITE_BYTES).optional().describe("Text to replace"),
    new_text: z.string().max(MAX_WRITE_BYTES).describe("Replacement"),
    start_line: line.optional().describe("First line of the range"),
    end_line: line.optional().describe("Last line (default start_line)"),
    if_match: ifMatchArg,
    message: messageArg,
  },
  output: {
    path: z.string(),
    match_type: z.enum(["exact", "normalized", "lines"]),
    start_line: z.number().int(),
    end_line: z.number().int(),
    ...vaultOut,
  },
  async run(shelf, a) {
    const r = await shelf.editFile({
      path: a.path,
      oldText: a.old_text,
      newText: a.new_text,
      startLine: a.start_line,
      endLine: a.end_line,
      ifMatch: a.if_match,
      message: a.message,
    });
    return { ...r, path: shown(shelf, r.path) };
  },
  markdown(r) {
    const lines = r.start_line === r.end_line
      ? `line ${r.start_line}`
      : `lines ${r.start_line}-${r.end_line}`;
    const how = r.match_type === "normalized" ? " (normalized match)" : "";
    return `Edited ${r.path} at ${lines}${how}. ${vaultTail(r)}`;
  },
  cli: pathCommand("edit", "replace text in a file (with --write LIBRARY)", USAGE),
});
