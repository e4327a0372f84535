/**
 * `browse`: one folder of a library as the index holds it — its sub-folders with their
 * document and sub-folder counts, then its documents with title, type, lines, size and
 * modification time; without a path, the libraries themselves. Paginated, sorted by name
 * or newest first.
 *
 * @module
 */
import { z } from "zod";
import { type BrowseRequest, fileName, type FolderListing } from "../../shelf/listings.ts";
import type { Shelf } from "../../shelf/shelf.ts";
import { argHint, defineTool, escapeControl, n, shownPath, shownPaths } from "../tool.ts";
import { count, type DocCard, docCard, docLine } from "./_listing.ts";
import { docEntry, nextOffset, obj } from "./_output.ts";

const USAGE =
  `shelfmark browse [LIBRARY/DIR] [--sort name|newest] [--offset 0] [--limit 50] [--json]`;

/** The answer: a folder's entries, their paths as answers show them. */
type Listing = Omit<FolderListing, "documents"> & { documents: (DocCard & { name: string })[] };

/** A page of a folder's entries (or of the libraries). */
async function browseFolder(shelf: Shelf, a: BrowseRequest): Promise<Listing> {
  const r = await shelf.browse(a);
  return {
    ...r,
    path: r.path === null ? null : shownPath(shelf, r.path),
    folders: shownPaths(shelf, r.folders),
    documents: r.documents.map((d) => ({ name: fileName(d.path), ...docCard(shelf, d) })),
  };
}

/** The `browse` tool. */
export const browse = defineTool({
  name: "browse",
  title: "Browse folders",
  description:
    "List a folder: sub-folders with document counts, then documents (doc_id, title, type, lines, size, modified). No path: the libraries. Paginated; sort by name or newest.",
  input: {
    path: z.string().min(1).max(4096).optional().describe(
      "Folder <library>/<dir> (omit for the libraries)",
    ),
    sort: z.enum(["name", "newest"]).default("name"),
    offset: z.number().int().min(0).max(1e6).default(0).describe("Entries to skip (folders first)"),
    limit: z.number().int().min(1).max(200).default(50),
  },
  output: {
    path: z.string().nullable(),
    total_folders: z.number().int(),
    total_documents: z.number().int(),
    folders: z.array(obj({ name: z.string(), path: z.string(), documents: z.number().int() })),
    documents: z.array(docEntry),
    next_offset: nextOffset,
  },
  run: browseFolder,
  markdown(r, render) {
    const order = r.sort === "newest" ? " (newest first)" : "";
    const out = [
      r.path === null
        ? `${count(r.total_folders, "library", "libraries")}${order}:`
        : `${escapeControl(r.path)}: ${count(r.total_folders, "folder")}, ${
          count(r.total_documents, "document")
        }${order}`,
    ];
    if (r.note) out.push(r.note);
    for (const f of r.folders) {
      const sub = f.folders ? `, ${count(f.folders, "folder")}` : "";
      const desc = f.description ? ` — ${escapeControl(f.description)}` : "";
      out.push(`- ${escapeControl(f.name)}/ (${count(f.documents, "doc")}${sub})${desc}`);
    }
    for (const d of r.documents) out.push(`- ${docLine(d, d.name)}`);
    const shown = r.folders.length + r.documents.length;
    if (r.next_offset !== undefined) {
      out.push(
        `Entries ${r.offset + 1}-${r.offset + shown} of ${
          n(r.total_folders + r.total_documents)
        }; next: ${argHint(render, { offset: r.next_offset })}`,
      );
    }
    return out.join("\n");
  },
  cli: {
    synopsis: "browse [LIBRARY/DIR]",
    summary: "folders and documents of a folder",
    usage: USAGE,
    positional: ["path"],
    short: { n: "limit" },
    args: (pos) => ({ path: pos.length ? pos.join(" ") : undefined }),
  },
});
