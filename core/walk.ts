/**
 * Walking a library root: every regular file under it, without following symlinks
 * that leave the root, without looping on directory cycles, skipping hidden entries.
 *
 * @module
 */
import path, { join, relative } from "node:path";
import { displayPath, isInside, realPath } from "./paths.ts";
import type { Library, Skipped } from "./types.ts";

/** A file found under a library root. */
export interface FoundFile {
  /** Absolute path (through the root, not resolved). */
  abs: string;
  /** `<library>/<rel>`. */
  path: string;
  /** Bytes. */
  size: number;
  /** Modification time, ms since the epoch. */
  mtime_ms: number;
}

/** Result of a walk: the files, and entries refused with a reason. */
export interface WalkResult {
  files: FoundFile[];
  refused: Skipped[];
}

/** Names never descended into or indexed. */
const IGNORED = new Set([
  "node_modules",
  "__pycache__",
  "$RECYCLE.BIN",
  "System Volume Information",
]);

// deno-lint-ignore no-explicit-any
const matchesGlob = (path as any).matchesGlob as (p: string, glob: string) => boolean;

/** Whether a path inside a library (with `/`) matches any of the globs. */
export function matchesAny(rel: string, globs: string[] | undefined): boolean {
  return !!globs?.some((g) => matchesGlob(rel, g) || matchesGlob(rel, `${g}/**`));
}

/** Whether a symlink that does not resolve is a loop (ELOOP) rather than dangling. */
function isLoop(abs: string): boolean {
  try {
    Deno.statSync(abs);
    return false;
  } catch (e) {
    return (e as { code?: string }).code === "ELOOP" || /os error 40\b/.test(String(e));
  }
}

/** List every indexable file of a library. */
export async function walkLibrary(lib: Library): Promise<WalkResult> {
  const files: FoundFile[] = [];
  const refused: Skipped[] = [];
  const root = realPath(lib.root);
  if (!root) throw new Error(`Library root not found: ${lib.root}`);
  const seen = new Set<string>([root]);
  const stack: string[] = [lib.root];
  while (stack.length) {
    const dir = stack.pop()!;
    let entries: Deno.DirEntry[];
    try {
      entries = [];
      for await (const e of Deno.readDir(dir)) entries.push(e);
    } catch (e) {
      refused.push({
        path: displayPath(lib, dir),
        reason: "unreadable",
        message: (e as Error).message,
      });
      continue;
    }
    entries.sort((a, b) => (a.name < b.name ? 1 : -1));
    for (const e of entries) {
      if (IGNORED.has(e.name)) continue;
      const abs = join(dir, e.name);
      const rel = relative(lib.root, abs).split("\\").join("/");
      if (matchesAny(rel, lib.exclude)) continue;
      if (e.name.startsWith(".") && !lib.index_hidden) {
        refused.push({
          path: displayPath(lib, abs),
          reason: "hidden",
          message: 'hidden; set "index_hidden": true on the library to index hidden files',
        });
        continue;
      }
      let isDir = e.isDirectory;
      let isFile = e.isFile;
      if (e.isSymlink) {
        const target = realPath(abs);
        if (!target) {
          const loop = isLoop(abs);
          refused.push({
            path: displayPath(lib, abs),
            reason: loop ? "symlink_loop" : "dangling_link",
            message: loop ? "symlink loop (it resolves to itself)" : "broken symlink",
          });
          continue;
        }
        if (!isInside(root, target)) {
          refused.push({
            path: displayPath(lib, abs),
            reason: "outside_root",
            message: "symlink leaves the library root; not followed",
          });
          continue;
        }
        try {
          const st = await Deno.stat(abs);
          isDir = st.isDirectory;
          isFile = st.isFile;
        } catch {
          continue;
        }
      }
      if (isDir) {
        const real = realPath(abs);
        if (!real || seen.has(real)) continue;
        seen.add(real);
        stack.push(abs);
      } else if (isFile) {
        if (lib.include?.length && !matchesAny(rel, lib.include)) continue;
        try {
          const st = await Deno.stat(abs);
          files.push({
            abs,
            path: displayPath(lib, abs),
            size: st.size,
            mtime_ms: st.mtime?.getTime() ?? 0,
          });
        } catch (err) {
          refused.push({
            path: displayPath(lib, abs),
            reason: "unreadable",
            message: (err as Error).message,
          });
        }
      }
    }
  }
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { files, refused };
}
