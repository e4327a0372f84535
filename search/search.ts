/**
 * The one search path: a search request is parsed once (query text and dates), the
 * indexes the mode calls for are asked with that parsed form (the keyword index, the
 * vector index with the query's vector), and their rankings are fused (weighted
 * reciprocal-rank fusion) and held to the keyword evidence. Tool handlers, the CLI and the
 * benchmark call {@link searchShelf} and know nothing of indexes or fusion; this module
 * knows the indexes only by their roles (`stores/roles.ts`).
 *
 * @module
 */
import type { Card, Hit, SearchFilters } from "../core/types.ts";
import type { Query } from "../stores/roles.ts";
import { rrf } from "./fusion.ts";
import { bestPassages, passagesOf } from "./passages.ts";
import { parseQuery, positiveTerms, prepareQuery, queryText, stageCpu } from "./query.ts";
import { MARKUP_TYPES } from "../core/readable.ts";
import { guardFusion, heldWords, requiredWords } from "./hybrid.ts";
import { MAX_PASSAGES, nearestPassages, SEMANTIC_PASSAGES } from "./near_passages.ts";
import { collapseCopies } from "./copies.ts";
import { docText } from "../shelf/lines.ts";
import type { Shelf } from "../shelf/shelf.ts";
import type { VectorSync } from "../shelf/vectors.ts";
import { partsOf } from "../shelf/_parts.ts";

/** Search modes. */
export type SearchMode = "hybrid" | "keyword" | "semantic";

/** What to search for. */
export interface SearchRequest {
  /** The query, in the search syntax. */
  query: string;
  /** Hits wanted. */
  limit: number;
  /** Filters as the caller gave them (dates not yet normalised). */
  filters?: SearchFilters;
  /** The mode asked for (default: the shelf's, see {@link defaultMode}). */
  mode?: SearchMode;
  /** Best passages to attach to each hit (default 1; 0 for none). */
  passages?: number;
  /** CPU ms per stage, added to when given (`Query.stages`; for the bench). */
  stages?: Record<string, number>;
}

/** Ranked hits, and how they were found. */
export interface SearchOutcome {
  /**
   * Hits, best first, each with its best passages (line range, page, snippet) and a snippet
   * (the best passage's, else one from the title or headings) when a query word occurs.
   */
  hits: Hit[];
  /** The mode that answered (keyword when vectors are not ready). */
  mode: SearchMode;
  /** Why the answer fell back to keyword mode, when it did. */
  note?: string;
  /** The cards of the hits (read once, for the answer). */
  cards: Map<string, Card>;
  /** Hits whose passages were looked for by scanning their whole text (for the bench). */
  scanned: number;
}

/** Hits each index contributes to fusion, at least. */
const FUSION_DEPTH = 50;
/** Vector hits fused: deeper ones are mostly unrelated and only add noise. */
const VECTOR_FUSION_DEPTH = 20;
/** Candidates ranked before copies are collapsed, at most. */
const MAX_CANDIDATES = 100;
/** Rank constant of reciprocal-rank fusion. */
const RRF_K = 60;

/**
 * The mode a search takes when none is asked for, and why: the embedder's measured best
 * (keyword for the built-in model), keyword without an embedder, else hybrid.
 */
export function defaultMode(shelf: Shelf): { mode: SearchMode; why: string } {
  const e = partsOf(shelf).vectors?.embedder;
  if (!e) return { mode: "keyword", why: "no embedder configured" };
  if (e.defaultMode === "keyword") {
    return {
      mode: "keyword",
      why:
        `hybrid with ${e.model} ties keyword at the first hit for twice the time (measured); ask mode hybrid for vectors`,
    };
  }
  return { mode: "hybrid", why: `keyword and ${e.model} vectors fused` };
}

/** Why the semantic side cannot answer, or `undefined` when it can. */
function vectorsUnavailable(shelf: Shelf): string | undefined {
  const v = partsOf(shelf).vectors;
  if (!v) return "no embedder configured, answered in keyword mode";
  if (v.ready) return undefined;
  const s = v.status();
  return s.state === "failed"
    ? `vectors failed (${s.error}), answered in keyword mode`
    : `vectors pending (${s.embedded} of ${
      s.embedded + s.pending
    } documents), answered in keyword mode`;
}

/**
 * What the vectors leave out of a search on a server of a shared store, or `undefined`: they
 * are this data folder's (`docs/postgres.md`), so other machines' libraries are ranked by
 * keywords alone in hybrid mode and not searched in semantic mode.
 */
async function vectorsOfOthers(
  shelf: Shelf,
  mode: SearchMode,
  filters: SearchFilters | undefined,
): Promise<string | undefined> {
  const library = filters?.library;
  if (library !== undefined && shelf.libraries.some((l) => l.name === library)) return undefined;
  const others = await shelf.otherLibraries();
  if (!others.length || (library !== undefined && !others.includes(library))) return undefined;
  return mode === "semantic"
    ? "vectors cover this machine's libraries only: other machines' documents are not searched"
    : "vectors cover this machine's libraries only: other machines' documents are ranked by keywords";
}

