/**
 * `explore`: what a library holds, at a glance — document types, folders with file counts
 * and median sizes, and the top keywords with the folders they come from.
 *
 * @module
 */
import { z } from "zod";
import type { LibraryOverview } from "../../shelf/listings.ts";
import type { Shelf } from "../../shelf/shelf.ts";
import { checkLibrary, defineTool, libraryArg, n } from "../tool.ts";
import { libraryOrAll, obj } from "./_output.ts";
import { count } from "./_listing.ts";

/** An overview of one library (or of all). */
function overview(shelf: Shelf, a: { library?: string }): LibraryOverview {
  checkLibrary(shelf, a.library);
  return shelf.overview(a.library);
}

/** The `explore` tool. */
export const explore = defineTool({
  name: "explore",
  title: "Explore a library",
  description:
    "Overview of a library: document types, folder structure with counts and median sizes, top keywords and where they come from.",
  input: { library: libraryArg.optional() },
  output: {
    library: libraryOrAll,
    document_count: z.number().int(),
    doc_types: z.record(z.string(), z.number().int()),
    directories: z.array(obj({ path: z.string(), file_count: z.number().int() })),
    top_keywords: z.array(obj({ keyword: z.string(), documents: z.number().int() })),
  },
  run: overview,
  markdown(r) {
    const out = [`${r.library ?? "All libraries"}: ${count(r.document_count, "document")}`];
    const types = Object.entries(r.doc_types);
    if (types.length) out.push("Types: " + types.map(([t, c]) => `${t} ${n(c)}`).join(", "));
    if (r.directories.length) out.push("", "Folders (files, median words):");
    for (const d of r.directories) {
      const depth = d.path.split("/").length - 1;
      out.push(
        `${"  ".repeat(depth)}${d.path.split("/").pop()}/ ${n(d.file_count)} files, ~${
          n(d.median_words)
        } words`,
      );
    }
    if (r.directories.length < r.directories_total) {
      out.push(`  … ${r.directories_total - r.directories.length} deeper folders (use find_paths)`);
    }
    if (r.top_keywords.length) {
      out.push("", "Top keywords (documents; folders):");
      for (const k of r.top_keywords) {
        out.push(`- ${k.keyword} (${k.documents}; ${k.directories.join(", ")})`);
      }
    }
    return out.join("\n");
  },
  cli: {
    synopsis: "explore [LIBRARY]",
    summary: "what a library holds",
    usage: `shelfmark explore [LIBRARY] [--json]`,
    args: (pos) => ({ library: pos[0] }),
  },
});
