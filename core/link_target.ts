/**
 * What a link target names: first by reading it ({@link parseTarget}: an external URL, a
 * place inside the same document, a path outside the library, or local paths to try in
 * order and, for Markdown, a wiki-style note name), then by looking those up among the
 * documents, the skipped files and the files on disk ({@link TargetResolver}).
 *
 * @module
 */
import { existsSync } from "node:fs";
import { join, posix } from "node:path";
import type { Library } from "./types.ts";

/** A target read against its source document. */
export type ParsedTarget =
  /** A URL (`scheme:` or `//host`): outgoing, never looked up. */
  | { kind: "external" }
  /** A fragment of the same document, or a chapter inside the same EPUB. */
  | { kind: "internal" }
  /** A relative path climbing above the library root: not looked up. */
  | { kind: "outside" }
  /**
   * Local candidates: display paths to try in order (the first is the one probed on disk),
   * and for Markdown sources the note name an Obsidian wiki link would match.
   */
  | { kind: "local"; paths: string[]; name?: string };

const SCHEME = /^(?:[a-z][a-z0-9+.-]+:|\/\/)/i;
/** A last path segment with an extension (`a.md`, `logo.png`). */
const HAS_EXT = /\.[A-Za-z0-9]{1,8}$/;

/** Percent-decoded text, or the text itself when it is not valid percent-encoding. */
function decode(s: string): string {
  if (!s.includes("%")) return s;
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/**
 * Read a link target against the document it stands in.
 *
 * - `scheme:` and `//host` targets are external; `#fragment` alone is internal, as is any
 *   relative target of an EPUB (its chapters link to each other inside the book).
 * - Otherwise the `#fragment` and `?query` are dropped, the path percent-decoded and
 *   resolved against the source's folder (`/path` against the library root). A folder
 *   (`dir/`) also tries `dir/index.html`; a Markdown source also tries `name.md` for a
 *   name without extension, the path from the library root, and the note name.
 *
 * @param target the target as written
 * @param sourcePath the source document's display path (`<library>/<path>`)
 * @param sourceType the source's `doc_type`
 * @returns what the target names
 * @example
 * ```ts
 * import { parseTarget } from "./link_target.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(
 *   parseTarget("../library/sys.html#sys.stderr", "Py/howto/logging.html", "html"),
 *   { kind: "local", paths: ["Py/library/sys.html"] },
 * );
 * assert.deepEqual(parseTarget("Note#Heading", "Vault/daily/today.md", "markdown"), {
 *   kind: "local",
 *   paths: ["Vault/daily/Note", "Vault/daily/Note.md", "Vault/Note", "Vault/Note.md"],
 *   name: "Note",
 * });
 * ```
 */
export function parseTarget(target: string, sourcePath: string, sourceType: string): ParsedTarget {
  const t = target.trim();
  if (SCHEME.test(t)) return { kind: "external" };
  const cut = t.search(/[#?]/);
  const raw = decode(cut < 0 ? t : t.slice(0, cut)).replaceAll("\\", "/");
  if (!raw.trim()) return { kind: "internal" };
  if (sourceType === "epub") return { kind: "internal" };
  const slash = sourcePath.indexOf("/");
  const lib = sourcePath.slice(0, slash);
  const dir = posix.dirname(sourcePath.slice(slash + 1));
  const markdown = sourceType === "markdown";
  const rooted = raw.startsWith("/");
  const bases = rooted ? ["."] : markdown && !/^\.\.?\//.test(raw) ? [dir, "."] : [dir];
  const paths: string[] = [];
  for (const base of new Set(bases)) {
    const rel = posix.normalize(posix.join(base, raw));
    if (rel === ".." || rel.startsWith("../")) {
      if (paths.length) continue;
      return { kind: "outside" };
    }
    const clean = rel.replace(/\/+$/, "");
    const path = clean === "." ? lib : `${lib}/${clean}`;
    paths.push(path);
    if (raw.endsWith("/") || clean === ".") paths.push(`${path}/index.html`);
    else if (markdown && !HAS_EXT.test(clean)) paths.push(`${path}.md`);
  }
  const name = markdown && !rooted && !/^\.\.?\//.test(raw)
    ? raw.replace(/\/+$/, "").trim()
    : undefined;
  return name ? { kind: "local", paths, name } : { kind: "local", paths };
}

/** What a target resolved to: a document (by its index), a file, nothing, or no lookup. */
export type Resolved =
  | { kind: "document"; node: number }
  | { kind: "file"; path: string }
  /** Matched no document nor skipped file: the paths to look for on disk. */
  | { kind: "missing"; paths: string[] }
  | { kind: "external" | "outside" | "internal" };

const INTERNAL: Resolved = { kind: "internal" };

/** A path, shortest first: fewer folders, then fewer characters, then by name. */
function shorter(a: string, b: string): number {
  const d = a.split("/").length - b.split("/").length;
  return d || a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

/**
 * Resolves link targets against a fixed set of documents and skipped files: relative
 * paths exactly, wiki names the Obsidian way (the file name when it is unique in the
 * library, else the shortest path; case-insensitive, `.md` implied). Resolutions are kept
 * per source folder and type, where they agree.
 *
 * @example
 * ```ts
 * import { TargetResolver } from "./link_target.ts";
 * import assert from "node:assert/strict";
 * const r = new TargetResolver(["V/a/Note.md", "V/b/c/Note.md"], [], []);
 * assert.deepEqual(r.resolve("V/Home.md", "markdown", "note"), { kind: "document", node: 0 });
 * assert.deepEqual(r.resolve("V/Home.md", "markdown", "https://x.org"), { kind: "external" });
 * ```
 */
export class TargetResolver {
  readonly #byPath = new Map<string, number>();
  readonly #skipped: Set<string>;
  /** Per library: lower-cased file name -> display paths (documents and skipped files). */
  readonly #names = new Map<string, Map<string, string[]>>();
  readonly #roots: Map<string, string>;
  readonly #probed = new Map<string, boolean>();
  readonly #memo = new Map<string, Map<string, Resolved>>();

  /**
   * @param docs display paths of the documents (a document is named by its index here)
   * @param skipped display paths of files on disk that are not indexed
   * @param libraries the libraries (their roots, for files on disk)
   */
  constructor(docs: string[], skipped: string[], libraries: Library[]) {
    this.#roots = new Map(libraries.map((l) => [l.name, l.root]));
    this.#skipped = new Set(skipped);
    docs.forEach((p, i) => {
      this.#byPath.set(p, i);
      this.#addName(p);
    });
    for (const p of skipped) this.#addName(p);
  }

  #addName(path: string): void {
    const lib = path.slice(0, path.indexOf("/"));
    const name = path.slice(path.lastIndexOf("/") + 1).toLowerCase();
    let m = this.#names.get(lib);
    if (!m) this.#names.set(lib, m = new Map());
    const list = m.get(name);
    if (list) list.push(path);
    else m.set(name, [path]);
  }

  /** The path an Obsidian wiki link names: unique file name, else the shortest path. */
  #byName(lib: string, name: string): string | undefined {
    const names = this.#names.get(lib);
    if (!names) return undefined;
    const want = name.toLowerCase();
    const last = want.slice(want.lastIndexOf("/") + 1);
    const found = [...(names.get(`${last}.md`) ?? []), ...(names.get(last) ?? [])];
    const hits = want.includes("/")
      ? found.filter((p) => {
        const l = p.toLowerCase();
        return l.endsWith(`/${want}`) || l.endsWith(`/${want}.md`);
      })
      : found;
    return hits.sort(shorter)[0];
  }

  /** The resolutions kept for sources of one type in one folder (pass to {@link resolve}). */
  memo(sourcePath: string, sourceType: string): Map<string, Resolved> {
    const key = `${sourceType}\0${sourcePath.slice(0, sourcePath.lastIndexOf("/"))}`;
    let m = this.#memo.get(key);
    if (!m) this.#memo.set(key, m = new Map());
    return m;
  }

  /**
   * What a target of a document names (a link of a document to itself is for the caller
   * to tell: the document's own index comes back).
   *
   * @param sourcePath the source's display path
   * @param sourceType the source's `doc_type`
   * @param target the target as written
   * @param memo the source's {@link memo}, when the caller resolves many of its targets
   */
  resolve(
    sourcePath: string,
    sourceType: string,
    target: string,
    memo: Map<string, Resolved> = this.memo(sourcePath, sourceType),
  ): Resolved {
    // the fragment does not change the document: `a.html#x` and `a.html#y` resolve alike
    const cut = target.indexOf("#");
    const key = cut < 0 ? target : target.slice(0, cut);
    if (!key) return INTERNAL;
    let r = memo.get(key);
    if (!r) memo.set(key, r = this.#lookup(sourcePath, sourceType, key));
    return r;
  }

  #lookup(sourcePath: string, sourceType: string, target: string): Resolved {
    const p = parseTarget(target, sourcePath, sourceType);
    if (p.kind !== "local") return { kind: p.kind };
    for (const path of p.paths) {
      const node = this.#byPath.get(path);
      if (node !== undefined) return { kind: "document", node };
    }
    const lib = sourcePath.slice(0, sourcePath.indexOf("/"));
    const named = p.name ? this.#byName(lib, p.name) : undefined;
    if (named) {
      const node = this.#byPath.get(named);
      return node !== undefined ? { kind: "document", node } : { kind: "file", path: named };
    }
    const known = p.paths.find((path) => this.#skipped.has(path));
    return known ? { kind: "file", path: known } : { kind: "missing", paths: p.paths };
  }

  /** Whether a display path names a file or folder on disk (asked once per path). */
  onDisk(path: string): boolean {
    let hit = this.#probed.get(path);
    if (hit === undefined) {
      const slash = path.indexOf("/");
      const root = this.#roots.get(slash < 0 ? path : path.slice(0, slash));
      hit = root !== undefined && existsSync(join(root, slash < 0 ? "" : path.slice(slash + 1)));
      this.#probed.set(path, hit);
    }
    return hit;
  }
}
