/**
 * Document vectors, kept in step with the catalog in the background: one vector per
 * document, computed from its card and outline (never from chunks of raw text), stored in
 * LanceDB. A table `vectors (doc_id, hash)` in the catalog records which content each
 * stored vector was made from, so a changed document is embedded again and an unchanged
 * one never is, and a restart after a crash resumes where it stopped.
 *
 * @module
 */
import type { Catalog } from "../core/catalog.ts";
import type { VectorIndex, VectorRow } from "../stores/roles.ts";
import type { Card, Embedder, OutlineNode } from "../core/types.ts";

/** What `status` and `_meta` say about the vectors. */
export type VectorState = "unavailable" | "pending" | "ready" | "failed";

/** Progress of the vectors, for `status`. */
export interface VectorStatus {
  /** `pending` until every document has a vector once; `ready` after. */
  state: VectorState;
  /** Embedder model. */
  model: string | null;
  /** Whether the model is multilingual. */
  multilingual: boolean;
  /** Vector length. */
  dimensions: number;
  /** Documents with an up-to-date vector. */
  embedded: number;
  /** Documents waiting for one. */
  pending: number;
  /** Documents embedded per second in the current or last run. */
  rate?: number;
  /** Last error. */
  error?: string;
}

/** How long counts shown by `status` and `_meta` may be reused (every answer carries them). */
const COUNTS_TTL_MS = 1000;
/** Documents per embedding batch. */
export const BATCH = 16;
/** Query vectors remembered (see {@link VectorSync.queryVector}). */
const QUERIES_KEPT = 16;

/**
 * The text embedded for a document: title, author, keywords, top-level headings with
 * their summaries, the abstract, then deeper headings; trimmed to `maxChars`, most
 * informative parts first.
 */
export function embedText(card: Card, outline: OutlineNode[], maxChars: number): string {
  const parts: string[] = [card.title];
  if (card.author) parts.push(`by ${card.author}`);
  if (card.keywords.length) parts.push(`Keywords: ${card.keywords.join(", ")}.`);
  const top = outline.slice(0, 24).map((n) => n.summary ? `${n.title}: ${n.summary}` : n.title);
  if (top.length) parts.push(`Sections: ${top.join("; ")}.`);
  if (card.abstract) parts.push(card.abstract);
  const deeper: string[] = [];
  const walk = (nodes: OutlineNode[]) => {
    for (const n of nodes) {
      if (n.level > 1) deeper.push(n.title);
      walk(n.children);
    }
  };
  walk(outline);
  if (deeper.length) parts.push(deeper.join("; "));
  let text = parts.join("\n").replace(/[ \t]+/g, " ");
  if (text.length > maxChars) {
    const cut = text.lastIndexOf(" ", maxChars);
    text = text.slice(0, cut > maxChars * 0.8 ? cut : maxChars);
  }
  return text;
}

/** Keeps the vector index in step with the catalog, in the background, and embeds queries. */
export class VectorSync {
  /** The vector index the vectors go to. */
  readonly index: VectorIndex;
  /** The embedder. */
  readonly embedder: Embedder;
  readonly #catalog: Catalog;
  readonly #log: (m: string) => void;
  #opened?: Promise<void>;
  #running?: Promise<void>;
  #again = false;
  #stopped = false;
  #complete = false;
  #error?: string;
  #rate?: number;
  #failures = 0;
  #retry?: ReturnType<typeof setTimeout>;
  #queries = new Map<string, Promise<Float32Array | undefined>>();
  /** Documents embedded by this process (a changed document counts again, an unchanged one never). */
  embeddedCount = 0;
  /** Called after each batch. */
  onProgress?: (s: VectorStatus) => void;

  /**
   * @param catalog the catalog (which documents have an up-to-date vector)
   * @param index the vector index
   * @param embedder the embedder
   * @param log warnings
   */
  constructor(
    catalog: Catalog,
    index: VectorIndex,
    embedder: Embedder,
    log: (m: string) => void,
  ) {
    this.#catalog = catalog;
    this.index = index;
    this.embedder = embedder;
    this.#log = log;
  }

