/**
 * The one search path: a search request is parsed once (query text and dates), each
 * retriever of the shelf that the mode calls for is asked with that parsed form, and their
 * rankings are fused generically (weighted reciprocal-rank fusion). Tool handlers, the CLI
 * and the benchmark call {@link searchShelf} and know nothing of retrievers or fusion.
 *
 * @module
 */
import { checkFields } from "../core/fields.ts";
import type { Hit, Query, Retriever, SearchFilters } from "../core/types.ts";
import { rrf } from "./fusion.ts";
import { bestPassages, passagesOf } from "./passages.ts";
import { parseQuery, positiveTerms, prepareQuery } from "./query.ts";
import { MARKUP_TYPES } from "../core/readable.ts";
import { queryText } from "../stores/lancedb.ts";
import { guardFusion, heldWords, requiredWords } from "./hybrid.ts";
import { MAX_PASSAGES, nearestPassages, SEMANTIC_PASSAGES } from "./near_passages.ts";
import { collapseCopies } from "./copies.ts";
import { docText } from "../shelf/lines.ts";
import type { Shelf } from "../shelf/shelf.ts";

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
}

/** Hits each retriever contributes to fusion, at least. */
const FUSION_DEPTH = 50;
/** Candidates ranked before copies are collapsed, at most. */
const MAX_CANDIDATES = 100;
/** Rank constant of reciprocal-rank fusion. */
const RRF_K = 60;

/**
 * The mode a search takes when none is asked for, and why: the embedder's measured best
 * (keyword for the built-in model), keyword without an embedder, else hybrid.
 */
export function defaultMode(shelf: Shelf): { mode: SearchMode; why: string } {
  const e = shelf.vectors?.embedder;
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
  const v = shelf.vectors;
  if (!v) return "no embedder configured, answered in keyword mode";
  if (v.ready) return undefined;
  const s = v.status();
  return s.state === "failed"
    ? `vectors failed (${s.error}), answered in keyword mode`
    : `vectors pending (${s.embedded} of ${
      s.embedded + s.pending
    } documents), answered in keyword mode`;
}

/** The retrievers a mode asks. */
function retrieversFor(shelf: Shelf, mode: SearchMode): Retriever[] {
  if (mode === "hybrid") return shelf.retrievers;
  return shelf.retrievers.filter((r) => (r.kind ?? "keyword") === mode);
}

/**
 * Search a shelf: parse once, ask the retrievers the mode calls for, fuse.
 *
 * One retriever's ranking is taken as it is; several are fused with weighted RRF (k = 60),
 * each contributing at most its `fusionDepth` hits. Hits of retrievers that cannot read the
 * query syntax (vectors) are held to its hard constraints (quoted phrases, `+` and `-`
 * units) by the keyword retriever, and snippets come from the keyword retriever.
 *
 * @param shelf the shelf
 * @param req the request
 * @returns the hits and the mode used
 * @throws {ToolError} `INVALID_ARGUMENT` for a bad date, a query with nothing to search, or
 *   a front-matter field the library does not index
 */
