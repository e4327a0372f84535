/**
 * The catalog role (`roles.ts`, `CatalogStore`) in PostgreSQL: the SQLite catalog's tables
 * for a document (`documents`, `text_blocks`, `passages`, `links`, `fields`) in the
 * machine's schema of a shared store (`postgres_pool.ts`), so a server on any machine reads
 * and greps a document without its file.
 *
 * - **Text**: stored once, in the SQLite catalog's blocks of whole lines
 *   (`core/text_codec.ts`, `textBlocks`), each encoded by `encodeText`: a short block as
 *   `plain` text, a longer one zstd-compressed as `packed` `bytea`. The same `decodeText`
 *   reads both stores' blocks.
 * - **Writes**: one transaction per document (its row and every part of it: a reader sees
 *   all of it or none); a writer first takes the transaction-scoped advisory lock of the
 *   document's library, so writers of one library take turns and writers of different
 *   libraries, on any machine, never wait on each other. A transaction PostgreSQL aborts to
 *   break a deadlock is run again.
 * - **Reads**: on the replica of `readUrl` when given (`"store_read"`), else the primary.
 *   JSON columns are `json`, not `jsonb`: a card and an outline come back with their keys
 *   in the order written, as the SQLite catalog gives them.
 *
 * @module
 */
import { Buffer } from "node:buffer";
// @ts-types="@types/pg"
import type pg from "pg";
import type { FileState, GraphDocRow, LinkTargets, PartialDoc } from "../core/catalog.ts";
import {
  type DocHead,
  type DocSections,
  documentRow,
  type StoredDoc,
  storedTerms,
} from "../core/catalog_docs.ts";
import {
  blockLines,
  type DocBlocks,
  type StoredPassage,
  type StoredPassages,
} from "../core/catalog_sql.ts";
import { type FieldValueCount, foldValue, normalizeFieldFilters } from "../core/fields.ts";
import type { Fingerprint } from "../core/fingerprint.ts";
import { decodeText, joinTexts } from "../core/text_codec.ts";
import { textToStore } from "../core/prepared_text.ts";
import { type Card, type SearchFilters, type Skipped, ToolError } from "../core/types.ts";
import type { Link } from "../core/extractor.ts";
import type { LinkRow } from "../core/graph.ts";
import { type DocEntry, type DocTable, KeptTable } from "../core/listing.ts";
import { docPassages } from "../search/passages.ts";
import {
  claimMachine,
  guarded,
  type Machine,
  openPool,
  retriedTransaction,
} from "./postgres_pool.ts";
import {
  blockTexts,
  countTexts,
  fillWordCounts,
  WORDS_SCHEMA,
  writeWordCounts,
} from "./postgres_words.ts";
import type { CatalogStore, LibraryClaim } from "./roles.ts";

/** The tables, created if missing (in the machine's schema: the pool's `search_path`). */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS documents (
  doc_id text PRIMARY KEY,
  library text NOT NULL,
  path text NOT NULL UNIQUE,
  doc_type text NOT NULL,
  modified_at text NOT NULL,
  size bigint NOT NULL,
  mtime_ms double precision NOT NULL,
  hash text NOT NULL,
  word_count int NOT NULL,
  card json NOT NULL,
  outline json NOT NULL,
  pages json,
  terms json NOT NULL,
  indexed_at text NOT NULL,
  text_key text,
  minhash bytea
);
-- an index run's file states, and listings by path (byte order, as SQLite's), from the index
CREATE INDEX IF NOT EXISTS documents_states ON documents (library, path)
  INCLUDE (doc_id, size, mtime_ms, hash);
