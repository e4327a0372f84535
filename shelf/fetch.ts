/**
 * Save a web resource into a writable library: downloaded on the server (`safeFetch`, so
 * its content never passes through the agent), a web page turned into Markdown by the HTML
 * extractor (its links put back as Markdown links, the title, source URL and time of the
 * download in front matter), anything else saved byte for byte; then written through the
 * shelf's `writeFile`, which confines, writes atomically, commits and indexes it.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { extname, join } from "node:path";
import type { Link } from "../core/extractor.ts";
import { FETCH_TYPES, fetchableUrl, type Fetched, safeFetch } from "../core/safe_fetch.ts";
import { ToolError } from "../core/types.ts";
import { html } from "../extractors/html.ts";
import type { Shelf } from "./shelf.ts";
import { MAX_WRITE_BYTES } from "./vault.ts";

/** A download to save. */
export interface FetchRequest {
  /** The `http`/`https` URL. */
  url: string;
  /** The writable library (default: the only writable one, or the one `path` starts with). */
  library?: string;
  /**
   * Where to save it: a path inside the library, or `<library>/<path>`; without an
   * extension, the type's is added. Default: a name from the page's title or the URL.
   */
  path?: string;
  /** Commit message (libraries that are repositories). */
  message?: string;
}

/** What was saved. */
export interface FetchAnswer {
  /** The URL fetched. */
  url: string;
  /** The display path written. */
  path: string;
  /** The document's id (absent when the index skipped the file). */
  doc_id?: string;
  /** The content type the server declared. */
  content_type: string;
  /** Bytes written (the Markdown, for a page). */
  bytes: number;
  /** Bytes downloaded. */
  downloaded: number;
  /** Whether the file is new. */
  created: boolean;
  /** The file's version tag (for `if_match`). */
  version: string;
  /** The page's title, for a web page. */
  title?: string;
  /** The commit made, in a library that is a repository. */
  commit?: string;
}

/** How the download is limited beyond the defaults: tests pass their loopback server. */
export interface FetchLimits {
  /** TESTS ONLY: `address:port` pairs reachable although not public (see `safeFetch`). */
  testAllow?: readonly string[];
  /** Time limit in ms. */
  timeoutMs?: number;
}

const HTML_TYPES = new Set(["text/html", "application/xhtml+xml"]);

/**
 * Download a URL into a writable library and index it.
 *
 * @param shelf the shelf (its `writeFile` does the writing)
 * @param r the URL, where to save it and the commit message
 * @param limits tests' loopback allow-list and time limit
 * @returns where it was saved, its size, type, version and whether it is new
 * @throws {ToolError} `NOT_ALLOWED` (no writable library, or a non-public address),
 *   `INVALID_ARGUMENT`, `REDIRECTED`, `TOO_LARGE`, `UNSUPPORTED_TYPE`, `FETCH_FAILED`
 */
export async function fetchIntoLibrary(
  shelf: Shelf,
  r: FetchRequest,
  limits: FetchLimits = {},
): Promise<FetchAnswer> {
  const url = fetchableUrl(r.url);
  const { library, path } = target(shelf, r);
  const got = await safeFetch(url.href, { ...limits, maxBytes: MAX_WRITE_BYTES });
  const saved = HTML_TYPES.has(got.contentType) ? await pageAsMarkdown(got) : undefined;
  const ext = saved ? ".md" : FETCH_TYPES[got.contentType] ?? "";
  const rel = path === undefined
    ? await freeName(shelf, library, nameFor(saved?.title, url), ext)
    : withExtension(path, ext, got.contentType);
  const w = await shelf.writeFile({
    library,
    path: rel,
    ...(saved
      ? { text: saved.text, frontMatter: saved.frontMatter }
      : { base64: Buffer.from(got.bytes).toString("base64") }),
    message: r.message ?? `Fetch ${got.url}`,
  });
  return {
    url: got.url,
    path: w.path,
    doc_id: w.doc_id,
    content_type: got.contentType,
    bytes: w.bytes,
    downloaded: got.bytes.length,
    created: w.created,
    version: w.version,
    title: saved?.title,
    commit: w.commit,
  };
}

/** The library to save into and the path inside it, checked before anything is fetched. */
function target(shelf: Shelf, r: FetchRequest): { library: string; path?: string } {
  const writable = shelf.writableLibraries();
  if (!writable.length) {
    throw new ToolError(
      "NOT_ALLOWED",
      "Writing is not enabled for any library",
      'Set "write": true on a library in shelfmark.json, or start with --write LIBRARY.',
    );
  }
  let library = r.library;
  let path = r.path?.trim() || undefined;
  if (library === undefined && path !== undefined) {
    const first = path.split("/")[0]!;
    if (writable.includes(first) && path.length > first.length + 1) {
      library = first;
      path = path.slice(first.length + 1);
    }
  }
  if (library === undefined) {
    if (writable.length > 1) {
      throw new ToolError(
        "INVALID_ARGUMENT",
        `Which library? Writing is enabled for ${writable.join(", ")}`,
        "Give library (or a path that starts with the library's name).",
      );
    }
    library = writable[0]!;
  }
  if (!writable.includes(library)) {
    throw new ToolError(
      "NOT_ALLOWED",
      `Writing is not enabled for the library ${JSON.stringify(library)}`,
      `Writable: ${writable.join(", ")}.`,
    );
  }
  return { library, path };
}

/** A page as Markdown: the extractor's lines with their links, and front matter. */
async function pageAsMarkdown(got: Fetched): Promise<
  { text: string; title: string; frontMatter: Record<string, unknown> }
