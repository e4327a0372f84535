/**
 * The card builder: title, language, abstract, keywords and counts of one
 * document. The document's prose is tokenised once; the same counts give the
 * card's keywords, the candidate terms kept for re-ranking, and the distinct
 * terms the indexer adds to the corpus document-frequency table.
 *
 * In two steps: `measureCard` (no corpus statistics: run where the document is extracted,
 * see core/measure.ts) and `rankCard` (keywords by the corpus statistics, in the index
 * process); `buildCard` does both.
 *
 * Language detection (`detectLanguage`, `normalizeLanguage`) lives in
 * core/language.ts and is re-exported here.
 *
 * @module
 */
import type { Card, OutlineNode, TermCounts, TermStats } from "./types.ts";
import type { Extracted, OutlineQuality } from "./extractor.ts";
import { CJK_CHARS, countWords, words } from "./tokenize.ts";
import { detectLanguage, normalizeLanguage } from "./language.ts";
import { eachWord, LineCache, ProseScanner } from "./prose.ts";
import { byScore, idfOf, keywordCandidate, stemKey } from "./terms.ts";

const CJK_G = new RegExp(`[${CJK_CHARS}]`, "g");

/** Characters of prose tokenised for keywords and document frequencies (about 250k words). */
export const TERM_SAMPLE_CHARS = 1_500_000;
/** How many candidate terms `buildCard` returns in `terms`. */
export const CANDIDATE_TERMS = 64;

/** What `buildCard` needs: the extracted document, its outline and file facts. */
export interface CardInput {
  /** Short document id. */
  doc_id: string;
  /** `<library>/<path inside the library>`. */
  path: string;
  /** Library name. */
  library: string;
  /** Extractor name. */
  doc_type: string;
  /** The document's lines (normally `extracted.lines`). */
  lines: string[];
  /** The extractor's result (meta, headings, pages). */
  extracted: Extracted;
  /** The outline built from the headings. */
  outline: OutlineNode[];
  /** How far the outline can be trusted. */
  outline_quality: OutlineQuality;
  /** File modification time, RFC 3339 UTC. */
  modified_at: string;
  /** File size in bytes. */
  size: number;
  /** Corpus document frequencies, for TF-IDF keywords. */
  stats?: TermStats;
}

/** The card plus the term counts the indexer keeps. */
export interface CardResult {
  /** The card. */
  card: Card;
  /** The top candidate terms with their counts, for re-ranking keywords later. */
  terms: TermCounts;
  /** Every term of the tokenised prose once: what feeds the DF table. */
  distinct: string[];
}

/**
 * The part of a card that needs no corpus statistics ({@link measureCard}): its fields
 * but the file facts and keywords, and the document's terms. Plain data: it crosses from
 * an extraction process to the index process, which ranks the keywords
 * ({@link rankCard}).
 */
export interface MeasuredCard {
  /** Title, language, counts, abstract and the other fields that come from the text. */
  fields: Pick<
    Card,
    | "title"
    | "language"
    | "word_count"
    | "total_lines"
    | "abstract"
    | "brief"
    | "outline_quality"
    | "has_outline"
    | "author"
    | "page_count"
  >;
  /** Declared keywords (`meta.tags`), which lead the card's keywords. */
  tags?: string[];
  /** Every term of the tokenised prose once. */
  distinct: string[];
  /**
   * The terms that may be keywords, in first-seen order, each by its place in `distinct`
   * (numbers cross a process boundary cheaper than strings).
   */
  candidates: number[];
  /** Each candidate's count, in the order of `candidates`. */
  candidateCounts: number[];
}

/** The facts of a file a card holds beside what its text gives. */
export type CardFacts = Pick<
  CardInput,
  "doc_id" | "path" | "library" | "doc_type" | "modified_at" | "size"
>;

/** Words common in every kind of document, kept out of card keywords. */
const GENERIC = new Set(
  ("see example examples following new default note well set first two make need want way even " +
    "many since section chapter page value values etc available provided follows information " +
    "described above below number case given called within").split(" "),
);

