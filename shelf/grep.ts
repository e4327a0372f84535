/**
 * Grep as a use case of the shelf: inside one document, or across the documents of a
 * scope (candidates from the keyword index when the pattern has sure words, texts read by
 * the worker in batches under a time budget, copies folded). Answers are plain data; the
 * `grep` tool (`server/tools/grep.ts`) renders them. The Shelf's `grep` and
 * `grepDocuments` call these with the grep runner it owns.
 *
 * @module
 */
import { type SearchFilters, ToolError } from "../core/types.ts";
import { documentNotFound } from "./documents.ts";
import type { Shelf } from "./shelf.ts";
import type { GrepRunner } from "./grep_runner.ts";
import { patternLiterals, regexFlags, wrapOf } from "./grep_pattern.ts";
import type { GrepJob, GrepMatch, GrepResult } from "./grep_worker.ts";
import { partsOf } from "./_parts.ts";
import { pageOf } from "../search/passages.ts";
import type { Fingerprint } from "../core/fingerprint.ts";
import type { CatalogStore } from "../stores/roles.ts";

/** Documents in one request to the grep worker (it reads fewer when they are long). */
const BATCH_DOCS = 512;
/** A batch that ran past the time limit is tried again with this share of its documents. */
const RETRY_SHARE = 16;
/**
 * Characters of texts sent to the worker in one job: as many as it reads from the catalog
 * file in one (`BATCH_CHARS` of the worker, whose module only the worker thread loads).
 */
const SEND_CHARS = 8_000_000;
/** Time a grep across documents may take before it stops and answers with what it found. */
const SCAN_MS = 15_000;

/** What to look for, and how much of each match to give. */
export interface GrepOptions {
  /** A JavaScript regular expression. */
  pattern: string;
  /** Ignore case (default false). */
  caseInsensitive?: boolean;
  /** Lines of context before each match (default 3). */
  before?: number;
  /** Lines of context after each match (default 3). */
  after?: number;
  /** Count the matches without giving them (default false). */
  countOnly?: boolean;
}

/** Options of a grep inside one document. */
export interface GrepDocumentOptions extends GrepOptions {
  /** Matches to skip (default 0). */
  offset?: number;
  /** Matches to give (default 20). */
  limit?: number;
}

/** Options of a grep across documents. */
export interface GrepDocumentsOptions extends GrepOptions {
  /** The documents to grep: a library, a path glob, types (default every document). */
  scope?: SearchFilters;
  /** Matches to give of each document (default 5). */
  limit?: number;
  /** Documents to give (default 10). */
  limitDocuments?: number;
  /** Documents to skip (default 0). */
  offsetDocuments?: number;
  /** List the documents only, each with its count and best line (default false). */
  list?: boolean;
}

/** Where the next page starts, or null after the last. */
export const nextAt = (offset: number, shown: number, total: number) =>
  offset + shown < total ? offset + shown : null;

/** The answer of a grep inside one document (its display path). */
export interface GrepDocumentAnswer {
  /** The document's id. */
  doc_id: string;
  /** Its title. */
  title: string;
  /** Its display path. */
  path: string;
  /** The pattern, as given. */
  pattern: string;
  /** Lines of the document that match. */
  total_matches: number;
  /** Matches skipped. */
  offset: number;
  /** This page's matches with their context; absent when only counting. */
  matches?: GrepMatch[];
  /** `offset` of the next page; null after the last, and when only counting. */
  next_offset: number | null;
}

/** One document of an answer across documents. */
export interface DocMatches {
  /** The document's id. */
  doc_id: string;
  /** Its title. */
  title: string;
  /** Its display path. */
  path: string;
  /** Its type (the extractor's name). */
  doc_type: string;
  /** Lines of the document that match. */
  total_matches: number;
  /** Its first matches (up to `limit`) with their context; absent when only counting. */
  matches?: GrepMatch[];
  /** In a list: its line with the most distinct matches, without context. */
  best?: GrepMatch;
  /** `offset` for a grep of this document alone that continues where `matches` stop. */
  next_offset: number | null;
  /** Documents with the same text and the same matches, folded into this one. */
  copies?: { doc_id: string; path: string }[];
}

/** The answer of a grep across documents (display paths). */
export interface GrepDocumentsAnswer {
  /** The pattern, as given. */
  pattern: string;
  /** The scope, as given (empty: every document). */
  scope: SearchFilters;
  /** Matching lines in all the documents grepped (each copy counted). */
  total_matches: number;
  /** Documents with at least one match. */
  total_documents: number;
  /** Documents in the scope. */
  documents_in_scope: number;
  /** Documents grepped: those in scope holding the pattern's sure words, or all. */
  documents_grepped: number;
  /** False when the time budget ran out before every document was grepped. */
  complete: boolean;
  /** Documents skipped. */
  offset_documents: number;
  /** This page's documents, most matches first, copies folded. */
  documents: DocMatches[];
  /** `offset_documents` of the next page, or null after the last. */
  next_offset_documents: number | null;
}

