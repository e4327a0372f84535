/**
 * The writable vault: create, overwrite, edit, move and delete files in the libraries where
 * writing is enabled (`"write": true` in `shelfmark.json`, or `--write LIBRARY`).
 *
 * Every write is confined to its library (no `..`, no absolute path, no hidden segment such
 * as `.git`, no symlink on the way), atomic (a temporary file renamed over the target,
 * fsynced), checked against the caller's version tag when one is given (`if_match`), and
 * re-indexed by the shelf before the answer goes back, so the next search sees it. A
 * library with a {@linkcode VaultCommitter} gets one commit per write.
 *
 * The shelf runs these one at a time (see `Shelf.writeFile` and the others): a version
 * check and the write it guards are never split by another write.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { dirname, extname, join, resolve } from "node:path";
import { stringify } from "yaml";
import { writeFileAtomicSync } from "../core/atomic_write.ts";
import { isInside, realPath } from "../core/paths.ts";
import { readInside } from "../core/read_inside.ts";
import { sniff } from "../core/sniff.ts";
import { type Library, ToolError } from "../core/types.ts";
import { pageOf } from "../search/passages.ts";
import { frontMatterLength } from "../extractors/_headings_markdown.ts";
import { closestMatch, findText, type MatchType } from "./vault_match.ts";

/**
 * Makes a commit of the files a write touched, in a library that is a repository (the git
 * integration provides one; without it writes make no commit).
 */
export interface VaultCommitter {
  /**
   * Commit the paths (relative to the library root, `/`-separated; deleted or moved-away
   * paths included) with a message.
   *
   * @returns the commit id, or undefined when the library is not a repository
   */
  commit(libraryRoot: string, paths: string[], message: string): Promise<string | undefined>;
}

/** What the vault needs from the shelf that owns it. */
export interface VaultHost {
  /** The configured libraries. */
  readonly libraries: Library[];
  /** Whether writing is enabled for a library. */
  writable(library: string): boolean;
  /**
   * Bring the index in step with files just written, moved or deleted (display paths),
   * before the write answers.
   */
  reindex(library: Library, paths: string[]): Promise<void>;
  /**
   * Note a change the vault makes (a file or folder, by its path inside the library), so
   * that the file watcher does not index it again.
   */
  ownChange(library: Library, rel: string): void;
  /** The commit hook, when there is one. */
  readonly committer?: VaultCommitter;
}

/**
 * Largest file `write` accepts, text or base64 (bytes). Its base64 (5.3 MiB) and a text of
 * as many characters together stay under the 10 MiB a message may have over stdio (the MCP
 * SDK's read buffer closes the connection
 * past it).
 */
export const MAX_WRITE_BYTES = 4 * 1024 * 1024;

/** Extensions of files that are not text: they are written from base64 only. */
const BINARY_EXTENSIONS = new Set(
  (".pdf .docx .doc .epub .pptx .ppt .xlsx .xls .odt .ods .odp .rtf .png .jpg .jpeg .gif " +
    ".webp .tif .tiff .bmp .ico .heic .zip .gz .tgz .bz2 .xz .7z .tar .mp3 .mp4 .wav .ogg " +
    ".mov .avi .mkv .woff .woff2 .ttf .otf .exe .dll .so .bin .sqlite .db").split(" "),
);
const MARKDOWN_EXTENSIONS = new Set([".md", ".mdx", ".markdown", ".mkd", ".mdown"]);

/**
 * The version tag of a file's content: the first 16 hex digits of its SHA-256 (the catalog
 * stores the whole hash, so `read` shows the tag without reading the file).
 *
 * @example
 * ```ts
 * import { versionOf } from "./vault.ts";
 * import assert from "node:assert/strict";
 * assert.equal(versionOf(new TextEncoder().encode("")), "e3b0c44298fc1c14");
 * ```
 */
export function versionOf(bytes: Uint8Array): string {
  return versionOfHash(createHash("sha256").update(bytes).digest("hex"));
}

/** The version tag of a stored content hash (hex SHA-256). */
export function versionOfHash(hash: string): string {
  return hash.slice(0, 16);
}

