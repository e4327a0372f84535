/**
 * A document's text, read from the catalog, with a small cache of the last few documents
 * (keyed by content hash, so a changed document is never served stale). Search hits scan
 * the text with its line offsets; `read` splits it into lines, once per cached document.
 *
 * @module
 */
import type { Catalog } from "../core/catalog.ts";
import { type LinedText, linedText } from "../search/passages.ts";

interface Entry extends LinedText {
  lines?: string[];
}

const cache = new Map<string, Entry>();
let cachedChars = 0;
/** Characters of text the cache may hold (a few large documents, or many small ones). */
const CACHE_CHARS = 32 * 1024 * 1024;
/** Documents the cache may hold. */
const CACHE_DOCS = 64;

function entry(catalog: Catalog, docId: string, hash: string): Entry {
  const key = `${docId}:${hash}`;
  const hit = cache.get(key);
  if (hit) {
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const e: Entry = linedText(catalog.text(docId) ?? "");
  if (e.text.length > CACHE_CHARS) return e;
  cache.set(key, e);
  cachedChars += e.text.length;
  while (cache.size > CACHE_DOCS || cachedChars > CACHE_CHARS) {
    const [oldest, old] = cache.entries().next().value!;
    cache.delete(oldest);
    cachedChars -= old.text.length;
  }
  return e;
}

/**
 * The text of a document version with its line offsets.
 *
 * @param catalog the catalog
 * @param docId the document
 * @param hash its content hash (the cache key with the id)
 */
export function docText(catalog: Catalog, docId: string, hash: string): LinedText {
  return entry(catalog, docId, hash);
}

/**
 * The lines of a document version (empty when it has no text).
 *
 * @param catalog the catalog
 * @param docId the document
 * @param hash its content hash (the cache key with the id)
 */
export function docLines(catalog: Catalog, docId: string, hash: string): string[] {
  const e = entry(catalog, docId, hash);
  e.lines ??= e.text === "" ? [] : e.text.split("\n");
  return e.lines;
}