interface Prose {
  /** Prose and heading text, newline-joined, at most `TERM_SAMPLE_CHARS`: what terms come from. */
  text: string;
  /** The first prose lines without headings, for the abstract. */
  lead: string;
  /** The prose lines `text` is made of (its last one may be cut there). */
  parts: string[];
  /** The index of each one of `parts` in the lines. */
  at: number[];
}

const ATX_LINE = /^\s{0,3}#{1,6}(\s|$)/;

/**
 * One pass over the lines: plain prose, skipping front matter, code, comments and
 * tables. Headings count as terms; `headingLines` (1-based) only keep them out of
 * the abstract, so the terms depend on the lines alone.
 */
function proseOf(
  lines: string[],
  headingLines: ReadonlySet<number> = new Set(),
  cache?: LineCache,
): Prose {
  const parts: string[] = [];
  const at: number[] = [];
  const lead: string[] = [];
  let size = 0;
  let leadSize = 0;
  const scan = new ProseScanner({ headings: true, cache });
  let i = 0;
  if (/^(---|\+\+\+)\s*$/.test(lines[0] ?? "")) {
    const close = lines.findIndex((l, j) => j > 0 && /^(---|\.\.\.|\+\+\+)\s*$/.test(l));
    if (close > 0 && close < 200) i = close + 1;
  }
  for (; i < lines.length && size < TERM_SAMPLE_CHARS; i++) {
    const line = lines[i]!;
    const p = scan.next(line, i);
    if (!p) continue;
    parts.push(p);
    at.push(i);
    size += p.length + 1;
    if (leadSize < 20_000 && !headingLines.has(i + 1) && !ATX_LINE.test(line)) {
      lead.push(p);
      leadSize += p.length + 1;
    }
  }
  const text = parts.join("\n").slice(0, TERM_SAMPLE_CHARS);
  return { text, lead: lead.join("\n"), parts, at };
}

/** The first ~`max` words of a plain text, whitespace collapsed, "…" when cut. */
function abstractOf(text: string, max = 200): string {
  const out: string[] = [];
  let n = 0;
  for (const token of text.slice(0, 20_000).split(/\s+/)) {
    if (!token) continue;
    const cjk = token.match(CJK_G)?.length ?? 0;
    const cost = cjk ? Math.ceil(cjk / 2) : 1;
    if (n + cost > max) {
      if (cjk && n < max) out.push(`${[...token].slice(0, (max - n) * 2).join("")}`);
      return `${out.join(" ")}…`;
    }
    out.push(token);
    n += cost;
  }
  return out.join(" ");
}

/**
 * Rank a document's terms as card keywords by `tf · idf`. A term must occur at
 * least twice unless the document is brief; `tags` (declared keywords) come first.
 *
 * @param counts term counts of the document (all of them, or `CardResult.terms`)
 * @param stats corpus document frequencies, or an idf function (TF alone without either)
 * @param opts `brief` documents accept terms seen once; `tags` lead; `max` (10)
 * @returns 5-10 keywords when the document has that many candidates
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.deepEqual(rankKeywords(new Map([["lancedb", 4], ["index", 9]]), undefined, { brief: true }), ["index", "lancedb"]);
 * ```
 */
export function rankKeywords(
  counts: Map<string, number> | TermCounts,
  stats: TermStats | ((term: string) => number) | undefined,
  opts: { brief?: boolean; tags?: string[]; max?: number; exclude?: Iterable<string> } = {},
): string[] {
  const weight = typeof stats === "function" ? stats : idfOf(stats);
  return pickKeywords(scoreTerms(counts, weight, opts.brief ? 1 : 2), opts);
}

/** The keywords among scored candidates (best first): declared `tags` first, one per stem. */
function pickKeywords(
  scored: [string, number][],
  opts: { tags?: string[]; max?: number; exclude?: Iterable<string> },
): string[] {
  const max = opts.max ?? 10;
  const out: string[] = [];
  const seen = new Set<string>();
  for (const tag of opts.tags ?? []) {
    const t = tag.trim().toLowerCase();
    if (t && !seen.has(t) && out.length < max) {
      seen.add(t);
      out.push(t);
    }
  }
  const exclude = new Set(opts.exclude ?? []);
  const stems = new Set(out.map(stemKey));
  for (const [w] of scored) {
    if (out.length >= max) break;
    const key = stemKey(w);
    if (seen.has(w) || exclude.has(w) || stems.has(key)) continue;
    stems.add(key);
    out.push(w);
  }
  return out;
}