/** A file to create or overwrite. */
export interface WriteRequest {
  /** `<library>/<path inside it>`, or the path inside `library`. */
  path: string;
  /** The library, when `path` is inside it rather than a display path. */
  library?: string;
  /** The content as text (not for binary types such as PDF). */
  text?: string;
  /** The content as base64 (any type). */
  base64?: string;
  /** Markdown only: front matter to put at the top (it replaces any in `text`). */
  frontMatter?: Record<string, unknown>;
  /** Refuse unless the file's current version tag is this one. */
  ifMatch?: string;
  /** Commit message (libraries with a committer). */
  message?: string;
}

/** What a write did. */
export interface WriteAnswer {
  /** The display path written. */
  path: string;
  /** The document's id (undefined when the index skipped the file: empty, unsupported). */
  doc_id?: string;
  /** Whether the file is new. */
  created: boolean;
  /** Its new version tag. */
  version: string;
  /** Bytes written. */
  bytes: number;
  /** The commit made, when the library has a committer and made one. */
  commit?: string;
}

/** A replacement in a text file. */
export interface EditRequest {
  /** `<library>/<path inside it>`, or the path inside `library`. */
  path: string;
  /** The library, when `path` is inside it. */
  library?: string;
  /** The text to replace (must occur once, in the line range when one is given). */
  oldText?: string;
  /** Its replacement (with a line range and no `oldText`: the lines' replacement). */
  newText: string;
  /** First line of the range (1-based, the lines `read` shows for Markdown and text). */
  startLine?: number;
  /** Last line of the range (inclusive; default `startLine`). */
  endLine?: number;
  /** Refuse unless the file's current version tag is this one. */
  ifMatch?: string;
  /** Commit message. */
  message?: string;
}

/** What an edit did. */
export interface EditAnswer {
  /** The display path edited. */
  path: string;
  /** The document's id. */
  doc_id?: string;
  /** How the text was found: `exact`, `normalized` (quotes, dashes, spaces, NFC) or `lines`. */
  match_type: MatchType | "lines";
  /** First and last line replaced (before the edit). */
  start_line: number;
  /** Last line replaced. */
  end_line: number;
  /** The new version tag. */
  version: string;
  /** The commit made. */
  commit?: string;
}

/** A file to move or rename. */
export interface MoveRequest {
  /** Its display path. */
  from: string;
  /** The new display path (same or another writable library); must not exist. */
  to: string;
  /** Refuse unless the file's current version tag is this one. */
  ifMatch?: string;
  /** Commit message. */
  message?: string;
}

/** What a move did. */
export interface MoveAnswer {
  /** The old display path. */
  from: string;
  /** The new display path. */
  to: string;
  /** The document's id at its new path. */
  doc_id?: string;
  /** Its version tag (unchanged by the move). */
  version: string;
  /** The commit made (in the target library). */
  commit?: string;
  /** The commit made in the source library, when it is another one. */
  source_commit?: string;
}

/** A file to delete. */
export interface DeleteRequest {
  /** Its display path, or the path inside `library`. */
  path: string;
  /** The library, when `path` is inside it. */
  library?: string;
  /** Refuse unless the file's current version tag is this one. */
  ifMatch?: string;
  /** Commit message. */
  message?: string;
}

/** What a delete did. */
export interface DeleteAnswer {
  /** The display path deleted. */
  path: string;
  /** The id of the document removed with it (undefined: it was not indexed). */
  doc_id?: string;
  /** The version tag the file had. */
  version: string;
  /** The commit made. */
  commit?: string;
}

/**
 * A file system failure of a write as a tool error (a name too long, a folder where a file
 * is, permission denied, a file that went away meanwhile); other failures (a full disk)
 * are not the caller's and stay as they are.
 *
 * @param e what the file system threw
 * @returns the error to throw
 */
