/**
 * A search worker: its own read-only connection to the catalog (SQLite WAL lets readers
 * run beside the indexer's writes) and its own FTS5 keyword index, so keyword searches from
 * many clients run on several cores instead of queueing on the server's thread.
 *
 * @module
 */
import { openReadOnly } from "../core/catalog_sql.ts";
import { Fts5Index } from "./fts5.ts";
import type { Query } from "./roles.ts";
import { serveThread } from "../core/worker_protocol.ts";

let fts: Fts5Index | undefined;

function open(file: string): void {
  const { db, stats } = openReadOnly(file);
  fts = new Fts5Index(db, { stats, readOnly: true });
}

// Started with the catalog file; answers each query with its hits.
serveThread({ start: open, handle: (query: Query) => fts!.search(query) });