> {
  const url = new URL(got.url);
  let doc;
  try {
    const bytes = inUtf8(got.bytes, got.charset);
    doc = await html().extract({ path: url.hostname, extension: ".html", bytes });
  } catch (e) {
    throw new ToolError(
      "FETCH_FAILED",
      `${got.url} gave a page that cannot be read: ${(e as Error).message}`,
      "Try another URL.",
    );
  }
  const title = doc.meta?.title ?? doc.headings?.[0]?.title ?? url.hostname + url.pathname;
  const lines = withLinks(doc.lines, doc.links ?? [], url);
  return {
    title,
    text: lines.join("\n") + "\n",
    frontMatter: { title, source: got.url, fetched: new Date().toISOString() },
  };
}

/**
 * The page's bytes in UTF-8 when the server declared another charset (the extractor reads
 * UTF-8, or a charset the page itself declares); unknown labels leave them as they are.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const latin1 = new Uint8Array([0x63, 0x61, 0x66, 0xe9]); // "café" in ISO-8859-1
 * assert.equal(new TextDecoder().decode(inUtf8(latin1, "iso-8859-1")), "café");
 * ```
 */
export function inUtf8(bytes: Uint8Array, charset: string | undefined): Uint8Array {
  if (!charset || /^utf-?8$/.test(charset)) return bytes;
  try {
    return new TextEncoder().encode(new TextDecoder(charset).decode(bytes));
  } catch {
    return bytes;
  }
}

/**
 * The lines with each link's text made a Markdown link again (`[text](absolute URL)`),
 * where the text is found on its line; links within the page (`#anchor`) stay text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const lines = withLinks(["See the docs and the FAQ."], [
 *   { target: "/docs", text: "docs", line: 1 },
 *   { target: "#faq", text: "FAQ", line: 1 },
 * ], new URL("https://example.org/a/"));
 * assert.deepEqual(lines, ["See the [docs](https://example.org/docs) and the FAQ."]);
 * ```
 */
export function withLinks(lines: string[], links: Link[], base: URL): string[] {
  const out = [...lines];
  const cursor = new Map<number, number>();
  for (const l of links) {
    const i = l.line - 1;
    const line = out[i];
    if (line === undefined || !l.text.trim() || l.target.trim().startsWith("#")) continue;
    let href: string;
    try {
      const u = new URL(l.target.trim(), base);
      if (u.protocol !== "http:" && u.protocol !== "https:" && u.protocol !== "mailto:") continue;
      href = u.href;
    } catch {
      continue;
    }
    const from = cursor.get(i) ?? 0;
    const at = line.indexOf(l.text, from);
    if (at < 0) continue;
    const md = `[${l.text}](<${href.replaceAll(">", "%3E")}>)`;
    const plain = /^[^\s()<>]+$/.test(href) ? `[${l.text}](${href})` : md;
    out[i] = line.slice(0, at) + plain + line.slice(at + l.text.length);
    cursor.set(i, at + plain.length);
  }
  return out;
}

/**
 * A file name (without extension) from a page's title, else from the URL's last segment,
 * else its host: characters that file systems refuse replaced, at most 80 characters.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(nameFor("What is: SSRF?", new URL("https://a.org/x")), "What is - SSRF");
 * assert.equal(nameFor(undefined, new URL("https://a.org/files/report.pdf")), "report");
 * assert.equal(nameFor(undefined, new URL("https://a.org/")), "a.org");
 * ```
 */
export function nameFor(title: string | undefined, url: URL): string {
  const last = decodeURIComponentSafe(url.pathname.split("/").filter(Boolean).pop() ?? "");
  const base = title?.trim() || last.replace(/\.[A-Za-z0-9]{1,5}$/, "") || url.hostname;
  const clean = base
    // deno-lint-ignore no-control-regex -- control characters are not file names
    .replace(/[\u0000-\u001f\u007f]/g, " ")
    .replace(/\s*[/\\:*?"<>|]+\s*/g, " - ")
    .replace(/\s+/g, " ")
    .replace(/^[\s.-]+|[\s.-]+$/g, "");
  return clean.slice(0, 80).trim() || url.hostname;
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** `name` + `ext` at the library's root, or `name-2` ... when a file has that name. */
async function freeName(shelf: Shelf, library: string, name: string, ext: string) {
  const root = shelf.libraries.find((l) => l.name === library)!.root;
  for (let i = 1; i < 1000; i++) {
    const candidate = `${name}${i > 1 ? `-${i}` : ""}${ext}`;
    const there = await Deno.lstat(join(root, candidate)).then(() => true, () => false);
    if (!there) return candidate;
  }
  throw new ToolError(
    "INVALID_ARGUMENT",
    `Too many files named ${name}${ext} already`,
    "Give path.",
  );
}

/** The path given, with the type's extension added when it has none, checked otherwise. */
function withExtension(path: string, ext: string, type: string): string {
  const has = extname(path).toLowerCase();
  if (!has) return path + ext;
  const same = has === ext || (ext === ".md" && has === ".markdown") ||
    (ext === ".jpg" && has === ".jpeg") || (ext === ".tif" && has === ".tiff") ||
    (ext === ".html" && has === ".htm");
  if (same) return path;
  throw new ToolError(
    "INVALID_ARGUMENT",
    `${JSON.stringify(path)} ends in ${has}, but ${type} is saved as ${ext}`,
    `Give a path ending in ${ext}, or none (the extension is added).`,
  );
}
