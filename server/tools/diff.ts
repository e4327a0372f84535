/**
 * `diff`: a document's changes between a commit and HEAD or its file on disk, cut at a
 * size (and said so).
 *
 * @module
 */
import { z } from "zod";
import { gitListed } from "./_git.ts";
import { argHint, defineTool, docIdArg, escapeControl, shownPath } from "../tool.ts";
import { bytes } from "./_listing.ts";

const USAGE =
  `shelfmark diff DOC_ID [--commit HASH] [--to head|worktree] [--max-bytes 20000] [--json]`;

/** The `diff` tool. */
export const diff = defineTool({
  name: "diff",
  title: "Git diff",
  waitsForIndex: false,
  listed: gitListed,
  description:
    "A document's unified diff (git library) from a commit (default HEAD) to HEAD or to the file on disk.",
  input: {
    doc_id: docIdArg,
    commit: z.string().min(1).max(200).optional().describe(
      "Commit to compare from: a hash from history, HEAD~1, a branch (default HEAD)",
    ),
    to: z.enum(["head", "worktree"]).default("worktree").describe(
      "Compare to HEAD or to the file on disk",
    ),
    max_bytes: z.number().int().min(1000).max(200_000).default(20_000),
  },
  output: {
    library: z.string(),
    path: z.string(),
    from: z.string(),
    to: z.string(),
    diff: z.string(),
    truncated: z.boolean(),
  },
  async run(shelf, a) {
    const d = await shelf.diff(a);
    return { ...d, path: shownPath(shelf, d.path) };
  },
  markdown(r, render) {
    const what = escapeControl(r.path);
    const span = `${r.from.slice(0, 10)}..${
      r.to === "worktree" ? "file on disk" : r.to.slice(0, 10)
    }`;
    if (!r.diff) return `No changes to ${what} (${span}).`;
    const fence = r.diff.includes("```") ? "````" : "```";
    const out = [`Diff of ${what} (${span}):`, `${fence}diff`, r.diff.trimEnd(), fence];
    if (r.truncated) {
      out.push(
        `Cut at ${bytes(r.diff.length)}: ask for more with ${
          argHint(render, { max_bytes: 200_000 })
        }, or compare from a later commit.`,
      );
    }
    return out.join("\n");
  },
  cli: {
    synopsis: "diff DOC_ID",
    summary: "a document's changes since a commit (git library)",
    usage: USAGE,
    positional: ["doc_id"],
    args: (pos) => ({ doc_id: pos[0] }),
  },
});
