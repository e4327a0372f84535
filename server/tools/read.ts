/**
 * `read`: numbered lines of a document, from an offset or a page.
 *
 * @module
 */
import { z } from "zod";
import { MAX_READ_LINES } from "../../shelf/documents.ts";
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

const USAGE =
  `shelfmark read ID [--offset 1] [--limit 200] [--page N] [--section 3.2|TITLE] [--json]
  --section reads one section of the outline (its id, or its heading's text); --page one page.`;
const MAX_LIMIT = MAX_READ_LINES;

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
    const r = shelf.readLines(id, a);
    return { ...r, path: shownPath(shelf, r.path) };
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