/**
 * Search a shelf: parse once, ask the indexes the mode calls for, fuse.
 *
 * One index's ranking is taken as it is; keyword and vectors are fused with weighted RRF
 * (k = 60; the vectors weigh the embedder's `fusionWeight` and contribute at most
 * {@link VECTOR_FUSION_DEPTH} hits). Vector hits are held to the query's hard constraints
 * (quoted phrases, `+` and `-` units) by the keyword index, and snippets come from the
 * keyword index. Front-matter fields of the filters are checked by the caller (the tool,
 * once for all its queries: `checkFields`).
 *
 * @param shelf the shelf
 * @param req the request
 * @returns the hits, their cards and the mode used
 * @throws {ToolError} `INVALID_ARGUMENT` for a bad date, a query with nothing to search or
 *   one past the size bounds (`checkQuerySize`); `QUERY_TIMEOUT` for a keyword search
 *   past the time limit of the search workers
 */
export async function searchShelf(shelf: Shelf, req: SearchRequest): Promise<SearchOutcome> {
  const asked = req.mode ?? defaultMode(shelf).mode;
  const unavailable = asked === "keyword" ? undefined : vectorsUnavailable(shelf);
  const mode: SearchMode = unavailable ? "keyword" : asked;
  const note = unavailable ??
    (mode === "keyword" ? undefined : await vectorsOfOthers(shelf, mode, req.filters));
  const vectors = mode === "keyword" ? undefined : partsOf(shelf).vectors;
  // Copies are collapsed after ranking: ask for more hits than will be shown.
  const wanted = Math.min(2 * req.limit, MAX_CANDIDATES);
  const depth = mode !== "hybrid" ? wanted : Math.max(wanted, FUSION_DEPTH);
  // The keyword index ranks the passages of its hits (from its passage rows). In keyword
  // mode it reads none: its hits carry their candidate passages, and those of the hits
  // shown (copies collapsed) are read after the cut (an index that cannot read them later
  // reads its first `limit` hits'). In hybrid mode it reads them all, as the vectors may
  // bring any of them up; hits found otherwise get theirs after the cut.
  const later = mode === "keyword" && partsOf(shelf).keyword.readPassages !== undefined;
  const shown = mode === "keyword" && !later ? Math.min(wanted, req.limit) : wanted;
  const q: Query = prepareQuery(req.query, depth, req.filters, shown);
  q.passages = Math.max(1, req.passages ?? 1);
  if (later) q.unread = true;
  q.stages = req.stages;
  const none = Promise.resolve<Hit[]>([]);
  const lists = await settleAll([
    mode === "semantic" ? none : partsOf(shelf).keyword.search(q),
    vectors ? vectorHits(vectors, q) : none,
  ]);
  const keyword = lists[0]!;
  const near = lists[1]!;
  const semantic = vectors ? await heldToSyntax(shelf, near, q) : [];
  let fused = mode === "keyword" ? keyword : mode === "semantic" ? semantic : rrf(
    [keyword, semantic.slice(0, VECTOR_FUSION_DEPTH)],
    RRF_K,
    Infinity,
    [1, vectors?.embedder.fusionWeight ?? 1],
  );
  // Held to the keyword evidence before the cut, so a keyword hit the vectors pushed down
  // can come back up.
  if (mode === "hybrid") fused = await heldToKeywords(shelf, fused, keyword, q);
  fused = fused.slice(0, wanted);
  if (mode === "hybrid") withPassagesOf(fused, keyword);
  const { hits, cards } = await stageCpu(
    req.stages,
    "copies",
    () => collapseCopies(shelf, fused, q.filters, req.limit),
  );
  const scanned = await stageCpu(
    req.stages,
    "shown passages",
    () => attachPassages(shelf, hits, q, req.passages ?? 1, mode !== "keyword"),
  );
  return { hits, mode, note, cards, scanned };
}

/**
 * The nearest documents to the query's vector, as close as the embedder asks at least
 * (its `minSimilarity`); none when the query has no positive term or no vector is stored.
 */
async function vectorHits(vectors: VectorSync, q: Query): Promise<Hit[]> {
  const text = queryText(q.parsed);
  await vectors.index.open();
  if (!text || vectors.index.count() === 0) return [];
  const vector = await vectors.queryVector(text);
  if (!vector) return [];
  // Scores are `1 - d / 2` for a cosine distance `d` (the vector index's contract).
  const floor = Math.max(0, Math.min(1, 1 - (1 - (vectors.embedder.minSimilarity ?? 0)) / 2));
  return (await vectors.index.nearest(vector, q.limit, q.filters)).filter((h) => h.score >= floor);
}

