/**
 * The catalog's text fingerprints (`text_key` and `minhash` of `documents`, see
 * `core/fingerprint.ts`): storing them, computing them again, and reading them back to
 * find copies of a document.
 *
 * @module
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { type Fingerprint, fingerprint } from "./fingerprint.ts";
import { MARKUP_TYPES } from "./readable.ts";
import { filterSql, storedText, TEXT_SQL } from "./catalog_sql.ts";
import type { SearchFilters } from "./types.ts";

/** Store the fingerprints of a document's text. */
export function setFingerprint(
  q: (sql: string) => StatementSync,
  docId: string,
  fp: Fingerprint,
): void {
  q("UPDATE documents SET text_key = ?, minhash = ? WHERE doc_id = ?").run(
    fp.key,
    fp.minhash ? new Uint8Array(fp.minhash.buffer) : null,
    docId,
  );
}

/** Compute documents' fingerprints again from their stored text (see `Catalog.refingerprint`). */
export function refingerprint(q: (sql: string) => StatementSync, ids: string[]): void {
  const get = q("SELECT doc_type FROM documents WHERE doc_id = ?");
  const texts = q(TEXT_SQL);
  for (const id of ids) {
    const r = get.get(id);
    const text = r ? storedText(texts, id) : undefined;
    if (r && text !== undefined) {
      setFingerprint(q, id, fingerprint(text, MARKUP_TYPES.has(r.doc_type as string)));
    }
  }
}

/** The fingerprints of documents, by id (documents without one are left out). */
export function fingerprints(
  q: (sql: string) => StatementSync,
  ids: string[],
): Map<string, Fingerprint> {
  const out = new Map<string, Fingerprint>();
  const get = q("SELECT text_key, minhash FROM documents WHERE doc_id = ?");
  for (const id of ids) {
    const r = get.get(id);
    if (!r?.text_key) continue;
    const blob = r.minhash as Uint8Array | null;
    out.set(id, {
      key: r.text_key as string,
      minhash: blob ? new Uint32Array(blob.slice().buffer) : undefined,
    });
  }
  return out;
}

/** Documents with exactly the same text as each key, by path (see `Catalog.sameText`). */
export function sameText(
  db: DatabaseSync,
  keys: string[],
  filters: SearchFilters,
): Map<string, { doc_id: string; path: string }[]> {
  const out = new Map<string, { doc_id: string; path: string }[]>();
  if (!keys.length) return out;
  const f = filterSql(filters, "d");
  const rows = db.prepare(
    `SELECT d.text_key, d.doc_id, d.path FROM documents d
     WHERE d.text_key IN (${keys.map(() => "?").join(", ")}) AND ${f.where} ORDER BY d.path`,
  ).all(...keys, ...f.params);
  for (const r of rows) {
    const key = r.text_key as string;
    const list = out.get(key) ?? [];
    list.push({ doc_id: r.doc_id as string, path: r.path as string });
    out.set(key, list);
  }
  return out;
}
