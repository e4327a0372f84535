/**
 * `read`: numbered lines of a document, from an offset or a page.
 *
 * @module
 */
import { z } from "zod";
import { findNode, flattenOutline } from "../../core/outline.ts";
import { type OutlineNode, ToolError } from "../../core/types.ts";
import { docLines } from "../../shelf/lines.ts";
import {
  argHint,
  defineTool,
  docIdArg,
  escapeControl,
  needArgs,
  resolveDoc,
  shownPath,
} from "../tool.ts";
import { nextOffset, obj } from "./_output.ts";

const MAX_LINE_CHARS = 2000;
const USAGE =
  `shelfmark read ID [--offset 1] [--limit 200] [--page N] [--section 3.2|TITLE] [--json]
  --section reads one section of the outline (its id, or its heading's text); --page one page.`;
/** Lines returned when neither a limit nor a section or page bounds the answer. */
const DEFAULT_LIMIT = 200;
const MAX_LIMIT = 500;

/** Text compared loosely: case and runs of white space ignored, a leading section mark dropped. */
function loose(s: string): string {
  return s.toLowerCase().replace(/\s+/g, " ").trim();
}

/** The outline node a `section` argument names: its id (`3.2`, `§3.2`) or its heading text. */
function findSection(outline: OutlineNode[], section: string): OutlineNode | undefined {
  const id = section.trim().replace(/^§\s*/, "");
  if (/^\d+(\.\d+)*$/.test(id)) {
    const node = findNode(outline, id);
    if (node) return node;
  }
  const want = loose(section);
  const all = flattenOutline(outline);
  return all.find((n) => loose(n.title) === want) ??
    all.find((n) => loose(n.title).replace(/^[\d.]+\s+/, "") === want.replace(/^[\d.]+\s+/, ""));
}

/** The headings of a document, for a miss: ids and titles, the first levels first. */
function headingList(outline: OutlineNode[]): string {
  const all = flattenOutline(outline).filter((n) => n.level <= 2).slice(0, 30);
  if (!all.length) return "This document has no outline; use offset and limit.";
  return `Sections: ${all.map((n) => `${n.id} ${n.title}`).join("; ")}` +
    (flattenOutline(outline).length > all.length ? "; … (see outline)" : "");
}
/** The `read` tool. */
export const read = defineTool({
  name: "read",
  title: "Read lines",
  description:
    "Numbered lines of a document: offset (1-based) and limit (max 500), a section of its outline (id like 3.2, or heading text), or a page (PDFs, scans).",
  input: {
    doc_id: docIdArg,
    offset: z.number().int().min(1).default(1).describe("First line (1-based)"),
    limit: z.number().int().min(1).max(MAX_LIMIT).optional().describe(
      "Lines to return (default 200, or the whole section or page; max 500)",
    ),
    page: z.number().int().min(1).optional().describe(
      "Paged documents (PDF, OCR): read this page",
    ),
    section: z.string().min(1).max(500).optional().describe(
      'An outline section: its id ("3.2") or its heading text (case and spacing ignored)',
    ),
  },
  output: {
    doc_id: z.string(),
    title: z.string(),
    path: z.string(),
    lines: z.array(obj({ n: z.number().int(), text: z.string() })),
    offset: z.number().int(),
    total_lines: z.number().int(),
    next_offset: nextOffset,
  },
  run(shelf, a) {
    const id = resolveDoc(shelf, a.doc_id);
    const doc = shelf.catalog.get(id)!;
    const lines = docLines(shelf.catalog, id, doc.hash);
    let offset = a.offset;
    /** The last line the section or page asked for. */
    let last: number | undefined;
    if (a.section !== undefined) {
      const node = findSection(doc.outline, a.section);
      if (!node) {
        throw new ToolError(
          "INVALID_ARGUMENT",
          `No section ${JSON.stringify(a.section)} in ${id}`,
          headingList(doc.outline),
        );
      }
      offset = node.start_line;
      last = node.end_line;
    } else if (a.page !== undefined) {
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
      last = (pages[a.page] ?? lines.length + 1) - 1;
    }
    const total = lines.length;
    if (offset > Math.max(total, 1)) {
      throw new ToolError(
        "INVALID_ARGUMENT",
        `offset ${offset} is past the end of the document (${total} lines)`,
        `Use an offset from 1 to ${total}.`,
      );
    }
    const limit = a.limit ?? (last !== undefined ? last - offset + 1 : DEFAULT_LIMIT);
    const end = Math.min(total, last ?? total, offset + Math.min(limit, MAX_LIMIT) - 1);
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
  markdown(r, render) {
    if (!r.lines.length) return `${escapeControl(r.title)} [${r.doc_id}] is empty (0 lines).`;
    const w = String(r.lines[r.lines.length - 1]!.n).length;
    const body = r.lines.map((l) => `${String(l.n).padStart(w)} | ${l.text}`);
    const first = r.lines[0]!.n;
    const last = r.lines[r.lines.length - 1]!.n;
    body.push("");
    body.push(
      `Showing lines ${first}-${last} of ${r.total_lines}.` +
        (r.next_offset
          ? ` Next: ${render.cli ? "add " : "read "}${argHint(render, { offset: r.next_offset })}.`
          : ""),
    );
    return body.join("\n");
  },
  cli: {
    synopsis: "read ID",
    summary: "numbered lines of a document",
    usage: USAGE,
    positional: ["doc_id"],
    short: { n: "limit" },
    args(pos) {
      needArgs(pos, 1, "ID", USAGE);
      return { doc_id: pos[0] };
    },
  },
});
