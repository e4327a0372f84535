/**
 * Libraries, display paths, document ids and confinement: nothing outside a library
 * root is ever reachable through a path-like argument.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { realpathSync } from "node:fs";
import { basename, isAbsolute, relative, resolve, sep } from "node:path";
import { type Library, ToolError } from "./types.ts";

/**
 * A library for a folder named on the command line: named after the folder's base name.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(libraryFromPath("/home/me/Papers").name, "Papers");
 * ```
 */
export function libraryFromPath(path: string, name?: string): Library {
  const root = resolve(path);
  return { name: name ?? (basename(root) || "root"), root };
}

/**
 * The short, stable id of the document at a display path: 48 bits of its SHA-256, written
 * as 15 decimal digits. Digits cost language models about one token per three (12 hex
 * characters cost about twelve), and every search hit, outline and call carries an id.
 *
 * @example
 * ```ts
 * import { docIdFor } from "./paths.ts";
 * import assert from "node:assert/strict";
 * assert.equal(docIdFor("Papers/a.md").length, 15);
 * ```
 */
export function docIdFor(displayPath: string): string {
  const hex = createHash("sha256").update(displayPath).digest("hex").slice(0, 12);
  return BigInt(`0x${hex}`).toString().padStart(15, "0");
}

/** `<library>/<path inside the root>`, always with `/`. */
export function displayPath(lib: Library, absPath: string): string {
  const rel = relative(lib.root, absPath).split(sep).join("/");
  return `${lib.name}/${rel}`;
}

/** True when `child` is `root` or lies under it (both absolute and normalised). */
export function isInside(root: string, child: string): boolean {
  const rel = relative(root, child);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/** Real path of `p`, or undefined when it does not exist. */
export function realPath(p: string): string | undefined {
  try {
    return realpathSync(p);
  } catch {
    return undefined;
  }
}

function outside(arg: string): ToolError {
  return new ToolError(
    "PATH_OUTSIDE_LIBRARY",
    `Path ${JSON.stringify(arg)} is outside every library root`,
    "Use a doc_id from search, or a path of the form <library>/<path> as search shows it.",
  );
}

/**
 * Check a path-like argument and turn it into a display path inside a library.
 * Refuses NUL bytes, `..` segments, encoded separators, absolute paths that resolve
 * outside every root, and symlinks that leave their root.
 */
export function confinePath(arg: string, libraries: Library[]): string {
  let p = arg;
  if (/%2f|%5c|%2e/i.test(p)) {
    try {
      p = decodeURIComponent(p);
    } catch {
      throw outside(arg);
    }
  }
  if (p.includes("\0")) throw outside(arg);
  if (isAbsolute(p) || /^[a-zA-Z]:[\\/]/.test(p)) {
    const real = realPath(p) ?? resolve(p);
    for (const lib of libraries) {
      const root = realPath(lib.root) ?? lib.root;
      if (isInside(root, real)) return displayPath({ ...lib, root }, real);
    }
    throw outside(arg);
  }
  const parts = p.replaceAll("\\", "/").split("/").filter((s) => s !== "" && s !== ".");
  if (parts.some((s) => s === "..")) throw outside(arg);
  const lib = libraries.find((l) => l.name === parts[0]);
  if (!lib) {
    throw new ToolError(
      "LIBRARY_NOT_FOUND",
      `No library named ${JSON.stringify(parts[0] ?? "")}`,
      `Libraries: ${libraries.map((l) => l.name).join(", ") || "(none)"}`,
    );
  }
  const abs = resolve(lib.root, ...parts.slice(1));
  const real = realPath(abs);
  const root = realPath(lib.root) ?? lib.root;
  if (real && !isInside(root, real)) throw outside(arg);
  return [lib.name, ...parts.slice(1)].join("/");
}