/** A job without its texts and page, from the options. */
function jobOf(o: GrepOptions): Omit<GrepJob, "texts" | "offset" | "limit"> {
  return {
    source: o.pattern,
    wrap: wrapOf(o.pattern),
    flags: regexFlags(o.pattern, o.caseInsensitive ?? false),
    before: o.before ?? 3,
    after: o.after ?? 3,
    countOnly: o.countOnly ?? false,
  };
}

/**
 * Grep one document.
 *
 * @param shelf the shelf
 * @param runner its grep runner
 * @param docId the document's id
 * @param o the pattern and page
 * @throws {ToolError} `DOCUMENT_NOT_FOUND`, `INVALID_PATTERN`, `PATTERN_TIMEOUT`
 */
export async function grepDocument(
  shelf: Shelf,
  runner: GrepRunner,
  docId: string,
  o: GrepDocumentOptions,
): Promise<GrepDocumentAnswer> {
  const job = jobOf(o);
  const store = partsOf(shelf).store;
  const card = (await store.cards([docId])).get(docId);
  if (!card) throw documentNotFound(docId);
  const offset = o.offset ?? 0;
  const text = await store.text(docId) ?? "";
  const [r] = await runner.run({ ...job, texts: [text], offset, limit: o.limit ?? 20 });
  await addPages(shelf, docId, r!.matches);
  return {
    doc_id: docId,
    title: card.title,
    path: card.path,
    pattern: o.pattern,
    total_matches: r!.total,
    offset,
    matches: job.countOnly ? undefined : r!.matches,
    next_offset: job.countOnly ? null : nextAt(offset, r!.matches.length, r!.total),
  };
}

/**
 * Grep the documents `ids` in batches: the worker reads their texts from the SQLite catalog
 * file (a batch ends after `BATCH_CHARS` characters, see the worker); the texts of another
 * store (PostgreSQL: one query a batch) or of a catalog in memory are read here and sent,
 * `SEND_CHARS` at most a job. Stops at the time budget.
 */
async function grepBatches(
  shelf: Shelf,
  runner: GrepRunner,
  ids: string[],
  job: GrepJob,
): Promise<{ found: Map<string, GrepResult>; grepped: number; complete: boolean }> {
  const found = new Map<string, GrepResult>();
  const { store, catalog } = partsOf(shelf);
  const file = store.name === "sqlite" ? catalog.db.location() ?? undefined : undefined;
  /** Texts read but not yet sent (a batch's texts past `SEND_CHARS`). */
  const read = new Map<string, string>();
  const started = Date.now();
  let rest = [...ids].sort();
  let grepped = 0;
  let size = BATCH_DOCS;
  while (rest.length) {
    if (Date.now() - started > SCAN_MS) break;
    const batch = rest.slice(0, size);
    let rs: GrepResult[];
    try {
      rs = await runner.run(
        file ? { ...job, file, ids: batch } : { ...job, texts: await textsOf(store, batch, read) },
      );
    } catch (e) {
      // A busy machine may need more than the job's limit for a batch of many texts: the
      // batch is tried again smaller, once; a pattern that still runs too long is at fault.
      if (!(e instanceof ToolError) || e.code !== "PATTERN_TIMEOUT" || size < BATCH_DOCS) throw e;
      size = Math.max(1, Math.floor(BATCH_DOCS / RETRY_SHARE));
      continue;
    }
    rs.forEach((r, i) => r.total && found.set(batch[i]!, r));
    for (const id of batch.slice(0, rs.length)) read.delete(id);
    grepped += rs.length;
    rest = rest.slice(Math.max(1, rs.length));
  }
  return { found, grepped, complete: rest.length === 0 };
}

/**
 * Grep every document of a scope, matches grouped by document, most matches first.
 *
 * @param shelf the shelf
 * @param runner its grep runner
 * @param o the pattern, scope and pages
 * @throws {ToolError} `INVALID_PATTERN`
 */
