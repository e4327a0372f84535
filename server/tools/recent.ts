/**
 * `recent`: the most recently modified documents, under the same library, path_glob and
 * doc_types filters as `search` (the catalog's `filterSql`).
 *
 * @module
 */
import { z } from "zod";
import { checkLibrary, defineTool, escapeControl, libraryArg, n } from "../tool.ts";
import { docCard, docLine } from "./_listing.ts";
import { docEntry, libraryOrAll } from "./_output.ts";

const USAGE =
  `shelfmark recent [--library NAME] [--path-glob 'Lib/dir/*'] [--doc-types pdf,docx] [--limit 20] [--json]`;

/** The `recent` tool. */
export const recent = defineTool({
  name: "recent",
  title: "Recently modified documents",
  description:
    "Most recently modified documents, newest first (doc_id, title, type, lines, size, date); filter by library, path_glob, doc_types.",
  input: {
    library: libraryArg.optional(),
    path_glob: z.string().min(1).max(1000).optional().describe(
      "GLOB on <library>/<path>, e.g. 'Notes/2024/*'",
    ),
    doc_types: z.array(z.string().min(1).max(32)).max(20).default([]).describe("Only these types"),
    limit: z.number().int().min(1).max(100).default(20),
  },
  output: { library: libraryOrAll, documents: z.array(docEntry) },
  run(shelf, a) {
    checkLibrary(shelf, a.library);
    const filters = {
      library: a.library,
      path_glob: a.path_glob,
      doc_types: a.doc_types.map((t) => t.toLowerCase()),
    };
    const documents = shelf.recentDocuments(filters, a.limit).map((e) => docCard(shelf, e));
    return { library: a.library ?? null, path_glob: a.path_glob ?? null, documents };
  },
  markdown(r) {
    const scope = [r.library, r.path_glob].filter(Boolean).map((s) => escapeControl(s!));
    if (!r.documents.length) {
      return `No documents${scope.length ? ` in ${scope.join(", ")}` : ""}.`;
    }
    const out = [
      `${n(r.documents.length)} most recently modified${
        scope.length ? ` in ${scope.join(", ")}` : ""
      }:`,
    ];
    r.documents.forEach((d, i) => out.push(`${i + 1}. ${docLine(d, d.path)}`));
    return out.join("\n");
  },
  cli: {
    synopsis: "recent",
    summary: "most recently modified documents",
    usage: USAGE,
    short: { n: "limit" },
    aliases: { glob: "path-glob", type: "doc-types" },
    args: (pos) => ({ library: pos[0] }),
  },
});
