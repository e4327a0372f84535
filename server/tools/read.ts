/**
 * `read`: numbered lines of a document, from an offset or a page.
 *
 * @module
 */
import { z } from "zod";
import { ToolError } from "../../core/types.ts";
import { docLines } from "../../shelf/lines.ts";
import {
  defineTool,
  docIdArg,
  escapeControl,
  intFlag,
  needArgs,
  resolveDoc,
  shownPath,
} from "../tool.ts";

const MAX_LINE_CHARS = 2000;
const USAGE = `shelfmark read ID [--offset 1] [--limit 200] [--page N] [--json]`;
/** The `read` tool. */
export const read = defineTool({
  name: "read",
  title: "Read lines",
  description:
    "Numbered lines of a document: offset (1-based) and limit (max 500), or page for PDFs and scans.",
  input: {
    doc_id: docIdArg,
    offset: z.number().int().min(1).default(1).describe("First line (1-based)"),
    limit: z.number().int().min(1).max(500).default(200).describe("Lines to return (max 500)"),
    page: z.number().int().min(1).optional().describe(
      "Paged documents (PDF, OCR): start at this page",
    ),
  },
  run(shelf, a) {
    const id = resolveDoc(shelf, a.doc_id);
    const doc = shelf.catalog.get(id)!;
    const lines = docLines(shelf.catalog, id, doc.hash);
    let offset = a.offset;
    if (a.page !== undefined) {
      const pages = doc.pages;
      if (!pages?.length) {
        throw new ToolError(
          "INVALID_ARGUMENT",
          `Document ${id} has no pages`,
          "Use offset instead; page is for PDFs and scans.",
        );
      }
      if (a.page > pages.length) {
        throw new ToolError(
          "INVALID_ARGUMENT",
          `page ${a.page} is past the last page (${pages.length})`,
          `Pages run from 1 to ${pages.length}.`,
        );
      }
      offset = pages[a.page - 1]!;
    }
    const total = lines.length;
    if (offset > Math.max(total, 1)) {
      throw new ToolError(
        "INVALID_ARGUMENT",
        `offset ${offset} is past the end of the document (${total} lines)`,
        `Use an offset from 1 to ${total}.`,
      );
    }
    const end = Math.min(total, offset + a.limit - 1);
    const out = [];
    for (let n = offset; n <= end; n++) {
      const t = lines[n - 1]!;
      out.push({
        n,
        text: t.length > MAX_LINE_CHARS
          ? `${t.slice(0, MAX_LINE_CHARS)}… [line cut: ${t.length} chars]`
          : t,
      });
    }
    return {
      doc_id: id,
      title: doc.card.title,
      path: shownPath(shelf, doc.card.path),
      lines: out,
      offset,
      total_lines: total,
      next_offset: end < total ? end + 1 : null,
    };
  },
  markdown(r) {
    if (!r.lines.length) return `${escapeControl(r.title)} [${r.doc_id}] is empty (0 lines).`;
    const w = String(r.lines[r.lines.length - 1]!.n).length;
    const body = r.lines.map((l) => `${String(l.n).padStart(w)} | ${l.text}`);
    const first = r.lines[0]!.n;
    const last = r.lines[r.lines.length - 1]!.n;
    body.push("");
    body.push(
      `Showing lines ${first}-${last} of ${r.total_lines}.` +
        (r.next_offset ? ` Next: read offset=${r.next_offset}.` : ""),
    );
    return body.join("\n");
  },
  cli: {
    summary: "read ID                         numbered lines of a document",
    usage: USAGE,
    flags: {
      offset: { type: "string" },
      page: { type: "string" },
      limit: { type: "string", short: "n" },
    },
    args(pos, f) {
      needArgs(pos, 1, "ID", USAGE);
      return {
        doc_id: pos[0],
        offset: intFlag(f.offset, "offset"),
        limit: intFlag(f.limit, "limit"),
        page: intFlag(f.page, "page"),
      };
    },
  },
});