/** Keyword candidates with their `tf · idf` scores, best first. */
function scoreTerms(
  counts: Map<string, number> | TermCounts,
  weight: (term: string) => number,
  minCount: number,
): [string, number][] {
  return scoreCandidates(candidateTerms(counts, minCount), weight);
}

/** The terms that may be keywords (seen `minCount` times, not generic), with their counts. */
function candidateTerms(
  counts: Map<string, number> | TermCounts,
  minCount: number,
): [string, number][] {
  const entries = counts instanceof Map ? counts.entries() : Object.entries(counts);
  const out: [string, number][] = [];
  for (const [w, c] of entries) if (isCandidate(w, c, minCount)) out.push([w, c]);
  return out;
}

/** Whether a term seen `count` times may be a keyword (seen `minCount` times, not generic). */
function isCandidate(w: string, count: number, minCount: number): boolean {
  return count >= minCount && !GENERIC.has(w) && keywordCandidate(w);
}

/** Candidates with their `tf · idf` scores, best first. */
function scoreCandidates(
  candidates: [string, number][],
  weight: (term: string) => number,
): [string, number][] {
  return candidates.map(([w, c]): [string, number] => [w, c * weight(w)]).sort(byScore);
}

/**
 * The distinct terms of a document, tokenised exactly as `buildCard` does (same
 * lines in, same terms out), for updating document frequencies without a card,
 * e.g. to take an old version of a document out of the DF table. After
 * `buildCard`, use its `distinct` instead: it costs no second pass.
 *
 * @param lines the document's lines
 * @returns each term once
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.deepEqual(distinctTerms(["# Search", "Search the index."]), ["search", "index"]);
 * ```
 */
export function distinctTerms(lines: string[]): string[] {
  return [...new Set(words(proseOf(lines).text))];
}

/**
 * The distinct terms of a stored text (lines joined by `\n`), as {@link distinctTerms}
 * gives them for its lines: what a document adds to the document frequencies.
 *
 * @param text the document's whole text
 * @returns each term once
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.deepEqual(textTerms("# Search\nSearch the index."), ["search", "index"]);
 * ```
 */
export function textTerms(text: string): string[] {
  return distinctTerms(text.split("\n"));
}

/** Names of change logs and release notes (`CHANGES`, `changelog.Debian`, `NEWS.md`). */
const CHANGE_LOG = /^(change(s|log)|news|history|release[-_ ]?notes)([._-]|$)/i;
/** Extensions of document, data and code formats (not a variant: `.Debian`, `.cross`). */
const DOC_EXTENSION = new RegExp(
  "^\\.(txt|text|md|markdown|rst|org|adoc|html?|xhtml|pdf|docx?|odt|epub|rtf|tex|texi|" +
    "json|xml|ya?ml|toml|ini|conf|go|py|js|mjs|ts|sh|c|h|cc|cpp|pl|pm|rb|rs|java|lua)$",
  "i",
);
/** The file name of a path without its extension (`a/b/notes.v2.md` → `notes.v2`). */
const GENERIC_NAMES =
  /^(readme|index|main|untitled|document|notes?|todo|changelog|contributing|license|copying|copyright|authors|thanks)$/i;

/** The file name without extension; a generic name (README, index) gets its folder's name. */
function baseName(path: string): string {
  const parts = path.split(/[\\/]/).filter(Boolean);
  const name = (parts.at(-1) ?? path).replace(/\.(gz|bz2|xz|zst)$/i, "");
  const dot = name.lastIndexOf(".");
  const stem = dot > 0 ? name.slice(0, dot) : name;
  const folder = parts.length > 2 ? parts.at(-2) : undefined;
  const generic = GENERIC_NAMES.test(stem) || CHANGE_LOG.test(name);
  // `README.Debian`, `changelog.Debian`: the suffix says which one; `README.md` is a format
  const label = dot > 0 && !DOC_EXTENSION.test(name.slice(dot)) ? name : stem;
  return generic && folder ? `${folder} — ${label}` : stem;
}

