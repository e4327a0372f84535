/**
 * The catalog role (`roles.ts`, `CatalogStore`) over the SQLite catalog (`core/catalog.ts`),
 * unchanged: each method calls the synchronous catalog and wraps its result in a promise.
 * Its readers of text blocks and passages are the ones the search workers use
 * (`core/catalog_sql.ts`).
 *
 * @module
 */
import { Catalog, type FileState, type GraphDocRow, type LinkTargets } from "../core/catalog.ts";
import {
  type DocHead,
  type DocSections,
  type StoredDoc,
  storedTerms,
} from "../core/catalog_docs.ts";
import {
  blockLines,
  type BlockReader,
  blockReader,
  passageReader,
  type StoredPassages,
} from "../core/catalog_sql.ts";
import { docFields } from "../core/fields.ts";
import type { Fingerprint } from "../core/fingerprint.ts";
import type { Card, SearchFilters } from "../core/types.ts";
import type { Link } from "../core/extractor.ts";
import type { LinkRow } from "../core/graph.ts";
import { type DocEntry, type DocTable, docTable } from "../core/listing.ts";
import type { CatalogStore } from "./roles.ts";

/** Documents a page of {@link SqliteCatalogStore.linkTargets} holds. */
const LINK_PAGE = 1000;

/**
 * The SQLite catalog as a {@link CatalogStore}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Catalog } from "../core/catalog.ts";
 * import { SqliteCatalogStore } from "./catalog_sqlite.ts";
 * const store = new SqliteCatalogStore(new Catalog(":memory:"), true);
 * const card = {
 *   doc_id: "d1", path: "Notes/a.md", library: "Notes", doc_type: "markdown", title: "A",
 *   language: "en", word_count: 3, total_lines: 2, abstract: "", keywords: [], brief: true,
 *   outline_quality: "none" as const, has_outline: false, modified_at: "2026-01-01T00:00:00Z",
 *   size: 20,
 * };
 * await store.put({ card, outline: [], terms: {}, hash: "h", mtime_ms: 1 }, "one\ntwo");
 * assert.deepEqual(await store.lines("d1", 2, 9), ["two"]);
 * await store.remove(["d1"]);
 * assert.equal(await store.get("d1"), undefined);
 * await store.close();
 * ```
 */
export class SqliteCatalogStore implements CatalogStore {
  /** Backend name. */
  readonly name = "sqlite";
  readonly #catalog: Catalog;
  readonly #owned: boolean;
  readonly #blocks: BlockReader;
  readonly #passages: ReturnType<typeof passageReader>;

  /**
   * @param catalog the catalog to serve
   * @param owned whether `close()` closes the catalog (else its owner does)
   */
  constructor(catalog: Catalog, owned = false) {
    this.#catalog = catalog;
    this.#owned = owned;
    this.#blocks = blockReader(catalog.db);
    this.#passages = passageReader(catalog.db);
  }

  /**
   * Open (or create) the catalog file and serve it; `close()` closes it.
   *
   * @param file the catalog's database file (`":memory:"` for a throwaway one)
   */
  static open(file: string): SqliteCatalogStore {
    return new SqliteCatalogStore(new Catalog(file), true);
  }