export function fileSystemError(e: unknown): unknown {
  if (e instanceof ToolError) return e;
  const code = (e as { code?: string })?.code;
  const said = (what: string) => `The file system refused the change: ${what}`;
  if (e instanceof Deno.errors.PermissionDenied) {
    return new ToolError("NOT_ALLOWED", said("permission denied"), "Check the file's permissions.");
  }
  if (e instanceof Deno.errors.AlreadyExists) {
    return new ToolError("ALREADY_EXISTS", said("the path exists"), "Choose another path.");
  }
  if (e instanceof Deno.errors.NotFound) {
    return new ToolError("FILE_NOT_FOUND", said("a file or folder went away"), "Try again.");
  }
  if (
    code === "ENAMETOOLONG" || /name too long/i.test(String((e as Error)?.message)) ||
    e instanceof Deno.errors.NotADirectory || e instanceof Deno.errors.IsADirectory ||
    e instanceof Deno.errors.InvalidData
  ) {
    return new ToolError(
      "INVALID_ARGUMENT",
      said((e as Error).name === "Error" ? "name too long" : (e as Error).name),
      "Give a shorter path made of plain file and folder names.",
    );
  }
  return e;
}

/** A file of a writable library, its path checked. */
interface Target {
  lib: Library;
  /** Path inside the root, `/`-separated. */
  rel: string;
  /** `<library>/<rel>`. */
  display: string;
  /** Absolute path under the library's real root. */
  abs: string;
}

function outside(arg: string, why: string): ToolError {
  return new ToolError(
    "PATH_OUTSIDE_LIBRARY",
    `Path ${JSON.stringify(arg)} ${why}`,
    "Give a path <library>/<folder>/<file> inside a writable library (see list_libraries).",
  );
}

/**
 * Check a path argument and find its file in a writable library: no NUL, no `..`, no
 * absolute path, no hidden segment (`.git`, `.obsidian`), a library where writing is on.
 * Symlinks are checked when the file is reached ({@linkcode ensureFolder}, {@linkcode lstatOf}).
 */
function target(host: VaultHost, arg: string, library?: string): Target {
  if (arg.includes("\0")) throw outside(arg, "holds a NUL byte");
  if (/%2f|%5c|%2e/i.test(arg)) throw outside(arg, "has a percent-encoded dot or separator");
  if (arg.startsWith("/") || arg.startsWith("\\") || /^[a-zA-Z]:/.test(arg)) {
    throw outside(arg, "is absolute; paths are <library>/<path inside it>");
  }
  let parts = arg.split(/[\\/]/).filter((s) => s !== "" && s !== ".");
  if (parts.some((s) => s === "..")) throw outside(arg, "goes up with ..");
  if (library === undefined) {
    library = parts[0];
    parts = parts.slice(1);
  }
  const lib = host.libraries.find((l) => l.name === library);
  if (!lib) {
    throw new ToolError(
      "LIBRARY_NOT_FOUND",
      `No library named ${JSON.stringify(library ?? "")}`,
      `Libraries: ${host.libraries.map((l) => l.name).join(", ") || "(none)"}`,
    );
  }
  if (!host.writable(lib.name)) {
    const on = host.libraries.filter((l) => host.writable(l.name)).map((l) => l.name);
    throw new ToolError(
      "NOT_ALLOWED",
      `Writing is not enabled for library ${JSON.stringify(lib.name)}`,
      on.length
        ? `Writable libraries: ${on.join(", ")}.`
        : `Set "write": true on the library in shelfmark.json, or start with --write ${lib.name}.`,
    );
  }
  if (!parts.length) throw outside(arg, "names no file inside the library");
  if (parts.some((s) => s.startsWith("."))) {
    throw outside(arg, "has a hidden segment (a name starting with .); those are not written");
  }
  const root = realPath(lib.root);
  if (!root) {
    throw new ToolError("LIBRARY_NOT_FOUND", `The folder of library ${lib.name} is missing`);
  }
  const rel = parts.join("/");
  return { lib, rel, display: `${lib.name}/${rel}`, abs: join(root, ...parts) };
}

/** The entry at a path without following a final symlink, or undefined. */
function lstatOf(abs: string): Deno.FileInfo | undefined {
  try {
    return Deno.lstatSync(abs);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound || e instanceof Deno.errors.NotADirectory) {
      return undefined;
    }
    throw e;
  }
}

