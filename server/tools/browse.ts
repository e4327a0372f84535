/**
 * `browse`: one folder of a library as the index holds it — its sub-folders with their
 * document and sub-folder counts, then its documents with title, type, lines, size and
 * modification time; without a path, the libraries themselves. Paginated, sorted by name
 * or newest first.
 *
 * @module
 */
import { statSync } from "node:fs";
import { resolve } from "node:path";
import { z } from "zod";
import { type DocEntry, docTable, under } from "../../core/listing.ts";
import { confinePath } from "../../core/paths.ts";
import { ToolError } from "../../core/types.ts";
import type { Shelf } from "../../shelf/shelf.ts";
import { argHint, defineTool, escapeControl, n, shownPath } from "../tool.ts";
import { count, type DocCard, docCard, docLine, fileName } from "./_listing.ts";
import { docEntry, nextOffset, obj } from "./_output.ts";

const USAGE =
  `shelfmark browse [LIBRARY/DIR] [--sort name|newest] [--offset 0] [--limit 50] [--json]`;

/** A sub-folder (or, at the top, a library). */
interface Folder {
  /** Its name. */
  name: string;
  /** Its path, to browse it. */
  path: string;
  /** Documents under it, at any depth. */
  documents: number;
  /** Its direct sub-folders. */
  folders: number;
  /** Modification time of its newest document. */
  modified_at: string;
  /** A library's description. */
  description?: string;
}

/** The answer. */
interface Listing {
  /** The folder browsed; null for the libraries. */
  path: string | null;
  sort: "name" | "newest";
  offset: number;
  limit: number;
  total_folders: number;
  total_documents: number;
  folders: Folder[];
  documents: (DocCard & { name: string })[];
  /** Offset of the next page, when there is one. */
  next_offset?: number;
  /** Why the folder shows nothing. */
  note?: string;
}

const collator = new Intl.Collator("en", { numeric: true, sensitivity: "base" });
const byName = (a: string, b: string) => collator.compare(a, b) || (a < b ? -1 : a > b ? 1 : 0);

/** The direct sub-folders and documents of a folder, from the documents under it. */
function group(docs: DocEntry[], prefixLength: number) {
  const folders = new Map<string, { documents: number; sub: Set<string>; modified: string }>();
  const files: DocEntry[] = [];
  for (const d of docs) {
    const rest = d.path.slice(prefixLength);
    const i = rest.indexOf("/");
    if (i < 0) {
      files.push(d);
      continue;
    }
    const name = rest.slice(0, i);
    let f = folders.get(name);
    if (!f) folders.set(name, f = { documents: 0, sub: new Set(), modified: "" });
    f.documents++;
    const j = rest.indexOf("/", i + 1);
    if (j >= 0) f.sub.add(rest.slice(i + 1, j));
    if (d.modified_at > f.modified) f.modified = d.modified_at;
  }
  return { folders, files };
}

/** Why a folder with no indexed document shows nothing, or a refusal when it is none. */
function emptyFolder(shelf: Shelf, folder: string, arg: string): string {
  const id = shelf.catalog.idByPath(folder);
  if (id) {
    throw new ToolError(
      "INVALID_ARGUMENT",
      `${JSON.stringify(arg)} is a document, not a folder`,
      `outline or read it (doc_id ${id}); browse its folder to see its neighbours.`,
    );
  }
  const [name, ...rest] = folder.split("/");
  const lib = shelf.libraries.find((l) => l.name === name)!;
  let dir = false;
  try {
    dir = statSync(resolve(lib.root, ...rest)).isDirectory();
  } catch { /* missing */ }
  if (!dir) {
    throw new ToolError(
      "INVALID_ARGUMENT",
      `No folder ${JSON.stringify(arg)}`,
      `browse ${JSON.stringify(name)} to see its folders (paths are case-sensitive).`,
    );
  }
  return "No indexed document in this folder.";
}

function browseFolder(
  shelf: Shelf,
  a: { path?: string; sort: "name" | "newest"; offset: number; limit: number },
): Listing {
  const { entries } = docTable(shelf.catalog.db);
  let folders: Folder[];
  let docs: DocEntry[] = [];
  let path: string | null = null;
  let note: string | undefined;
  if (a.path === undefined) {
    folders = shelf.libraries.map((lib) => {
      const g = group(under(entries, lib.name), lib.name.length + 1);
      const all = [...g.folders.values()];
      return {
        name: lib.name,
        path: shownPath(shelf, lib.name),
        documents: g.files.length + all.reduce((s, f) => s + f.documents, 0),
        folders: g.folders.size,
        modified_at: [...g.files.map((d) => d.modified_at), ...all.map((f) => f.modified)]
          .reduce((x, y) => (y > x ? y : x), ""),
        description: lib.description,
      };
    });
  } else {
    path = confinePath(a.path, shelf.libraries);
    const inside = under(entries, path);
    if (!inside.length) note = emptyFolder(shelf, path, a.path);
    const g = group(inside, path.length + 1);
    docs = g.files;
    folders = [...g.folders].map(([name, f]) => ({
      name,
      path: shownPath(shelf, `${path}/${name}`),
      documents: f.documents,
      folders: f.sub.size,
      modified_at: f.modified,
    }));
  }
  if (a.sort === "newest") {
    const newest = (x: string, y: string) => (x < y ? 1 : x > y ? -1 : 0);
    folders.sort((x, y) => newest(x.modified_at, y.modified_at) || byName(x.name, y.name));
    docs.sort((x, y) =>
      newest(x.modified_at, y.modified_at) || byName(fileName(x.path), fileName(y.path))
    );
  } else {
    folders.sort((x, y) => byName(x.name, y.name));
    docs.sort((x, y) => byName(fileName(x.path), fileName(y.path)));
  }
  // One list, folders first, cut into pages.
  const total = folders.length + docs.length;
  const end = Math.min(total, a.offset + a.limit);
  const shownFolders = folders.slice(a.offset, end);
  const shownDocs = docs.slice(Math.max(0, a.offset - folders.length), end - folders.length);
  return {
    path: path === null ? null : shownPath(shelf, path),
    sort: a.sort,
    offset: a.offset,
    limit: a.limit,
    total_folders: folders.length,
    total_documents: docs.length,
    folders: shownFolders,
    documents: shownDocs.map((d) => ({ name: fileName(d.path), ...docCard(shelf, d) })),
    next_offset: end < total ? end : undefined,
    note,
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
