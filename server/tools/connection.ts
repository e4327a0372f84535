/**
 * `connection`: the shortest chain of links between two documents, following links in
 * either direction (breadth first over the link graph of `core/graph.ts`).
 *
 * @module
 */
import { z } from "zod";
import type { ChainDoc, Connection } from "../../shelf/links.ts";
import {
  defineTool,
  docIdArg,
  escapeControl,
  needArgs,
  resolveStoredDoc,
  shownPaths,
} from "../tool.ts";
import { quote } from "./links.ts";
import { count } from "./_listing.ts";
import { docRef, obj, optInt, optString } from "./_output.ts";

/** Steps a chain may take, at most (and by default). */
const MAX_DEPTH = 10;

const USAGE = `shelfmark connection FROM TO [--max-depth 10] [--json]
  The shortest chain of links between two documents (ids or paths), either direction.`;

/** The `connection` tool. */
export const connection = defineTool({
  name: "connection",
  title: "Connection between documents",
  description:
    "Shortest chain of links between two documents, followed either way, at most max_depth hops: each document and the line and text of each link used.",
  input: {
    from: docIdArg,
    to: docIdArg,
    max_depth: z.number().int().min(1).max(MAX_DEPTH).default(MAX_DEPTH).describe(
      `Hops at most (1-${MAX_DEPTH})`,
    ),
  },
  output: {
    from: docRef,
    to: docRef,
    found: z.boolean(),
    hops: z.number().int().nullable().optional(),
    chain: z.array(docRef).optional(),
    links: z.array(obj({ line: optInt, text: optString })).optional(),
  },
  async run(shelf, a): Promise<Connection> {
    // not looked up twice: the shelf fails on an id it does not hold
    const [from, to] = await Promise.all([
      resolveStoredDoc(shelf, a.from, false),
      resolveStoredDoc(shelf, a.to, false),
    ]);
    const r = await shelf.connection(from, to, a.max_depth);
    const [shownFrom, shownTo] = shownPaths(shelf, [r.from, r.to]);
    return { ...r, from: shownFrom!, to: shownTo!, chain: r.chain && shownPaths(shelf, r.chain) };
  },
  markdown(r) {
    const name = (d: ChainDoc) => `${escapeControl(d.path)} (${d.doc_id})`;
    if (!r.found) {
      return `No connection between ${name(r.from)} and ${name(r.to)} within ${
        count(r.max_depth, "hop")
      }.`;
    }
    if (!r.hops) return `${name(r.from)} is the document itself (0 hops).`;
    const lines = [`${count(r.hops, "hop")} from ${name(r.from)} to ${name(r.to)}:`];
    r.chain!.forEach((d, k) => {
      lines.push(`${k + 1}. ${name(d)} — ${escapeControl(d.title)}`);
      const l = r.links![k];
      if (!l) return;
      lines.push(
        l.direction === "out"
          ? `   → L${l.line} ${quote(l.text)} links to the next`
          : `   ← the next links here (its L${l.line} ${quote(l.text)})`,
      );
    });
    return lines.join("\n");
  },
  cli: {
    synopsis: "connection FROM TO",
    summary: "shortest chain of links between two documents",
    usage: USAGE,
    positional: ["from", "to"],
    args(pos) {
      needArgs(pos, 2, "FROM and TO", USAGE);
      return { from: pos[0], to: pos[1] };
    },
  },
});
