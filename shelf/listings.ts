/**
 * Documents and folders as the listing tools ask for them: a folder's sub-folders and
 * documents (`browse`), the most recently modified documents (`recent`), documents by
 * name (`find_documents`), a library's overview (`explore`), the values of a front-matter
 * field (`list_tags`), folders by keyword (`find_paths`). Paths are display paths,
 * `<library>/<path inside it>`.
 *
 * @module
 */
import { statSync } from "node:fs";
import { resolve } from "node:path";
import { fieldValueCounts, type FieldValues, topFieldValues } from "../core/fields.ts";
import { type DocEntry, docTable, under } from "../core/listing.ts";
import { type SearchFilters, ToolError } from "../core/types.ts";
import {
  type MatchKind,
  matchNames,
  type NameMatch,
  type Names,
  namesOf,
} from "../search/names.ts";
import { findPaths, type PathAggregate } from "../search/path.ts";
import type { Shelf } from "./shelf.ts";
import { partsOf } from "./_parts.ts";
import { storePath } from "./documents.ts";

/** The file name of a path. */
export function fileName(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

/** A sub-folder (or, at the top, a library). */
export interface Folder {
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

/** How to list a folder. */
export interface BrowseRequest {
  /** The folder, `<library>/<dir>`; undefined for the libraries. */
  path?: string;
  /** By name, or newest first. */
  sort: "name" | "newest";
  /** Entries to skip (folders first). */
  offset: number;
  /** Entries to return. */
  limit: number;
}

/** A page of a folder's entries: its sub-folders first, then its documents. */
export interface FolderListing {
  /** The folder browsed; null for the libraries. */
  path: string | null;
  /** The order: by name, or newest first. */
  sort: "name" | "newest";
  /** Entries skipped (folders first). */
  offset: number;
  /** Entries asked for. */
  limit: number;
  /** Its sub-folders (for the libraries: libraries) in all. */
  total_folders: number;
  /** Documents directly in it, in all. */
  total_documents: number;
  /** This page's sub-folders (or libraries). */
  folders: Folder[];
  /** This page's documents, after its folders. */
  documents: DocEntry[];
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
async function emptyFolder(shelf: Shelf, folder: string, arg: string): Promise<string> {
  const id = await partsOf(shelf).store.idByPath(folder);
  if (id) {
    throw new ToolError(
      "INVALID_ARGUMENT",
      `${JSON.stringify(arg)} is a document, not a folder`,
      `outline or read it (doc_id ${id}); browse its folder to see its neighbours.`,
    );
  }
  const [name, ...rest] = folder.split("/");
  // another machine's library has no folder here: its folders are those of its documents
  const lib = shelf.libraries.find((l) => l.name === name);
  let dir = false;
  try {
    dir = lib !== undefined && statSync(resolve(lib.root, ...rest)).isDirectory();
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

/**
 * A page of a folder's sub-folders and documents, as the index holds them (the catalog
 * store's listing); without a path, the libraries. A path that is a document, or no folder
 * at all, is refused.
 */
export async function browseFolder(shelf: Shelf, a: BrowseRequest): Promise<FolderListing> {
  const { entries } = await partsOf(shelf).store.table();
  let folders: Folder[];
  let docs: DocEntry[] = [];
  let path: string | null = null;
  let note: string | undefined;
  if (a.path === undefined) {
    const others = (await shelf.otherLibraries()).map((name) => ({ name, description: undefined }));
    folders = [...shelf.libraries, ...others].map((lib) => {
      const g = group(under(entries, lib.name), lib.name.length + 1);
      const all = [...g.folders.values()];
      return {
        name: lib.name,
        path: lib.name,
        documents: g.files.length + all.reduce((s, f) => s + f.documents, 0),
        folders: g.folders.size,
        modified_at: [...g.files.map((d) => d.modified_at), ...all.map((f) => f.modified)]
          .reduce((x, y) => (y > x ? y : x), ""),
        description: lib.description,
      };
    });
  } else {
    path = storePath(shelf, a.path);
    const inside = under(entries, path);
    if (!inside.length) note = await emptyFolder(shelf, path, a.path);
    const g = group(inside, path.length + 1);
    docs = g.files;
    folders = [...g.folders].map(([name, f]) => ({
      name,
      path: `${path}/${name}`,
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
  return {
    path,
    sort: a.sort,
    offset: a.offset,
    limit: a.limit,
    total_folders: folders.length,
    total_documents: docs.length,
    folders: folders.slice(a.offset, end),
    documents: docs.slice(Math.max(0, a.offset - folders.length), end - folders.length),
    next_offset: end < total ? end : undefined,
    note,
  };
}

/** The most recently modified documents under search filters, newest first. */
export function recentDocuments(shelf: Shelf, filters: SearchFilters, limit: number): DocEntry[] {
  const ids = partsOf(shelf).catalog.recentIds(filters, limit);
  const { byId } = docTable(partsOf(shelf).catalog);
  return ids.flatMap((id) => {
    const e = byId.get(id);
    return e ? [e] : [];
  });
}

/** Normalised names of the documents of a table, made once per table. */
export type NamesCache = WeakMap<DocEntry[], Names[]>;

/** How to find documents by name. */
export interface NameRequest {
  /** The name, normalised (`normalizeName`). */
  query: string;
  /** Tolerate typos. */
  fuzzy: boolean;
  /** Only this library. */
  library?: string;
  /** Only these types (lower case). */
  doc_types: string[];
  /** Documents to return. */
  limit: number;
}

/** Documents found by name, best first, with how each matched. */
export interface NameMatches {
  /** Documents matching, in all. */
  total: number;
  /** Documents matching by each kind of match. */
  counts: Partial<Record<MatchKind, number>>;
  /** The first `limit` of them. */
  matches: { entry: DocEntry; match: NameMatch }[];
}

/**
 * Documents whose file name or title matches: exact, then prefix, then contains, and with
 * `fuzzy` names within a few typos (the catalog store's listing).
 *
 * @param names the normalised names of each table seen (kept by the shelf)
 */
export async function documentsNamed(
  shelf: Shelf,
  names: NamesCache,
  r: NameRequest,
): Promise<NameMatches> {
  const types = new Set(r.doc_types);
  const { entries } = await partsOf(shelf).store.table();
  let all = names.get(entries);
  if (!all) names.set(entries, all = entries.map((e) => namesOf(e.path, e.title)));
  const hits: { entry: DocEntry; match: NameMatch }[] = [];
  entries.forEach((entry, i) => {
    if (r.library !== undefined && entry.library !== r.library) return;
    if (types.size && !types.has(entry.doc_type)) return;
    const match = matchNames(r.query, all[i]!, r.fuzzy);
    if (match) hits.push({ entry, match });
  });
  hits.sort((x, y) => x.match.score - y.match.score || (x.entry.path < y.entry.path ? -1 : 1));
  const counts: Partial<Record<MatchKind, number>> = {};
  for (const h of hits) counts[h.match.kind] = (counts[h.match.kind] ?? 0) + 1;
  return { total: hits.length, counts, matches: hits.slice(0, r.limit) };
}

/** Folders shown by an overview, at most. */
const MAX_DIRS = 40;
/** Folder depth an overview counts. */
const MAX_DEPTH = 3;

function median(xs: number[]): number {
  if (!xs.length) return 0;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : Math.round((s[m - 1]! + s[m]!) / 2);
}

/** What a library (or every library) holds, at a glance. */
export interface LibraryOverview {
  /** The library described; null for every library. */
  library: string | null;
  /** Documents indexed in it. */
  document_count: number;
  /** Documents of each type, most first. */
  doc_types: Record<string, number>;
  /** Folders with their file counts and median sizes (the first levels when too many). */
  directories: { path: string; file_count: number; median_words: number }[];
  /** Folders in all. */
  directories_total: number;
  /** Keywords of several documents, most common first, with the folders they come from. */
  top_keywords: { keyword: string; documents: number; directories: string[] }[];
}

/** An overview of one library (or of all): types, folders, top keywords. */
export function libraryOverview(shelf: Shelf, library?: string): LibraryOverview {
  const types = new Map<string, number>();
  const dirs = new Map<string, number[]>();
  const kw = new Map<string, Map<string, number>>();
  let total = 0;
  for (const c of partsOf(shelf).catalog.iterCards(library)) {
    total++;
    types.set(c.doc_type, (types.get(c.doc_type) ?? 0) + 1);
    const parts = c.path.split("/").slice(0, -1);
    for (let d = 1; d <= Math.min(parts.length, MAX_DEPTH); d++) {
      const dir = parts.slice(0, d).join("/");
      let list = dirs.get(dir);
      if (!list) dirs.set(dir, list = []);
      list.push(c.word_count);
    }
    const dir = parts.slice(0, Math.min(parts.length, MAX_DEPTH)).join("/");
    for (const k of c.keywords.slice(0, 5)) {
      let m = kw.get(k);
      if (!m) kw.set(k, m = new Map());
      m.set(dir, (m.get(dir) ?? 0) + 1);
    }
  }
  const directories = [...dirs.entries()]
    .map(([path, wc]) => ({ path, file_count: wc.length, median_words: median(wc) }))
    .sort((x, y) => x.path.localeCompare(y.path));
  const shown = directories.length > MAX_DIRS
    ? directories.filter((d) => d.path.split("/").length <= 2).slice(0, MAX_DIRS)
    : directories;
  const keywords = [...kw.entries()]
    .map(([keyword, m]) => ({
      keyword,
      documents: [...m.values()].reduce((s, n) => s + n, 0),
      directories: [...m.entries()].sort((x, y) => y[1] - x[1]).slice(0, 3).map(([d]) => d),
    }))
    .filter((k) => k.documents > 1)
    .sort((x, y) => y.documents - x.documents || x.keyword.localeCompare(y.keyword))
    .slice(0, 20);
  return {
    library: library ?? null,
    document_count: total,
    doc_types: Object.fromEntries([...types.entries()].sort((x, y) => y[1] - x[1])),
    directories: shown,
    directories_total: directories.length,
    top_keywords: keywords,
  };
}

/**
 * The distinct values of an indexed front-matter field (folded), most used first: the
 * catalog's, and on a server of a shared store every other machine's too (`library`: one
 * library, the own machine's or another's, `laptop:Papers`).
 */
export async function tagValues(
  shelf: Shelf,
  field: string,
  library: string | undefined,
  limit: number,
): Promise<FieldValues> {
  const { catalog, store } = partsOf(shelf);
  const own = library !== undefined && shelf.libraries.some((l) => l.name === library);
  const others = own ? [] : await store.otherFieldValues?.(field, library) ?? [];
  const mine = own || library === undefined ? fieldValueCounts(catalog.db, field, library) : [];
  return topFieldValues([...mine, ...others], limit);
}

/** Folders whose path contains any of the patterns, with their file counts. */
export function foldersMatching(
  shelf: Shelf,
  patterns: string[],
  library: string | undefined,
  limit: number,
): PathAggregate {
  return findPaths(partsOf(shelf).catalog, { patterns, library, limit });
}