/** Fused hits take the passages and snippets their keyword hits were given. */
function withPassagesOf(fused: Hit[], keyword: Hit[]): void {
  const byId = new Map(keyword.map((h) => [h.doc_id, h]));
  for (const h of fused) {
    const k = byId.get(h.doc_id);
    if (!k?.passages) continue;
    h.passages = k.passages;
    h.snippet = k.snippet;
  }
}

/**
 * Give each hit its best passages and a snippet: the keyword index's, when it looked (its
 * passage rows, read for a hit it ranked but did not read yet: a hit it gave none has its
 * snippet, and its text is not scanned again);
 * else, for a hit the index did not look at, the best passages of its text; else, for a hit found
 * by its vector alone (`semantic`), the passages nearest to the query, within one budget of
 * embedded passages per search ({@link SEMANTIC_PASSAGES}, spent in rank order); else (a
 * match only in the title, path or headings, or past the budget) the keyword index's
 * snippet. Returns how many hits had their whole text scanned.
 */
async function attachPassages(
  shelf: Shelf,
  hits: Hit[],
  q: Query,
  count: number,
  semantic: boolean,
): Promise<number> {
  const terms = positiveTerms(q.parsed);
  const want = Math.max(1, count);
  const bare: string[] = [];
  const { catalog, vectors: v, keyword } = partsOf(shelf);
  const unread = hits.filter((h) => h.candidates);
  if (unread.length && keyword.readPassages) await keyword.readPassages(unread, q.parsed, want);
  for (const h of unread) delete h.candidates;
  const vectors = semantic && v?.ready ? v : undefined;
  let queryVector: Promise<Float32Array | undefined> | undefined;
  let budget = SEMANTIC_PASSAGES;
  let scanned = 0;
  for (const h of hits) {
    if (h.passages) {
      // the keyword index looked (empty: no passage holds a word; its snippet stays)
      if (h.passages.length) h.snippet = h.passages[0]!.snippet;
      if (count > 0 && h.passages.length) h.passages = h.passages.slice(0, count);
      else delete h.passages;
      continue;
    }
    const doc = catalog.sections(h.doc_id);
    if (!doc) continue;
    scanned++;
    const text = docText(catalog, h.doc_id, doc.hash);
    const passages = passagesOf({ ...doc, totalLines: text.text ? text.starts.length - 1 : 0 });
    const markup = MARKUP_TYPES.has(doc.docType);
    let best = bestPassages(text, passages, terms, want, 160, doc.pages, markup);
    if (!best.length && vectors && passages.length && budget > 0) {
      queryVector ??= vectors.queryVector(queryText(q.parsed)).catch(() => undefined);
      const v = await queryVector;
      const compared = Math.min(MAX_PASSAGES, budget, passages.length);
      budget -= compared;
      if (v) {
        const opts = { pages: doc.pages, markup, compared };
        best = await nearestPassages(vectors.embedder, v, text, passages, want, 160, opts)
          .catch(() => []);
      }
    }
    if (best.length) {
      h.snippet = best[0]!.snippet;
      if (count > 0) h.passages = best.slice(0, count);
    } else {
      bare.push(h.doc_id);
    }
  }
  if (!bare.length) return scanned;
  const snippets = await keyword.snippets(bare, q.parsed);
  for (const h of hits) if (!h.snippet) h.snippet = snippets.get(h.doc_id) ?? h.snippet;
  return scanned;
}

/** A hybrid ranking held to the keyword evidence (see `hybrid.ts`). */
async function heldToKeywords(
  shelf: Shelf,
  fused: Hit[],
  keyword: Hit[],
  q: Query,
): Promise<Hit[]> {
  const required = requiredWords(q.parsed, partsOf(shelf).catalog);
  const held = await heldWords(
    fused.map((h) => h.doc_id),
    required,
    (ids, word) =>
      partsOf(shelf).keyword.constrain(ids, parseQuery(`"${word.replaceAll('"', "")}"`)),
  );
  return guardFusion(fused, keyword, held);
}

/** Hits that satisfy the query's hard constraints, in order. */
async function heldToSyntax(shelf: Shelf, hits: Hit[], q: Query): Promise<Hit[]> {
  const allowed = new Set(
    await partsOf(shelf).keyword.constrain(hits.map((h) => h.doc_id), q.parsed),
  );
  return hits.filter((h) => allowed.has(h.doc_id));
}

/** Wait for every promise; rethrow the first failure only after all have settled. */
async function settleAll<T>(promises: Promise<T>[]): Promise<T[]> {
  const results = await Promise.allSettled(promises);
  const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed) throw failed.reason;
  return results.map((r) => (r as PromiseFulfilledResult<T>).value);
}
