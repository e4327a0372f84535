/**
 * A search worker: its own read-only connection to the catalog (SQLite WAL lets readers
 * run beside the indexer's writes) and its own FTS5 retriever, so keyword searches from
 * many clients run on several cores instead of queueing on the server's thread.
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { Fts5Retriever } from "./fts5.ts";
import { type Hit, type Query, ToolError } from "../core/types.ts";

/** A message to the worker: open a catalog, or run a query. */
export type SearchRequest = { open: string } | { id: number; query: Query };

/** The worker's answer. */
export type SearchReply =
  | { ready: true }
  | { id: number; hits: Hit[] }
  | { id: number; error: { code?: string; message: string; hint?: string } };

// deno-lint-ignore no-explicit-any
const scope = globalThis as any;
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

scope.onmessage = async (e: MessageEvent<SearchRequest>) => {
  const m = e.data;
  if ("open" in m) {
    open(m.open);
    scope.postMessage({ ready: true } satisfies SearchReply);
    return;
  }
  try {
    scope.postMessage({ id: m.id, hits: await fts!.search(m.query) } satisfies SearchReply);
  } catch (err) {
    const error = err instanceof ToolError
      ? { code: err.code, message: err.message, hint: err.hint }
      : { message: (err as Error)?.message ?? String(err) };
    scope.postMessage({ id: m.id, error } satisfies SearchReply);
  }
};