CREATE INDEX IF NOT EXISTS documents_list ON documents (path COLLATE "C");
CREATE INDEX IF NOT EXISTS documents_text_key ON documents (text_key);
CREATE TABLE IF NOT EXISTS text_blocks (
  doc_id text NOT NULL, first_line int NOT NULL, plain text, packed bytea,
  PRIMARY KEY (doc_id, first_line)
);
CREATE TABLE IF NOT EXISTS passages (
  doc_id text NOT NULL, seq int NOT NULL, start_line int NOT NULL, end_line int NOT NULL,
  page int, node_id text, title text NOT NULL,
  PRIMARY KEY (doc_id, seq)
);
CREATE TABLE IF NOT EXISTS links (
  id bigserial PRIMARY KEY, doc_id text NOT NULL, line int NOT NULL, target text NOT NULL,
  text text NOT NULL
);
CREATE INDEX IF NOT EXISTS links_doc ON links (doc_id);
CREATE TABLE IF NOT EXISTS fields (
  id bigserial PRIMARY KEY, doc_id text NOT NULL, field text NOT NULL, folded text NOT NULL,
  value text NOT NULL
);
CREATE INDEX IF NOT EXISTS fields_doc ON fields (doc_id, field, folded);
CREATE INDEX IF NOT EXISTS fields_value ON fields (field, folded);
-- the change token: a counter per library, bumped by each write transaction under the
-- library's lock (writers of different libraries never wait on one row)
CREATE TABLE IF NOT EXISTS catalog_changes (library text PRIMARY KEY, n bigint NOT NULL);
-- the files an index run skipped and the documents it extracted in part, as the data
-- folder's catalog last had them (status on another machine's server)
CREATE TABLE IF NOT EXISTS run_files (
  path text PRIMARY KEY, library text NOT NULL, skipped json, partial json
);
`;

/** The advisory lock the store's tables are made under (the keyword index's too). */
const SCHEMA_LOCK = 7243101;
/** The first key of a library's write lock (the second: a hash of schema and library). */
const LIBRARY_LOCK = 7243102;
/** The first key of a library's index-run claim ({@link PgCatalogStore.claimLibrary}). */
const RUN_LOCK = 7243103;

/** Take a library's write lock, until the transaction ends. */
const LOCK_SQL =
  "SELECT pg_advisory_xact_lock($1, hashtext(current_schema() || '/' || $2)) AS locked";

/** Count a write of a library, inside its transaction, after taking the library's lock. */
const BUMP_SQL = `INSERT INTO catalog_changes VALUES ($1, 1)
  ON CONFLICT (library) DO UPDATE SET n = catalog_changes.n + 1`;

/**
 * A card `->>` cannot read: PostgreSQL refuses to de-escape `\u0000` (a card's author or
 * abstract may hold one, read from a PDF: "unsupported Unicode escape sequence"). Such a
 * card (rare) comes back whole, as text, for the client to read its fields.
 */
const HAS_NUL = String.raw`strpos(card::text, '\u0000') > 0`;

/** Rows a listing reads at a time. */
const LIST_BATCH = 5000;

/** Documents a page of {@link PgCatalogStore.linkTargets} holds. */
const LINK_PAGE = 1000;

/** Libraries one store may hold claimed at once (a connection each). */
const CLAIMS_AT_MOST = 64;

/** Options of {@link PgCatalogStore}. */
export interface PgCatalogOptions {
  /** Connections at most (default 10). */
  connections?: number;
  /** A read-only streaming replica the reads go to (`"store_read"`); writes go to the URL. */
  readUrl?: string;
  /** The data folder's machine: its tables are in its schema. Default: `public`. */
  machine?: Machine;
  /**
   * Another machine of the store, whose tables (in its schema) this store only reads: it
   * claims no name and makes no table (`machine` is then not given).
   */
  reads?: string;
}

/** PostgreSQL text holds no NUL (nor does SQLite's, read back): as the catalog, U+FFFD. */
function clean(s: string): string {
  return s.includes("\0") ? s.replaceAll("\0", "\uFFFD") : s;
}

/**
 * A block's compressed bytes as the reads select them (`packed64`): base64, which Deno
 * decodes natively, where node-postgres decodes `bytea`'s hex in JavaScript (measured: a
 * 6 KB block in 0.05 against 0.85 ms), and 1.33 times the bytes on the wire, not 2.
 */
function packed(table: string): string {
  return `encode(${table}.packed, 'base64') AS packed64`;
}

/** A stored block value: the compressed bytes (as `bytea` or {@link packed}), else the text. */
function blockValue(r: pg.QueryResultRow): unknown {
  if (typeof r.packed64 === "string") return Buffer.from(r.packed64, "base64");
  return r.packed ?? r.plain;
}

/**
 * The catalog in PostgreSQL.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PgCatalogStore } from "./catalog_postgres.ts";
 * // connects on the first call; a server that is not there is a structured error
 * const store = new PgCatalogStore("postgres://ann@127.0.0.1:1/shelf");
 * await assert.rejects(store.count(), { code: "INDEX_UNAVAILABLE" });
 * await store.close();
 * ```
 */
export class PgCatalogStore implements CatalogStore {
  /** Backend name. */
  readonly name = "postgres";
  readonly #pool: pg.Pool;
  /**
   * The connections that hold index-run claims, one per claimed library: apart from the
   * queries' pool, so claims never take the connections its reads and writes wait for.
   */
  readonly #claims: pg.Pool;
  readonly #read: pg.Pool;
  readonly #machine?: Machine;
  #schema?: Promise<void>;
  /** The listing, kept until the change token moves ({@link table}). */
  readonly #listing = new KeptTable(() => this.changeToken(), () => this.list());
  /** The name of each read's statement, by SQL text. */
  readonly #names = new Map<string, string>();

  /**
   * Connect (lazily: on the first call) and create the tables if missing.
   *
   * @param url the store's URL (`postgres://user@host:5432/db`, no password)
   * @param options connections, the replica reads go to, the machine
   */
  constructor(url: string, options: PgCatalogOptions = {}) {
    const [max, machine] = [options.connections ?? 10, options.machine];
    const schema = machine?.name ?? options.reads;
    this.#pool = openPool(url, max, schema);
    this.#claims = openPool(url, CLAIMS_AT_MOST, schema);
    this.#read = options.readUrl ? openPool(options.readUrl, max, schema) : this.#pool;
    this.#machine = machine;
    // another machine's tables are its own to make
    if (options.reads !== undefined) this.#schema = Promise.resolve();
  }

