/**
 * The catalog consistency checker: after a crash (or any run) the catalog, the texts,
 * the skipped list, the FTS5 index and the document frequencies must agree.
 *
 * Checks are a list of {@link ConsistencyCheck}s so an index with its own store adds
 * one: the LanceDB vector table (`shelf/vectors.ts`, `stores/lancedb.ts`, in progress)
 * adds a check that every document has exactly one vector and no vector lacks a document,
 * by passing it in `extra`.
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { distinctTerms } from "../../core/card.ts";
import { storedText, TEXT_SQL } from "../../core/catalog_sql.ts";

/** One named check; returns a line per problem found (empty when consistent). */
export interface ConsistencyCheck {
  /** Short name, shown with every problem. */
  name: string;
  /** Run against the open catalog; `docIds` holds every stored document id. */
  run(db: DatabaseSync, docIds: Set<string>): string[] | Promise<string[]>;
}

const all = (db: DatabaseSync, sql: string) => db.prepare(sql).all();
const has = (db: DatabaseSync, table: string) =>
  db.prepare("SELECT 1 FROM sqlite_master WHERE name = ?").get(table) !== undefined;

/** SQLite's own page-level check. */
export const integrity: ConsistencyCheck = {
  name: "integrity",
  run: (db) => {
    const rows = all(db, "PRAGMA integrity_check");
    const msgs = rows.map((r) => String(Object.values(r)[0]));
    return msgs.length === 1 && msgs[0] === "ok" ? [] : msgs;
  },
};

/** Every document has its text and no text is left without its document. */
export const texts: ConsistencyCheck = {
  name: "texts",
  run: (db) => [
    ...all(db, "SELECT doc_id FROM documents WHERE doc_id NOT IN (SELECT doc_id FROM text_blocks)")
      .map((r) => `document without text: ${r.doc_id}`),
    ...all(
      db,
      "SELECT DISTINCT doc_id FROM text_blocks WHERE doc_id NOT IN (SELECT doc_id FROM documents)",
    ).map((r) => `orphan text: ${r.doc_id}`),
  ],
};

/** Cards parse, name their own id and path, and count the lines the text holds. */
export const cards: ConsistencyCheck = {
  name: "cards",
  run: (db) => {
    const out: string[] = [];
    const rows = db.prepare(
      "SELECT doc_id, path, card, outline FROM documents WHERE doc_id IN (SELECT doc_id FROM text_blocks)",
    ).iterate();
    const stored = db.prepare(TEXT_SQL);
    for (const r of rows) {
      try {
        const card = JSON.parse(r.card as string);
        JSON.parse(r.outline as string);
        if (card.doc_id !== r.doc_id) out.push(`card of ${r.doc_id} names ${card.doc_id}`);
        if (card.path !== r.path) out.push(`card of ${r.doc_id} has path ${card.path}`);
        const text = storedText(stored, r.doc_id as string)!;
        const lines = text === "" ? 0 : text.split("\n").length;
        if (card.total_lines !== lines) {
          out.push(`${r.path}: card says ${card.total_lines} lines, text has ${lines}`);
        }
      } catch (e) {
        out.push(`unparsable card or outline of ${r.doc_id}: ${(e as Error).message}`);
      }
    }
    return out;
  },
};

/** A file is either a document or skipped, never both. */
export const skipped: ConsistencyCheck = {
  name: "skipped",
  run: (db) =>
    all(db, "SELECT path FROM skipped WHERE path IN (SELECT path FROM documents)")
      .map((r) => `both indexed and skipped: ${r.path}`),
};

/** The FTS5 index holds exactly one row per document, and its own structure is sound. */
export const fts: ConsistencyCheck = {
  name: "fts5",
  run: (db) => {
    if (!has(db, "docs_fts")) return ["no docs_fts table"];
    const out = [
      ...all(db, "SELECT doc_id FROM documents WHERE doc_id NOT IN (SELECT doc_id FROM fts_map)")
        .map((r) => `document missing from FTS: ${r.doc_id}`),
      ...all(db, "SELECT doc_id FROM fts_map WHERE doc_id NOT IN (SELECT doc_id FROM documents)")
        .map((r) => `orphan FTS map row: ${r.doc_id}`),
      ...all(db, "SELECT rowid FROM fts_map WHERE rowid NOT IN (SELECT rowid FROM docs_fts)")
        .map((r) => `FTS map points to missing row ${r.rowid}`),
      ...all(
        db,
        "SELECT rowid, doc_id FROM docs_fts WHERE rowid NOT IN (SELECT rowid FROM fts_map)",
      )
        .map((r) => `orphan FTS row ${r.rowid} (${r.doc_id})`),
      ...all(
        db,
        "SELECT m.doc_id FROM fts_map m JOIN docs_fts f ON f.rowid = m.rowid WHERE f.doc_id != m.doc_id",
      ).map((r) => `FTS row of ${r.doc_id} holds another document`),
    ];
    try {
      db.exec("INSERT INTO docs_fts(docs_fts, rank) VALUES('integrity-check', 1)");
    } catch (e) {
      out.push(`FTS5 integrity-check: ${(e as Error).message}`);
    }
    return out;
  },
};

