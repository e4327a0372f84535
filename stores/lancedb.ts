/**
 * The vector index (see `roles.ts`): one vector per document in a LanceDB table on disk
 * (`<data>/vectors/`), searched by cosine distance. Filters of `nearest` are resolved
 * against the catalog (the one place they are defined) and applied inside the vector
 * query, so a selective filter never starves the result list.
 *
 * `@lancedb/lancedb` is pinned to 0.31.0: later versions (0.33-0.39) list optional
 * platform packages that were never published, and Deno cannot resolve them.
 *
 * @module
 */
import type * as lancedb from "@lancedb/lancedb";
import type { Hit, SearchFilters } from "../core/types.ts";
import type { IndexState, VectorIndex, VectorRow } from "./roles.ts";

/** Which documents the search filters allow (the catalog's `idsMatching`). */
export interface FilterSource {
  /** Ids the filters allow, or `undefined` when there is no filter. */
  idsMatching(filters: SearchFilters): string[] | undefined;
}

const TABLE = "documents";
const ID = /^[0-9a-f]{1,64}$/;
/** Rows from which an ANN (IVF) index pays off over a flat scan. */
export const ANN_MIN_ROWS = 5000;

let lanceModule: Promise<typeof lancedb> | undefined;
function loadLance(): Promise<typeof lancedb> {
  lanceModule ??= import("@lancedb/lancedb");
  return lanceModule;
}

/** Cosine distance (0-2) as a 0-1 score, higher is closer. */
export function cosineScore(distance: number): number {
  return Math.max(0, Math.min(1, 1 - distance / 2));
}

/** A string literal for a Lance (DataFusion SQL) filter. */
function quote(s: string): string {
  return `'${s.replaceAll("'", "''")}'`;
}

function inList(ids: string[]): string {
  return ids.filter((id) => ID.test(id)).map((id) => `'${id}'`).join(", ");
}

/** Document vectors in LanceDB. */
export class LanceIndex implements VectorIndex {
  /** Backend name, used to tag hits. */
  readonly name = "lancedb";
  readonly #dir: string;
  readonly #catalog: FilterSource;
  #conn?: Promise<lancedb.Connection>;
  #table?: lancedb.Table;
  #rows = 0;
  #indexedRows = 0;
  readonly #annMinRows: number;

  /**
   * @param dir folder of the LanceDB database
   * @param catalog the catalog (for filters)
   * @param annMinRows rows from which an ANN index is built
   */
  constructor(dir: string, catalog: FilterSource, annMinRows = ANN_MIN_ROWS) {
    this.#dir = dir;
    this.#annMinRows = annMinRows;
    this.#catalog = catalog;
  }

