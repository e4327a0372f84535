/**
 * A document's rows in the catalog: its `documents` row (card, outline, term counts, file
 * state), its text, links, fingerprints and front-matter fields, written and removed
 * together, and the stored document read back.
 *
 * @module
 */
import type { StatementSync } from "node:sqlite";
import { writeFields } from "./fields.ts";
import { textTerms } from "./card.ts";
import { type PreparedText, type TextToStore, textToStore } from "./prepared_text.ts";
import { docPassages } from "../search/passages.ts";
import { setFingerprint } from "./catalog_copies.ts";
import type { Card, OutlineNode, TermCounts } from "./types.ts";
import type { Link } from "./extractor.ts";

/** A stored document. */
export interface StoredDoc {
  card: Card;
  outline: OutlineNode[];
  pages?: number[];
  terms: TermCounts;
  hash: string;
  mtime_ms: number;
  /** Values of the library's indexed front-matter fields (see `core/fields.ts`). */
  fields?: Record<string, string[]>;
  /**
   * Its text's fingerprints and encoded blocks, prepared where it was extracted
   * (`core/prepared_text.ts`); made from the text when absent.
   */
  prepared?: PreparedText;
  /**
   * Its distinct terms, as `textTerms` gives them for its text (measured where it was
   * extracted): what it adds to the word counts; counted from the text when absent.
   */
  distinct?: string[];
}

/**
 * The distinct terms a stored document adds to the word counts: `doc.distinct` when they
 * are of this text, else counted from it (`textTerms`).
 *
 * @param doc the document (its `distinct`, when measured)
 * @param text the text stored: a text changed since (NUL bytes replaced) is counted again
 * @param measured the text the document was measured from (default `text`)
 * @returns each term once
 */
export function storedTerms(doc: StoredDoc, text: string, measured = text): string[] {
  return doc.distinct && text === measured ? doc.distinct : textTerms(text);
}

/** What a document's sections are cut from (see `Catalog.sections`). */
export interface DocSections {
  /** Its outline. */
  outline: OutlineNode[];
  /** Its card's outline quality. */
  quality: Card["outline_quality"];
  /** Its extractor. */
  docType: string;
  /** First line of each page (1-based), for paged formats. */
  pages?: number[];
  /** Its content hash. */
  hash: string;
}

/**
 * A document's row of the `documents` table, in column order: doc_id, library, path,
 * doc_type, modified_at, size, mtime_ms, hash, word_count, card, outline, pages, terms,
 * indexed_at (now). One form for every catalog backend.
 */
export function documentRow(doc: StoredDoc): (string | number | null)[] {
  const c = doc.card;
  return [
    c.doc_id,
    c.library,
    c.path,
    c.doc_type,
    c.modified_at,
    c.size,
    doc.mtime_ms,
    doc.hash,
    c.word_count,
    JSON.stringify(c),
    JSON.stringify(doc.outline),
    doc.pages ? JSON.stringify(doc.pages) : null,
    JSON.stringify(doc.terms),
    new Date().toISOString(),
  ];
}

/** Store (insert or replace) a document with its text and links (see `Catalog.put`). */
export function storeDoc(
  q: (sql: string) => StatementSync,
  doc: StoredDoc,
  text: string,
  links: Link[],
): void {
  const c = doc.card;
  q(
    `INSERT INTO documents (doc_id, library, path, doc_type, modified_at, size, mtime_ms, hash,
       word_count, card, outline, pages, terms, indexed_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT(doc_id) DO UPDATE SET library=excluded.library, path=excluded.path,
       doc_type=excluded.doc_type, modified_at=excluded.modified_at, size=excluded.size,
       mtime_ms=excluded.mtime_ms, hash=excluded.hash, word_count=excluded.word_count,
       card=excluded.card, outline=excluded.outline, pages=excluded.pages,
       terms=excluded.terms, indexed_at=excluded.indexed_at`,
  ).run(...documentRow(doc));
  // SQLite returns text only up to a NUL byte: never store one.
  const safe = text.includes("\0") ? text.replaceAll("\0", "\uFFFD") : text;
  // A text with a NUL was not the one prepared (the indexer prepares storable lines).
  const stored = textToStore(safe, c.doc_type, safe === text ? doc.prepared : undefined);
  setFingerprint(q, c.doc_id, stored.fingerprint);
  storeText(q, doc, stored);
  q("DELETE FROM skipped WHERE path = ?").run(c.path);
  q("DELETE FROM links WHERE doc_id = ?").run(c.doc_id);
  const link = q("INSERT INTO links (doc_id, line, target, text) VALUES (?, ?, ?, ?)");
  for (const l of links) {
    // plugins' links are not trusted to be well formed
    if (typeof l?.target !== "string" || !l.target || !Number.isInteger(l.line)) continue;
    link.run(c.doc_id, l.line, l.target, typeof l.text === "string" ? l.text : "");
  }
  writeFields(q, c.doc_id, doc.fields);
}

