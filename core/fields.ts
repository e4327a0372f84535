/**
 * Front-matter fields: the `(doc_id, field, value)` rows the catalog keeps for the fields
 * each library indexes (config `fields`, default {@link DEFAULT_FIELDS}), the `filters` of
 * `search` on them, and the distinct values of a field (`list_tags`).
 *
 * **Matching.** A value is matched whole, never as a substring, but without regard to
 * case or Unicode form: both sides are folded by {@link foldValue} (NFC, trimmed, lower
 * case; a tag also loses a leading `#`), so `Pacing`, `pacing` and `#pacing` are one tag
 * while `pace` is another. A field holding a list matches when any element does. Values
 * are kept as written for display (`list_tags` shows the smallest spelling of each).
 *
 * **Sources.** Markdown YAML front matter (`extractors/markdown.ts` gives every key as a
 * list of strings in `DocMeta.fields`); for a field the front matter lacks, the document's
 * own metadata stands in: DOCX and PDF keywords (and Markdown `keywords`) as `tags`, the
 * metadata author as `author`, likewise `title`, `created`, `language`.
 *
 * Only the configured fields are stored, at index time; when a library's list changes,
 * the next index run re-extracts it ({@link fieldsChanged}).
 *
 * @module
 */
import type { DatabaseSync, SQLInputValue, StatementSync } from "node:sqlite";
import { type Library, ToolError } from "./types.ts";
import type { DocMeta } from "./extractor.ts";

/** The fields a library indexes when its configuration names none. */
export const DEFAULT_FIELDS: readonly string[] = ["tags", "aliases", "type", "status", "author"];

/** Values kept per field of a document, at most. */
const MAX_VALUES = 100;
/** Characters of a value, at most (longer ones are not kept: they are prose, not labels). */
const MAX_VALUE_CHARS = 256;

/** The table and its indexes (part of the catalog's schema). */
export const FIELDS_SCHEMA = `
CREATE TABLE IF NOT EXISTS fields (
  doc_id TEXT NOT NULL, field TEXT NOT NULL, folded TEXT NOT NULL, value TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS fields_doc ON fields(doc_id, field, folded);
CREATE INDEX IF NOT EXISTS fields_value ON fields(field, folded);
`;

/**
 * A field name as stored and matched: trimmed, lower case.
 *
 * @example
 * ```ts
 * import { foldField } from "./fields.ts";
 * import assert from "node:assert/strict";
 * assert.equal(foldField(" Tags "), "tags");
 * ```
 */
export function foldField(name: string): string {
  return name.trim().toLowerCase();
}

/**
 * A value as matched: NFC, trimmed, lower case; a tag without its leading `#`.
 *
 * @example
 * ```ts
 * import { foldValue } from "./fields.ts";
 * import assert from "node:assert/strict";
 * assert.equal(foldValue("tags", "#Pacing"), "pacing");
 * assert.equal(foldValue("status", " Draft "), "draft");
 * ```
 */
export function foldValue(field: string, value: string): string {
  const v = value.normalize("NFC").trim().toLowerCase();
  return field === "tags" ? v.replace(/^#+/, "") : v;
}

/** The fields a library indexes, folded. */
export function libraryFields(lib: Pick<Library, "fields">): string[] {
  return [...new Set((lib.fields ?? DEFAULT_FIELDS).map(foldField))];
}

/** Metadata keys that stand in for a field the front matter lacks. */
function fromMeta(meta: DocMeta, field: string): string[] | undefined {
  switch (field) {
    case "tags":
      return meta.tags;
    case "author":
    case "title":
    case "created":
    case "language":
      return meta[field] ? [meta[field]] : undefined;
  }
  return undefined;
}

/**
 * The values of the indexed fields of a document: its front matter's, else its metadata's
 * (keywords as `tags`, `author`, ...). Values are trimmed strings, distinct once folded, at
 * most 100 per field and 256 characters each; a field without any is left out.
 *
 * @param meta what the extractor read (untrusted: plugins may give anything)
 * @param wanted the library's indexed fields, folded
 * @returns values by field
 * @example
 * ```ts
 * import { documentFields } from "./fields.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(
 *   documentFields({ fields: { tags: ["a", "A", "b"] }, author: "Ann" }, ["tags", "author"]),
 *   { tags: ["a", "b"], author: ["Ann"] },
 * );
 * ```
 */
export function documentFields(
  meta: DocMeta | undefined,
  wanted: readonly string[],
): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  if (!meta) return out;
  const given = meta.fields && typeof meta.fields === "object" ? meta.fields : {};
  for (const field of wanted) {
    const raw = Object.hasOwn(given, field) ? given[field] : undefined;
    const list = Array.isArray(raw) && raw.length ? raw : fromMeta(meta, field);
    if (!Array.isArray(list)) continue;
    const seen = new Set<string>();
    const values: string[] = [];
    for (const v of list) {
      if (typeof v !== "string") continue;
      const value = v.trim();
      const key = foldValue(field, value);
      if (!key || value.length > MAX_VALUE_CHARS || seen.has(key)) continue;
      seen.add(key);
      values.push(value);
      if (values.length >= MAX_VALUES) break;
    }
    if (values.length) out[field] = values;
  }
  return out;
}

