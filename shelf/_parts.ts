/**
 * The private parts of a {@linkcode Shelf}: its catalog, indexes, workers and indexer. The
 * use cases in `shelf/` and `search/` (and tests and benchmarks that inspect state) reach
 * them through {@linkcode partsOf}; `mod.ts` exports neither, so a library user sees only the
 * shelf's methods. The shelf owns every part and closes it in `close()`.
 *
 * @module
 */
import type { Catalog } from "../core/catalog.ts";
import type { LinkGraphs } from "../core/graph.ts";
import type { ExtractorRegistry } from "../core/registry.ts";
import type { ExtractPool } from "../extraction/pool.ts";
import type { SearchPool } from "../stores/fts5_pool.ts";
import type { CatalogStore, KeywordIndex } from "../stores/roles.ts";
import type { Indexer } from "./indexer.ts";
import type { Shelf } from "./shelf.ts";
import type { VectorSync } from "./vectors.ts";

/** The key of a shelf's parts: only modules that import it can reach them. */
export const PARTS: unique symbol = Symbol("shelf parts");

/** What a shelf is made of. */
export interface ShelfParts {
  /** The catalog. */
  readonly catalog: Catalog;
  /**
   * The catalog as servers read it (`read`, `outline`, `context`): the SQLite catalog above
   * by default; with a PostgreSQL store, its copy there, which the indexer writes beside the
   * local catalog, so a server without the local rows answers from it.
   */
  readonly store: CatalogStore;
  /** The link graph of the store, kept until the store changes (dropped when idle). */
  readonly graphs: LinkGraphs;
  /** Extractors by extension and sniffed type. */
  readonly registry: ExtractorRegistry;
  /**
   * The keyword index (it also makes snippets and checks hard query constraints); its
   * searches run on the search workers when there are some.
   */
  readonly keyword: KeywordIndex;
  /** Keyword-search workers (undefined: searches run on the caller's thread). */
  readonly searchPool?: SearchPool;
  /**
   * Document vectors: the vector index, kept in step in the background (undefined when the
   * embedder is `none`).
   */
  readonly vectors?: VectorSync;
  /** The indexer. */
  readonly indexer: Indexer;
  /** The extraction workers (undefined when extracting in this thread). */
  readonly pool?: ExtractPool;
}

/**
 * The parts of a shelf.
 *
 * @param shelf an open shelf
 * @returns its catalog, indexes, workers and indexer
 */
export function partsOf(shelf: Shelf): ShelfParts {
  return shelf[PARTS]();
}
