/**
 * The git use cases of a shelf: `history`, `diff` and `sync` of the libraries that are git
 * work trees, with documents named as the other tools name them (a `doc_id`, or
 * `<library>/<path inside it>`), and the index brought up to date after a sync.
 *
 * @module
 */
import { ToolError } from "../core/types.ts";
import type { Library } from "../core/types.ts";
import type { Shelf } from "./shelf.ts";
import { type DiffAnswer, gitDiff, gitHistory, type History, isGitLibrary } from "./git.ts";
import { gitSync, type SyncAnswer } from "./git_sync.ts";

/** A library, and a path inside it when one was named. */
export interface GitTarget {
  /** The library (a git work tree). */
  library: Library;
  /** The path inside it, when a document or path was named. */
  path?: string;
}

/** The libraries of a shelf that are git work trees. */
export function gitLibraries(shelf: Shelf): Library[] {
  return shelf.libraries.filter(isGitLibrary);
}

/** `NOT_GIT` naming the library and the git libraries there are. */
function notGit(shelf: Shelf, name?: string): ToolError {
  const names = gitLibraries(shelf).map((l) => l.name);
  return new ToolError(
    "NOT_GIT",
    name === undefined
      ? "No library is a git repository"
      : `Library ${JSON.stringify(name)} is not a git repository`,
    names.length
      ? `Git libraries: ${names.join(", ")}.`
      : 'Run git init in a library\'s folder, or set "git": true on it in shelfmark.json.',
  );
}

/**
 * The library (and path) a git tool works on: `ref` is a doc_id or `<library>/<path>`
 * (a path that no longer exists is fine: its history remains); without it, `library`, or
 * the one git library there is.
 */
export function gitTarget(shelf: Shelf, ref?: string, library?: string): GitTarget {
  if (library !== undefined && !shelf.libraries.some((l) => l.name === library)) {
    throw new ToolError(
      "LIBRARY_NOT_FOUND",
      `No library named ${JSON.stringify(library)}`,
      `Libraries: ${shelf.libraries.map((l) => l.name).join(", ") || "(none)"}`,
    );
  }
  let name = library;
  let path: string | undefined;
  if (ref !== undefined) {
    const id = shelf.findDocument(ref);
    const shown = id ? shelf.cards([id]).get(id)?.path : undefined;
    const full = shown ?? ref;
    const slash = full.indexOf("/");
    const lib = shelf.libraries.find((l) => l.name === full.slice(0, slash));
    if (slash < 0 || !lib || (library !== undefined && lib.name !== library)) {
      throw new ToolError(
        "DOCUMENT_NOT_FOUND",
        `No document or path ${JSON.stringify(ref.slice(0, 300))}`,
        "Use a doc_id from search, or a path <library>/<path inside it>.",
      );
    }
    name = lib.name;
    path = full.slice(slash + 1);
  }
  const gits = gitLibraries(shelf);
  if (name === undefined) {
    if (gits.length === 1) return { library: gits[0]! };
    if (!gits.length) throw notGit(shelf);
    throw new ToolError(
      "INVALID_ARGUMENT",
      "Several libraries are git repositories: name one",
      `Git libraries: ${gits.map((l) => l.name).join(", ")}.`,
    );
  }
  const lib = gits.find((l) => l.name === name);
  if (!lib) throw notGit(shelf, name);
  return { library: lib, path };
}

/** A `history` request of the shelf. */
export interface ShelfHistoryRequest {
  /** A doc_id or `<library>/<path>`; the whole library when absent. */
  doc_id?: string;
  /** The library (default: the document's, or the one git library). */
  library?: string;
  /** Commits after this date. */
  since?: string;
  /** Commits before this date. */
  until?: string;
  /** Commits per page. */
  limit: number;
  /** Commits skipped. */
  offset: number;
}

/** Commits of a library or a path in it, with the library's name and the path. */
export interface ShelfHistory extends History {
  /** The library. */
  library: string;
  /** Its display path `<library>/<path>`, or null for the whole library. */
  path: string | null;
}

/** Display paths (`<library>/<path inside it>`), as every answer shows them. */
const shown = (lib: Library, path: string) => `${lib.name}/${path}`;

/** Commits that touched a document (or a library), newest first. */
export async function libraryHistory(shelf: Shelf, r: ShelfHistoryRequest): Promise<ShelfHistory> {
  const t = gitTarget(shelf, r.doc_id, r.library);
  const h = await gitHistory(t.library.root, { ...r, path: t.path });
  const commits = h.commits.map((c) => ({ ...c, files: c.files.map((f) => shown(t.library, f)) }));
  return {
    library: t.library.name,
    path: t.path === undefined ? null : shown(t.library, t.path),
    commits,
    next_offset: h.next_offset,
  };
}

/** A `diff` request of the shelf. */
export interface ShelfDiffRequest {
  /** A doc_id or `<library>/<path>`. */
  doc_id: string;
  /** The commit to compare from (default HEAD). */
  commit?: string;
  /** `head` or `worktree`. */
  to: "head" | "worktree";
  /** Size cap in bytes. */
  max_bytes: number;
}

/** A diff of one document's file, with its library. */
export interface ShelfDiff extends DiffAnswer {
  /** The library. */
  library: string;
}

/** The diff of a document's file between a commit and HEAD or the file on disk. */
export async function libraryDiff(shelf: Shelf, r: ShelfDiffRequest): Promise<ShelfDiff> {
  const t = gitTarget(shelf, r.doc_id);
  const d = await gitDiff(t.library.root, { ...r, path: t.path! });
  return { library: t.library.name, ...d, path: shown(t.library, d.path) };
}

/** What a sync did, with its library and whether the index is up to date again. */
export interface ShelfSync extends SyncAnswer {
  /** The library. */
  library: string;
  /** Documents re-indexed after the pull (0 on a dry run). */
  reindexed: number;
}

/** The one git library where writing is enabled, when there is exactly one. */
function onlyWritableGit(shelf: Shelf, writable: string[]): string | undefined {
  const both = gitLibraries(shelf).filter((l) => writable.includes(l.name));
  return both.length === 1 ? both[0]!.name : undefined;
}

/** Pull with rebase and push a git library, then index what the pull changed. */
export async function librarySync(
  shelf: Shelf,
  library: string | undefined,
  dryRun: boolean,
): Promise<ShelfSync> {
  const writable = shelf.writableLibraries();
  const t = gitTarget(shelf, undefined, library ?? onlyWritableGit(shelf, writable));
  if (!writable.includes(t.library.name)) {
    throw new ToolError(
      "NOT_ALLOWED",
      `Writing is not enabled for library ${JSON.stringify(t.library.name)}: sync writes`,
      `Set "write": true on the library in shelfmark.json, or start with --write ${t.library.name}.`,
    );
  }
  const s = await gitSync(t.library.root, {
    dry_run: dryRun,
    author: shelf.config.git?.author,
  });
  let reindexed = 0;
  if (!dryRun && (s.changed.length || s.conflicts.length)) {
    // The changed files are seen by an index run of changed files (the watcher, if any,
    // finds them unchanged after it).
    shelf.markStale();
    const p = await shelf.index();
    await shelf.waitForFresh(60_000);
    reindexed = p.indexed + p.removed;
  }
  return {
    library: t.library.name,
    ...s,
    changed: s.changed.map((p) => shown(t.library, p)),
    conflicts: s.conflicts.map((c) => ({
      path: shown(t.library, c.path),
      local_copy: c.local_copy === null ? null : shown(t.library, c.local_copy),
    })),
    reindexed,
  };
}
