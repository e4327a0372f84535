/**
 * A search worker: its own read-only connection to the catalog (SQLite WAL lets readers
 * run beside the indexer's writes) and its own FTS5 retriever, so keyword searches from
 * many clients run on several cores instead of queueing on the server's thread.
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { Fts5Retriever } from "./fts5.ts";
import type { Query } from "../core/types.ts";
import { serveThread } from "../core/workers.ts";

let fts: Fts5Retriever | undefined;

function open(file: string): void {
  const db = new DatabaseSync(file, { readOnly: true });
  db.exec("PRAGMA busy_timeout=5000;");
  const df = db.prepare("SELECT n FROM df WHERE term = ?");
  const count = db.prepare("SELECT count(*) AS n FROM documents");
  let docs = { n: 0, at: 0 };
  const stats = {
    df: (term: string) => (df.get(term)?.n as number) ?? 0,
    docCount: () => {
      const now = Date.now();
      if (now - docs.at > 2000) docs = { n: count.get()?.n as number, at: now };
      return docs.n;
    },
  };
  fts = new Fts5Retriever(db, { stats, readOnly: true });
}

// Started with the catalog file; answers each query with its hits.
serveThread({ start: open, handle: (query: Query) => fts!.search(query) });
