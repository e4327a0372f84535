/**
 * A document's text, read from the catalog, with a small cache of the last few documents
 * that each catalog keeps until it closes (keyed by content hash, so a changed document
 * is never served stale). `docLines` reads a range of lines from the text blocks that
 * hold them (a page of a 5 MB manual decompresses 32 KB, not the manual; the `read` tool
 * now reads them through the shelf's catalog store instead, `CatalogStore.lines`);
 * search hits that scan a whole text get it with its line offsets.
 *
 * @module
 */
import { type Catalog, CatalogCache } from "../core/catalog.ts";
import { blockLines, type BlockReader, blockReader, type DocBlocks } from "../core/catalog_sql.ts";
import { type LinedText, linedText } from "../search/passages.ts";

/** A document's lines, read block by block as they are asked for. */
export interface DocLines {
  /** Its number of lines (0 for an empty text). */
  readonly total: number;
  /**
   * Lines `from`..`to` (1-based, inclusive; clipped to the document).
   *
   * @param from first line
   * @param to last line
   */
  range(from: number, to: number): string[];
}

interface Entry {
  /** Its text blocks: where each starts, those read. */
  blocks: DocBlocks;
  /** Characters held (blocks and whole text). */
  chars: number;
  /** The whole text with line offsets, once asked for. */
  whole?: LinedText;
  /** Number of lines, once known. */
  total?: number;
}

/** Characters of text the cache may hold (a few large documents, or many small ones). */
const CACHE_CHARS = 32 * 1024 * 1024;
/** Documents the cache may hold. */
const CACHE_DOCS = 64;

/** The last texts read from one catalog, least recently used first. */
class TextCache {
  readonly #entries = new Map<string, Entry>();
  readonly #read: BlockReader;
  #chars = 0;

  constructor(readonly catalog: Catalog) {
    this.#read = blockReader(catalog.db);
  }

  entry(docId: string, hash: string): Entry {
    const key = `${docId}:${hash}`;
    const hit = this.#entries.get(key);
    if (hit) {
      this.#entries.delete(key);
      this.#entries.set(key, hit);
      return hit;
    }
    const e: Entry = { blocks: { firsts: this.#read.firsts(docId), lines: new Map() }, chars: 0 };
    this.#entries.set(key, e);
    this.#trim();
    return e;
  }

  /** Lines `from`..`to` of a document, through its entry's blocks. */
  lines(docId: string, e: Entry, from: number, to: number): string[] {
    const before = new Set(e.blocks.lines.keys());
    const out = blockLines(this.#read, docId, e.blocks, from, to);
    let added = 0;
    for (const [first, lines] of e.blocks.lines) {
      if (!before.has(first)) { for (const l of lines) added += l.length + 1; }
    }
    if (added) this.#account(e, added);
    return out;
  }

  /** The whole text of a document with its line offsets. */
  whole(docId: string, e: Entry): LinedText {
    if (!e.whole) {
      e.whole = linedText(this.catalog.text(docId) ?? "");
      this.#account(e, e.whole.text.length);
    }
    return e.whole;
  }

  #account(e: Entry, added: number): void {
    e.chars += added;
    this.#chars += added;
    this.#trim();
  }

  #trim(): void {
    // the newest entry stays, however large (it is being read)
    while (
      this.#entries.size > 1 && (this.#entries.size > CACHE_DOCS || this.#chars > CACHE_CHARS)
    ) {
      const [oldest, old] = this.#entries.entries().next().value!;
      this.#entries.delete(oldest);
      this.#chars -= old.chars;
    }
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
  const cache = catalog.cache(TEXTS);
  return cache.whole(docId, cache.entry(docId, hash));
}

/**
 * The lines of a document version, read by range (none when it has no text).
 *
 * @param catalog the catalog
 * @param docId the document
 * @param hash its content hash (the cache key with the id)
 */
export function docLines(catalog: Catalog, docId: string, hash: string): DocLines {
  const cache = catalog.cache(TEXTS);
  const e = cache.entry(docId, hash);
  if (e.total === undefined) {
    const last = e.blocks.firsts.at(-1);
    const tail = last === undefined ? [] : cache.lines(docId, e, last, Number.MAX_SAFE_INTEGER);
    // a text without lines is stored as one empty block
    e.total = last === undefined || (last === 1 && tail.length === 1 && tail[0] === "")
      ? 0
      : last - 1 + tail.length;
  }
  const total = e.total;
  return {
    total,
    range: (from, to) => {
      const a = Math.max(1, from);
      const b = Math.min(total, to);
      return b < a ? [] : cache.lines(docId, cache.entry(docId, hash), a, b);
    },
  };
}
