/**
 * `context`: one dossier for a document — its card, backlinks, outgoing links, similar
 * documents, folder peers, front-matter tags and fields, and modification time.
 *
 * Similar documents come from the document vectors when the document has one (as
 * `similar` finds them), else from a keyword search on its keywords (`similar_by` says
 * which).
 *
 * @module
 */
import { z } from "zod";
import type { ContextEntry, DocumentContext } from "../../shelf/context.ts";
import {
  defineTool,
  docIdArg,
  escapeControl,
  n,
  needArgs,
  resolveStoredDoc,
  shownPath,
  shownPaths,
} from "../tool.ts";
import { inLine, kindSummary, outLine } from "./links.ts";
import { count } from "./_listing.ts";
import { docRef, linkPage, obj, optString } from "./_output.ts";

const USAGE = `shelfmark context ID [--limit 5] [--json]
  A dossier of one document: card, backlinks, outlinks, similar documents, folder peers, tags.`;

/** The `context` tool. */
export const context = defineTool({
  name: "context",
  title: "Document context",
  description:
    "One dossier for a document: card, tags, backlinks, outgoing links, similar documents, other documents of its folder. Use it to situate a document before reading.",
  input: {
    doc_id: docIdArg,
    limit: z.number().int().min(1).max(50).default(5).describe("Entries per list (max 50)"),
  },
  output: {
    card: obj({ doc_id: z.string(), title: z.string(), path: z.string(), doc_type: z.string() }),
    tags: z.array(z.string()),
    fields: z.record(z.string(), z.unknown()),
    backlinks: linkPage,
    outlinks: linkPage,
    similar: z.array(docRef),
    similar_by: optString,
    folder: obj({ path: z.string(), total: z.number().int(), items: z.array(docRef) }),
  },
  async run(shelf, a): Promise<DocumentContext> {
    const r = await shelf.documentContext(await resolveStoredDoc(shelf, a.doc_id), a.limit);
    return {
      ...r,
      card: { ...r.card, path: shownPath(shelf, r.card.path) },
      backlinks: { ...r.backlinks, items: shownPaths(shelf, r.backlinks.items) },
      outlinks: { ...r.outlinks, items: shownPaths(shelf, r.outlinks.items) },
      similar: shownPaths(shelf, r.similar),
      folder: {
        ...r.folder,
        path: shownPath(shelf, r.folder.path),
        items: shownPaths(shelf, r.folder.items),
      },
    };
  },
  markdown(r) {
    const c = r.card;
    const e = escapeControl;
    const more = (shown: number, total: number) =>
      total > shown ? [`- … ${n(total - shown)} more`] : [];
    const doc = (d: ContextEntry) => `- ${e(d.path)} (${d.doc_id}) ${e(d.title)}`;
    const lines = [
      `# ${e(c.title)}`,
      `${e(c.path)} (${c.doc_id}) · ${c.doc_type} · ${count(c.total_lines, "line")}${
        c.page_count ? ` · ${count(c.page_count, "page")}` : ""
      } · modified ${c.modified_at.slice(0, 10)}${c.author ? ` · by ${e(c.author)}` : ""}`,
    ];
    if (r.tags.length) lines.push(`Tags: ${r.tags.map(e).join(", ")}`);
    const other = Object.entries(r.fields).filter(([k]) => k !== "tags");
    if (other.length) {
      lines.push(other.map(([k, v]) => `${e(k)}: ${v.map(e).join(", ")}`).join("; "));
    }
    lines.push(`Backlinks: ${r.backlinks.total ? count(r.backlinks.total, "document") : "none"}`);
    lines.push(
      ...r.backlinks.items.map(inLine),
      ...more(r.backlinks.items.length, r.backlinks.total),
    );
    lines.push(`Outlinks: ${kindSummary(r.outlinks.by_kind)}`);
    lines.push(
      ...r.outlinks.items.map(outLine),
      ...more(r.outlinks.items.length, r.outlinks.total),
    );
    lines.push(`Similar (by ${r.similar_by}):${r.similar.length ? "" : " none"}`);
    lines.push(...r.similar.map(doc));
    lines.push(
      `Folder ${e(r.folder.path)}/: ${
        r.folder.total ? `${count(r.folder.total, "other document")}` : "no other documents"
      }`,
    );
    lines.push(...r.folder.items.map(doc), ...more(r.folder.items.length, r.folder.total));
    return lines.join("\n");
  },
  cli: {
    synopsis: "context ID",
    summary: "dossier: card, links, similar, folder, tags",
    usage: USAGE,
    positional: ["doc_id"],
    short: { n: "limit" },
    args(pos) {
      needArgs(pos, 1, "ID", USAGE);
      return { doc_id: pos[0] };
    },
  },
});
