/**
 * `find_paths`: folders whose path contains any of the keywords, with file counts.
 *
 * @module
 */
import { z } from "zod";
import {
  argNames,
  checkLibrary,
  defineTool,
  escapeControl,
  libraryArg,
  needArgs,
} from "../tool.ts";
import { obj } from "./_output.ts";
import { count } from "./_listing.ts";

const USAGE = `shelfmark find-paths PATTERN... [--library NAME] [--limit 10] [--json]`;

/** The `find_paths` tool. */
export const findPaths = defineTool({
  name: "find_paths",
  title: "Find folders",
  description:
    "Folders whose path contains any of the keywords, with file counts: for questions that name a project, collection or folder.",
  input: {
    patterns: z.array(z.string().min(1).max(200)).min(1).max(20).describe(
      "Keywords, OR-ed, each a case-insensitive %keyword% match on folder paths",
    ),
    library: libraryArg.optional(),
    limit: z.number().int().min(1).max(50).default(10).describe("Folders to return (max 50)"),
  },
  output: {
    directories: z.array(obj({ path: z.string(), file_count: z.number().int() })),
    total_files: z.number().int(),
    truncated: z.boolean().optional(),
  },
  run(shelf, a) {
    checkLibrary(shelf, a.library);
    return shelf.findFolders(a.patterns, a.library, a.limit);
  },
  markdown(r, render) {
    if (!r.directories.length) return "No folders match.";
    const out = [
      `${count(r.total_files, "file")} in ${r.directories.length}${r.truncated ? "+" : ""} ${
        r.directories.length === 1 && !r.truncated ? "folder" : "folders"
      }:`,
    ];
    for (const d of r.directories) {
      out.push(`- ${escapeControl(d.path)}/ (${count(d.file_count, "file")})`);
    }
    if (r.truncated) {
      out.push(`(more folders; raise ${argNames(render, "limit")} or use narrower patterns)`);
    }
    return out.join("\n");
  },
  cli: {
    synopsis: "find-paths PATTERN...",
    summary: "folders whose path contains a keyword",
    usage: USAGE,
    positional: ["patterns"],
    short: { n: "limit" },
    args(pos) {
      needArgs(pos, 1, "PATTERN", USAGE);
      return { patterns: pos };
    },
  },
});
