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
  resolveStoredDoc,
  shownPath,
} from "../tool.ts";
import { nextOffset, obj, optInt, optString } from "./_output.ts";
import { partialNote } from "./_partial.ts";
import { citeHint } from "./_cite.ts";

const USAGE =
  `shelfmark read ID [--offset 1] [--limit 200] [--page N] [--pages 46-47] [--section 3.2|TITLE] [--json]
  --section reads one section of the outline (its id, or its heading's text); --page one page,
  --pages a range of pages. In a paged document a line \`--- p.N ---\` marks where page N begins.`;
const MAX_LIMIT = MAX_READ_LINES;

/** The `read` tool. */
export const read = defineTool({
  name: "read",
  title: "Read lines",
  description:
    "Numbered lines of a document: offset (1-based) and limit (max 500), a section of its outline (id like 3.2, or heading text), or a page or page range (PDFs, slides, scans; lines carry their page).",
  input: {
    doc_id: docIdArg,
    offset: z.number().int().min(1).default(1).describe("First line (1-based)"),
    limit: z.number().int().min(1).max(MAX_LIMIT).optional().describe(
      "Lines to return (default 200, or the whole section or page; max 500)",
    ),
    page: z.number().int().min(1).optional().describe(
      "Paged documents (PDF, OCR): read this page",
    ),
    pages: z.string().regex(/^\s*\d+\s*(-\s*\d+\s*)?$/, "a page (46) or a range (46-47)").optional()
      .describe('Paged documents: read these pages, "46-47" (at most 500 lines)'),
    section: z.string().min(1).max(500).optional().describe(
      'An outline section: its id ("3.2") or its heading text (case and spacing ignored)',
    ),
  },
  output: {
    doc_id: z.string(),
    title: z.string(),
    path: z.string(),
    lines: z.array(obj({ n: z.number().int(), text: z.string(), page: optInt })),
    offset: z.number().int(),
    total_lines: z.number().int(),
    next_offset: nextOffset,
    truncated: z.boolean().optional(),
    version: z.string(),
    partial: optString,
    warnings: z.array(z.string()).optional(),
    attempts: z.number().int().optional(),
  },
  async run(shelf, a) {
    // An id is not looked up first: readLines fails on an unknown one (one read, not two).
    const id = await resolveStoredDoc(shelf, a.doc_id, false);
    const r = await shelf.readLines(id, a);
    return { ...r, path: shownPath(shelf, r.path) };
  },
  markdown(r, render) {
    const note = partialNote(r);
    if (!r.lines.length) {
      return `${escapeControl(r.title)} [${r.doc_id}] is empty (0 lines). Version ${r.version}.` +
        (note ? `\n${note}` : "");
    }
    const w = String(r.lines[r.lines.length - 1]!.n).length;
    const body: string[] = [];
    for (const [i, l] of r.lines.entries()) {
      // Where a page begins (and the page of the first line): a short marker line.
      if (l.page !== undefined && l.page !== r.lines[i - 1]?.page) body.push(`--- p.${l.page} ---`);
      body.push(`${String(l.n).padStart(w)} | ${l.text}`);
    }
    const first = r.lines[0]!;
    const last = r.lines[r.lines.length - 1]!;
    body.push("");
    body.push(
      `Showing lines ${first.n}-${last.n} of ${r.total_lines}` +
        (r.truncated ? " (cut: the pages or section asked for go on)" : "") + "." +
        (r.next_offset
          ? ` Next: ${render.cli ? "add " : "read "}${argHint(render, { offset: r.next_offset })}.`
          : "") +
        ` Version ${r.version}.`,
    );
    if (note) body.push(note);
    body.push(
      citeHint(escapeControl(r.path), {
        first: first.n,
        last: last.n,
        page: first.page,
        lastPage: last.page,
      }),
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