/** Document frequencies are positive and never exceed the number of documents. */
export const df: ConsistencyCheck = {
  name: "df",
  run: (db) => {
    const n = db.prepare("SELECT count(*) AS n FROM documents").get()!.n as number;
    const r = db.prepare("SELECT max(n) AS hi, min(n) AS lo, count(*) AS terms FROM df").get()!;
    const out: string[] = [];
    if ((r.terms as number) > 0 && (r.lo as number) < 1) out.push(`df below 1: ${r.lo}`);
    if ((r.hi as number) > n) out.push(`df ${r.hi} above the document count ${n}`);
    if (n > 0 && (r.terms as number) === 0) out.push(`${n} documents but no df rows`);
    return out;
  },
};

/**
 * The df table equals the document frequencies recounted from the stored texts (the
 * indexer adds a document's distinct terms when it stores it and takes them away when it
 * removes it, so any crash between the two shows here).
 */
export const dfExact: ConsistencyCheck = {
  name: "df-exact",
  run: (db) => {
    const want = new Map<string, number>();
    const text = db.prepare(TEXT_SQL);
    for (const r of db.prepare("SELECT doc_id FROM documents").iterate()) {
      for (const t of distinctTerms((storedText(text, r.doc_id as string) ?? "").split("\n"))) {
        want.set(t, (want.get(t) ?? 0) + 1);
      }
    }
    const out: string[] = [];
    let wrong = 0;
    const have = new Map<string, number>();
    for (const r of db.prepare("SELECT term, n FROM df").iterate()) {
      have.set(r.term as string, r.n as number);
    }
    for (const [t, n] of want) {
      if (have.get(t) !== n && wrong++ < 5) {
        out.push(`df(${t}) = ${have.get(t) ?? 0}, recount ${n}`);
      }
    }
    for (const [t, n] of have) {
      if (!want.has(t) && wrong++ < 5) out.push(`df(${t}) = ${n}, recount 0`);
    }
    if (wrong > 5) out.push(`... ${wrong} terms in all`);
    return out;
  },
};

/** The checks every catalog must pass. */
export const CHECKS: ConsistencyCheck[] = [integrity, texts, cards, skipped, fts, df, dfExact];

/**
 * Check a catalog file (its writer must be stopped or idle). Runs `CHECKS` plus `extra`.
 *
 * @param file path of `catalog.db`
 * @param extra more checks, e.g. a vector table check
 * @returns problems, `name: detail` per line; empty when consistent
 */
export async function checkCatalog(
  file: string,
  extra: ConsistencyCheck[] = [],
): Promise<string[]> {
  const db = new DatabaseSync(file);
  try {
    db.exec("PRAGMA busy_timeout=10000");
    const ids = new Set(
      db.prepare("SELECT doc_id FROM documents").all().map((r) => r.doc_id as string),
    );
    const out: string[] = [];
    for (const c of [...CHECKS, ...extra]) {
      try {
        for (const p of await c.run(db, ids)) out.push(`${c.name}: ${p}`);
      } catch (e) {
        out.push(`${c.name}: check failed: ${(e as Error).message}`);
      }
    }
    return out;
  } finally {
    db.close();
  }
}

/** What a finished catalog holds, for comparing two runs: path -> hash, and the df table. */
export function catalogDigest(
  file: string,
): { docs: Map<string, string>; df: Map<string, number> } {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const docs = new Map<string, string>();
    for (const r of db.prepare("SELECT path, doc_id, hash FROM documents").all()) {
      docs.set(r.path as string, `${r.doc_id}:${r.hash}`);
    }
    const dfs = new Map<string, number>();
    for (const r of db.prepare("SELECT term, n FROM df").iterate()) {
      dfs.set(r.term as string, r.n as number);
    }
    return { docs, df: dfs };
  } finally {
    db.close();
  }
}

/** Number of stored documents (read-only; safe while a writer runs, in WAL mode). */
export function documentCount(file: string): number {
  try {
    const db = new DatabaseSync(file, { readOnly: true });
    try {
      db.exec("PRAGMA busy_timeout=2000");
      return db.prepare("SELECT count(*) AS n FROM documents").get()!.n as number;
    } finally {
      db.close();
    }
  } catch {
    return 0;
  }
}
