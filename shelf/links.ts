/**
 * Links as the tools ask for them (the link graph of `core/graph.ts`): a document's
 * outgoing links, one per target, and its backlinks; a library's broken links, orphans and
 * most linked documents; the shortest chain of links between two documents. Paths are
 * display paths, `<library>/<path inside it>`. Everything is read from the shelf's catalog
 * store (SQLite or PostgreSQL): the graph it keeps, links' lines and texts, cards.
 *
 * @module
 */
import type { GraphDoc, LinkGraph, LinkKind } from "../core/graph.ts";
import { documentNotFound } from "./documents.ts";
import type { Shelf } from "./shelf.ts";
import { partsOf } from "./_parts.ts";

/** An outgoing link (links to the same target given once). */
export interface OutLink {
  /** The target as written (the first link's). */
  target: string;
  /** What it is: document, file (not indexed), broken, external, outside. */
  kind: Exclude<LinkKind, "internal">;
  /** The target document, when indexed. */
  doc_id: string | null;
  /** The target's path (for a broken link: the path looked for). */
  path: string | null;
  /** Whether the target exists (null: a URL or a path outside the library). */
  exists: boolean | null;
  /** The first link's text. */
  text: string;
  /** The first link's line. */
  line: number;
  /** Links to this target. */
  count: number;
}

/** A document linking to another. */
export interface InLink {
  /** The linking document. */
  doc_id: string;
  /** Its path. */
  path: string;
  /** Line of its first link. */
  line: number;
  /** Text of its first link. */
  text: string;
  /** Its links to the document. */
  count: number;
}

/** A list cut to a page. */
export interface Page<T> {
  /** Entries in all. */
  total: number;
  /** The entries shown. */
  items: T[];
  /** Offset of the next page, when there is one. */
  next_offset?: number;
}

/** Targets of each kind. */
export type KindCounts = Partial<Record<OutLink["kind"], number>>;

/** A document's outgoing links, a page of them. */
export interface Outgoing extends Page<OutLink> {
  /** Targets of each kind, over all pages. */
  by_kind: KindCounts;
  /** Links to other places than the document itself. */
  links: number;
  /** Links inside the document (`#fragment`), only counted. */
  internal: number;
}

/** A document's links, as `links` answers for one document. */
export interface DocumentLinks {
  /** The document's id. */
  doc_id: string;
  /** Its display path. */
  path: string;
  /** Its title. */
  title: string;
  /** A page of its outgoing links (absent when only backlinks were asked for). */
  outgoing?: Outgoing;
  /** A page of the documents linking to it (absent when only outgoing links were asked for). */
  incoming?: Page<InLink>;
}

/** Which of a document's links, a page at a time. */
export interface LinksRequest {
  /** Outgoing links, backlinks or both. */
  direction: "both" | "out" | "in";
  /** Entries to skip in each list. */
  offset: number;
  /** Entries per list. */
  limit: number;
}

/** A library-wide list of the link graph. */
export type LinkReportKind = "broken" | "orphans" | "most_linked";

/** A broken link target of a document. */
export interface BrokenItem {
  /** The document the broken links stand in. */
  doc_id: string;
  /** Its display path. */
  path: string;
  /** The target as written. */
  target: string;
  /** The display path looked for, where there is neither document nor file. */
  target_path: string;
  /** Always false: nothing is at the target. */
  exists: false;
  /** Line of the document's first link to the target. */
  line: number;
  /** Text of that link. */
  text: string;
  /** The document's links to the target. */
  count: number;
}

/** An orphan or a most linked document (`sources`, `links` for the latter). */
export interface LinkedItem extends GraphDoc {
  /** Its title. */
  title: string;
  /** Documents linking to it (most linked documents only). */
  sources?: number;
  /** Links to it from those documents (most linked documents only). */
  links?: number;
}

/** A page of a library-wide list. */
export interface LinkReport extends Page<BrokenItem | LinkedItem> {
  /** The list: broken links, orphans or most linked documents. */
  kind: LinkReportKind;
  /** The library listed; absent for every library. */
  library?: string;
}

/** A document of a chain. */
export interface ChainDoc {
  /** Its id. */
  doc_id: string;
  /** Its display path. */
  path: string;
  /** Its title. */
  title: string;
}

/** The link taken from one document of a chain to the next. */
export interface ChainLink {
  /** `out`: the link stands in the earlier document; `in`: in the later one. */
  direction: "out" | "in";
  /** The document the link stands in. */
  from: string;
  /** The document it points to. */
  to: string;
  /** Its line in `from`. */
  line: number;
  /** Its text. */
  text: string;
  /** Its target as written. */
  target: string;
}

/** The shortest chain of links between two documents, when there is one. */
export interface Connection {
  /** The document the chain starts from. */
  from: ChainDoc;
  /** The document it ends at. */
  to: ChainDoc;
  /** The most links a chain may follow. */
  max_depth: number;
  /** Whether a chain of at most `max_depth` links joins them. */
  found: boolean;
  /** Links in the chain, when found. */
  hops?: number;
  /** Its documents, from `from` to `to`, when found. */
  chain?: ChainDoc[];
  /** The link taken at each step, when found. */
  links?: ChainLink[];
}

const KIND_ORDER: Record<string, number> = {
  document: 0,
  file: 1,
  broken: 2,
  outside: 3,
  external: 4,
};

/** Cut a list to a page. */
function page<T>(all: T[], offset: number, limit: number): Page<T> {
  const items = all.slice(offset, offset + limit);
  const next = offset + items.length;
  return { total: all.length, items, ...(next < all.length ? { next_offset: next } : {}) };
}