  /**
   * Open the table; start over when the model or its settings changed; drop vectors of
   * deleted documents.
   */
  open(): Promise<void> {
    this.#opened ??= (async () => {
      const { model: name, settings } = this.embedder;
      const model = settings ? `${name} (${settings})` : name;
      const stored = this.#catalog.getMeta("vectors_model");
      const rows = await this.index.open();
      if (stored !== model) {
        if (rows > 0 || stored !== undefined) await this.index.clear();
        this.#catalog.vectors.clear();
        this.#catalog.setMeta("vectors_model", model);
      }
      await this.#sweep();
      this.#counts = undefined;
      const c = this.#count();
      this.#complete = c.pending === 0 && c.embedded > 0;
    })();
    return this.#opened;
  }

  /** Remove vectors (and their records) of documents no longer in the catalog. */
  async #sweep(): Promise<void> {
    const known = this.#catalog.vectors.prune();
    const orphans = (await this.index.ids()).filter((id) => !known.has(id));
    if (orphans.length) await this.index.remove(orphans);
  }

  #counts?: { pending: number; embedded: number; at: number };

  /** Documents waiting for a vector, and documents with an up-to-date one (cached briefly). */
  #count(): { pending: number; embedded: number } {
    const now = Date.now();
    if (!this.#counts || now - this.#counts.at > COUNTS_TTL_MS) {
      this.#counts = { ...this.#catalog.vectors.counts(), at: now };
    }
    return this.#counts;
  }

  #pending(): number {
    this.#counts = undefined;
    return this.#count().pending;
  }

  /** Whether searches can use vectors: every document had a vector once, or nearly all have one. */
  get ready(): boolean {
    if (this.#complete) return true;
    const { embedded, pending } = this.#count();
    return embedded > 0 && pending <= embedded * 0.02;
  }

  /** Progress for `status`. */
  status(): VectorStatus {
    const { pending, embedded } = this.#count();
    return {
      state: this.ready ? "ready" : this.#error && this.#failures >= 3 ? "failed" : "pending",
      model: this.embedder.model,
      multilingual: this.embedder.multilingual,
      dimensions: this.embedder.dimensions,
      embedded,
      pending,
      rate: this.#rate,
      error: this.#error,
    };
  }

  /**
   * The vector of a query text. The last few are remembered: a search and the semantic
   * snippets of its hits (`search/near_passages.ts`) embed the same text once.
   *
   * @param text the query text (`queryText` in `search/query.ts`)
   * @returns its vector, or undefined when the embedder gives none
   */
  queryVector(text: string): Promise<Float32Array | undefined> {
    let v = this.#queries.get(text);
    if (v) {
      this.#queries.delete(text);
    } else {
      v = this.embedder.embed([text], "query").then((r) => r[0]);
      // A failure is not remembered: the next search asks again.
      v.catch(() => this.#queries.delete(text));
    }
    this.#queries.set(text, v);
    if (this.#queries.size > QUERIES_KEPT) this.#queries.delete(this.#queries.keys().next().value!);
    return v;
  }

  /** Forget the remembered query vectors (an idle server gives memory back). */
  releaseMemory(): void {
    this.#queries.clear();
  }

  /** Embed what is pending, in the background (joins the run in progress). */
  kick(): void {
    if (this.#stopped) return;
    this.#counts = undefined;
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = this.#run().catch((e) => {
      this.#error = (e as Error)?.message ?? String(e);
      this.#log(`shelfmark: vectors: ${this.#error}`);
    }).finally(() => {
      this.#running = undefined;
      if (this.#again && !this.#stopped) {
        this.#again = false;
        this.kick();
      }
    });
  }

  /** Wait until nothing is pending (or the embedder fails). */
  async idle(): Promise<void> {
    while (this.#running) await this.#running;
  }

  async #run(): Promise<void> {
    // Opening sweeps; later runs sweep what the indexer removed since.
    const opened = this.#opened !== undefined;
    await this.open();
    if (opened) await this.#sweep();
    const started = performance.now();
    let done = 0;
    let wrote = false;
    // In id order from a cursor; at the end, once more from the start for documents stored
    // meanwhile with smaller ids.
    let cursor = "";
    while (!this.#stopped) {
      const rows = this.#catalog.vectors.todo(BATCH, cursor);
      if (!rows.length) {
        if (!cursor) break;
        cursor = "";
        continue;
      }
      cursor = rows[rows.length - 1]!.doc_id;
      const cards = rows.map((r) => r.card);
      const texts = rows.map((r) => embedText(r.card, r.outline, this.embedder.maxChars));
      let vectors: Float32Array[];
      try {
        vectors = await this.embedder.embed(texts);
        this.#failures = 0;
        this.#error = undefined;
      } catch (e) {
        this.#failures++;
        this.#error = (e as Error)?.message ?? String(e);
        if (this.#failures === 1 || this.#failures === 3) {
          this.#log(`shelfmark: vectors: ${this.#error}`);
        }
        // Back off and try again later (a remote embedder may come back).
        clearTimeout(this.#retry);
        this.#retry = setTimeout(() => this.kick(), Math.min(300_000, 5_000 * 2 ** this.#failures));
        return;
      }
      if (this.#stopped) break;
      const out: VectorRow[] = cards.map((c, i) => ({
        doc_id: c.doc_id,
        vector: vectors[i]!,
        library: c.library,
        doc_type: c.doc_type,
        path: c.path,
        modified_at: c.modified_at,
      }));
      // New documents are appended; those with an older vector replace it. A crash between
      // the append and the records below leaves rows without a record: the next opening's
      // sweep removes them, and they are appended again.
      await this.index.upsert(out.filter((_, i) => !rows[i]!.known), true);
      await this.index.upsert(out.filter((_, i) => rows[i]!.known));
      wrote = true;
      // Record what each vector was made from; a document deleted meanwhile loses its vector.
      const gone: string[] = [];
      for (const r of rows) {
        if (!this.#catalog.vectors.done(r.doc_id, r.hash)) gone.push(r.doc_id);
      }
      if (gone.length) await this.index.remove(gone);
      done += rows.length;
      this.embeddedCount += rows.length;
      this.#rate = done / ((performance.now() - started) / 1000);
      // Counted again at most once a second (`COUNTS_TTL_MS`): a count reads every document.
      this.onProgress?.(this.status());
    }
    if (wrote && !this.#stopped) await this.index.optimize();
    if (!this.#stopped && this.#pending() === 0) this.#complete = true;
  }

  /** Stop after the batch in progress; close the vector index and the embedder. */
  async close(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#retry);
    await this.#running?.catch(() => {});
    await this.#opened?.catch(() => {});
    this.#queries.clear();
    await this.index.close();
    this.embedder.close?.();
  }
}