  async put(doc: StoredDoc, text: string, links: Link[] = []): Promise<void> {
    const c = doc.card;
    const safe = clean(text);
    // A text with a NUL was not the one prepared (the indexer prepares storable lines).
    const stored = textToStore(safe, c.doc_type, safe === text ? doc.prepared : undefined);
    const blocks = stored.blocks;
    const passages = docPassages(c, doc.outline, doc.pages, stored.lines);
    const fp = stored.fingerprint;
    // plugins' links are not trusted to be well formed
    const good = links.filter((l) =>
      typeof l?.target === "string" && l.target && Number.isInteger(l.line)
    );
    const fields = Object.entries(doc.fields ?? {}).flatMap(([field, values]) =>
      values.map((v) => [field, foldValue(field, v), v].map(clean))
    );
    await this.#transaction(async (tx) => {
      await tx.query(LOCK_SQL, [LIBRARY_LOCK, c.library]);
      await tx.query(BUMP_SQL, [c.library]);
      const old = await this.#delete(tx, [c.doc_id], false);
      await tx.query(
        `INSERT INTO documents (doc_id, library, path, doc_type, modified_at, size, mtime_ms,
           hash, word_count, card, outline, pages, terms, indexed_at, text_key, minhash)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
         ON CONFLICT (doc_id) DO UPDATE SET library = excluded.library, path = excluded.path,
           doc_type = excluded.doc_type, modified_at = excluded.modified_at,
           size = excluded.size, mtime_ms = excluded.mtime_ms, hash = excluded.hash,
           word_count = excluded.word_count, card = excluded.card, outline = excluded.outline,
           pages = excluded.pages, terms = excluded.terms, indexed_at = excluded.indexed_at,
           text_key = excluded.text_key, minhash = excluded.minhash`,
        [
          ...documentRow(doc),
          fp.key,
          fp.minhash ? new Uint8Array(fp.minhash.buffer) : null,
        ],
      );
      await tx.query(
        `INSERT INTO text_blocks (doc_id, first_line, plain, packed)
         SELECT $1, * FROM unnest($2::int[], $3::text[], $4::bytea[])`,
        [
          c.doc_id,
          blocks.map((b) => b.first_line),
          blocks.map((b) => typeof b.value === "string" ? b.value : null),
          blocks.map((b) => typeof b.value === "string" ? null : b.value),
        ],
      );
      await tx.query(
        `INSERT INTO passages (doc_id, seq, start_line, end_line, page, node_id, title)
         SELECT $1, u.ord - 1, u.s, u.e, u.p, u.n, u.t
         FROM unnest($2::int[], $3::int[], $4::int[], $5::text[], $6::text[])
           WITH ORDINALITY AS u(s, e, p, n, t, ord)`,
        [
          c.doc_id,
          passages.map((p) => p.start_line),
          passages.map((p) => p.end_line),
          passages.map((p) => p.page ?? null),
          passages.map((p) => p.node_id ?? null),
          passages.map((p) => clean(p.title)),
        ],
      );
      await tx.query(
        `INSERT INTO links (doc_id, line, target, text)
         SELECT $1, u.l, u.t, u.x FROM unnest($2::int[], $3::text[], $4::text[])
           WITH ORDINALITY AS u(l, t, x, ord) ORDER BY u.ord`,
        [
          c.doc_id,
          good.map((l) => l.line),
          good.map((l) => clean(l.target)),
          good.map((l) => clean(typeof l.text === "string" ? l.text : "")),
        ],
      );
      await tx.query(
        `INSERT INTO fields (doc_id, field, folded, value)
         SELECT $1, u.f, u.o, u.v FROM unnest($2::text[], $3::text[], $4::text[])
           WITH ORDINALITY AS u(f, o, v, ord) ORDER BY u.ord`,
        [c.doc_id, fields.map((f) => f[0]), fields.map((f) => f[1]), fields.map((f) => f[2])],
      );
      // last: the word rows other libraries' writers share
      const changes = countTexts(new Map(), old, -1);
      for (const w of storedTerms(doc, safe, text)) changes.set(w, (changes.get(w) ?? 0) + 1);
      await writeWordCounts(tx, changes);
    });
  }

  async touch(docId: string, mtimeMs: number, modifiedAt: string): Promise<void> {
    await this.#transaction(async (tx) => {
      // the card's fields keep their order: only the value of `modified_at` changes
      const r = (await tx.query("SELECT library, card FROM documents WHERE doc_id = $1", [docId]))
        .rows[0];
      if (!r) return;
      await tx.query(LOCK_SQL, [LIBRARY_LOCK, r.library]);
      await tx.query(BUMP_SQL, [r.library]);
      await tx.query(
        `UPDATE documents SET mtime_ms = $2, modified_at = $3, card = $4 WHERE doc_id = $1`,
        [docId, mtimeMs, modifiedAt, JSON.stringify({ ...r.card, modified_at: modifiedAt })],
      );
    });
  }

  /**
   * Claim a library for an index run, without waiting: a session advisory lock held on a
   * connection of its own until `release()`, or until that connection ends (a killed
   * indexer's claim ends with it). Indexers of different libraries, on any machine, never
   * wait on each other's claims; a second indexer of one library is told at once.
   *
   * @param library the library (its name in the store: `laptop:Papers`)
   * @returns the claim
   * @throws {ToolError} `CONFLICT` when another indexer holds the library
   */
  async claimLibrary(library: string): Promise<LibraryClaim> {
    await this.#ready();
    const c = await guard(() => this.#claims.connect());
    const key = [RUN_LOCK, library];
    // held for the run, not idle in the pool: a dropped connection must not be an uncaught
    // error of the process (the claim just ends)
    const dropped = () => {};
    c.on("error", dropped);
    const giveBack = (destroy?: boolean) => {
      c.off("error", dropped);
      c.release(destroy);
    };
    try {
      const got = (await guard(() =>
        c.query(
          "SELECT pg_try_advisory_lock($1, hashtext(current_schema() || '/' || $2)) AS got",
          key,
        )
      )).rows[0].got;
      if (!got) {
        throw new ToolError(
          "CONFLICT",
          `library "${library}" is being indexed by another indexer`,
          "Index it again when that run has finished (its claim ends with it), or index another library.",
        );
      }
    } catch (e) {
      giveBack();
      throw e;
    }
    let held = true;
    return {
      library,
      release: async () => {
        if (!held) return;
        held = false;
        try {
          await c.query(
            "SELECT pg_advisory_unlock($1, hashtext(current_schema() || '/' || $2))",
            key,
          );
          giveBack();
        } catch {
          // the connection is closed instead: its session, and so its lock, ends with it
          giveBack(true);
        }
      },
    };
  }

  async remove(ids: string[]): Promise<void> {
    if (!ids.length) return;
    await this.#transaction(async (tx) => {
      // each library's lock, in one order: two removers never wait on each other in a cycle
      const libs = await tx.query(
        "SELECT DISTINCT library FROM documents WHERE doc_id = ANY($1) ORDER BY 1",
        [ids],
      );
      for (const r of libs.rows) {
        await tx.query(LOCK_SQL, [LIBRARY_LOCK, r.library]);
        await tx.query(BUMP_SQL, [r.library]);
      }
      const old = await this.#delete(tx, ids, true);
      await writeWordCounts(tx, countTexts(new Map(), old, -1));
    });
  }

  /**
   * Delete documents' parts (and, with `rows`, their `documents` rows).
   *
   * @returns the texts deleted, one per document that had one (for its word counts)
   */
  async #delete(tx: pg.PoolClient, ids: string[], rows: boolean): Promise<string[]> {
    const blocks = await tx.query(
      "DELETE FROM text_blocks WHERE doc_id = ANY($1) RETURNING doc_id, first_line, plain, packed",
      [ids],
    );
    for (const table of ["passages", "links", "fields"]) {
      await tx.query(`DELETE FROM ${table} WHERE doc_id = ANY($1)`, [ids]);
    }
    if (rows) await tx.query("DELETE FROM documents WHERE doc_id = ANY($1)", [ids]);
    return blockTexts(blocks.rows);
  }

  async get(docId: string): Promise<StoredDoc | undefined> {
    const r = (await this.#query(
      "SELECT card, outline, pages, terms, hash, mtime_ms FROM documents WHERE doc_id = $1",
      [docId],
    ))[0];
    if (!r) return undefined;
    return {
      card: r.card,
      outline: r.outline,
      pages: r.pages ?? undefined,
      terms: r.terms,
      hash: r.hash,
      mtime_ms: r.mtime_ms,
    };
  }

  async head(docId: string): Promise<DocHead | undefined> {
    const r = (await this.#query(
      "SELECT card, pages, hash FROM documents WHERE doc_id = $1",
      [docId],
    ))[0];
    return r && { card: r.card, pages: r.pages ?? undefined, hash: r.hash };
  }

  async sections(docId: string): Promise<DocSections | undefined> {
    const r = (await this.#query(
      `SELECT outline, pages, hash, doc_type, card->>'outline_quality' AS quality
       FROM documents WHERE doc_id = $1`,
      [docId],
    ))[0];
    if (!r) return undefined;
    return {
      outline: r.outline,
      quality: r.quality,
      docType: r.doc_type,
      pages: r.pages ?? undefined,
      hash: r.hash,
    };
  }

  async cards(ids: string[]): Promise<Map<string, Card>> {
    const rows = await this.#query(
      "SELECT doc_id, card FROM documents WHERE doc_id = ANY($1)",
      [ids],
    );
    const found = new Map(rows.map((r) => [r.doc_id as string, r.card as Card]));
    const out = new Map<string, Card>();
    for (const id of ids) {
      const card = found.get(id);
      if (card) out.set(id, card);
    }
    return out;
  }

  async idsMatching(filters: SearchFilters): Promise<string[] | undefined> {
    const params: unknown[] = [];
    const where = pgFilterSql(filters, params);
    if (!params.length) return undefined;
    const rows = await this.#query(`SELECT doc_id FROM documents d WHERE ${where}`, params);
    return rows.map((r) => r.doc_id as string);
  }

  async fingerprints(ids: string[]): Promise<Map<string, Fingerprint>> {
    const rows = await this.#query(
      "SELECT doc_id, text_key, minhash FROM documents WHERE doc_id = ANY($1) AND text_key IS NOT NULL",
      [ids],
    );
    const found = new Map(rows.map((r) => [r.doc_id as string, r]));
    const out = new Map<string, Fingerprint>();
    for (const id of ids) {
      const r = found.get(id);
      if (!r) continue;
      // a copy of the bytes: a driver's Buffer may be a view into a larger one
      const blob = r.minhash as Uint8Array | null;
      out.set(id, {
        key: r.text_key as string,
        minhash: blob ? new Uint32Array(new Uint8Array(blob).buffer) : undefined,
      });
    }
    return out;
  }

  async sameText(
    keys: string[],
    filters: SearchFilters,
  ): Promise<Map<string, { doc_id: string; path: string }[]>> {
    const out = new Map<string, { doc_id: string; path: string }[]>();
    if (!keys.length) return out;
    const params: unknown[] = [keys];
    const where = pgFilterSql(filters, params);
    const rows = await this.#query(
      `SELECT d.text_key, d.doc_id, d.path FROM documents d
       WHERE d.text_key = ANY($1) AND ${where} ORDER BY d.path COLLATE "C"`,
      params,
    );
    for (const r of rows) {
      const list = out.get(r.text_key) ?? [];
      list.push({ doc_id: r.doc_id, path: r.path });
      out.set(r.text_key, list);
    }
    return out;
  }

  async text(docId: string): Promise<string | undefined> {
    return (await this.texts([docId])).get(docId);
  }

  async texts(ids: string[]): Promise<Map<string, string>> {
    const rows = await this.#query(
      `SELECT doc_id, plain, ${packed("text_blocks")} FROM text_blocks WHERE doc_id = ANY($1)
       ORDER BY doc_id, first_line`,
      [ids],
    );
    const blocks = new Map<string, unknown[]>();
    for (const r of rows) {
      const list = blocks.get(r.doc_id) ?? [];
      list.push(blockValue(r));
      blocks.set(r.doc_id, list);
    }
    const out = new Map<string, string>();
    for (const id of ids) {
      const values = blocks.get(id);
      if (values) out.set(id, joinTexts(values));
    }
    return out;
  }

  async lines(docId: string, from: number, to: number): Promise<string[] | undefined> {
    const blocks = (await this.#blocks([[docId, from, to]])).get(docId);
    if (blocks) return blockLines(unread, docId, blocks, from, to);
    // no block holds the range (it is empty, `from` after `to`): is the document there?
    const known = await this.#query("SELECT 1 FROM documents WHERE doc_id = $1", [docId]);
    return known.length ? [] : undefined;
  }

  /**
   * The blocks that hold line ranges of documents, decoded, each read once (one query for
   * all ranges), by document: each document's blocks are those of its ranges, not all, so
   * `blockLines` finds a range's lines among them (the block holding a range's first line
   * is always one).
   *
   * @param ranges `[doc_id, from, to]` each
   */
  async #blocks(ranges: [string, number, number][]): Promise<Map<string, DocBlocks>> {
    const rows = await this.#query(
      `SELECT b.doc_id, b.first_line, b.plain, ${packed("b")} FROM text_blocks b
       WHERE (b.doc_id, b.first_line) IN (
         SELECT x.doc_id, x.first_line
         FROM unnest($1::text[], $2::int[], $3::int[]) AS r(doc_id, f, t)
         JOIN text_blocks x ON x.doc_id = r.doc_id AND x.first_line <= r.t
           AND x.first_line >= (SELECT coalesce(max(first_line), 1) FROM text_blocks y
                                WHERE y.doc_id = r.doc_id AND y.first_line <= r.f))
       ORDER BY b.doc_id, b.first_line`,
      [ranges.map((r) => r[0]), ranges.map((r) => r[1]), ranges.map((r) => r[2])],
    );
    const out = new Map<string, DocBlocks>();
    for (const r of rows) {
      let doc = out.get(r.doc_id);
      if (!doc) out.set(r.doc_id, doc = { firsts: [], lines: new Map() });
      doc.firsts.push(r.first_line);
      doc.lines.set(r.first_line, (decodeText(blockValue(r)) ?? "").split("\n"));
    }
    return out;
  }

  async passages(docId: string, seqs: number[]): Promise<StoredPassages | undefined> {
    return (await this.passagesOf(new Map([[docId, seqs]]))).get(docId);
  }

  async passagesOf(wanted: Map<string, number[]>): Promise<Map<string, StoredPassages>> {
    const ids = [...wanted.keys()];
    const pairs = ids.flatMap((id) => wanted.get(id)!.map((seq) => [id, seq] as const));
    // each passage by its key: a manual has hundreds
    const rows = await this.#query(
      `SELECT d.doc_id, d.doc_type, d.pages, p.seq, p.start_line, p.end_line, p.page,
         p.node_id, p.title
       FROM documents d
       LEFT JOIN (unnest($2::text[], $3::int[]) AS w(doc_id, seq)
         JOIN passages p ON p.doc_id = w.doc_id AND p.seq = w.seq) ON p.doc_id = d.doc_id
       WHERE d.doc_id = ANY($1)`,
      [ids, pairs.map((p) => p[0]), pairs.map((p) => p[1])],
    );
    const docs = new Map<
      string,
      { head: pg.QueryResultRow; found: Map<number, pg.QueryResultRow> }
    >();
    for (const r of rows) {
      const d = docs.get(r.doc_id) ?? { head: r, found: new Map() };
      if (r.seq !== null) d.found.set(r.seq, r);
      docs.set(r.doc_id, d);
    }
    // the passages asked, in the order asked, and the blocks holding their lines
    const asked = new Map<string, pg.QueryResultRow[]>();
    for (const [id, d] of docs) asked.set(id, wanted.get(id)!.flatMap((s) => d.found.get(s) ?? []));
    const blocks = await this.#blocks(
      [...asked].flatMap(([id, ps]) =>
        ps.map((p) => [id, p.start_line, p.end_line] as [string, number, number])
      ),
    );
    const out = new Map<string, StoredPassages>();
    for (const [id, { head }] of docs) {
      const read = blocks.get(id) ?? { firsts: [], lines: new Map() };
      const got: StoredPassages = { passages: [], docType: head.doc_type };
      if (head.pages !== null) got.pages = head.pages;
      for (const r of asked.get(id)!) {
        const p: StoredPassage = {
          seq: r.seq,
          title: r.title,
          start_line: r.start_line,
          end_line: r.end_line,
          lines: blockLines(unread, id, read, r.start_line, r.end_line),
        };
        if (r.node_id !== null) p.node_id = r.node_id;
        if (r.page !== null) p.page = r.page;
        got.passages.push(p);
      }
      out.set(id, got);
    }
    return out;
  }

  async links(docId: string): Promise<Link[]> {
    const rows = await this.#query(
      "SELECT line, target, text FROM links WHERE doc_id = $1 ORDER BY id",
      [docId],
    );
    return rows.map((r) => ({ target: r.target, text: r.text, line: r.line }));
  }

  async graphDocs(): Promise<GraphDocRow[]> {
    return await this.#query(
      `SELECT doc_id, path, library, doc_type, indexed_at FROM documents
       ORDER BY path COLLATE "C"`,
    ) as GraphDocRow[];
  }

  /**
   * Pages of {@link LINK_PAGE} documents by id (keyset, each page a walk of the `links_doc`
   * index from the last id of the page before): targets and ids in row order, as JSON
   * arrays, parsed natively (with `array_agg` the driver's `text[]` parser made a build of the
   * full corpus cost the client 3.5 times the CPU: 940 against 264 ms).
   */
  async *linkTargets(): AsyncGenerator<LinkTargets[]> {
    for (let after = "";;) {
      const page = await this.#query(
        `SELECT doc_id, json_agg(target ORDER BY id) AS targets, json_agg(id ORDER BY id) AS rows
         FROM links WHERE doc_id > $1 AND left(target, 1) <> '#'
         GROUP BY doc_id ORDER BY doc_id LIMIT ${LINK_PAGE}`,
        [after],
      ) as LinkTargets[];
      if (page.length) yield page;
      if (page.length < LINK_PAGE) return;
      after = page[page.length - 1]!.doc_id;
    }
  }

  async linkRows(rows: number[]): Promise<Map<number, LinkRow>> {
    const found = await this.#query(
      "SELECT id::float8 AS id, line, target, text FROM links WHERE id = ANY($1::bigint[])",
      [rows],
    );
    return new Map(found.map((r) => [r.id, { line: r.line, text: r.text, target: r.target }]));
  }

  async fields(docId: string): Promise<Record<string, string[]>> {
    const out: Record<string, string[]> = {};
    const rows = await this.#query(
      "SELECT field, value FROM fields WHERE doc_id = $1 ORDER BY id",
      [docId],
    );
    for (const r of rows) (out[r.field] ??= []).push(r.value);
    return out;
  }

  async idByPath(path: string): Promise<string | undefined> {
    return (await this.#query("SELECT doc_id FROM documents WHERE path = $1", [path]))[0]
      ?.doc_id;
  }

  /**
   * Read in pages of {@link LIST_BATCH} rows, each page after the last path of the one before
   * (keyset, on the `documents_list` index): a million documents never sit in one result
   * (nor in the protocol's buffers) beside the entries made of them, and no connection is
   * held between pages.
   */
  async list(library?: string): Promise<DocEntry[]> {
    const out: DocEntry[] = [];
    for (let after: string | null = null;;) {
      const rows = await this.#query(
        `SELECT doc_id, library, path, doc_type, size::float8 AS size, modified_at,
           CASE WHEN ${HAS_NUL} THEN card::text END AS raw,
           CASE WHEN NOT ${HAS_NUL} THEN card->>'title' END AS title,
           CASE WHEN NOT ${HAS_NUL} THEN (card->>'total_lines')::float8 END AS lines
         FROM documents
         WHERE ($1::text IS NULL OR path COLLATE "C" > $1) AND ($2::text IS NULL OR library = $2)
         ORDER BY path COLLATE "C" LIMIT ${LIST_BATCH}`,
        [after, library ?? null],
      );
      for (const r of rows) {
        const raw = r.raw === null ? undefined : JSON.parse(r.raw) as Partial<Card>;
        if (raw) [r.title, r.lines] = [raw.title, raw.total_lines];
        out.push({
          doc_id: r.doc_id,
          library: r.library,
          path: r.path,
          doc_type: r.doc_type,
          title: r.title ?? "",
          total_lines: r.lines ?? 0,
          size: r.size,
          modified_at: r.modified_at,
        });
      }
      if (rows.length < LIST_BATCH) return out;
      after = rows[rows.length - 1]!.path;
    }
  }

  async changeToken(): Promise<string> {
    // committed writes only (a transaction's bump is seen when it commits); counters only
    // grow and their rows are never deleted, so the sum changes with every write
    const rows = await this.#query(
      "SELECT coalesce(sum(n), 0)::text AS t FROM catalog_changes",
    );
    return rows[0]?.t ?? "0";
  }

  table(): Promise<DocTable> {
    return this.#listing.get();
  }

  async fileStates(library: string): Promise<Map<string, FileState>> {
    const rows = await this.#query(
      `SELECT doc_id, path, size::float8 AS size, mtime_ms, hash FROM documents
       WHERE library = $1`,
      [library],
    );
    return new Map(rows.map((r) => [r.path as string, r as FileState]));
  }

  /**
   * The fields each library's documents hold values of (folded names, sorted), by library:
   * what another machine's server knows of the fields a library indexes (its configuration
   * is on its machine only).
   */
  async fieldNames(): Promise<Map<string, string[]>> {
    const rows = await this.#query(
      `SELECT d.library, array_agg(DISTINCT f.field ORDER BY f.field) AS fields
       FROM fields f JOIN documents d ON d.doc_id = f.doc_id GROUP BY d.library`,
    );
    return new Map(rows.map((r) => [r.library as string, r.fields as string[]]));
  }

  /**
   * Keep what a library's index run left out, as the data folder's catalog has it after the
   * run: its skipped files and its documents extracted in part replace the library's rows
   * (one transaction, which moves the change token when they changed), so a server on
   * another machine shows them in `status` and resolves links to them.
   *
   * @param library the library (its name on this machine)
   * @param skipped its skipped files
   * @param partial its documents extracted in part
   */
  async saveRunFiles(library: string, skipped: Skipped[], partial: PartialDoc[]): Promise<void> {
    const rows = [
      ...skipped.map((s) => ({ path: s.path, skipped: s, partial: null })),
      ...partial.map((p) => ({ path: p.path, skipped: null, partial: p })),
    ];
    rows.sort((a, b) => a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
    await this.#transaction(async (tx) => {
      await tx.query(LOCK_SQL, [LIBRARY_LOCK, library]);
      const before = await tx.query(
        `SELECT path, skipped, partial FROM run_files WHERE library = $1 ORDER BY path COLLATE "C"`,
        [library],
      );
      if (JSON.stringify(before.rows) === JSON.stringify(rows)) return;
      // a change the link graph sees (a link to a skipped file is to a file)
      await tx.query(BUMP_SQL, [library]);
      await tx.query("DELETE FROM run_files WHERE library = $1", [library]);
      await tx.query(
        `INSERT INTO run_files (path, library, skipped, partial)
         SELECT r.path, $1, r.skipped, r.partial
         FROM json_to_recordset($2::json) AS r(path text, skipped json, partial json)
         ON CONFLICT (path) DO NOTHING`,
        [library, JSON.stringify(rows)],
      );
    });
  }

  /**
   * The skipped files and the documents extracted in part that index runs kept
   * ({@link saveRunFiles}), by path (byte order); none in a schema written before them.
   */
  async runFiles(): Promise<{ skipped: Skipped[]; partial: PartialDoc[] }> {
    let rows: Record<string, unknown>[];
    try {
      rows = await this.#query(
        `SELECT skipped, partial FROM run_files r
         WHERE partial IS NOT NULL
           OR NOT EXISTS (SELECT 1 FROM documents d WHERE d.path = r.path)
         ORDER BY path COLLATE "C"`,
      );
    } catch (e) {
      // a schema written before run_files
      if ((e as { code?: string }).code === "42P01") return { skipped: [], partial: [] };
      throw e;
    }
    return {
      skipped: rows.flatMap((r) => r.skipped ? [r.skipped as Skipped] : []),
      partial: rows.flatMap((r) => r.partial ? [r.partial as PartialDoc] : []),
    };
  }

  /**
   * Every distinct value (folded) of a field, in one library or all, with its document
   * count (as {@link fieldValueCounts} of the SQLite catalog): another machine's values
   * for `list_tags`.
   */
  async fieldValueCounts(field: string, library?: string): Promise<FieldValueCount[]> {
    const rows = await this.#query(
      `SELECT f.folded, min(f.value COLLATE "C") AS value, count(DISTINCT f.doc_id) AS n
       FROM fields f ${
        library === undefined ? "WHERE" : "JOIN documents d ON d.doc_id = f.doc_id WHERE"
      } f.field = $1 ${library === undefined ? "" : "AND d.library = $2"}
       GROUP BY f.folded`,
      library === undefined ? [field] : [field, library],
    );
    return rows.map((r) => ({
      folded: r.folded as string,
      value: r.value as string,
      documents: Number(r.n),
    }));
  }

  /** The libraries the store holds documents of, by name (byte order). */
  async libraries(): Promise<string[]> {
    // one probe of the (library, path) index per library, from each to the next: not a
    // scan of every document (PostgreSQL 15 has no skip scan of its own)
    const rows = await this.#query(
      `WITH RECURSIVE l AS (
         SELECT min(library) AS library FROM documents
         UNION ALL
         SELECT (SELECT min(library) FROM documents
                 WHERE library > l.library)
         FROM l WHERE l.library IS NOT NULL)
       SELECT library FROM l WHERE library IS NOT NULL`,
    );
    return rows.map((r) => r.library as string).sort();
  }

  async df(terms: string[]): Promise<Map<string, number>> {
    const rows = await this.#query("SELECT term, n FROM df WHERE term = ANY($1)", [terms]);
    const found = new Map(rows.map((r) => [r.term as string, r.n as number]));
    return new Map(terms.map((t) => [t, found.get(t) ?? 0]));
  }

  async count(library?: string): Promise<number> {
    const rows = library === undefined
      ? await this.#query("SELECT count(*)::int AS n FROM documents")
      : await this.#query("SELECT count(*)::int AS n FROM documents WHERE library = $1", [
        library,
      ]);
    return rows[0]?.n ?? 0;
  }

  async close(): Promise<void> {
    await this.#pool.end();
    await this.#claims.end();
    if (this.#read !== this.#pool) await this.#read.end();
  }

  /**
   * A read's rows, its failure as `INDEX_UNAVAILABLE` without credentials. Each SQL text is
   * a named statement, prepared once per connection: planning cost as much as running the
   * reads of a search's hits (0.6 ms against 0.2-0.8 ms, small corpus).
   */
  async #query(sql: string, params: unknown[] = []): Promise<pg.QueryResultRow[]> {
    // a replica's reader does not need the primary (it may be down): the primary's writers
    // made the tables
    if (this.#read === this.#pool) await this.#ready();
    let name = this.#names.get(sql);
    if (!name) this.#names.set(sql, name = `catalog_${this.#names.size}`);
    return await guard(async () =>
      (await this.#read.query({ name, text: sql, values: params })).rows
    );
  }

  /** Make the tables once (on the primary, one maker at a time), unless they are there. */
  #ready(): Promise<void> {
    this.#schema ??= guard(async () => {
      const c = await this.#pool.connect();
      try {
        // a streaming replica is read-only: its primary made the tables
        if ((await c.query("SELECT pg_is_in_recovery() AS r")).rows[0].r) return;
        await c.query("SELECT pg_advisory_lock($1)", [SCHEMA_LOCK]);
        try {
          if (this.#machine) await claimMachine(c, this.#machine);
          await c.query(SCHEMA);
          await wordTable(c);
        } finally {
          await c.query("SELECT pg_advisory_unlock($1)", [SCHEMA_LOCK]);
        }
      } finally {
        c.release();
      }
    }).catch((e) => {
      this.#schema = undefined;
      throw e;
    });
    return this.#schema;
  }

  /** A write transaction on the primary, run again when aborted for a deadlock. */
  async #transaction(fn: (tx: pg.PoolClient) => Promise<void>): Promise<void> {
    await this.#ready();
    await guard(async () => {
      await retriedTransaction(this.#pool, fn);
    });
  }
}

