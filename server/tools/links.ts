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
import { ToolError } from "../../core/types.ts";
import type {
  BrokenItem,
  DocumentLinks,
  InLink,
  KindCounts,
  LinkedItem,
  LinkReport,
  OutLink,
} from "../../shelf/links.ts";
import {
  argHint,
  checkStoreLibrary,
  defineTool,
  docIdArg,
  escapeControl,
  libraryArg,
  n,
  resolveStoredDoc,
  shownPath,
  shownPaths,
  UsageError,
} from "../tool.ts";
import { linkItem, linkPage, nextOffset, optInt, optString } from "./_output.ts";
import { count } from "./_listing.ts";

/** A link's text for one markdown line: control characters escaped, long texts cut. */
export function quote(text: string): string {
  const t = escapeControl(text.trim());
  return JSON.stringify(t.length > 80 ? `${t.slice(0, 79)}…` : t);
}

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

/** Targets of each kind in a few words: `3 documents, 1 broken, 2 URLs`. */
export function kindSummary(counts: KindCounts): string {
  const names: [OutLink["kind"], string, string][] = [
    ["document", "document", "documents"],
    ["file", "file", "files"],
    ["broken", "broken", "broken"],
    ["external", "URL", "URLs"],
    ["outside", "outside", "outside"],
  ];
  return names.filter(([k]) => counts[k]).map(([k, one, many]) => count(counts[k]!, one, many))
    .join(", ") || "none";
}

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
  async run(shelf, a): Promise<DocumentLinks | LinkReport> {
    if ((a.doc_id === undefined) === (a.kind === undefined)) {
      throw new ToolError(
        "INVALID_ARGUMENT",
        a.doc_id === undefined ? "Give doc_id or kind" : "Give doc_id or kind, not both",
        "doc_id for one document's links; kind (with library) for broken, orphans, most_linked.",
      );
    }
    await checkStoreLibrary(shelf, a.library);
    if (a.kind) {
      const r = await shelf.linkReport(a.kind, a.library, a.offset, a.limit);
      const items = r.items.map((e) =>
        "target_path" in e
          ? { ...e, path: shownPath(shelf, e.path), target_path: shownPath(shelf, e.target_path) }
          : { ...e, path: shownPath(shelf, e.path) }
      );
      return { ...r, items };
    }
    // not looked up twice: the shelf fails on an id it does not hold
    const r = await shelf.documentLinks(await resolveStoredDoc(shelf, a.doc_id!, false), a);
    return {
      ...r,
      path: shownPath(shelf, r.path),
      ...(r.outgoing
        ? { outgoing: { ...r.outgoing, items: shownPaths(shelf, r.outgoing.items) } }
        : {}),
      ...(r.incoming
        ? { incoming: { ...r.incoming, items: shownPaths(shelf, r.incoming.items) } }
        : {}),
    };
  },
  markdown(r, render) {
    const more = (next: number | undefined) =>
      next === undefined ? [] : [`(more: ${argHint(render, { offset: next })})`];
    if ("kind" in r) {
      const where = r.library ?? "all libraries";
      if (!r.total) return `No ${r.kind.replace("_", " ")} in ${where}.`;
      const head = r.kind === "broken"
        ? `${count(r.total, "broken link target")} in ${where}:`
        : r.kind === "orphans"
        ? `${count(r.total, "document")} in ${where} with no backlinks:`
        : `${count(r.total, "linked document")} in ${where}, most linked first:`;
      return [head, ...r.items.map(kindLine), ...more(r.next_offset)].join("\n");
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
      lines.push(`In: ${i.total ? count(i.total, "document") : "none"}`);
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

function kindLine(e: BrokenItem | LinkedItem): string {
  const s = escapeControl;
  if ("target_path" in e) {
    return `- ${s(e.path)} (${e.doc_id}) L${e.line} ${quote(e.text)} → ${s(e.target)}${
      times(e.count)
    }`;
  }
  const counts = e.sources !== undefined
    ? ` ← ${count(e.sources, "document")}, ${count(e.links ?? 0, "link")}`
    : "";
  return `- ${s(e.path)} (${e.doc_id}) ${s(e.title)}${counts}`;
}