/** The real root of a target's library. */
function rootOf(t: Target): string {
  return realPath(t.lib.root) ?? t.lib.root;
}

/**
 * Make sure every folder from the root to the target's folder is a real folder (created
 * when missing, one at a time), none a symlink, and that the result is where it should be.
 */
function ensureFolder(t: Target, host?: VaultHost): void {
  const root = rootOf(t);
  const segs = t.rel.split("/").slice(0, -1);
  let p = root;
  for (const [i, s] of segs.entries()) {
    p = join(p, s);
    const st = lstatOf(p);
    if (!st) {
      if (!host) return;
      host.ownChange(t.lib, segs.slice(0, i + 1).join("/"));
      Deno.mkdirSync(p);
    } else if (st.isSymlink) throw outside(t.display, "goes through a symlink");
    else if (!st.isDirectory) throw outside(t.display, `has a file where a folder should be`);
  }
  const real = realPath(dirname(t.abs));
  if (real !== undefined && (real !== resolve(root, ...segs) || !isInside(root, real))) {
    throw outside(t.display, "leads outside the library root");
  }
}

/** The current bytes of a target, or undefined when there is no file; a symlink is refused. */
async function currentBytes(t: Target): Promise<Uint8Array | undefined> {
  ensureFolder(t);
  const st = lstatOf(t.abs);
  if (!st) return undefined;
  if (st.isSymlink) throw outside(t.display, "is a symlink");
  if (!st.isFile) {
    throw new ToolError(
      "INVALID_ARGUMENT",
      `${t.display} is not a file`,
      "Give the path of a file.",
    );
  }
  return await readInside(rootOf(t), t.abs);
}

/** The bytes of a file that must exist. */
async function existing(t: Target): Promise<Uint8Array> {
  const b = await currentBytes(t);
  if (b === undefined) {
    throw new ToolError(
      "FILE_NOT_FOUND",
      `No file ${JSON.stringify(t.display)}`,
      "Check the path with find_documents or browse.",
    );
  }
  return b;
}

/** The file a request names, which must exist and have the version asked for. */
async function checked(
  host: VaultHost,
  r: { path: string; library?: string; ifMatch?: string },
): Promise<{ t: Target; bytes: Uint8Array }> {
  const t = target(host, r.path, r.library);
  const bytes = await existing(t);
  checkVersion(t, bytes, r.ifMatch);
  return { t, bytes };
}

/** Refuse with `CONFLICT` when a tag is given and the file's version differs. */
function checkVersion(t: Target, bytes: Uint8Array | undefined, ifMatch?: string): void {
  if (ifMatch === undefined) return;
  const now = bytes === undefined ? undefined : versionOf(bytes);
  if (now === ifMatch.trim().toLowerCase()) return;
  throw new ToolError(
    "CONFLICT",
    now === undefined
      ? `${t.display} does not exist (if_match ${ifMatch} names a version of it)`
      : `${t.display} changed since version ${ifMatch}: it is now version ${now}`,
    now === undefined
      ? "Write it without if_match to create it."
      : `Read it again (its version is ${now}) and redo the change on what it holds now.`,
    { current_version: now ?? null },
  );
}

/** Write the bytes atomically and have the shelf index them; returns the version. */
async function put(host: VaultHost, t: Target, bytes: Uint8Array): Promise<string> {
  ensureFolder(t, host);
  host.ownChange(t.lib, t.rel);
  writeFileAtomicSync(t.abs, bytes);
  await host.reindex(t.lib, [t.display]);
  return versionOf(bytes);
}

/** The commit of a write, when the library has a committer. */
async function commitOf(
  host: VaultHost,
  lib: Library,
  rels: string[],
  message: string,
): Promise<string | undefined> {
  return await host.committer?.commit(realPath(lib.root) ?? lib.root, rels, message);
}

/** The id of the document at a display path, when the index holds it. */
export type DocIdOf = (display: string) => string | undefined;

function decodeBase64(s: string): Uint8Array {
  const clean = s.replace(/\s+/g, "");
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(clean) || clean.length % 4 === 1) {
    throw new ToolError(
      "INVALID_ARGUMENT",
      "base64: not valid base64",
      "Encode the bytes as base64.",
    );
  }
  const bin = atob(clean.replaceAll("-", "+").replaceAll("_", "/"));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

