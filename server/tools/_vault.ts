/**
 * What the write tools (`write`, `edit`, `move`, `delete`) share: their common arguments
 * and the end of their answers (version, commit).
 *
 * @module
 */
import { z } from "zod";
import { type CliForm, escapeControl, needArgs, shownPath } from "../tool.ts";
import type { Shelf } from "../../shelf/shelf.ts";
import { optString } from "./_output.ts";

/** A file's path in a writable library. */
export const vaultPath: z.ZodString = z.string().min(1).max(4096).describe(
  "<library>/<path inside it>",
);
/** The version the file must have (from read, or an earlier write). */
export const ifMatchArg: z.ZodOptional<z.ZodString> = z.string().regex(
  /^[0-9a-fA-F]{16}$/,
  "a version tag from read (16 hex digits)",
).optional().describe("Refuse (CONFLICT) unless the file is still at this version (from read)");
/** The commit message in a repository library. */
export const messageArg: z.ZodOptional<z.ZodString> = z.string().min(1).max(2000).optional()
  .describe("Commit message (git libraries)");

/** The output fields every write answer has. */
export const vaultOut = { version: z.string(), commit: optString, doc_id: optString };

/** An answer's path as shown (absolute with `--full-paths`), control characters escaped. */
export function shown(shelf: Shelf, path: string): string {
  return escapeControl(shownPath(shelf, path));
}

/** The command-line form of a write tool whose one positional argument is `PATH`. */
export function pathCommand(command: string, summary: string, usage: string): CliForm {
  return {
    synopsis: `${command} PATH`,
    summary,
    usage,
    positional: ["path"],
    args(pos) {
      needArgs(pos, 1, "PATH", usage);
      return { path: pos[0] };
    },
  };
}

/** The end of a write's markdown: its version, document and commit. */
export function vaultTail(r: { version: string; doc_id?: string; commit?: string }): string {
  return `Version ${r.version}` + (r.doc_id ? `, doc ${r.doc_id}` : ", not indexed") +
    (r.commit ? `, commit ${r.commit}` : "") + ".";
}
