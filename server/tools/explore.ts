/**
 * `explore`: what a library holds, at a glance — document types, folders with file counts
 * and median sizes, and the top keywords with the folders they come from.
 *
 * @module
 */
import { z } from "zod";
import type { Shelf } from "../../shelf/shelf.ts";
import { checkLibrary, defineTool, libraryArg, n } from "../tool.ts";
import { libraryOrAll, obj } from "./_output.ts";
import { count } from "./_listing.ts";

const MAX_DIRS = 40;
const MAX_DEPTH = 3;

function median(xs: number[]): number {
  if (!xs.length) return 0;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : Math.round((s[m - 1]! + s[m]!) / 2);
}

/** An overview of one library (or of all). */
function overview(shelf: Shelf, a: { library?: string }) {
  checkLibrary(shelf, a.library);
  const types = new Map<string, number>();
  const dirs = new Map<string, number[]>();
  const kw = new Map<string, Map<string, number>>();
  let total = 0;
  for (const c of shelf.catalog.iterCards(a.library)) {
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
    library: a.library ?? null,
    document_count: total,
    doc_types: Object.fromEntries([...types.entries()].sort((x, y) => y[1] - x[1])),
    directories: shown,
    directories_total: directories.length,
    top_keywords: keywords,
  };
}

/** The `explore` tool. */
export const explore = defineTool({
  name: "explore",
  title: "Explore a library",
  description:
    "Overview of a library: document types, folder structure with counts and median sizes, top keywords and where they come from.",
  input: { library: libraryArg.optional() },
  output: {
    library: libraryOrAll,
    document_count: z.number().int(),
    doc_types: z.record(z.string(), z.number().int()),
    directories: z.array(obj({ path: z.string(), file_count: z.number().int() })),
    top_keywords: z.array(obj({ keyword: z.string(), documents: z.number().int() })),
  },
  run: overview,
  markdown(r) {
    const out = [`${r.library ?? "All libraries"}: ${count(r.document_count, "document")}`];
    out.push(
      "Types: " + Object.entries(r.doc_types).map(([t, c]) => `${t} ${n(c)}`).join(", "),
    );
    out.push("", "Folders (files, median words):");
    for (const d of r.directories) {
      const depth = d.path.split("/").length - 1;
      out.push(
        `${"  ".repeat(depth)}${d.path.split("/").pop()}/ ${n(d.file_count)} files, ~${
          n(d.median_words)
        } words`,
      );
    }
    if (r.directories.length < r.directories_total) {
      out.push(`  … ${r.directories_total - r.directories.length} deeper folders (use find_paths)`);
    }
    if (r.top_keywords.length) {
      out.push("", "Top keywords (documents; folders):");
      for (const k of r.top_keywords) {
        out.push(`- ${k.keyword} (${k.documents}; ${k.directories.join(", ")})`);
      }
    }
    return out.join("\n");
  },
  cli: {
    synopsis: "explore [LIBRARY]",
    summary: "what a library holds",
    usage: `shelfmark explore [LIBRARY] [--json]`,
    args: (pos) => ({ library: pos[0] }),
  },
});