/** Front matter set on Markdown text (replacing any at its top). */
function withFrontMatter(text: string, fm: Record<string, unknown>): string {
  const lines = text.split(/\r?\n/);
  const n = frontMatterLength(lines);
  const body = n ? lines.slice(n).join("\n") : text;
  const yaml = Object.keys(fm).length ? stringify(fm) : "";
  return `---\n${yaml}---\n${body}`;
}

function tooLarge(bytes: number): ToolError {
  return new ToolError(
    "TOO_LARGE",
    `The content is ${bytes} bytes; the limit is ${MAX_WRITE_BYTES}`,
    "Write a smaller file.",
  );
}

/**
 * Create or overwrite a file in a writable library.
 *
 * @param host the shelf's side of the vault
 * @param docIdOf the id of an indexed document by display path
 * @param r what to write
 * @returns the path, whether it was created, its version and the commit
 * @throws {ToolError} `NOT_ALLOWED`, `PATH_OUTSIDE_LIBRARY`, `LIBRARY_NOT_FOUND`,
 *   `INVALID_ARGUMENT`, `TOO_LARGE`, `CONFLICT`
 */
export async function writeFile(
  host: VaultHost,
  docIdOf: DocIdOf,
  r: WriteRequest,
): Promise<WriteAnswer> {
  const t = target(host, r.path, r.library);
  const ext = extname(t.rel).toLowerCase();
  if ((r.text === undefined) === (r.base64 === undefined)) {
    throw new ToolError(
      "INVALID_ARGUMENT",
      r.text === undefined ? "Give the content: text or base64" : "Give text or base64, not both",
      "text for Markdown and other text files, base64 for binary files (PDF, images, ...).",
    );
  }
  if (r.frontMatter !== undefined && !MARKDOWN_EXTENSIONS.has(ext)) {
    throw new ToolError(
      "INVALID_ARGUMENT",
      `front_matter is for Markdown files, not ${JSON.stringify(ext || t.rel)}`,
      "Name the file .md, or leave front_matter out.",
    );
  }
  if (r.text !== undefined && BINARY_EXTENSIONS.has(ext)) {
    throw new ToolError(
      "INVALID_ARGUMENT",
      `A ${ext} file is binary: give its content as base64, not text`,
      "Encode the file's bytes as base64.",
    );
  }
  if (r.base64 !== undefined && r.base64.length > (MAX_WRITE_BYTES / 3) * 4 + 8) {
    throw tooLarge(Math.floor(r.base64.length / 4) * 3);
  }
  let bytes: Uint8Array;
  if (r.text !== undefined) {
    const text = r.frontMatter !== undefined ? withFrontMatter(r.text, r.frontMatter) : r.text;
    bytes = new TextEncoder().encode(text);
  } else bytes = decodeBase64(r.base64!);
  if (bytes.length > MAX_WRITE_BYTES) throw tooLarge(bytes.length);
  const before = await currentBytes(t);
  checkVersion(t, before, r.ifMatch);
  const version = await put(host, t, bytes);
  const commit = await commitOf(
    host,
    t.lib,
    [t.rel],
    r.message ?? `${before ? "Update" : "Create"} ${t.rel}`,
  );
  return {
    path: t.display,
    doc_id: docIdOf(t.display),
    created: before === undefined,
    version,
    bytes: bytes.length,
    commit,
  };
}

/**
 * The text of a file that must be UTF-8 text (a byte order mark is kept): any other
 * encoding would not come back byte for byte where the edit does not touch it.
 */
function textOf(t: Target, bytes: Uint8Array): string {
  const refuse = (what: string) =>
    new ToolError(
      "INVALID_ARGUMENT",
      `${t.display} is ${what}`,
      "edit changes UTF-8 text files (Markdown, text, HTML, code); write replaces any file.",
    );
  if (!sniff(bytes).text) throw refuse("not a text file");
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw refuse("not UTF-8 text");
  }
}

