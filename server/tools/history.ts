/**
 * `history`: the commits that touched a document (or any file of a git library), newest
 * first, paged.
 *
 * @module
 */
import { z } from "zod";
import { gitListed } from "./_git.ts";
import { argHint, defineTool, docIdArg, escapeControl, libraryArg, shownPath } from "../tool.ts";
import { count } from "./_listing.ts";
import { nextOffset, obj } from "./_output.ts";

const USAGE =
  `shelfmark history [DOC_ID] [--library NAME] [--since 2026-01-01] [--until DATE] [--limit 20] [--offset 0] [--json]`;

/** A date argument (checked by the shelf, which quotes a bad one). */
const date = z.string().min(1).max(40);

/** The `history` tool. */
export const history = defineTool({
  name: "history",
  title: "Git history",
  waitsForIndex: false,
  listed: gitListed,
  description:
    "Commits (newest first) that touched a document, or any file of a git library; since/until dates.",
  input: {
    doc_id: docIdArg.optional().describe(
      "A doc_id or <library>/<path> (deleted files too); the whole library when absent",
    ),
    library: libraryArg.optional(),
    since: date.optional().describe("YYYY-MM-DD or ISO 8601"),
    until: date.optional().describe("YYYY-MM-DD or ISO 8601"),
    limit: z.number().int().min(1).max(100).default(20),
    offset: z.number().int().min(0).max(100_000).default(0),
  },
  output: {
    library: z.string(),
    path: z.string().nullable(),
    commits: z.array(obj({
      commit: z.string(),
      author: z.string(),
      email: z.string(),
      date: z.string(),
      subject: z.string(),
      files: z.array(z.string()),
      file_count: z.number().int(),
    })),
    next_offset: nextOffset,
  },
  async run(shelf, a) {
    const h = await shelf.history(a);
    return {
      ...h,
      path: h.path === null ? null : shownPath(shelf, h.path),
      commits: h.commits.map((c) => ({ ...c, files: c.files.map((f) => shownPath(shelf, f)) })),
    };
  },
  markdown(r, render) {
    const what = escapeControl(r.path ?? r.library);
    if (!r.commits.length) return `No commits touching ${what}.`;
    const out = [`${count(r.commits.length, "commit")} touching ${what}, newest first:`];
    for (const c of r.commits) {
      const files = r.path === null && c.file_count
        ? ` (${c.files.slice(0, 3).map(escapeControl).join(", ")}${
          c.file_count > 3 ? `, +${c.file_count - 3}` : ""
        })`
        : "";
      out.push(
        `- ${c.commit.slice(0, 10)} ${c.date.slice(0, 10)} ${escapeControl(c.author)}: ${
          escapeControl(c.subject)
        }${files}`,
      );
    }
    if (r.next_offset !== null) {
      out.push(`Next: ${render.cli ? "add " : ""}${argHint(render, { offset: r.next_offset })}.`);
    }
    return out.join("\n");
  },
  cli: {
    synopsis: "history [DOC_ID]",
    summary: "commits that touched a document or a git library",
    usage: USAGE,
    short: { n: "limit" },
    positional: ["doc_id"],
    args: (pos) => ({ doc_id: pos[0] }),
  },
});
