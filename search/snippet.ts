/**
 * Snippets, all made here: the window of about 200 characters of a text holding the most
 * distinct query words, with the words in bold (passages cut theirs with it too), and the
 * snippets of hits cut from the catalog's one stored copy of each document's text (the
 * FTS5 table is contentless: it keeps no text to cut them from), else from the card's
 * title and the outline's headings. Much cheaper than FTS5's `snippet()` on long
 * documents, which re-tokenises the whole body for every hit.
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import { type DocTitles, textReader, titleReader } from "../core/catalog_sql.ts";
import { CJK_UNSPACED_CHARS, hasCJK, segmentCJK } from "../core/tokenize.ts";

/** Matches kept for choosing the window (more only cost time: the cost grows with them). */
const MAX_MATCHES = 80;
/** Text is scanned in chunks; the first chunk with a match decides (long PDFs stay cheap). */
const CHUNK = 8 * 1024;
const WINDOW = 160;

/** A word's search prefix: its stem-like beginning, so `downloaded` also finds `download`. */
function prefix(word: string): string {
  if (hasCJK(word) || word.length <= 5) return word;
  return word.slice(0, Math.max(5, word.length - 3));
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * The search prefixes of a query's words, longest first: what {@link snippetMatcher} matches.
 *
 * @example
 * ```ts
 * import { matchWords } from "./snippet.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(matchWords(["downloaded files"]), ["downloa", "files"]);
 * ```
 */
export function matchWords(terms: string[]): string[] {
  return [
    ...new Set(
      terms.flatMap((t) => segmentCJK(t).toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? []).map(
        prefix,
      ),
    ),
  ].filter((w) => w.length > 1 || hasCJK(w)).sort((a, b) => b.length - a.length);
}

/** A matcher for the words of a query, or undefined when there are none. */
export function snippetMatcher(terms: string[]): RegExp | undefined {
  const words = matchWords(terms);
  if (!words.length) return undefined;
  const alts = words.map(escape).join("|");
  // CJK is written without spaces: its words may match inside a run of characters.
  const cjk = words.filter(hasCJK).map(escape).join("|");
  const inner = cjk ? `|(?:${cjk})` : "";
  return new RegExp(`(?<![\\p{L}\\p{N}_])(?:${alts})[\\p{L}\\p{N}_]*${inner}`, "giu");
}

/**
 * The same words as {@link snippetMatcher} without its look-behind, for scanning long
 * texts (about five times faster): a match inside a word must be passed over with
 * {@link atWordStart}.
 */
export function wordScanner(terms: string[]): RegExp | undefined {
  const words = matchWords(terms);
  if (!words.length) return undefined;
  return new RegExp(`(?:${words.map(escape).join("|")})[\\p{L}\\p{N}_]*`, "giu");
}

const WORD_CHAR = /[\p{L}\p{N}_]/u;

/**
 * Whether a match of {@link wordScanner} at `index` starts a word (CJK matches always do:
 * CJK is written without spaces).
 */
export function atWordStart(text: string, index: number, match: string): boolean {
  return index === 0 || hasCJK(match[0]!) || !WORD_CHAR.test(text[index - 1]!);
}

/**
 * The best window of `text` for the matcher: the one holding the most distinct words,
 * earliest on ties, cut at word boundaries, matches in `**bold**`, on one line. With
 * `fromStart`, a text that fits in `maxChars` is shown whole.
 */
export function makeSnippet(
  text: string,
  re: RegExp,
  maxChars = 200,
  fromStart = false,
): string {
  const hits: { at: number; end: number; key: string }[] = [];
  for (let from = 0; from < text.length && hits.length === 0; from += CHUNK) {
    const part = text.slice(from, from + CHUNK + 256);
    re.lastIndex = 0;
    for (let m = re.exec(part); m && hits.length < MAX_MATCHES; m = re.exec(part)) {
      if (m[0].length === 0) {
        re.lastIndex++;
        continue;
      }
      const at = from + m.index;
      hits.push({ at, end: at + m[0].length, key: m[0].toLowerCase().slice(0, 5) });
    }
  }
  if (!hits.length) return "";
  let best = 0;
  let bestScore = -1;
  for (let i = 0, j = 0; i < hits.length; i++) {
    while (j < hits.length && hits[j]!.end - hits[i]!.at <= WINDOW) j++;
    const distinct = new Set(hits.slice(i, j).map((h) => h.key)).size;
    const score = distinct * 100 + (j - i);
    if (score > bestScore) {
      bestScore = score;
      best = i;
    }
  }
  const first = hits[best]!;
  // A whole sentence that fits is shown from its start.
  let start = fromStart && text.length <= maxChars ? 0 : Math.max(0, first.at - 40);
  let end = Math.min(text.length, start + maxChars);
  if (start > 0) {
    const sp = text.lastIndexOf(" ", first.at);
    start = sp > start - 20 && sp >= 0 && sp < first.at ? sp + 1 : start;
  }
  if (end < text.length) {
    const sp = text.lastIndexOf(" ", end);
    if (sp > first.end) end = sp;
  }
  let out = "";
  let pos = start;
  for (const h of hits) {
    if (h.at < start || h.end > end) continue;
    out += text.slice(pos, h.at) + "**" + text.slice(h.at, h.end) + "**";
    pos = h.end;
  }
  out += text.slice(pos, end);
  out = out.replace(/\s+/g, " ").replace(/\*\*( ?)\*\*/g, "$1").trim();
  return (start > 0 ? "…" : "") + out + (end < text.length ? "…" : "");
}

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
    this.#text ??= textReader(this.#db);
    return snippetOfText(this.#text(docId) ?? "", re, () => {
      this.#titles ??= titleReader(this.#db);
      return this.#titles(docId);
    });
  }
}

/**
 * A document's snippet for a matcher (`snippetMatcher`) cut from its stored text, else its
 * headings, else its title; `""` when none of its words occur in them.
 *
 * @param body the document's stored text
 * @param re the matcher
 * @param titles its title and headings, asked only when the text holds no match
 */
export function snippetOfText(
  body: string,
  re: RegExp,
  titles: () => DocTitles | undefined,
): string {
  // Cut from the stored text, CJK split into words as the index saw it; most matches are
  // near the start, so a prefix is tried first and the whole body only if needed.
  let text = makeSnippet(segmentCJK(body.slice(0, SNIPPET_PREFIX)), re, SNIPPET_CHARS);
  if (!text && body.length > SNIPPET_PREFIX) {
    text = makeSnippet(segmentCJK(body), re, SNIPPET_CHARS);
  }
  if (!text) {
    const t = titles();
    text = makeSnippet(segmentCJK(t?.headings.join("\n") ?? ""), re, SNIPPET_CHARS) ||
      makeSnippet(segmentCJK(t?.title ?? ""), re, SNIPPET_CHARS);
  }
  return tidySnippet(text);
}