/** The link graph of the shelf's catalog store (kept until the store changes). */
export function graphOf(shelf: Shelf): Promise<LinkGraph> {
  const { graphs, catalog } = partsOf(shelf);
  return graphs.graph({ catalog, libraries: shelf.libraries });
}

/**
 * A document's outgoing links, one per target (documents first, then files, broken
 * links, URLs), and the number of links inside the document.
 */
export async function outLinks(
  graph: LinkGraph,
  docId: string,
): Promise<{ all: OutLink[]; links: number; internal: number }> {
  const groups = new Map<string, OutLink>();
  let internal = 0;
  const links = await graph.outgoing(docId);
  for (const l of links) {
    if (l.kind === "internal") {
      internal++;
      continue;
    }
    const key = l.kind === "external" || l.kind === "outside" ? `u ${l.target}` : `p ${l.path}`;
    const g = groups.get(key);
    if (g) g.count++;
    else {
      groups.set(key, {
        target: l.target,
        kind: l.kind,
        doc_id: l.doc_id,
        path: l.path,
        exists: l.exists,
        text: l.text,
        line: l.line,
        count: 1,
      });
    }
  }
  const all = [...groups.values()].sort((a, b) => KIND_ORDER[a.kind]! - KIND_ORDER[b.kind]!);
  return { all, links: links.length - internal, internal };
}

/** A document linking to another, before its first link is read. */
type Source = { doc_id: string; path: string; count: number };

/**
 * The documents linking to a document, by path; `detail` adds the line and text of
 * each one's first link (read only for the entries shown, in one batch).
 */
export function inLinks(graph: LinkGraph, docId: string): {
  all: Source[];
  detail: (shown: Source[]) => Promise<InLink[]>;
} {
  const all = graph.incoming(docId).map((s) => ({
    doc_id: s.doc_id,
    path: s.path,
    count: s.links,
  }));
  return {
    all,
    async detail(shown) {
      const firsts = await graph.firstLinks(shown.map((e) => [e.doc_id, docId]));
      return shown.map((e, k) => ({
        ...e,
        line: firsts[k]?.line ?? 0,
        text: firsts[k]?.text ?? "",
      }));
    },
  };
}

/** Targets of each kind among a document's outgoing links. */
export function kindCounts(all: OutLink[]): KindCounts {
  const counts: KindCounts = {};
  for (const l of all) counts[l.kind] = (counts[l.kind] ?? 0) + 1;
  return counts;
}

/**
 * A stored document's outgoing links and backlinks, a page of each.
 *
 * @throws {ToolError} `DOCUMENT_NOT_FOUND` when the store does not hold the document
 */
export async function documentLinks(
  shelf: Shelf,
  id: string,
  r: LinksRequest,
): Promise<DocumentLinks> {
  const [graph, cards] = await Promise.all([graphOf(shelf), partsOf(shelf).store.cards([id])]);
  const card = cards.get(id);
  if (!card) throw documentNotFound(id);
  const out: DocumentLinks = { doc_id: id, path: card.path, title: card.title };
  if (r.direction !== "in") {
    const o = await outLinks(graph, id);
    out.outgoing = {
      ...page(o.all, r.offset, r.limit),
      by_kind: kindCounts(o.all),
      links: o.links,
      internal: o.internal,
    };
  }
  if (r.direction !== "out") {
    const i = inLinks(graph, id);
    const p = page(i.all, r.offset, r.limit);
    out.incoming = { ...p, items: await i.detail(p.items) };
  }
  return out;
}

/** A page of a library's (or every library's) broken links, orphans or most linked documents. */
export async function linkReport(
  shelf: Shelf,
  kind: LinkReportKind,
  library: string | undefined,
  offset: number,
  limit: number,
): Promise<LinkReport> {
  const graph = await graphOf(shelf);
  const { store } = partsOf(shelf);
  const base = { kind, ...(library === undefined ? {} : { library }) };
  if (kind === "broken") {
    const p = page(graph.broken(library), offset, limit);
    const firsts = await graph.linkRows(p.items.map((b) => b.row));
    const items = p.items.map((b, k): BrokenItem => {
      const first = firsts[k]!;
      return {
        doc_id: b.source.doc_id,
        path: b.source.path,
        target: b.target,
        target_path: b.path,
        exists: false,
        line: first.line,
        text: first.text,
        count: b.count,
      };
    });
    return { ...base, ...p, items };
  }
  const all: GraphDoc[] = kind === "orphans" ? graph.orphans(library) : graph.mostLinked(library);
  const p = page(all, offset, limit);
  const cards = await store.cards(p.items.map((d) => d.doc_id));
  const items = p.items.map((d) => ({ ...d, title: cards.get(d.doc_id)?.title ?? "" }));
  return { ...base, ...p, items };
}

/**
 * The shortest chain of links between two stored documents, followed either way.
 *
 * @throws {ToolError} `DOCUMENT_NOT_FOUND` when the store does not hold one of them
 */
export async function connection(
  shelf: Shelf,
  from: string,
  to: string,
  maxDepth: number,
): Promise<Connection> {
  const found = await (await graphOf(shelf)).chain(from, to, maxDepth);
  const ids = found ? found.docs.map((d) => d.doc_id) : [from, to];
  const cards = await partsOf(shelf).store.cards(ids);
  const doc = (id: string): ChainDoc => {
    const c = cards.get(id);
    if (!c) throw documentNotFound(id);
    return { doc_id: id, path: c.path, title: c.title };
  };
  const base = { from: doc(from), to: doc(to), max_depth: maxDepth };
  if (!found) return { ...base, found: false };
  return {
    ...base,
    found: true,
    hops: found.hops.length,
    chain: ids.map(doc),
    links: found.hops.map((h, k) => ({ direction: h.from === ids[k] ? "out" : "in", ...h })),
  };
}
