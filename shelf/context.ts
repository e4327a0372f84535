/**
 * One document's dossier, as `context` answers it: its card, backlinks, outgoing links,
 * similar documents, folder peers, front-matter fields. Paths are display paths,
 * `<library>/<path inside it>`.
 *
 * @module
 */
import { under } from "../core/listing.ts";
import type { Card } from "../core/types.ts";
import { documentNotFound } from "./documents.ts";
import {
  graphOf,
  type InLink,
  inLinks,
  type KindCounts,
  kindCounts,
  type OutLink,
  outLinks,
} from "./links.ts";
import type { Shelf } from "./shelf.ts";
import { similarTo } from "./similar.ts";
import { partsOf } from "./_parts.ts";

/** A document in one of the dossier's lists. */
export interface ContextEntry {
  /** Its id. */
  doc_id: string;
  /** Its display path. */
  path: string;
  /** Its title. */
  title: string;
}

/** A document's dossier. */
export interface DocumentContext {
  /** Its card's main fields (`author` and `page_count` when it has them). */
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
  /** Its front-matter tags. */
  tags: string[];
  /** Its indexed front-matter fields. */
  fields: Record<string, string[]>;
  /** The documents linking to it: how many, and the first `limit`. */
  backlinks: { total: number; items: InLink[] };
  /** Its outgoing links, one per target: how many, how many of each kind, and the first `limit`. */
  outlinks: { total: number; by_kind: KindCounts; items: OutLink[] };
  /** Documents like it (at most `limit`), most similar first. */
  similar: ContextEntry[];
  /** Whether similar documents were found by vectors or by keywords. */
  similar_by: "vectors" | "keywords";
  /** The other documents of its folder. */
  folder: { path: string; total: number; items: ContextEntry[] };
}

const entry = (e: ContextEntry): ContextEntry => ({
  doc_id: e.doc_id,
  path: e.path,
  title: e.title,
});

/**
 * The dossier of a stored document, `limit` entries per list. Similar documents come from
 * the document vectors when it has one, else from a keyword search on its keywords.
 */
export async function documentContext(
  shelf: Shelf,
  id: string,
  limit: number,
): Promise<DocumentContext> {
  const store = partsOf(shelf).store;
  // its card, fields, folder peers and links, all from the catalog store
  const [cards, fields, table, graph] = await Promise.all([
    store.cards([id]),
    store.fields(id),
    store.table(),
    graphOf(shelf),
  ]);
  const c = cards.get(id);
  if (!c) throw documentNotFound(id);
  const out = await outLinks(graph, id);
  const back = inLinks(graph, id);
  const backlinks = { total: back.all.length, items: await back.detail(back.all.slice(0, limit)) };
  const folder = c.path.slice(0, c.path.lastIndexOf("/"));
  const peers = under(table.entries, folder).filter((d) =>
    d.doc_id !== id && !d.path.includes("/", folder.length + 1)
  );
  const similar = await similarTo(shelf, c, limit);
  const similarCards = await store.cards(similar.hits.map((h) => h.doc_id));
  return {
    card: {
      doc_id: id,
      title: c.title,
      path: c.path,
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
      items: out.all.slice(0, limit),
    },
    similar: similar.hits.flatMap((h) => {
      const e = similarCards.get(h.doc_id);
      return e ? [entry(e)] : [];
    }),
    similar_by: similar.by,
    folder: { path: folder, total: peers.length, items: peers.slice(0, limit).map(entry) },
  };
}
