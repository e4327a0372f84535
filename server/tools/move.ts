/**
 * `move`: move or rename a file within or between writable libraries (hidden unless
 * writing is on).
 *
 * @module
 */
import { z } from "zod";
import { defineTool, needArgs } from "../tool.ts";
import { ifMatchArg, messageArg, shown, vaultOut, vaultPath, vaultTail } from "./_vault.ts";
import { optString } from "./_output.ts";

const USAGE = `shelfmark move FROM TO [--if-match V] [--message M]
  TO may be in another writable library; its folders are created; an existing file is never
  replaced. Needs --write LIBRARY (or "write": true in shelfmark.json).`;

/** The `move` tool. */
export const move = defineTool({
  name: "move",
  title: "Move a file",
  readOnly: false,
  vault: true,
  waitsForIndex: false,
  description:
    "Move or rename a file to a new path in the same or another writable library (folders created, never overwrites).",
  input: {
    from: vaultPath,
    to: vaultPath.describe("New <library>/<path>; must not exist"),
    if_match: ifMatchArg,
    message: messageArg,
  },
  output: { from: z.string(), to: z.string(), source_commit: optString, ...vaultOut },
  async run(shelf, a) {
    const r = await shelf.moveFile({
      from: a.from,
      to: a.to,
      ifMatch: a.if_match,
      message: a.message,
    });
    return { ...r, from: shown(shelf, r.from), to: shown(shelf, r.to) };
  },
  markdown(r) {
    return `Moved ${r.from} to ${r.to}. ${vaultTail(r)}` +
      (r.source_commit ? ` Commit in the source library: ${r.source_commit}.` : "");
  },
  cli: {
    synopsis: "move FROM TO",
    summary: "move or rename a file (with --write LIBRARY)",
    usage: USAGE,
    positional: ["from", "to"],
    args(pos) {
      needArgs(pos, 2, "FROM and TO", USAGE);
      return { from: pos[0], to: pos[1] };
    },
  },
});