/**
 * Store a document's text once, in compressed blocks of lines (`textBlocks`), and its
 * passages (`docPassages`, the rows the keyword index ranks) as line ranges into it.
 */
function storeText(q: (sql: string) => StatementSync, doc: StoredDoc, text: TextToStore): void {
  const id = doc.card.doc_id;
  q("DELETE FROM text_blocks WHERE doc_id = ?").run(id);
  const block = q("INSERT INTO text_blocks (doc_id, first_line, text) VALUES (?, ?, ?)");
  for (const b of text.blocks) block.run(id, b.first_line, b.value);
  q("DELETE FROM passages WHERE doc_id = ?").run(id);
  const ins = q(
    `INSERT INTO passages (doc_id, seq, start_line, end_line, page, node_id, title)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  docPassages(doc.card, doc.outline, doc.pages, text.lines).forEach((p, seq) =>
    ins.run(id, seq, p.start_line, p.end_line, p.page ?? null, p.node_id ?? null, p.title)
  );
}

/** Remove a document with its text, links and fields. */
export function removeDoc(q: (sql: string) => StatementSync, id: string): void {
  q("DELETE FROM documents WHERE doc_id = ?").run(id);
  q("DELETE FROM text_blocks WHERE doc_id = ?").run(id);
  q("DELETE FROM passages WHERE doc_id = ?").run(id);
  q("DELETE FROM links WHERE doc_id = ?").run(id);
  writeFields(q, id);
}

/** A stored document by id, or undefined. */
export function readDoc(q: (sql: string) => StatementSync, docId: string): StoredDoc | undefined {
  const r = q(
    "SELECT card, outline, pages, terms, hash, mtime_ms FROM documents WHERE doc_id = ?",
  ).get(docId);
  if (!r) return undefined;
  return {
    card: JSON.parse(r.card as string),
    outline: JSON.parse(r.outline as string),
    pages: r.pages ? JSON.parse(r.pages as string) : undefined,
    terms: JSON.parse(r.terms as string),
    hash: r.hash as string,
    mtime_ms: r.mtime_ms as number,
  };
}

/** What reading a document's lines needs (see `Catalog.head`). */
export type DocHead = Pick<StoredDoc, "card" | "pages" | "hash">;

/** A stored document's card, pages and hash, without parsing its outline or term counts. */
export function readHead(q: (sql: string) => StatementSync, docId: string): DocHead | undefined {
  const r = q("SELECT card, pages, hash FROM documents WHERE doc_id = ?").get(docId);
  if (!r) return undefined;
  return {
    card: JSON.parse(r.card as string),
    pages: r.pages ? JSON.parse(r.pages as string) : undefined,
    hash: r.hash as string,
  };
}

/** What a document's sections are cut from, without parsing its card or term counts. */
export function readSections(
  q: (sql: string) => StatementSync,
  docId: string,
): DocSections | undefined {
  const r = q(
    "SELECT outline, pages, hash, doc_type, json_extract(card, '$.outline_quality') AS quality FROM documents WHERE doc_id = ?",
  ).get(docId);
  if (!r) return undefined;
  return {
    outline: JSON.parse(r.outline as string),
    quality: r.quality as Card["outline_quality"],
    docType: r.doc_type as string,
    pages: r.pages ? JSON.parse(r.pages as string) : undefined,
    hash: r.hash as string,
  };
}

/** Record that an unchanged file was touched (new mtime, same content). */
export function touchDoc(
  q: (sql: string) => StatementSync,
  docId: string,
  mtimeMs: number,
  modifiedAt: string,
): void {
  const row = q("SELECT card FROM documents WHERE doc_id = ?").get(docId);
  if (!row) return;
  const card = JSON.parse(row.card as string) as Card;
  card.modified_at = modifiedAt;
  q("UPDATE documents SET mtime_ms = ?, modified_at = ?, card = ? WHERE doc_id = ?")
    .run(mtimeMs, modifiedAt, JSON.stringify(card), docId);
}
