/**
 * Documents like one document: the nearest by its vector when it has one, else a keyword
 * search on its keywords in its library (copies of it left out). `similar` and `context`
 * answer with it, and say which was used.
 *
 * @module
 */
import { type Card, type Hit, ToolError } from "../core/types.ts";
import { checkQuerySize, parseQuery, prepareQuery } from "../search/query.ts";
import type { Shelf } from "./shelf.ts";
import { partsOf } from "./_parts.ts";

/** Words of the card for a keyword search of similar documents (no query syntax in them). */
function likeQuery(card: Card): string {
  const words = card.keywords.length ? card.keywords.slice(0, 8) : [card.title];
  let items = words.join(" ").replace(/[^\p{L}\p{N}_.]+/gu, " ").trim().split(" ");
  // Within the query bounds: a long title's first words say enough.
  while (items.length > 1 && !withinBounds(items.join(" "))) {
    items = items.slice(0, items.length >> 1);
  }
  return items.join(" ");
}

function withinBounds(query: string): boolean {
  try {
    checkQuerySize(query, parseQuery(query));
    return true;
  } catch {
    return false;
  }
}

/** Documents like `card`: by its vector when it has one, else by its keywords. */
export async function similarTo(
  shelf: Shelf,
  card: Card,
  limit: number,
): Promise<{ hits: Hit[]; by: "vectors" | "keywords" }> {
  const v = partsOf(shelf).vectors;
  try {
    const vector = v && await v.index.vectorOf(card.doc_id);
    if (v && vector) {
      return { hits: await v.index.nearest(vector, limit, {}, card.doc_id), by: "vectors" };
    }
  } catch (e) {
    shelf.log(`similar: vectors unavailable, similar by keywords (${(e as Error)?.message})`);
  }
  const query = likeQuery(card);
  if (!query) return { hits: [], by: "keywords" };
  // BM25 straight from the keyword index: no passages to cut, no copies to fold but ours
  let hits: Hit[];
  try {
    hits = await partsOf(shelf).keyword.search(
      prepareQuery(query, limit + 5, { library: card.library }, 0),
    );
  } catch (e) {
    // nothing to search for (stop words only)
    if (e instanceof ToolError && e.code === "INVALID_ARGUMENT") {
      return { hits: [], by: "keywords" };
    }
    throw e;
  }
  const prints = partsOf(shelf).catalog.fingerprints([card.doc_id, ...hits.map((h) => h.doc_id)]);
  const own = prints.get(card.doc_id)?.key;
  const others = hits.filter((h) =>
    h.doc_id !== card.doc_id && (own === undefined || prints.get(h.doc_id)?.key !== own)
  );
  return { hits: others.slice(0, limit), by: "keywords" };
}
