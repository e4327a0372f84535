/**
 * `outline`: the card and table of contents of each document, within a token budget.
 *
 * @module
 */
import { z } from "zod";
import { type OutlineHints, type RenderedOutline, renderOutline } from "../../core/budget.ts";
import { type Card, type OutlineNode, ToolError } from "../../core/types.ts";
import {
  argHint,
  argNames,
  defineTool,
  docIdArg,
  escapeControl,
  needArgs,
  type Render,
  resolveStoredDoc,
  shownPath,
} from "../tool.ts";
import { obj, optString } from "./_output.ts";
import { partialNote } from "./_partial.ts";

/** The default outline view: a glance at the structure, about 500 tokens. */
const COMPACT_TOKENS = 500;
/** The default budget when the top level alone needs more than the compact view. */
const DEFAULT_TOKENS = 2000;
const USAGE = `shelfmark outline ID [ID...] [--expand 2,3.1] [--max-tokens 2000] [--json]`;
/** The largest budget the schema allows. */
const MAX_TOKENS = 50000;

/** How a cut outline says to ask for more, in the reader's syntax (`--expand 2` or `expand=["2"]`). */
function outlineHints(render: Render): OutlineHints {
  const expand = (id: string) =>
    argHint(render, { expand: render.cli ? id : JSON.stringify([id]) });
  return {
    more: (id, max) =>
      max < MAX_TOKENS
        ? `use ${expand(id)} or ${argHint(render, { max_tokens: Math.min(MAX_TOKENS, max * 2) })}`
        : `use ${expand(id)}`,
    raise: `raise ${argNames(render, "max_tokens")} or use ${argNames(render, "expand")}`,
  };
}

/** One document's outline as asked for, within its budget. */
interface OutlineView {
  card: Card;
  outline: OutlineNode[];
  maxTokens?: number;
  expand: string[];
}

/** Render a view: the compact default gives way when even the top level does not fit in it. */
function renderView(v: OutlineView, hints: OutlineHints): RenderedOutline {
  const r = renderOutline(v.card, v.outline, {
    maxTokens: v.maxTokens ?? COMPACT_TOKENS,
    expand: v.expand,
    hints,
  });
  if (v.maxTokens !== undefined || r.budget !== "truncated") return r;
  return renderOutline(v.card, v.outline, { maxTokens: DEFAULT_TOKENS, expand: v.expand, hints });
}

/** The `outline` tool. */
export const outline = defineTool({
  name: "outline",
  title: "Outline documents",
  description:
    "Table of contents of 1-20 documents with line ranges ([L120-180]), pages and one-sentence summaries, within a token budget. Use the ranges with read.",
  input: {
    doc_ids: z.array(docIdArg).min(1).max(20).describe("1-20 documents"),
    expand: z.array(z.string().min(1).max(64)).max(50).default([]).describe(
      'Node ids shown in full even past the budget, e.g. ["2", "3.1"]',
    ),
    max_tokens: z.number().int().min(50).max(MAX_TOKENS).optional().describe(
      "Token budget per document. Default: a compact view of about 500 tokens (deeper levels " +
        "and summaries hidden when they do not fit; expand shows them), up to 2000 when even " +
        "the top level needs more",
    ),
  },
  output: {
    documents: z.array(obj({
      doc_id: z.string(),
      path: z.string(),
      title: z.string(),
      total_lines: z.number().int(),
      outline_quality: optString,
      nodes: z.array(obj({
        id: z.string(),
        title: z.string(),
        level: z.number().int(),
        start_line: z.number().int(),
        end_line: z.number().int(),
      })),
    })),
    missing: z.array(z.string()).optional(),
  },
  async run(shelf, a) {
    const documents = [];
    const views: OutlineView[] = [];
    const missing: string[] = [];
    // Every document's id, then its card and outline, read together (not one after another).
    const args = [...new Set(a.doc_ids)];
    const ids = await Promise.all(args.map((arg) =>
      resolveStoredDoc(shelf, arg).catch((e) => {
        if (e instanceof ToolError && e.code === "DOCUMENT_NOT_FOUND") return undefined;
        throw e;
      })
    ));
    // Each document once, however often (or by whichever name) it is asked for.
    const unique = [...new Set(ids.filter((id) => id !== undefined))];
    const docs = await Promise.all(unique.map((id) => shelf.outline(id)));
    args.forEach((arg, i) => ids[i] === undefined && missing.push(arg));
    for (const doc of docs) {
      if (!doc) continue;
      const card = { ...doc.card, path: shownPath(shelf, doc.card.path) };
      const shown = { ...card, path: escapeControl(card.path), title: escapeControl(card.title) };
      const view = { card: shown, outline: doc.outline, maxTokens: a.max_tokens, expand: a.expand };
      // The JSON answer is the same on every surface; the markdown's hints are the reader's.
      const r = renderView(view, outlineHints({ cli: false }));
      documents.push({ ...card, budget: r.budget, nodes: r.nodes });
      views.push(view);
    }
    if (documents.length === 0) {
      throw new ToolError(
        "DOCUMENT_NOT_FOUND",
        `No document ${missing.map((m) => JSON.stringify(m)).join(", ")}`,
        "Use doc_ids from search results.",
      );
    }
    return { documents, missing: missing.length ? missing : undefined, views };
  },
  json: ({ documents, missing }) => ({ documents, missing }),
  markdown(r, render) {
    const hints = outlineHints(render);
    const parts = r.views.map((v) =>
      [partialNote(v.card), renderView(v, hints).markdown].filter(Boolean).join("\n")
    );
    if (r.missing) parts.push(`Not found: ${r.missing.join(", ")}`);
    return parts.join("\n\n");
  },
  cli: {
    synopsis: "outline ID [ID...]",
    summary: "table of contents with line ranges",
    usage: USAGE,
    positional: ["doc_ids"],
    args(pos) {
      needArgs(pos, 1, "ID", USAGE);
      return { doc_ids: pos };
    },
  },
});