/**
 * Replace the stored field values of a document (none: its rows are removed).
 *
 * @param q the catalog's prepared statements (see `statements`)
 * @param docId the document
 * @param fields its values by field
 */
export function writeFields(
  q: (sql: string) => StatementSync,
  docId: string,
  fields: Record<string, string[]> = {},
): void {
  q("DELETE FROM fields WHERE doc_id = ?").run(docId);
  const ins = q("INSERT INTO fields (doc_id, field, folded, value) VALUES (?, ?, ?, ?)");
  for (const [field, values] of Object.entries(fields)) {
    for (const v of values) ins.run(docId, field, foldValue(field, v), v);
  }
}

/** The stored field values of a document, by field. */
export function docFields(db: DatabaseSync, docId: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (
    const r of db.prepare("SELECT field, value FROM fields WHERE doc_id = ? ORDER BY rowid").all(
      docId,
    )
  ) {
    (out[r.field as string] ??= []).push(r.value as string);
  }
  return out;
}

/**
 * Field filters as the search path keeps them: field names and values folded, a single
 * value made a list.
 *
 * @param filters field -> value or values, as the caller gave them
 * @returns field -> folded values
 * @throws {ToolError} `INVALID_ARGUMENT` for a field with no value or a blank one
 */
export function normalizeFieldFilters(
  filters: Record<string, string | string[]>,
): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [name, given] of Object.entries(filters)) {
    const field = foldField(name);
    const list = Array.isArray(given) ? given : [given];
    const values = list.map((v) => foldValue(field, String(v)));
    if (!field || !values.length || values.some((v) => !v)) {
      throw new ToolError(
        "INVALID_ARGUMENT",
        `filters.${name}: give a non-empty value or list of values`,
        'e.g. {"tags": "pacing"} or {"tags": ["pacing", "plot"], "status": "draft"}',
      );
    }
    out[field] = [...new Set([...(out[field] ?? []), ...values])];
  }
  return out;
}

/**
 * SQL conditions (AND-ed) for field filters against `documents` under `alias`: for every
 * field, one of the document's values equals one given (both folded).
 *
 * @param filters field -> values (folded here again: folding is idempotent)
 * @param alias the alias of `documents`
 * @returns conditions and their parameters
 */
export function fieldFilterSql(
  filters: Record<string, string | string[]>,
  alias: string,
): { conds: string[]; params: SQLInputValue[] } {
  const conds: string[] = [];
  const params: SQLInputValue[] = [];
  for (const [field, values] of Object.entries(normalizeFieldFilters(filters))) {
    conds.push(
      `EXISTS (SELECT 1 FROM fields f WHERE f.doc_id = ${alias}.doc_id AND f.field = ? AND f.folded IN (${
        values.map(() => "?").join(", ")
      }))`,
    );
    params.push(field, ...values);
  }
  return { conds, params };
}

/**
 * Refuse fields a library does not index (`library` undefined: fields no library indexes).
 * Another machine's library of a shared store (`others`) indexes the fields its documents
 * hold values of: its configuration is on its machine, the values are in the store.
 *
 * @param libraries the configured libraries
 * @param library the library asked for (undefined: all)
 * @param names the fields asked for
 * @param others other machines' libraries (`laptop:Papers`) with the fields they hold
 * @throws {ToolError} `INVALID_ARGUMENT` naming the field, the indexed ones in the hint
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkFields } from "./fields.ts";
 * const others = new Map([["laptop:Papers", ["tags", "topic"]]]);
 * checkFields([], "laptop:Papers", ["Topic"], others);
 * checkFields([], undefined, ["topic"], others);
 * assert.throws(() => checkFields([], "laptop:Papers", ["status"], others), /no value/);
 * ```
 */
