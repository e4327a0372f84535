/**
 * `similar`: the documents nearest to one document by their vectors (by its keywords while
 * it has no vector).
 *
 * @module
 */
import { z } from "zod";
import { defineTool, docIdArg, needArgs, resolveDoc } from "../tool.ts";
import { nextStep, resultsMd, toResults } from "./_results.ts";
import { hit, optString } from "./_output.ts";
import { count } from "./_listing.ts";

const USAGE = `shelfmark similar ID [--limit 10] [--json]
  Documents nearest to ID by their document vectors, or by its keywords while it has none.`;

/** The `similar` tool. */
export const similar = defineTool({
  name: "similar",
  title: "Similar documents",
  description:
    "Documents nearest to one document by meaning (its vector; its keywords while it has none; similar_by says which), same result shape as search: for 'more like this' and related reading.",
  input: {
    doc_id: docIdArg,
    limit: z.number().int().min(1).max(50).default(10).describe("Maximum results (1-50)"),
  },
  output: { doc_id: z.string(), similar_by: optString, results: z.array(hit) },
  async run(shelf, a) {
    const id = resolveDoc(shelf, a.doc_id);
    const { hits, by } = await shelf.similar(id, a.limit);
    return { doc_id: id, similar_by: by, results: toResults(shelf, hits) };
  },
  markdown(r, render) {
    if (!r.results.length) return `No documents are similar to ${r.doc_id}.`;
    return [
      `${count(r.results.length, "document")} similar to ${r.doc_id} (by ${r.similar_by}):`,
      ...resultsMd(r.results),
      "",
      nextStep(render),
    ].join("\n");
  },
  cli: {
    synopsis: "similar ID",
    summary: "documents nearest in meaning to one document",
    usage: USAGE,
    positional: ["doc_id"],
    short: { n: "limit" },
    args(pos) {
      needArgs(pos, 1, "ID", USAGE);
      return { doc_id: pos[0] };
    },
  },
});
