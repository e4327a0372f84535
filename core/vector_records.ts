/**
 * The catalog's record of which documents have an up-to-date vector (the `vectors` table:
 * the content hash each vector was made from). The vectors themselves live in LanceDB
 * (`stores/lancedb.ts`); `shelf/vectors.ts` keeps the two in step.
 *
 * @module
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import type { Card, OutlineNode } from "./types.ts";
import { statements } from "./catalog_sql.ts";

/** Documents whose vector is missing or was made from other content. */
const VECTOR_PENDING = `FROM documents d
  WHERE NOT EXISTS (SELECT 1 FROM vectors v WHERE v.doc_id = d.doc_id AND v.hash = d.hash)`;

/** A document waiting for its vector. */
export interface VectorTodo {
  /** The document. */
  doc_id: string;
  /** The content its vector will be made from. */
  hash: string;
  /** Its card. */
  card: Card;
  /** Its outline. */
  outline: OutlineNode[];
  /** Whether it had a vector before (its text changed): replaced, not added. */
  known: boolean;
}

/** Which documents have an up-to-date vector, and which wait for one. */
export class VectorRecords {
  readonly #q: (sql: string) => StatementSync;

  /** @param db the catalog's database (with its `documents` and `vectors` tables) */
  constructor(db: DatabaseSync) {
    this.#q = statements(db);
  }

  /** Documents waiting for a vector, and documents with an up-to-date one. */
  counts(): { pending: number; embedded: number } {
    const total = (this.#q("SELECT count(*) AS n FROM documents").get()?.n as number) ?? 0;
    const pending = (this.#q(`SELECT count(*) AS n ${VECTOR_PENDING}`).get()?.n as number) ?? 0;
    return { pending, embedded: total - pending };
  }

  /**
   * The next documents waiting for a vector, by id, after `after` (a cursor: without it,
   * every call would walk past the documents done before).
   */
  todo(limit: number, after = ""): VectorTodo[] {
    return this.#q(
      `SELECT d.doc_id, d.hash, d.card, d.outline,
         EXISTS (SELECT 1 FROM vectors k WHERE k.doc_id = d.doc_id) AS known
       ${VECTOR_PENDING} AND d.doc_id > ? ORDER BY d.doc_id LIMIT ?`,
    ).all(after, limit).map((r) => ({
      doc_id: r.doc_id as string,
      hash: r.hash as string,
      card: JSON.parse(r.card as string) as Card,
      outline: JSON.parse(r.outline as string) as OutlineNode[],
      known: r.known === 1,
    }));
  }

  /**
   * Record that a document's vector was made from `hash`; false (nothing recorded) when the
   * document was deleted meanwhile.
   */
  done(docId: string, hash: string): boolean {
    if (!this.#q("SELECT 1 AS x FROM documents WHERE doc_id = ?").get(docId)) return false;
    this.#q("INSERT OR REPLACE INTO vectors (doc_id, hash) VALUES (?, ?)").run(docId, hash);
    return true;
  }

  /**
   * Mark a document's vector out of date although its file's hash did not change (its
   * scanned pages were read by OCR): it is embedded again, replacing the old one.
   */
  outdated(docId: string): void {
    this.#q("UPDATE vectors SET hash = '' WHERE doc_id = ?").run(docId);
  }

  /** Forget every vector record (the model changed). */
  clear(): void {
    this.#q("DELETE FROM vectors").run();
  }

  /** Drop the records of vectors whose document left; returns the ids still recorded. */
  prune(): Set<string> {
    this.#q("DELETE FROM vectors WHERE doc_id NOT IN (SELECT doc_id FROM documents)").run();
    return new Set(this.#q("SELECT doc_id FROM vectors").all().map((r) => r.doc_id as string));
  }
}
