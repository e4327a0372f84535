/**
 * Copies collapsed: search hits whose text is the same (the same words, see
 * `core/fingerprint.ts`) or nearly the same (MinHash similarity of 0.8 or more) become one
 * hit, the copy a reader would want, with the others listed as `copies`. Hits are already
 * filtered, so a filter applies to every copy: a copy outside the filters is never chosen,
 * and one inside them is never hidden because its twin was.
 *
 * @module
 */
import { COPY_SIMILARITY, similarity } from "../core/fingerprint.ts";
import type { Card, Hit, SearchFilters } from "../core/types.ts";
import type { Shelf } from "../shelf/shelf.ts";
import { partsOf } from "../shelf/_parts.ts";

/** How a copy is named in an answer. */
type CopyRef = NonNullable<Hit["copies"]>[number];

const QUALITY = { high: 2, medium: 1, none: 0 } as const;

/**
 * The copy a reader wants first: native text over OCR, a trusted outline over a guessed
 * one (the bookmarked PDF over its stripped copy), then the better search rank.
 */
function preference(card: Card | undefined): number {
  if (!card) return -1;
  return (card.doc_type === "image" ? 0 : 10) + QUALITY[card.outline_quality];
}

/**
 * Collapse copies among ranked hits.
 *
 * @param shelf the shelf
 * @param hits ranked hits (filters already applied)
 * @param filters the filters, to list exact copies elsewhere in the libraries
 * @param limit hits wanted
 * @returns at most `limit` hits, each with the `copies` it stands for, and the cards of
 *   the hits (read here once, for the answer)
 */
export async function collapseCopies(
  shelf: Shelf,
  hits: Hit[],
  filters: SearchFilters,
  limit: number,
): Promise<{ hits: Hit[]; cards: Map<string, Card> }> {
  const ids = hits.map((h) => h.doc_id);
  const { store } = partsOf(shelf);
  const fps = await store.fingerprints(ids);
  // Union-find over the hits.
  const parent = ids.map((_, i) => i);
  const root = (i: number): number => (parent[i] === i ? i : (parent[i] = root(parent[i]!)));
  for (let i = 0; i < ids.length; i++) {
    const a = fps.get(ids[i]!);
    if (!a) continue;
    for (let j = 0; j < i; j++) {
      const b = fps.get(ids[j]!);
      if (!b) continue;
      const same = a.key === b.key ||
        (a.minhash && b.minhash && similarity(a.minhash, b.minhash) >= COPY_SIMILARITY);
      if (same) parent[root(i)] = root(j);
    }
  }
  const groups = new Map<number, number[]>();
  ids.forEach((_, i) => {
    const r = root(i);
    const g = groups.get(r) ?? [];
    g.push(i);
    groups.set(r, g);
  });
  const chosen = [...groups.values()].slice(0, limit);
  // Exact copies outside the hits (deeper in the ranking, or not matched at all).
  const keys = [...new Set(chosen.flat().map((i) => fps.get(ids[i]!)?.key).filter(Boolean))];
  const [cards, same] = await Promise.all([
    store.cards(chosen.flat().map((i) => ids[i]!)),
    store.sameText(keys as string[], filters),
  ]);
  const collapsed = chosen.map((group) => {
    const best = group.reduce((a, b) =>
      preference(cards.get(ids[b]!)) > preference(cards.get(ids[a]!)) ? b : a
    );
    const hit: Hit = { ...hits[best]!, score: hits[group[0]!]!.score };
    const members = new Map<string, CopyRef>();
    for (const i of group) {
      const c = cards.get(ids[i]!);
      if (c) members.set(c.doc_id, { doc_id: c.doc_id, path: c.path });
    }
    for (const i of group) {
      for (const c of same.get(fps.get(ids[i]!)?.key ?? "") ?? []) members.set(c.doc_id, c);
    }
    members.delete(hit.doc_id);
    if (members.size) hit.copies = [...members.values()];
    return hit;
  });
  return { hits: collapsed, cards };
}
