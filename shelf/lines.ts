/**
 * A document's lines, read from the catalog, with a small cache of the last few documents
 * (keyed by content hash, so a changed document is never served stale): `read`, `grep`
 * and the passages of search hits all read lines.
 *
 * @module
 */
import type { Catalog } from "../core/catalog.ts";

const cache = new Map<string, { lines: string[]; chars: number }>();
let cachedChars = 0;
/** Characters of text the cache may hold (a few large documents, or many small ones). */
const CACHE_CHARS = 32 * 1024 * 1024;
/** Documents the cache may hold. */
const CACHE_DOCS = 32;

/**
 * The lines of a document version.
 *
 * @param catalog the catalog
 * @param docId the document
 * @param hash its content hash (the cache key with the id)
 * @returns its lines (empty when it has no text)
 */
export function docLines(catalog: Catalog, docId: string, hash: string): string[] {
  const key = `${docId}:${hash}`;
  const hit = cache.get(key);
  if (hit) {
    cache.delete(key);
    cache.set(key, hit);
    return hit.lines;
  }
  const text = catalog.text(docId) ?? "";
  const lines = text === "" ? [] : text.split("\n");
  if (text.length > CACHE_CHARS) return lines;
  cache.set(key, { lines, chars: text.length });
  cachedChars += text.length;
  while (cache.size > CACHE_DOCS || cachedChars > CACHE_CHARS) {
    const [oldest, entry] = cache.entries().next().value!;
    cache.delete(oldest);
    cachedChars -= entry.chars;
  }
  return lines;
}