/**
 * Make the word counts' table if missing, in one transaction with its counts: a store whose
 * documents were written before it gets them from their stored texts.
 */
async function wordTable(c: pg.PoolClient): Promise<void> {
  if ((await c.query("SELECT to_regclass('df') IS NOT NULL AS made")).rows[0].made) return;
  await c.query("BEGIN");
  try {
    await c.query(WORDS_SCHEMA);
    await fillWordCounts(c);
    await c.query("COMMIT");
  } catch (e) {
    await c.query("ROLLBACK").catch(() => {});
    throw e;
  }
}

/** A block reader for blocks read beforehand: asking it for one is a bug. */
const unread = {
  firsts: (): number[] => [],
  lines: (docId: string, first: number): string[] => {
    throw new Error(`block ${first} of ${docId} was not read`);
  },
};

/** Run a call on PostgreSQL; its failure as `INDEX_UNAVAILABLE`, credentials taken out. */
function guard<T>(fn: () => Promise<T>): Promise<T> {
  return guarded("the catalog", fn);
}

/**
 * The search filters as a condition on `documents d` in PostgreSQL, as the SQLite catalog's
 * `filterSql` (`true` when there is none): texts compared byte by byte (`COLLATE "C"`, as
 * SQLite compares them), the path glob as an anchored regular expression ({@link globRegex}).
 *
 * @param filters the search filters (dates normalised)
 * @param params the statement's parameters so far; the condition's are added
 */
