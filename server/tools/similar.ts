/**
 * `similar`: the documents nearest to one document by their vectors.
 *
 * @module
 */
import { z } from "zod";
import { ToolError } from "../../core/types.ts";
import { defineTool, docIdArg, intFlag, needArgs, resolveDoc } from "../tool.ts";
import { nextStep, resultsMd, toResults } from "./_results.ts";

const USAGE = `shelfmark similar ID [--limit 10] [--json]
  Documents nearest to ID by their document vectors (needs the vectors: see status).`;

/** The `similar` tool. */
export const similar = defineTool({
  name: "similar",
  title: "Similar documents",
  description:
    "Documents nearest to one document by meaning (its document vector), same result shape as search: for 'more like this' and related reading.",
  input: {
    doc_id: docIdArg,
    limit: z.number().int().min(1).max(50).default(10).describe("Maximum results (1-50)"),
  },
  async run(shelf, a) {
    const id = resolveDoc(shelf, a.doc_id);
    const v = shelf.vectors;
    if (!v) {
      throw new ToolError(
        "INDEX_UNAVAILABLE",
        "No embedder is configured, so documents have no vectors",
        'Set "embedder" in shelfmark.json (or --embedder default) and let the index build.',
      );
    }
    const vector = await v.retriever.vectorOf(id);
    if (!vector) {
      const s = v.status();
      throw new ToolError(
        "INDEX_UNAVAILABLE",
        `Document ${id} has no vector yet (${s.embedded} of ${s.embedded + s.pending} embedded)`,
        "Try again when status shows vectors ready; search works meanwhile.",
      );
    }
    const hits = await v.retriever.nearest(vector, a.limit, {}, id);
    return { doc_id: id, results: toResults(shelf, hits) };
  },
  markdown(r, render) {
    if (!r.results.length) return `No documents are similar to ${r.doc_id}.`;
    return [
      `${r.results.length} documents similar to ${r.doc_id}:`,
      ...resultsMd(r.results),
      "",
      nextStep(render),
    ].join("\n");
  },
  cli: {
    summary: "similar ID                      documents nearest in meaning to one document",
    usage: USAGE,
    flags: { limit: { type: "string", short: "n" } },
    args(pos, f) {
      needArgs(pos, 1, "ID", USAGE);
      return { doc_id: pos[0], limit: intFlag(f.limit, "limit") };
    },
  },
});
