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
import { docFields } from "../../core/fields.ts";
import { linkGraph } from "../../core/graph.ts";
import { docTable, under } from "../../core/listing.ts";
import type { Card } from "../../core/types.ts";
import { similarTo } from "../../shelf/similar.ts";
import {
  defineTool,
  docIdArg,
  escapeControl,
  n,
  needArgs,
  resolveDoc,
  shownPath,
} from "../tool.ts";
import {
  inLine,
  type InLink,
  inLinks,
  kindCounts,
  kindSummary,
  outLine,
  type OutLink,
  outLinks,
  plural,
} from "./links.ts";
import { docRef, linkPage, obj, optString } from "./_output.ts";

/** A document in one of the dossier's lists. */
interface Entry {
  doc_id: string;
  path: string;
  title: string;
}

interface Answer {
  card:
    & Pick<
      Card,
      | "doc_id"
      | "title"
      | "path"
      | "library"
      | "doc_type"
      | "modified_at"
      | "total_lines"
      | "word_count"
      | "size"
    >
    & { author?: string; page_count?: number };
  tags: string[];
  fields: Record<string, string[]>;
  backlinks: { total: number; items: InLink[] };
  outlinks: {
    total: number;
    by_kind: Partial<Record<OutLink["kind"], number>>;
    items: OutLink[];
  };
  similar: Entry[];
  similar_by: "vectors" | "keywords";
  folder: { path: string; total: number; items: Entry[] };
}

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
  async run(shelf, a): Promise<Answer> {
    const id = resolveDoc(shelf, a.doc_id);
    const c = shelf.catalog.cards([id]).get(id)!;
    const graph = linkGraph(shelf.catalog, shelf.libraries);
    const out = outLinks(shelf, graph, id);
    const back = inLinks(shelf, graph, id);
    // the graph's rows are read before the search below gives the indexer a turn
    const backlinks = {
      total: back.all.length,
      items: back.all.slice(0, a.limit).map(back.detail),
    };
    const folder = c.path.slice(0, c.path.lastIndexOf("/"));
    const peers = under(docTable(shelf.catalog.db).entries, folder).filter((d) =>
      d.doc_id !== id && !d.path.includes("/", folder.length + 1)
    );
    const fields = docFields(shelf.catalog.db, id);
    const similar = await similarTo(shelf, c, a.limit);
    const cards = shelf.catalog.cards(similar.hits.map((h) => h.doc_id));
    const entry = (e: { doc_id: string; path: string; title: string }): Entry => ({
      doc_id: e.doc_id,
      path: shownPath(shelf, e.path),
      title: e.title,
    });
    return {
      card: {
        doc_id: id,
        title: c.title,
        path: shownPath(shelf, c.path),
        library: c.library,
        doc_type: c.doc_type,
        modified_at: c.modified_at,
        total_lines: c.total_lines,
        word_count: c.word_count,
        size: c.size,
        ...(c.author ? { author: c.author } : {}),
        ...(c.page_count ? { page_count: c.page_count } : {}),
      },
      tags: fields.tags ?? [],
      fields,
      backlinks,
      outlinks: {
        total: out.all.length,
        by_kind: kindCounts(out.all),
        items: out.all.slice(0, a.limit),
      },
      similar: similar.hits.flatMap((h) => {
        const e = cards.get(h.doc_id);
        return e ? [entry(e)] : [];
      }),
      similar_by: similar.by,
      folder: {
        path: shownPath(shelf, folder),
        total: peers.length,
        items: peers.slice(0, a.limit).map(entry),
      },
    };
  },
  markdown(r) {
    const c = r.card;
    const e = escapeControl;
    const more = (shown: number, total: number) =>
      total > shown ? [`- … ${n(total - shown)} more`] : [];
    const doc = (d: Entry) => `- ${e(d.path)} (${d.doc_id}) ${e(d.title)}`;
    const lines = [
      `# ${e(c.title)}`,
      `${e(c.path)} (${c.doc_id}) · ${c.doc_type} · ${plural(c.total_lines, "line")}${
        c.page_count ? ` · ${plural(c.page_count, "page")}` : ""
      } · modified ${c.modified_at.slice(0, 10)}${c.author ? ` · by ${e(c.author)}` : ""}`,
    ];
    if (r.tags.length) lines.push(`Tags: ${r.tags.map(e).join(", ")}`);
    const other = Object.entries(r.fields).filter(([k]) => k !== "tags");
    if (other.length) {
      lines.push(other.map(([k, v]) => `${e(k)}: ${v.map(e).join(", ")}`).join("; "));
    }
    lines.push(`Backlinks: ${r.backlinks.total ? plural(r.backlinks.total, "document") : "none"}`);
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
        r.folder.total ? `${plural(r.folder.total, "other document")}` : "no other documents"
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