export function checkFields(
  libraries: Library[],
  library: string | undefined,
  names: string[],
  others: ReadonlyMap<string, string[]> = new Map(),
): void {
  const libs = libraries.filter((l) => library === undefined || l.name === library);
  const theirs = [...others].filter(([name]) => library === undefined || name === library);
  const indexed = [
    ...new Set([...libs.flatMap(libraryFields), ...theirs.flatMap(([, fields]) => fields)]),
  ];
  const other = library !== undefined && others.has(library);
  for (const name of names) {
    if (indexed.includes(foldField(name))) continue;
    const where = library === undefined ? "any library" : `library ${JSON.stringify(library)}`;
    throw new ToolError(
      "INVALID_ARGUMENT",
      other
        ? `Field ${JSON.stringify(name)} has no value in ${where} (another machine's)`
        : `Field ${JSON.stringify(name)} is not indexed in ${where}`,
      other
        ? `Fields with values there: ${indexed.join(", ") || "(none)"}. Another machine's ` +
          `library is known here by what its documents hold; its "fields" are set on its machine.`
        : `Indexed fields: ${
          indexed.join(", ") || "(none)"
        }. A library's "fields" in shelfmark.json sets them.`,
    );
  }
}

/** The distinct values of a field, with the number of documents holding each. */
export interface FieldValues {
  /** Values, most documents first, then by folded value. */
  values: { value: string; documents: number }[];
  /** Distinct values in all. */
  total: number;
}

/** A distinct value (folded) of a field, with the number of documents holding it. */
export interface FieldValueCount {
  /** The value folded (as filters match it). */
  folded: string;
  /** Its smallest spelling (in binary order), shown. */
  value: string;
  /** Documents holding it. */
  documents: number;
}

/**
 * The distinct values (folded) of a field, in one library or all, most used first.
 *
 * @param db the catalog's database
 * @param field the field (folded)
 * @param library only this library
 * @param limit values returned at most
 */
export function fieldValues(
  db: DatabaseSync,
  field: string,
  library: string | undefined,
  limit: number,
): FieldValues {
  return topFieldValues(fieldValueCounts(db, field, library), limit);
}

/**
 * Every distinct value (folded) of a field in the catalog, in one library or all, with
 * its document count (in no order): what {@link topFieldValues} merges with other
 * machines' counts.
 */
export function fieldValueCounts(
  db: DatabaseSync,
  field: string,
  library: string | undefined,
): FieldValueCount[] {
  const join = library === undefined
    ? "FROM fields f WHERE f.field = ?"
    : "FROM fields f JOIN documents d ON d.doc_id = f.doc_id WHERE f.field = ? AND d.library = ?";
  const params = library === undefined ? [field] : [field, library];
  return db.prepare(
    `SELECT f.folded, min(f.value) AS value, count(DISTINCT f.doc_id) AS n ${join}
     GROUP BY f.folded`,
  ).all(...params).map((r) => ({
    folded: r.folded as string,
    value: r.value as string,
    documents: r.n as number,
  }));
}

/**
 * The most used of value counts read apart (each machine's documents are its own: the
 * counts of a folded value add up), most documents first, then by folded value.
 *
 * @param counts value counts, a folded value possibly more than once
 * @param limit values returned at most
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { topFieldValues } from "./fields.ts";
 * const top = topFieldValues([
 *   { folded: "rust", value: "rust", documents: 1 },
 *   { folded: "go", value: "go", documents: 2 },
 *   { folded: "rust", value: "Rust", documents: 2 },
 * ], 1);
 * assert.deepEqual(top, { values: [{ value: "Rust", documents: 3 }], total: 2 });
 * ```
 */
export function topFieldValues(counts: FieldValueCount[], limit: number): FieldValues {
  const merged = new Map<string, FieldValueCount>();
  for (const c of counts) {
    const seen = merged.get(c.folded);
    merged.set(
      c.folded,
      seen
        ? {
          ...seen,
          value: c.value < seen.value ? c.value : seen.value,
          documents: seen.documents + c.documents,
        }
        : c,
    );
  }
  const values = [...merged.values()]
    .sort((a, b) =>
      b.documents - a.documents || (a.folded < b.folded ? -1 : a.folded > b.folded ? 1 : 0)
    )
    .slice(0, limit)
    .map((c) => ({ value: c.value, documents: c.documents }));
  return { values, total: merged.size };
}

/** The catalog's record of the fields a library's documents were indexed with. */
interface MetaStore {
  getMeta(key: string): string | undefined;
  setMeta(key: string, value: string): void;
}

/**
 * Whether a library's documents were indexed with other fields than it now indexes (or
 * not yet recorded): the indexer then extracts the library again in full.
 */
export function fieldsChanged(catalog: MetaStore, lib: Library): boolean {
  return catalog.getMeta(`fields:${lib.name}`) !== JSON.stringify(libraryFields(lib));
}

/** Record the fields a library is now indexed with (when the run that re-extracts it starts). */
export function noteFields(catalog: MetaStore, lib: Library): void {
  const now = JSON.stringify(libraryFields(lib));
  if (catalog.getMeta(`fields:${lib.name}`) !== now) catalog.setMeta(`fields:${lib.name}`, now);
}
