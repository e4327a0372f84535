/**
 * A document's text, read from the catalog, with a small cache of the last few documents
 * that each catalog keeps until it closes (keyed by content hash, so a changed document
 * is never served stale). Search hits scan the text with its line offsets; `read` splits
 * it into lines, once per cached document.
 *
 * @module
 */
import { type Catalog, CatalogCache } from "../core/catalog.ts";
import { type LinedText, linedText } from "../search/passages.ts";

interface Entry extends LinedText {
  lines?: string[];
}

/** Characters of text the cache may hold (a few large documents, or many small ones). */
const CACHE_CHARS = 32 * 1024 * 1024;
/** Documents the cache may hold. */
const CACHE_DOCS = 64;

/** The last texts read from one catalog, least recently used first. */
class TextCache {
  readonly #entries = new Map<string, Entry>();
  #chars = 0;

  constructor(readonly catalog: Catalog) {}

  entry(docId: string, hash: string): Entry {
    const key = `${docId}:${hash}`;
    const hit = this.#entries.get(key);
    if (hit) {
      this.#entries.delete(key);
      this.#entries.set(key, hit);
      return hit;
    }
    const e: Entry = linedText(this.catalog.text(docId) ?? "");
    if (e.text.length > CACHE_CHARS) return e;
    this.#entries.set(key, e);
    this.#chars += e.text.length;
    while (this.#entries.size > CACHE_DOCS || this.#chars > CACHE_CHARS) {
      const [oldest, old] = this.#entries.entries().next().value!;
      this.#entries.delete(oldest);
      this.#chars -= old.text.length;
    }
    return e;
  }
}

/** Each catalog's texts. */
const TEXTS = new CatalogCache("texts", (catalog) => new TextCache(catalog));

/**
 * The text of a document version with its line offsets.
 *
 * @param catalog the catalog
 * @param docId the document
 * @param hash its content hash (the cache key with the id)
 */
export function docText(catalog: Catalog, docId: string, hash: string): LinedText {
  return catalog.cache(TEXTS).entry(docId, hash);
}

/**
 * The lines of a document version (empty when it has no text).
 *
 * @param catalog the catalog
 * @param docId the document
 * @param hash its content hash (the cache key with the id)
 */
export function docLines(catalog: Catalog, docId: string, hash: string): string[] {
  const e = catalog.cache(TEXTS).entry(docId, hash);
  e.lines ??= e.text === "" ? [] : e.text.split("\n");
  return e.lines;
}
