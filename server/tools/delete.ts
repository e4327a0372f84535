/**
 * `delete`: delete a file of a writable library and its document (hidden unless writing
 * is on).
 *
 * @module
 */
import { defineTool } from "../tool.ts";
import { ifMatchArg, messageArg, pathCommand, shown, vaultOut, vaultPath } from "./_vault.ts";
import { z } from "zod";

const USAGE = `shelfmark delete PATH [--if-match V] [--message M]
  Needs --write LIBRARY (or "write": true in shelfmark.json).`;

/** The `delete` tool. */
export const deleteTool = defineTool({
  name: "delete",
  title: "Delete a file",
  readOnly: false,
  vault: true,
  waitsForIndex: false,
  description: "Delete a file of a writable library, and its document from the index.",
  input: { path: vaultPath, if_match: ifMatchArg, message: messageArg },
  output: { path: z.string(), ...vaultOut },
  async run(shelf, a) {
    const r = await shelf.deleteFile({ path: a.path, ifMatch: a.if_match, message: a.message });
    return { ...r, path: shown(shelf, r.path) };
  },
  markdown(r) {
    return `Deleted ${r.path}. ` + `Version it had: ${r.version}` +
      (r.doc_id ? `; doc ${r.doc_id} removed from the index` : "") +
      (r.commit ? `; commit ${r.commit}` : "") + ".";
  },
  cli: pathCommand("delete", "delete a file (with --write LIBRARY)", USAGE),
});