export function pgFilterSql(filters: SearchFilters, params: unknown[]): string {
  const conds: string[] = [];
  const add = (v: unknown) => `$${params.push(v)}`;
  if (filters.doc_types?.length) conds.push(`d.doc_type = ANY(${add(filters.doc_types)})`);
  if (filters.library !== undefined) conds.push(`d.library = ${add(filters.library)}`);
  if (filters.path_glob) {
    conds.push(`d.path ~ ${add(globRegex(filters.path_glob))} COLLATE "C"`);
  }
  if (filters.modified_after) {
    conds.push(`d.modified_at >= ${add(filters.modified_after)} COLLATE "C"`);
  }
  if (filters.modified_before) {
    conds.push(`d.modified_at <= ${add(filters.modified_before)} COLLATE "C"`);
  }
  for (const [field, values] of Object.entries(normalizeFieldFilters(filters.fields ?? {}))) {
    conds.push(
      `EXISTS (SELECT 1 FROM fields f WHERE f.doc_id = d.doc_id AND f.field = ${
        add(field)
      } AND f.folded = ANY(${add(values)}))`,
    );
  }
  return conds.length ? conds.join(" AND ") : "true";
}

/**
 * An SQLite GLOB pattern as an anchored POSIX regular expression: `*` any characters
 * (slashes too), `?` one, `[...]` a set (`[^...]` its complement), everything else itself.
 *
 * @example
 * ```ts
 * import { globRegex } from "./catalog_postgres.ts";
 * import assert from "node:assert/strict";
 * assert.equal(globRegex("Docs/*.md"), "^Docs/.*\\.md$");
 * assert.equal(globRegex("a?[^x]["), "^a.[^x]\\[$");
 * ```
 */
export function globRegex(glob: string): string {
  let out = "^";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === "*") out += ".*";
    else if (c === "?") out += ".";
    else if (c === "[") {
      // a set runs to the next "]" (one right after "[" or "[^" belongs to the set)
      let j = i + 1;
      if (glob[j] === "^") j++;
      if (glob[j] === "]") j++;
      while (j < glob.length && glob[j] !== "]") j++;
      if (j >= glob.length) {
        out += "\\[";
        continue;
      }
      const body = glob.slice(i + 1, j);
      const neg = body.startsWith("^");
      const items = (neg ? body.slice(1) : body).replace(/[\\\[]/g, "\\$&");
      out += `[${neg ? "^" : ""}${items}]`;
      i = j;
    } else out += c.replace(/[.+(){}|^$\\\]]/g, "\\$&");
  }
  return out + "$";
}