/**
 * A page title without the site's name: `uuid — UUID objects — Python 3.11.2 documentation`
 * becomes `uuid — UUID objects` when the document's first heading says just that (the
 * rest, after a separator, names the site and repeats on every page).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(withoutSiteName("Restrictions | PostgreSQL 15", "Restrictions"), "Restrictions");
 * assert.equal(withoutSiteName("Restrictions and more", "Restrictions"), "Restrictions and more");
 * ```
 */
export function withoutSiteName(title?: string, heading?: string): string | undefined {
  const h = heading?.replace(/\s+/g, " ").trim();
  if (!title || !h || h.length < 3 || !title.startsWith(h)) return title;
  return /^\s*[—–|·:-]\s*\S/.test(title.slice(h.length)) ? h : title;
}

/** Whether the file is a change log or release notes, by its name. */
function isChangeLog(path: string): boolean {
  return CHANGE_LOG.test(path.split(/[\\/]/).at(-1) ?? "");
}

/** An entry of a change log: it names a version or a date (`2022-08-19  Release Manager`). */
const ENTRY = /\d+\.\d+|\d{4}-\d\d-\d\d|\b\d{1,2} \w{3,9} \d{4}\b/;

/**
 * The first heading, when it can stand for the whole document: a top-level heading near
 * the start, and in a change log not an entry (its latest release) but a title.
 */
function headingTitle(outline: OutlineNode[], lines: string[], path: string): string | undefined {
  const first = outline[0];
  if (!first) return undefined;
  if (isChangeLog(path) && ENTRY.test(first.title)) return undefined;
  const early = first.start_line <= Math.max(12, Math.ceil(lines.length * 0.1));
  return outline.length === 1 || early ? first.title.trim() : undefined;
}

/**
 * Build the card of a document, plus its term counts: {@link measureCard}, then
 * {@link rankCard} with `stats`.
 *
 * Title: `meta.title`, else the first outline node (unless the outline quality is
 * `none`), else the file name without extension. Terms and keywords come from
 * the first `TERM_SAMPLE_CHARS` characters of prose and headings (front matter,
 * code, HTML comments and tables left out); the abstract leaves headings out too.
 *
 * @param input the extracted document, its outline and file facts
 * @returns `card`, the top candidate `terms`, and every term once (`distinct`)
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const { card } = buildCard({
 *   doc_id: "a1", path: "notes/todo.md", library: "notes", doc_type: "markdown",
 *   lines: ["Buy milk."], extracted: { lines: ["Buy milk."] }, outline: [],
 *   outline_quality: "none", modified_at: "2026-01-01T00:00:00Z", size: 9,
 * });
 * assert.equal(card.title, "todo");
 * ```
 */
export function buildCard(input: CardInput): CardResult {
  return rankCard(measureCard(input), input, input.stats);
}

/**
 * The part of {@link buildCard} that needs no corpus statistics: title, language,
 * abstract, counts, and the document's terms (one pass over its prose).
 *
 * @param input the file's path, lines, extractor result, outline and its quality
 * @param cache the prose and words of the lines, shared with the outline (`core/measure.ts`)
 * @returns the card's fields from the text, and the terms to rank
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const m = measureCard({
 *   path: "notes/todo.md", lines: ["Buy oat milk."], extracted: { lines: ["Buy oat milk."] },
 *   outline: [], outline_quality: "none",
 * });
 * assert.equal(m.fields.word_count, 3);
 * assert.deepEqual(m.distinct, ["buy", "oat", "milk"]);
 * ```
 */