/** Line starts of a text (offsets of each line's first character). */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  // A final line end opens no line.
  if (starts.length > 1 && starts[starts.length - 1] === text.length) starts.pop();
  return starts;
}

/** The 1-based line of an offset (the line starts play the part of page starts). */
function lineAt(starts: number[], offset: number): number {
  return pageOf(starts, offset)!;
}

/**
 * Replace text in a text file: an exact match that occurs once (in the line range when one
 * is given), a normalized match when there is no exact one, or the lines of a range.
 *
 * @param host the shelf's side of the vault
 * @param docIdOf the id of an indexed document by display path
 * @param r the file, what to replace and with what
 * @returns how the text was found, the lines replaced, the new version and the commit
 * @throws {ToolError} `NO_MATCH` naming the closest line and the first differing
 *   character, `NOT_UNIQUE` naming the lines, `CONFLICT`, `FILE_NOT_FOUND`, ...
 */
export async function editFile(
  host: VaultHost,
  docIdOf: DocIdOf,
  r: EditRequest,
): Promise<EditAnswer> {
  const { t, bytes } = await checked(host, r);
  const text = textOf(t, bytes);
  const starts = lineStarts(text);
  const total = text === "" ? 0 : starts.length;
  const ranged = r.startLine !== undefined || r.endLine !== undefined;
  const first = r.startLine ?? r.endLine ?? 1;
  const last = r.endLine ?? r.startLine ?? total;
  if (ranged && (first < 1 || last < first || last > total)) {
    throw new ToolError(
      "INVALID_ARGUMENT",
      `Lines ${first}-${last} are not in ${t.display} (it has ${total} lines)`,
      "Give start_line and end_line from 1 to the last line, as read shows them.",
    );
  }
  // The span the edit may touch: the range's lines (without the final line end), or all.
  const from = ranged ? starts[first - 1]! : 0;
  const lineEnd = ranged && last < starts.length ? starts[last]! - 1 : text.length;
  const to = lineEnd > from && text[lineEnd - 1] === "\r" && ranged ? lineEnd - 1 : lineEnd;
  let start: number;
  let end: number;
  let matchType: MatchType | "lines";
  if (r.oldText === undefined) {
    if (!ranged) {
      throw new ToolError(
        "INVALID_ARGUMENT",
        "Give old_text, a line range (start_line, end_line), or both",
        "old_text replaces that text; a line range alone replaces those lines.",
      );
    }
    [start, end, matchType] = [from, to, "lines"];
  } else {
    if (r.oldText === "") {
      throw new ToolError("INVALID_ARGUMENT", "old_text is empty", "Give the text to replace.");
    }
    const scope = text.slice(from, to);
    const found = findText(scope, r.oldText);
    if (found.kind === "none") {
      const near = closestMatch(scope, r.oldText);
      const line = lineAt(starts, from + near.offset);
      const col = from + near.offset - starts[line - 1]! + 1;
      throw new ToolError(
        "NO_MATCH",
        `old_text is not in ${t.display}${ranged ? ` lines ${first}-${last}` : ""}; closest: line ${
          lineAt(starts, from + near.lineOffset)
        }, first difference at line ${line} column ${col}: expected ${
          JSON.stringify(near.expected)
        }, found ${JSON.stringify(near.found)}`,
        "Read those lines again and copy the text exactly (or give a line range).",
        {
          closest_line: lineAt(starts, from + near.lineOffset),
          differs_at: { line, column: col },
          expected: near.expected,
          found: near.found,
        },
      );
    }
    if (found.kind === "many") {
      const lines = found.offsets.slice(0, 10).map((o) => lineAt(starts, from + o));
      throw new ToolError(
        "NOT_UNIQUE",
        `old_text occurs ${found.offsets.length} times in ${t.display}${
          ranged ? ` lines ${first}-${last}` : ""
        } (${found.match} match), at lines ${lines.join(", ")}`,
        "Add surrounding text to old_text, or give start_line and end_line around the one to change.",
        { lines },
      );
    }
    [start, end, matchType] = [from + found.start, from + found.end, found.match];
  }
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const replacement = eol === "\r\n" ? r.newText.replace(/\r?\n/g, "\r\n") : r.newText;
  const next = text.slice(0, start) + replacement + text.slice(end);
  const out = new TextEncoder().encode(next);
  if (out.length > MAX_WRITE_BYTES) throw tooLarge(out.length);
  const version = await put(host, t, out);
  const commit = await commitOf(host, t.lib, [t.rel], r.message ?? `Edit ${t.rel}`);
  return {
    path: t.display,
    doc_id: docIdOf(t.display),
    match_type: matchType,
    start_line: lineAt(starts, start),
    end_line: lineAt(starts, Math.max(start, end - 1)),
    version,
    commit,
  };
}

