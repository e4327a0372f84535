/**
 * `find_documents`: documents by file name or title — exact, then prefix, then contains
 * (case, accents and `_-.` separators ignored), and with `fuzzy` also names within a few
 * typos (see `search/names.ts`).
 *
 * @module
 */
import { z } from "zod";
import { ToolError } from "../../core/types.ts";
import { type MatchKind, normalizeName } from "../../search/names.ts";
import { argHint, checkStoreLibrary, defineTool, libraryArg, n, needArgs } from "../tool.ts";
import { count, type DocCard, docCard, docLine } from "./_listing.ts";
import { docEntry, obj } from "./_output.ts";

const USAGE =
  `shelfmark find-documents QUERY [--fuzzy] [--library NAME] [--doc-types pdf,docx] [--limit 10] [--json]`;

/** A document found, with how it matched. */
type Found = DocCard & {
  /** exact, prefix, contains or fuzzy. */
  match: MatchKind;
  /** Whether the file name or the title matched. */
  matched_on: "name" | "title";
  /** Typos allowed for a fuzzy match. */
  edits?: number;
};

/** The `find_documents` tool. */
export const findDocuments = defineTool({
  name: "find_documents",
  title: "Find documents by name",
  description:
    "Documents by file name or title: exact, then prefix, then contains (case-insensitive); fuzzy tolerates typos. For a known name; search finds content.",
  input: {
    query: z.string().min(1).max(200).describe("File name or title, or part of it"),
    fuzzy: z.boolean().default(false).describe("Tolerate typos"),
    library: libraryArg.optional(),
    doc_types: z.array(z.string().min(1).max(32)).max(20).default([]).describe("Only these types"),
    limit: z.number().int().min(1).max(50).default(10),
  },
  output: {
    query: z.string(),
    total: z.number().int(),
    results: z.array(obj({ ...docEntry.shape, match: z.string(), matched_on: z.string() })),
  },
  async run(shelf, a) {
    await checkStoreLibrary(shelf, a.library);
    const q = normalizeName(a.query);
    if (!q) {
      throw new ToolError(
        "INVALID_ARGUMENT",
        `query ${JSON.stringify(a.query)} has no letters or digits`,
        "Give part of a file name or title.",
      );
    }
    const found = await shelf.findDocuments({
      query: q,
      fuzzy: a.fuzzy,
      library: a.library,
      doc_types: a.doc_types.map((t) => t.toLowerCase()),
      limit: a.limit,
    });
    const results: Found[] = found.matches.map(({ entry, match }) => ({
      ...docCard(shelf, entry),
      match: match.kind,
      matched_on: match.on,
      edits: match.kind === "fuzzy" ? match.distance : undefined,
    }));
    return { query: a.query, fuzzy: a.fuzzy, total: found.total, counts: found.counts, results };
  },
  markdown(r, render) {
    if (!r.results.length) {
      return `No document named like ${JSON.stringify(r.query)}.` +
        (r.fuzzy
          ? " Try search for words inside documents."
          : ` Try ${render.cli ? "--fuzzy" : "fuzzy=true"}, or search.`);
    }
    const kinds = Object.entries(r.counts).map(([k, c]) => `${n(c)} ${k}`).join(", ");
    const out = [`${count(r.total, "document")} named like ${JSON.stringify(r.query)} (${kinds}):`];
    r.results.forEach((d, i) => {
      const how = d.match === "fuzzy" ? `fuzzy, ${count(d.edits ?? 0, "edit")}` : d.match;
      out.push(
        `${i + 1}. ${docLine(d, d.path)} (${how}${d.matched_on === "title" ? " title" : ""})`,
      );
    });
    if (r.total > r.results.length) {
      out.push(`(${n(r.total - r.results.length)} more: raise ${argHint(render, { limit: 50 })})`);
    }
    return out.join("\n");
  },
  cli: {
    synopsis: "find-documents QUERY",
    summary: "documents by file name or title",
    usage: USAGE,
    positional: ["query"],
    short: { n: "limit" },
    aliases: { type: "doc-types" },
    args(pos) {
      needArgs(pos, 1, "QUERY", USAGE);
      return { query: pos.join(" ") };
    },
  },
});