  put(doc: StoredDoc, text: string, links: Link[] = []): Promise<void> {
    return this.#do(() =>
      this.#catalog.transaction(() => {
        this.#catalog.uncountTerms([doc.card.doc_id]);
        this.#catalog.put(doc, text, links);
        this.#catalog.countTerms(storedTerms(doc, text));
        this.#catalog.saveTermCounts();
      })
    );
  }

  touch(docId: string, mtimeMs: number, modifiedAt: string): Promise<void> {
    return this.#do(() => this.#catalog.touch(docId, mtimeMs, modifiedAt));
  }

  remove(ids: string[]): Promise<void> {
    return this.#do(() =>
      this.#catalog.transaction(() => {
        this.#catalog.uncountTerms(ids);
        this.#catalog.remove(ids);
        this.#catalog.saveTermCounts();
      })
    );
  }

  get(docId: string): Promise<StoredDoc | undefined> {
    return this.#do(() => this.#catalog.get(docId));
  }

  head(docId: string): Promise<DocHead | undefined> {
    return this.#do(() => this.#catalog.head(docId));
  }

  sections(docId: string): Promise<DocSections | undefined> {
    return this.#do(() => this.#catalog.sections(docId));
  }

  cards(ids: string[]): Promise<Map<string, Card>> {
    return this.#do(() => this.#catalog.cards(ids));
  }

  text(docId: string): Promise<string | undefined> {
    return this.#do(() => this.#catalog.text(docId));
  }

  idsMatching(filters: SearchFilters): Promise<string[] | undefined> {
    return this.#do(() => this.#catalog.idsMatching(filters));
  }

  fingerprints(ids: string[]): Promise<Map<string, Fingerprint>> {
    return this.#do(() => this.#catalog.fingerprints(ids));
  }

  sameText(
    keys: string[],
    filters: SearchFilters,
  ): Promise<Map<string, { doc_id: string; path: string }[]>> {
    return this.#do(() => this.#catalog.sameText(keys, filters));
  }

  texts(ids: string[]): Promise<Map<string, string>> {
    return this.#do(() => {
      const out = new Map<string, string>();
      for (const id of ids) {
        const text = this.#catalog.text(id);
        if (text !== undefined) out.set(id, text);
      }
      return out;
    });
  }

  lines(docId: string, from: number, to: number): Promise<string[] | undefined> {
    return this.#do(() => {
      if (!this.#catalog.has(docId)) return undefined;
      const doc = { firsts: this.#blocks.firsts(docId), lines: new Map<number, string[]>() };
      return blockLines(this.#blocks, docId, doc, from, to);
    });
  }

  passages(docId: string, seqs: number[]): Promise<StoredPassages | undefined> {
    return this.#do(() => this.#passages(docId, seqs));
  }

  passagesOf(wanted: Map<string, number[]>): Promise<Map<string, StoredPassages>> {
    return this.#do(() => {
      const out = new Map<string, StoredPassages>();
      for (const [id, seqs] of wanted) {
        const found = this.#passages(id, seqs);
        if (found) out.set(id, found);
      }
      return out;
    });
  }

  links(docId: string): Promise<Link[]> {
    return this.#do(() => this.#catalog.links(docId));
  }

  graphDocs(): Promise<GraphDocRow[]> {
    return this.#do(() => this.#catalog.graphDocs());
  }

  async *linkTargets(): AsyncGenerator<LinkTargets[]> {
    // each page read whole: no statement stays open while the caller awaits
    for (let after = "";;) {
      const page = this.#catalog.linkTargets(after, LINK_PAGE);
      if (page.length) yield page;
      if (page.length < LINK_PAGE) return;
      after = page[page.length - 1]!.doc_id;
    }
  }

  linkRows(rows: number[]): Promise<Map<number, LinkRow>> {
    return this.#do(() => this.#catalog.linkRows(rows));
  }

  fields(docId: string): Promise<Record<string, string[]>> {
    return this.#do(() => docFields(this.#catalog.db, docId));
  }

  idByPath(path: string): Promise<string | undefined> {
    return this.#do(() => this.#catalog.idByPath(path));
  }

  list(library?: string): Promise<DocEntry[]> {
    return this.#do(() => {
      const all = [...this.#catalog.listEntries()];
      return library === undefined ? all : all.filter((e) => e.library === library);
    });
  }

  changeToken(): Promise<string> {
    return this.#do(() => this.#catalog.changeToken());
  }

  table(): Promise<DocTable> {
    // the catalog's own listing: kept by the catalog, released when the shelf is idle
    return this.#do(() => docTable(this.#catalog));
  }

  fileStates(library: string): Promise<Map<string, FileState>> {
    return this.#do(() => this.#catalog.fileStates(library));
  }

  count(library?: string): Promise<number> {
    return this.#do(() => this.#catalog.count(library));
  }

  df(terms: string[]): Promise<Map<string, number>> {
    return this.#do(() => new Map(terms.map((t) => [t, this.#catalog.df(t)])));
  }

  close(): Promise<void> {
    return this.#do(() => {
      if (this.#owned) this.#catalog.close();
    });
  }

  /** A synchronous call as a promise: its value, or its exception as a rejection. */
  #do<T>(fn: () => T): Promise<T> {
    try {
      return Promise.resolve(fn());
    } catch (e) {
      return Promise.reject(e);
    }
  }
}