/**
 * Move (rename) a file to a new path in the same or another writable library; its folders
 * are created; an existing file there is never replaced.
 *
 * @param host the shelf's side of the vault
 * @param docIdOf the id of an indexed document by display path
 * @param r from where to where
 * @returns both paths, the new id, the version and the commits
 * @throws {ToolError} `ALREADY_EXISTS`, `FILE_NOT_FOUND`, `CONFLICT`, ...
 */
export async function moveFile(
  host: VaultHost,
  docIdOf: DocIdOf,
  r: MoveRequest,
): Promise<MoveAnswer> {
  const a = target(host, r.from);
  const b = target(host, r.to);
  const bytes = await existing(a);
  checkVersion(a, bytes, r.ifMatch);
  if (a.abs === b.abs) {
    throw new ToolError("INVALID_ARGUMENT", `from and to are the same file: ${a.display}`);
  }
  const taken = () =>
    new ToolError(
      "ALREADY_EXISTS",
      `${b.display} already exists; move never replaces a file`,
      "Choose another name, or delete that file first.",
    );
  ensureFolder(b, host);
  if (lstatOf(b.abs)) throw taken();
  host.ownChange(a.lib, a.rel);
  host.ownChange(b.lib, b.rel);
  try {
    // A hard link fails when the target exists: no window in which a file there is replaced.
    Deno.linkSync(a.abs, b.abs);
    Deno.removeSync(a.abs);
  } catch (e) {
    if (e instanceof Deno.errors.AlreadyExists) throw taken();
    // Another file system, or one without hard links: copy, then remove.
    if (lstatOf(b.abs)) throw taken();
    writeFileAtomicSync(b.abs, bytes);
    Deno.removeSync(a.abs);
  }
  if (a.lib.name === b.lib.name) await host.reindex(a.lib, [a.display, b.display]);
  else {
    await host.reindex(a.lib, [a.display]);
    await host.reindex(b.lib, [b.display]);
  }
  const message = r.message ?? `Move ${a.display} to ${b.display}`;
  let commit: string | undefined;
  let sourceCommit: string | undefined;
  if (a.lib.name === b.lib.name) commit = await commitOf(host, a.lib, [a.rel, b.rel], message);
  else {
    sourceCommit = await commitOf(host, a.lib, [a.rel], message);
    commit = await commitOf(host, b.lib, [b.rel], message);
  }
  return {
    from: a.display,
    to: b.display,
    doc_id: docIdOf(b.display),
    version: versionOf(bytes),
    commit,
    source_commit: sourceCommit,
  };
}

/**
 * Delete a file and its document (passages, links, vectors).
 *
 * @param host the shelf's side of the vault
 * @param docIdOf the id of an indexed document by display path
 * @param r the file
 * @returns the path, the id removed, the version it had and the commit
 * @throws {ToolError} `FILE_NOT_FOUND`, `CONFLICT`, ...
 */
export async function deleteFile(
  host: VaultHost,
  docIdOf: DocIdOf,
  r: DeleteRequest,
): Promise<DeleteAnswer> {
  const { t, bytes } = await checked(host, r);
  const docId = docIdOf(t.display);
  host.ownChange(t.lib, t.rel);
  Deno.removeSync(t.abs);
  await host.reindex(t.lib, [t.display]);
  const commit = await commitOf(host, t.lib, [t.rel], r.message ?? `Delete ${t.rel}`);
  return { path: t.display, doc_id: docId, version: versionOf(bytes), commit };
}