  #connect(): Promise<lancedb.Connection> {
    // Loaded on first use: the native addon stays out of processes that never touch vectors
    // (extraction workers, plugins importing the package).
    this.#conn ??= loadLance().then((m) => m.connect(this.#dir));
    return this.#conn;
  }

  #opened?: Promise<number>;

  /**
   * Open the table if it exists, once (searches may come before the background sync);
   * returns its row count then (0 when there is none).
   */
  open(): Promise<number> {
    this.#opened ??= this.#open();
    return this.#opened;
  }

  async #open(): Promise<number> {
    const conn = await this.#connect();
    if (!this.#table && (await conn.tableNames()).includes(TABLE)) {
      this.#table = await conn.openTable(TABLE);
    }
    this.#rows = this.#table ? await this.#table.countRows() : 0;
    return this.#rows;
  }

  /** Drop every vector (the model changed). */
  async clear(): Promise<void> {
    const conn = await this.#connect();
    if ((await conn.tableNames()).includes(TABLE)) await conn.dropTable(TABLE);
    this.#table = undefined;
    this.#rows = 0;
    this.#indexedRows = 0;
  }

  /**
   * Insert or replace rows (by `doc_id`). With `append`, rows of documents the table does
   * not hold are added without the merge, which reads the whole table's ids for every call
   * (writing 100,000 vectors 16 at a time is quadratic with it).
   */
  async upsert(rows: VectorRow[], append = false): Promise<void> {
    if (!rows.length) return;
    const data = rows.map((r) => ({ ...r, vector: Array.from(r.vector) }));
    await this.open();
    if (!this.#table) {
      this.#table = await (await this.#connect()).createTable(TABLE, data);
      this.#rows = data.length;
    } else if (append) {
      await this.#table.add(data);
      this.#rows += data.length;
    } else {
      await this.#table.mergeInsert("doc_id").whenMatchedUpdateAll().whenNotMatchedInsertAll()
        .execute(data);
      this.#rows = await this.#table.countRows();
    }
  }

  /** Every `doc_id` in the table. */
  async ids(): Promise<string[]> {
    if (!this.#table) return [];
    const rows = await this.#table.query().select(["doc_id"]).toArray();
    return rows.map((r) => String(r.doc_id));
  }

  /** The stored vector of a document, if it has one. */
  async vectorOf(docId: string): Promise<Float32Array | undefined> {
    await this.open();
    if (!this.#table || !ID.test(docId)) return undefined;
    const rows = await this.#table.query().where(`doc_id = '${docId}'`).select(["vector"]).limit(1)
      .toArray();
    const v = rows[0]?.vector;
    return v ? Float32Array.from(v as ArrayLike<number>) : undefined;
  }

  /** Remove documents' vectors. */
  async remove(ids: string[]): Promise<void> {
    if (!this.#table || !ids.length) return;
    for (let i = 0; i < ids.length; i += 500) {
      const list = inList(ids.slice(i, i + 500));
      if (list) await this.#table.delete(`doc_id IN (${list})`);
    }
    this.#rows = await this.#table.countRows();
  }

  /** Compact the table's small write fragments and drop old versions; build the ANN index once it pays off. */
  async optimize(): Promise<void> {
    if (!this.#table) return;
    await this.#table.optimize({ cleanupOlderThan: new Date() });
    if (this.#rows >= this.#annMinRows && this.#rows >= 2 * this.#indexedRows) {
      await this.#table.createIndex("vector", {
        config: (await loadLance()).Index.ivfFlat({
          numPartitions: Math.max(1, Math.round(Math.sqrt(this.#rows))),
          distanceType: "cosine",
        }),
        replace: true,
      });
      this.#indexedRows = this.#rows;
    }
  }

  /** Whether an ANN index exists on the vectors. */
  async hasAnnIndex(): Promise<boolean> {
    return !!this.#table &&
      (await this.#table.listIndices()).some((i) => i.columns.includes("vector"));
  }

  /** Nearest documents to a vector, with the filters applied; `exclude` leaves one out. */
  async nearest(
    vector: Float32Array,
    limit: number,
    filters: SearchFilters = {},
    exclude?: string,
  ): Promise<Hit[]> {
    await this.open();
    if (!this.#table || limit <= 0) return [];
    let q = this.#table.vectorSearch(Array.from(vector)).distanceType("cosine")
      .select(["doc_id", "_distance"]).limit(limit + (exclude ? 1 : 0));
    const where = this.#allowed(filters);
    if (where === "") return [];
    if (where) q = q.where(where);
    if (this.#indexedRows > 0) q = q.nprobes(20);
    const rows = await q.toArray();
    return rows.filter((r) => r.doc_id !== exclude).slice(0, limit).map((r) => ({
      doc_id: String(r.doc_id),
      score: cosineScore(Number(r._distance)),
      raw: Number(r._distance),
      retriever: this.name,
    }));
  }

  /** A Lance filter for the documents the filters allow (`""`: none; `undefined`: all). */
  #allowed(filters: SearchFilters): string | undefined {
    const { library, doc_types, ...rest } = filters;
    const byColumns = Object.values(rest).every((v) => v === undefined || v === "") &&
      (library !== undefined || doc_types?.length);
    if (byColumns) {
      // The table's own columns (a document's library and type never change under its id):
      // no list of every allowed id, which runs to 100,000 on a large library.
      const conds: string[] = [];
      if (library !== undefined) conds.push(`library = ${quote(library)}`);
      if (doc_types?.length) conds.push(`doc_type IN (${doc_types.map(quote).join(", ")})`);
      return conds.join(" AND ");
    }
    const ids = this.#catalog.idsMatching(filters);
    if (!ids) return undefined;
    const list = inList(ids);
    return list ? `doc_id IN (${list})` : "";
  }

  /** Number of vectors stored. */
  count(): number {
    return this.#rows;
  }

  /** `ready` when the table holds vectors, else `empty`. */
  ready(): IndexState {
    return { state: this.#rows > 0 ? "ready" : "empty", documents: this.#rows };
  }

  /**
   * Close the table and the connection: LanceDB frees them now, not at garbage collection.
   * A later call that reads the table fails.
   */
  async close(): Promise<void> {
    await this.#opened?.catch(() => {});
    if (this.#table?.isOpen()) this.#table.close();
    const conn = await this.#conn?.catch(() => undefined);
    if (conn?.isOpen()) conn.close();
  }
}
