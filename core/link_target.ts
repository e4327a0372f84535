/**
 * What a link target names, before any lookup: an external URL, a place inside the same
 * document, a path outside the library, or local paths to try in order (and, for Markdown,
 * a wiki-style note name). Pure string work; {@link LinkGraph} does the lookups.
 *
 * @module
 */
import { posix } from "node:path";

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
 * parseTarget("../library/sys.html#sys.stderr", "Py/howto/logging.html", "html");
 * // { kind: "local", paths: ["Py/library/sys.html"] }
 * parseTarget("Note#Heading", "Vault/daily/today.md", "markdown");
 * // { kind: "local", paths: ["Vault/daily/Note", "Vault/daily/Note.md", "Vault/Note",
 * //   "Vault/Note.md"], name: "Note" }
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