export async function searchShelf(shelf: Shelf, req: SearchRequest): Promise<SearchOutcome> {
  const fields = Object.keys(req.filters?.fields ?? {});
  if (fields.length) checkFields(shelf.libraries, req.filters?.library, fields);
  const asked = req.mode ?? defaultMode(shelf).mode;
  const note = asked === "keyword" ? undefined : vectorsUnavailable(shelf);
  const mode: SearchMode = note ? "keyword" : asked;
  const used = retrieversFor(shelf, mode);
  // Copies are collapsed after ranking: ask for more hits than will be shown.
  const wanted = Math.min(2 * req.limit, MAX_CANDIDATES);
  const depth = used.length === 1 ? wanted : Math.max(wanted, FUSION_DEPTH);
  // Snippets are made for the final hits only, from their best passages.
  const q: Query = prepareQuery(req.query, depth, req.filters, 0);
  const lists = await settleAll(used.map((r) => r.search(q)));
  const ranked = lists.map((hits, j) =>
    used[j]!.kind === "semantic" ? heldToSyntax(shelf, hits, q) : hits
  );
  let fused = used.length === 1 ? ranked[0]! : rrf(
    ranked.map((hits, j) => hits.slice(0, used[j]!.fusionDepth ?? hits.length)),
    RRF_K,
    Infinity,
    used.map((r) => r.fusionWeight ?? 1),
  );
  // Held to the keyword evidence before the cut, so a keyword hit the vectors pushed down
  // can come back up.
  const k = used.findIndex((r) => (r.kind ?? "keyword") === "keyword");
  if (used.length > 1 && k >= 0) fused = heldToKeywords(shelf, fused, ranked[k]!, q);
  fused = fused.slice(0, wanted);
  const hits = collapseCopies(shelf, fused, q.filters, req.limit);
  await attachPassages(shelf, hits, q, req.passages ?? 1, mode !== "keyword");
  return { hits, mode, note };
}

/**
 * Give each hit its best passages and a snippet: the best passage's; else, for a hit found
 * by its vector alone (`semantic`), the passages nearest to the query, within one budget of
 * embedded passages per search ({@link SEMANTIC_PASSAGES}, spent in rank order); else (a
 * match only in the title, path or headings, or past the budget) the keyword retriever's
 * snippet.
 */
async function attachPassages(
  shelf: Shelf,
  hits: Hit[],
  q: Query,
  count: number,
  semantic: boolean,
): Promise<void> {
  const terms = positiveTerms(q.parsed);
  const want = Math.max(1, count);
  const bare: string[] = [];
  const vectors = semantic && shelf.vectors?.ready ? shelf.vectors : undefined;
  let queryVector: Promise<Float32Array | undefined> | undefined;
  let budget = SEMANTIC_PASSAGES;
  for (const h of hits) {
    const doc = shelf.catalog.sections(h.doc_id);
    if (!doc) continue;
    const text = docText(shelf.catalog, h.doc_id, doc.hash);
    const passages = passagesOf({ ...doc, totalLines: text.text ? text.starts.length - 1 : 0 });
    const markup = MARKUP_TYPES.has(doc.docType);
    let best = bestPassages(text, passages, terms, want, 160, doc.pages, markup);
    if (!best.length && vectors && passages.length && budget > 0) {
      queryVector ??= vectors.retriever.queryVector(queryText(q.parsed)).catch(() => undefined);
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
  if (!bare.length) return;
  const snippets = shelf.fts.snippets(bare, q.parsed);
  for (const h of hits) if (!h.snippet) h.snippet = snippets.get(h.doc_id) ?? h.snippet;
}

/** A hybrid ranking held to the keyword evidence (see `hybrid.ts`). */
function heldToKeywords(shelf: Shelf, fused: Hit[], keyword: Hit[], q: Query): Hit[] {
  const required = requiredWords(q.parsed, shelf.catalog);
  const held = heldWords(
    fused.map((h) => h.doc_id),
    required,
    (ids, word) => shelf.fts.constrain(ids, parseQuery(`"${word.replaceAll('"', "")}"`)),
  );
  return guardFusion(fused, keyword, held);
}

/** Hits that satisfy the query's hard constraints, in order. */
function heldToSyntax(shelf: Shelf, hits: Hit[], q: Query): Hit[] {
  const allowed = new Set(shelf.fts.constrain(hits.map((h) => h.doc_id), q.parsed));
  return hits.filter((h) => allowed.has(h.doc_id));
}

/** Wait for every promise; rethrow the first failure only after all have settled. */
async function settleAll<T>(promises: Promise<T>[]): Promise<T[]> {
  const results = await Promise.allSettled(promises);
  const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed) throw failed.reason;
  return results.map((r) => (r as PromiseFulfilledResult<T>).value);
}
