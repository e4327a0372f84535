/**
 * Snippets of keyword hits, cut from the catalog's one stored copy of each document's text
 * (the FTS5 table is contentless: it keeps no text to cut them from), and from the card's
 * title and the outline's headings when the body does not hold the query's words.
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import { type DocTitles, textReader, titleReader } from "../core/catalog_sql.ts";
import { CJK_UNSPACED_CHARS, segmentCJK } from "../core/tokenize.ts";
import { makeSnippet } from "./snippet.ts";

const SNIPPET_CHARS = 200;
/** Characters of the body read first when making a snippet. */
const SNIPPET_PREFIX = 32 * 1024;
const CJK = CJK_UNSPACED_CHARS; // not Hangul: Korean keeps its spaces
const CJK_GAP = new RegExp(`([${CJK}])(\\*\\*)? (\\*\\*)?(?=[${CJK}])`, "g");

/** One line, no CJK segmentation spaces, at most ~200 characters. */
function tidySnippet(s: string): string {
  let out = s.replace(/\s+/g, " ").replace(CJK_GAP, "$1$2$3").trim();
  if (out.length > SNIPPET_CHARS) out = out.slice(0, SNIPPET_CHARS - 1).trimEnd() + "…";
  return out;
}

/** Snippets from a catalog's stored texts, titles and headings. */
export class StoredSnippets {
  #db: DatabaseSync;
  #text?: (docId: string) => string | undefined;
  #titles?: (docId: string) => DocTitles | undefined;

  /** @param db the catalog's database */
  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  /**
   * A document's snippet for a matcher (`snippetMatcher`), or `""` when none of its words
   * occur in the text, headings or title.
   */
  of(docId: string, re: RegExp): string {
    // Cut from the stored text, CJK split into words as the index saw it; most matches are
    // near the start, so a prefix is tried first and the whole body only if needed.
    this.#text ??= textReader(this.#db);
    const body = this.#text(docId) ?? "";
    let text = makeSnippet(segmentCJK(body.slice(0, SNIPPET_PREFIX)), re, SNIPPET_CHARS);
    if (!text && body.length > SNIPPET_PREFIX) {
      text = makeSnippet(segmentCJK(body), re, SNIPPET_CHARS);
    }
    if (!text) {
      this.#titles ??= titleReader(this.#db);
      const t = this.#titles(docId);
      text = makeSnippet(segmentCJK(t?.headings.join("\n") ?? ""), re, SNIPPET_CHARS) ||
        makeSnippet(segmentCJK(t?.title ?? ""), re, SNIPPET_CHARS);
    }
    return tidySnippet(text);
  }
}