export async function grepDocuments(
  shelf: Shelf,
  runner: GrepRunner,
  o: GrepDocumentsOptions,
): Promise<GrepDocumentsAnswer> {
  const job = jobOf(o);
  const scope = o.scope ?? {};
  const pattern = o.pattern;
  const offsetDocs = o.offsetDocuments ?? 0;
  const limitDocs = o.limitDocuments ?? 10;
  const store = partsOf(shelf).store;
  const inScope = await store.idsMatching(scope); // undefined: no filter
  const { literal, words } = patternLiterals(pattern);
  // A phrase may wrap a line (at a space or a hyphen): only its longest piece without
  // either must be on one line.
  const piece = literal?.split(/[\s-]+/).sort((a, b) => b.length - a.length)[0] || undefined;
  // The scope is applied here, from the store: the keyword index's own filter may need the
  // local catalog, which a server reading PostgreSQL does not have.
  const scoped = inScope && new Set(inScope);
  const ids = words.length
    ? (await partsOf(shelf).keyword.candidates(words, {})).filter((id) => scoped?.has(id) ?? true)
    : inScope ?? (await store.list()).map((d) => d.doc_id);
  const list = o.list === true && !job.countOnly;
  const { found, grepped, complete } = await grepBatches(shelf, runner, ids, {
    ...job,
    ...(list ? { best: true, before: 0, after: 0 } : {}),
    literal: piece,
    offset: 0,
    limit: o.limit ?? 5,
  });
  const cards = await store.cards([...found.keys()]);
  const docs: DocMatches[] = [...found].flatMap(([id, r]) => {
    const card = cards.get(id);
    if (!card) return [];
    return [{
      doc_id: id,
      title: card.title,
      path: card.path,
      doc_type: card.doc_type,
      total_matches: r.total,
      ...(list ? { best: r.matches[0] } : { matches: job.countOnly ? undefined : r.matches }),
      next_offset: job.countOnly || list ? null : nextAt(0, r.matches.length, r.total),
    }];
  });
  // Most matches first; of copies, the one with the shortest path is kept.
  const depth = (p: string) => p.split("/").length;
  docs.sort((x, y) =>
    y.total_matches - x.total_matches || depth(x.path) - depth(y.path) ||
    x.path.localeCompare(y.path)
  );
  const folded = foldCopies(docs, await store.fingerprints(docs.map((d) => d.doc_id)));
  const page = folded.slice(offsetDocs, offsetDocs + limitDocs);
  for (const d of page) await addPages(shelf, d.doc_id, d.best ? [d.best] : d.matches);
  return {
    pattern,
    scope,
    total_matches: docs.reduce((s, d) => s + d.total_matches, 0),
    total_documents: docs.length,
    documents_in_scope: inScope?.length ?? await store.count(),
    documents_grepped: grepped,
    complete,
    offset_documents: offsetDocs,
    documents: page,
    next_offset_documents: nextAt(offsetDocs, page.length, folded.length),
  };
}

/** The page of each match, in a paged document (PDF, slides, scans). */
async function addPages(
  shelf: Shelf,
  docId: string,
  matches: GrepMatch[] | undefined,
): Promise<void> {
  if (!matches?.length) return;
  const pages = (await partsOf(shelf).store.sections(docId))?.pages;
  if (!pages?.length) return;
  for (const m of matches) m.page = pageOf(pages, m.line);
}

/**
 * Documents with the same text (the catalog's exact text key) and the same matches are
 * one entry with `copies`, the first in order kept; the totals still count each copy.
 */
function foldCopies(docs: DocMatches[], keys: Map<string, Fingerprint>): DocMatches[] {
  const kept = new Map<string, DocMatches>();
  const out: DocMatches[] = [];
  for (const d of docs) {
    const key = keys.get(d.doc_id)?.key;
    const sig = key && `${key} ${d.total_matches} ${(d.best ?? d.matches?.[0])?.line}`;
    const first = sig ? kept.get(sig) : undefined;
    if (first) (first.copies ??= []).push({ doc_id: d.doc_id, path: d.path });
    else {
      if (sig) kept.set(sig, d);
      out.push(d);
    }
  }
  return out;
}

/**
 * The texts of a batch's first documents, `SEND_CHARS` characters at most (one at least),
 * in order: those not in `read` are read from the store at once, and kept there until the
 * worker has grepped them.
 */
async function textsOf(
  store: CatalogStore,
  batch: string[],
  read: Map<string, string>,
): Promise<string[]> {
  const missing = batch.filter((id) => !read.has(id));
  if (missing.length) {
    const got = await store.texts(missing);
    for (const id of missing) read.set(id, got.get(id) ?? "");
  }
  const out: string[] = [];
  let chars = 0;
  for (const id of batch) {
    if (chars >= SEND_CHARS) break;
    const t = read.get(id)!;
    chars += t.length;
    out.push(t);
  }
  return out;
}
