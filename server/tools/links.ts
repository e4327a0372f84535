/**
 * `links`: a document's outgoing links and backlinks, or a library's broken links,
 * orphans and most linked documents (the link graph of `core/graph.ts`).
 *
 * Links to the same target are given once, with their number (`count`) and the first
 * one's line and text; links inside a document (`#fragment`) are only counted.
 *
 * @module
 */
import { z } from "zod";
import { type LinkGraph, linkGraph, type LinkKind } from "../../core/graph.ts";
import { ToolError } from "../../core/types.ts";
import type { Shelf } from "../../shelf/shelf.ts";
import {
  argHint,
  checkLibrary,
  defineTool,
  docIdArg,
  escapeControl,
  libraryArg,
  n,
  resolveDoc,
  shownPath,
  UsageError,
} from "../tool.ts";
import { linkItem, linkPage, nextOffset, optInt, optString } from "./_output.ts";

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

/**
 * A document's outgoing links, one per target (documents first, then files, broken
 * links, URLs), and the number of links inside the document.
 */
export function outLinks(
  shelf: Shelf,
  graph: LinkGraph,
  docId: string,
): { all: OutLink[]; links: number; internal: number } {
  const groups = new Map<string, OutLink>();
  let internal = 0;
  const links = graph.outgoing(docId);
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
        path: l.path === null ? null : shownPath(shelf, l.path),
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

/** The documents linking to a document, by path; line and text of each one's first link. */
export function inLinks(shelf: Shelf, graph: LinkGraph, docId: string): {
  all: { doc_id: string; path: string; count: number }[];
  detail: (e: { doc_id: string; path: string; count: number }) => InLink;
} {
  const all = graph.incoming(docId).map((s) => ({
    doc_id: s.doc_id,
    path: shownPath(shelf, s.path),
    count: s.links,
  }));
  return {
    all,
    detail(e) {
      const first = graph.linkBetween(e.doc_id, docId);
      return { ...e, line: first?.line ?? 0, text: first?.text ?? "" };
    },
  };
}

/** A link's text for one markdown line: control characters escaped, long texts cut. */
export function quote(text: string): string {
  const t = escapeControl(text.trim());
  return JSON.stringify(t.length > 80 ? `${t.slice(0, 79)}…` : t);
}

/** `1 document`, `3 documents`. */
export const plural = (count: number, word: string): string =>
  `${n(count)} ${word}${count === 1 ? "" : "s"}`;

const times = (count: number) => (count > 1 ? ` ×${count}` : "");

/** One outgoing link as a markdown line. */
export function outLine(l: OutLink): string {
  const to = l.kind === "document"
    ? `${escapeControl(l.path!)} (${l.doc_id})`
    : l.kind === "external" || l.kind === "outside"
    ? escapeControl(l.target)
    : `${escapeControl(l.path!)} (${l.kind === "file" ? "file, not indexed" : "broken"})`;
  return `- L${l.line} ${quote(l.text)} → ${to}${times(l.count)}`;
}

/** One backlink as a markdown line. */
export function inLine(l: InLink): string {
  return `- ${escapeControl(l.path)} (${l.doc_id}) L${l.line} ${quote(l.text)}${times(l.count)}`;
}

/** Targets of each kind among a document's outgoing links. */
export function kindCounts(all: OutLink[]): Partial<Record<OutLink["kind"], number>> {
  const counts: Partial<Record<OutLink["kind"], number>> = {};
  for (const l of all) counts[l.kind] = (counts[l.kind] ?? 0) + 1;
  return counts;
}

/** Targets of each kind in a few words: `3 documents, 1 broken, 2 URLs`. */
export function kindSummary(counts: Partial<Record<OutLink["kind"], number>>): string {
  const names: [OutLink["kind"], string, string][] = [
    ["document", "document", "documents"],
    ["file", "file", "files"],
    ["broken", "broken", "broken"],
    ["external", "URL", "URLs"],
    ["outside", "outside", "outside"],
  ];
  return names.filter(([k]) => counts[k]).map(([k, one, many]) =>
    `${n(counts[k]!)} ${counts[k] === 1 ? one : many}`
  ).join(", ") || "none";
}

type DocAnswer = {
  doc_id: string;
  path: string;
  title: string;
  outgoing?: Page<OutLink> & {
    by_kind: Partial<Record<OutLink["kind"], number>>;
    links: number;
    internal: number;
  };
  incoming?: Page<InLink>;
};
type KindAnswer = {
  kind: "broken" | "orphans" | "most_linked";
  library?: string;
  total: number;
  items: Record<string, unknown>[];
  next_offset?: number;
};

const USAGE = `shelfmark links ID [--direction both|out|in] [--limit 20] [--offset 0] [--json]
shelfmark links --kind broken|orphans|most_linked [--library NAME] [--limit 20] [--offset 0]`;

/** The `links` tool. */
export const links = defineTool({
  name: "links",
  title: "Links",
  description:
    "A document's outgoing links (target doc_id, exists) and backlinks; or, with kind, a library's broken links, orphans or most linked documents. Follows relative paths, wiki links, hrefs.",
  input: {
    doc_id: docIdArg.optional(),
    direction: z.enum(["both", "out", "in"]).default("both").describe("Which links of doc_id"),
    kind: z.enum(["broken", "orphans", "most_linked"]).optional().describe(
      "A library list instead of doc_id",
    ),
    library: libraryArg.optional(),
    limit: z.number().int().min(1).max(200).default(20).describe("Entries per list (max 200)"),
    offset: z.number().int().min(0).default(0).describe("Entries to skip in each list"),
  },
  output: {
    doc_id: optString,
    outgoing: linkPage.optional(),
    incoming: linkPage.optional(),
    kind: optString,
    total: optInt,
    items: z.array(linkItem).optional(),
    next_offset: nextOffset,
  },
  run(shelf, a): DocAnswer | KindAnswer {
    if ((a.doc_id === undefined) === (a.kind === undefined)) {
      throw new ToolError(
        "INVALID_ARGUMENT",
        a.doc_id === undefined ? "Give doc_id or kind" : "Give doc_id or kind, not both",
        "doc_id for one document's links; kind (with library) for broken, orphans, most_linked.",
      );
    }
    checkLibrary(shelf, a.library);
    if (a.kind) return kindList(shelf, a.kind, a.library, a.offset, a.limit);
    const id = resolveDoc(shelf, a.doc_id!);
    const graph = linkGraph(shelf.catalog, shelf.libraries);
    const card = shelf.catalog.cards([id]).get(id)!;
    const out: DocAnswer = { doc_id: id, path: shownPath(shelf, card.path), title: card.title };
    if (a.direction !== "in") {
      const o = outLinks(shelf, graph, id);
      out.outgoing = {
        ...page(o.all, a.offset, a.limit),
        by_kind: kindCounts(o.all),
        links: o.links,
        internal: o.internal,
      };
    }
    if (a.direction !== "out") {
      const i = inLinks(shelf, graph, id);
      const p = page(i.all, a.offset, a.limit);
      out.incoming = { ...p, items: p.items.map(i.detail) };
    }
    return out;
  },
  markdown(r, render) {
    const more = (next: number | undefined) =>
      next === undefined ? [] : [`(more: ${argHint(render, { offset: next })})`];
    if ("kind" in r) {
      const where = r.library ?? "all libraries";
      if (!r.total) return `No ${r.kind.replace("_", " ")} in ${where}.`;
      const head = r.kind === "broken"
        ? `${plural(r.total, "broken link target")} in ${where}:`
        : r.kind === "orphans"
        ? `${plural(r.total, "document")} in ${where} with no backlinks:`
        : `${plural(r.total, "linked document")} in ${where}, most linked first:`;
      return [head, ...r.items.map((e) => kindLine(r.kind, e)), ...more(r.next_offset)].join(
        "\n",
      );
    }
    const lines = [`Links of ${escapeControl(r.path)} (${r.doc_id}) — ${escapeControl(r.title)}`];
    if (r.outgoing) {
      const o = r.outgoing;
      const inside = o.internal ? `; ${n(o.internal)} within the document` : "";
      lines.push(`Out: ${kindSummary(o.by_kind)}${inside}`);
      lines.push(...o.items.map(outLine), ...more(o.next_offset));
    }
    if (r.incoming) {
      const i = r.incoming;
      lines.push(`In: ${i.total ? plural(i.total, "document") : "none"}`);
      lines.push(...i.items.map(inLine), ...more(i.next_offset));
    }
    return lines.join("\n");
  },
  cli: {
    synopsis: "links ID | --kind KIND",
    summary: "links and backlinks; broken links, orphans",
    usage: USAGE,
    positional: ["doc_id"],
    short: { n: "limit" },
    args(pos, f) {
      if (!pos.length && f.kind === undefined) {
        throw new UsageError(`missing ID or --kind\n${USAGE}`);
      }
      return { doc_id: pos[0] };
    },
  },
});

function kindList(
  shelf: Shelf,
  kind: KindAnswer["kind"],
  library: string | undefined,
  offset: number,
  limit: number,
): KindAnswer {
  const graph = linkGraph(shelf.catalog, shelf.libraries);
  const base = { kind, ...(library === undefined ? {} : { library }) };
  if (kind === "broken") {
    const p = page(graph.broken(library), offset, limit);
    const items = p.items.map((b) => {
      const first = graph.linkAt(b.row);
      return {
        doc_id: b.source.doc_id,
        path: shownPath(shelf, b.source.path),
        target: b.target,
        target_path: shownPath(shelf, b.path!),
        exists: false,
        line: first.line,
        text: first.text,
        count: b.count,
      };
    });
    return { ...base, ...p, items };
  }
  const all = kind === "orphans" ? graph.orphans(library) : graph.mostLinked(library);
  const p = page<(typeof all)[number]>(all, offset, limit);
  const cards = shelf.catalog.cards(p.items.map((d) => d.doc_id));
  const items = p.items.map((d) => ({
    ...d,
    path: shownPath(shelf, d.path),
    title: cards.get(d.doc_id)?.title ?? "",
  }));
  return { ...base, ...p, items };
}

function kindLine(kind: KindAnswer["kind"], e: Record<string, unknown>): string {
  const s = (k: string) => escapeControl(String(e[k] ?? ""));
  if (kind === "broken") {
    return `- ${s("path")} (${s("doc_id")}) L${e.line} ${quote(String(e.text))} → ${s("target")}${
      times(e.count as number)
    }`;
  }
  const counts = kind === "most_linked"
    ? ` ← ${plural(e.sources as number, "document")}, ${plural(e.links as number, "link")}`
    : "";
  return `- ${s("path")} (${s("doc_id")}) ${s("title")}${counts}`;
}