export function measureCard(
  input: Pick<CardInput, "path" | "lines" | "extracted" | "outline" | "outline_quality">,
  cache: LineCache = new LineCache(),
): MeasuredCard {
  const { extracted, lines, outline } = input;
  const meta = extracted.meta ?? {};
  const headingLines = new Set((extracted.headings ?? []).map((h) => h.line));
  for (const n of outline) headingLines.add(n.start_line);
  const { text, lead, parts, at } = proseOf(lines, headingLines, cache);

  const counts = new Map<string, number>();
  // the words of `text`, each whole line's from the cache
  eachWord(parts, at, TERM_SAMPLE_CHARS, cache, (w) => counts.set(w, (counts.get(w) ?? 0) + 1));

  const entry = (t: string | undefined) => t && isChangeLog(input.path) && ENTRY.test(t);
  const metaTitle = entry(meta.title) ? undefined : meta.title?.replace(/\s+/g, " ").trim();
  const fromHeading = input.outline_quality === "none"
    ? undefined
    : headingTitle(outline, input.lines, input.path);
  const title = (withoutSiteName(metaTitle, outline[0]?.title) || fromHeading ||
    baseName(input.path)).slice(0, 300);

  const declared = normalizeLanguage(meta.language);
  const language = declared !== "und" ? declared : detectLanguage((lead || text).slice(0, 20_000));

  // A word never spans a line break: counting line by line needs no joined copy.
  let word_count = 0;
  for (const line of lines) word_count += countWords(line);
  const brief = word_count < 500;

  const fields: MeasuredCard["fields"] = {
    title,
    language,
    word_count,
    total_lines: lines.length,
    abstract: abstractOf(lead),
    brief,
    outline_quality: input.outline_quality,
    has_outline: outline.length > 0,
  };
  if (meta.author?.trim()) fields.author = meta.author.trim();
  if (extracted.pages?.length) fields.page_count = extracted.pages.length;
  const distinct = [...counts.keys()];
  const minCount = brief ? 1 : 2;
  const candidates: number[] = [];
  const candidateCounts: number[] = [];
  distinct.forEach((w, i) => {
    const c = counts.get(w)!;
    if (isCandidate(w, c, minCount)) {
      candidates.push(i);
      candidateCounts.push(c);
    }
  });
  const out: MeasuredCard = { fields, distinct, candidates, candidateCounts };
  if (meta.tags) out.tags = meta.tags;
  return out;
}

/**
 * The part of {@link buildCard} that reads the corpus statistics: the card's keywords and
 * candidate terms, ranked by `tf · idf`, and the card with the file's facts.
 *
 * @param measured what {@link measureCard} gave
 * @param facts the file's id, path, library, type, time and size
 * @param stats corpus document frequencies
 * @returns `card`, the top candidate `terms`, and every term once (`distinct`)
 */
export function rankCard(
  measured: MeasuredCard,
  facts: CardFacts,
  stats?: TermStats,
): CardResult {
  const f = measured.fields;
  const { distinct, candidateCounts } = measured;
  const candidates = measured.candidates.map((i, k): [string, number] => [
    distinct[i]!,
    candidateCounts[k]!,
  ]);
  // Scored and sorted once, for the keywords and the candidate terms alike.
  const scored = scoreCandidates(candidates, idfOf(stats));
  const keywords = pickKeywords(scored, { tags: measured.tags });
  const count = new Map(candidates);
  const terms: TermCounts = {};
  for (const [w] of scored.slice(0, CANDIDATE_TERMS)) terms[w] = count.get(w)!;

  // The fields in the order a stored card has always had them.
  const card: Card = {
    doc_id: facts.doc_id,
    path: facts.path,
    library: facts.library,
    doc_type: facts.doc_type,
    title: f.title,
    language: f.language,
    word_count: f.word_count,
    total_lines: f.total_lines,
    abstract: f.abstract,
    keywords,
    brief: f.brief,
    outline_quality: f.outline_quality,
    has_outline: f.has_outline,
    modified_at: facts.modified_at,
    size: facts.size,
  };
  if (f.author !== undefined) card.author = f.author;
  if (f.page_count !== undefined) card.page_count = f.page_count;
  return { card, terms, distinct: measured.distinct };
}
