/**
 * `fetch`: download an http/https URL into a writable library on the server (a web page
 * saved as Markdown), SSRF-safe (see `core/safe_fetch.ts`); only where writing is enabled.
 *
 * @module
 */
import { z } from "zod";
import { checkLibrary, defineTool, libraryArg, n, needArgs } from "../tool.ts";
import { messageArg, shown, vaultTail } from "./_vault.ts";

const USAGE = `shelfmark fetch URL [--library NAME] [--path PATH] [--message TEXT] [--json]
  Downloads URL into a writable library: a web page becomes Markdown (title, source and
  time in its front matter), other types (PDF, images, office files, text) are saved as
  they are. Public addresses only; redirects are reported, not followed.
  --write LIBRARY enables writing in LIBRARY for this run (or "write": true in shelfmark.json).`;

/** The `fetch` tool. */
export const fetchTool = defineTool({
  name: "fetch",
  title: "Fetch a URL into the library",
  readOnly: false,
  vault: true,
  waitsForIndex: false,
  description:
    "Download an http(s) URL into a writable library on the server (the content does not pass through you): a web page becomes Markdown, PDFs, images and office files are saved as they are, then indexed. Public addresses only; a redirect is reported with its target, not followed.",
  input: {
    url: z.string().min(1).max(8192).describe("The http:// or https:// URL"),
    library: libraryArg.optional().describe(
      "Writable library to save into (default: the only writable one)",
    ),
    path: z.string().min(1).max(1024).optional().describe(
      "Path inside the library (the type's extension is added when it has none); default: from the page title or URL",
    ),
    message: messageArg,
  },
  output: {
    url: z.string(),
    path: z.string(),
    doc_id: z.string().optional(),
    content_type: z.string(),
    bytes: z.number().int(),
    downloaded: z.number().int(),
    created: z.boolean(),
    version: z.string(),
    title: z.string().optional(),
    commit: z.string().optional(),
  },
  async run(shelf, a) {
    checkLibrary(shelf, a.library);
    const r = await shelf.fetchUrl({
      url: a.url,
      library: a.library,
      path: a.path,
      message: a.message,
    });
    return { ...r, path: shown(shelf, r.path) };
  },
  markdown(r) {
    return `${r.created ? "Saved" : "Replaced"} ${r.path} (${n(r.bytes)} bytes, ` +
      `${r.content_type}${r.title ? `, ${JSON.stringify(r.title)}` : ""}) from ${r.url}. ` +
      vaultTail(r);
  },
  cli: {
    synopsis: "fetch URL",
    summary: "download a URL into a writable library (a page as Markdown)",
    usage: USAGE,
    positional: ["url"],
    args: (pos) => {
      needArgs(pos, 1, "URL", USAGE);
      return { url: pos[0] };
    },
  },
});
