/**
 * The filling side of `bench/catalog_scale.ts`: generated Markdown documents stored in a
 * catalog the way the indexer stores extracted files (`shelf/indexer.ts`, `indexFile` after
 * the file is read): the real Markdown extractor, outline, card and term counts against the
 * catalog's statistics, `Catalog.put`, the FTS5 keyword index's `upsert`, and the indexer's
 * batches (100 documents or 1.5 s per transaction, term counts saved with each). The time
 * of each step is kept.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { buildCard } from "../core/card.ts";
import { Catalog } from "../core/catalog.ts";
import { documentFields, fieldsChanged, libraryFields, noteFields } from "../core/fields.ts";
import { buildOutline } from "../core/outline.ts";
import { storableLines } from "../core/measure.ts";
import { docIdFor } from "../core/paths.ts";
import { ExtractorRegistry } from "../core/registry.ts";
import { sniff } from "../core/sniff.ts";
import type { ExtractFn, IndexedDoc, Library, TermStats } from "../core/types.ts";
import { inProcess } from "../extraction/pool.ts";
import { markdown } from "../extractors/markdown.ts";
import { Fts5Index } from "../stores/fts5.ts";
import type { LibraryDoc } from "./scale_docs.ts";

/** The indexer's batch: 100 documents or 1.5 s per transaction (`shelf/indexer.ts`). */
const BATCH_FILES = 100;
const BATCH_MS = 1500;

/**
 * The steps timed: extraction, outline, card (both including `count`, the catalog's
 * `count(*)` their TF-IDF asks for), `Catalog.put`, the FTS5 upsert, the batch commit.
 */
export type Step = "extract" | "outline" | "card" | "count" | "put" | "fts" | "commit";

/** Stores generated documents the way the indexer stores extracted files. */
export class Filler {
  readonly catalog: Catalog;
  readonly fts: Fts5Index;
  readonly lib: Library;
  /** Milliseconds spent in each step since the last checkpoint. */
  ms: Record<Step, number> = Filler.steps();
  #extract: ExtractFn;
  /** The catalog's statistics, with the time of `count(*)` (`docCount`) kept apart. */
  #stats: TermStats;
  #wanted: string[];
  #stored: () => void;
  #inBatch = 0;
  #batchStart = Date.now();

  /** Every step at zero. */
  static steps(): Record<Step, number> {
    return { extract: 0, outline: 0, card: 0, count: 0, put: 0, fts: 0, commit: 0 };
  }

  /**
   * @param file the catalog database file
   * @param lib the library the documents belong to (nothing is read from its root)
   * @param countInMemory keep the document count in memory instead of asking the catalog's
   *   `count(*)` for every document as the indexer does (same values, same catalog)
   */
  constructor(file: string, lib: Library, countInMemory = false) {
    this.catalog = new Catalog(file);
    const c = this.catalog;
    let stored = countInMemory ? c.docCount() : -1;
    this.#stored = () => stored >= 0 && stored++;
    this.#stats = {
      df: (term) => c.df(term),
      docCount: () => {
        if (stored >= 0) return stored;
        const t = performance.now();
        const n = c.docCount();
        this.ms.count += performance.now() - t;
        return n;
      },
    };
    this.fts = new Fts5Index(this.catalog.db, { stats: this.catalog });
    this.lib = lib;
    const registry = new ExtractorRegistry();
    registry.register(markdown());
    this.#extract = inProcess(registry);
    this.#wanted = libraryFields(lib);
    if (fieldsChanged(this.catalog, lib)) {
      this.catalog.invalidate(lib.name);
      noteFields(this.catalog, lib);
    }
    this.catalog.begin();
  }

  /** The display path a document is stored under. */
  pathOf(doc: LibraryDoc): string {
    return `${this.lib.name}/${doc.folder}/${doc.name}`;
  }

  /**
   * Store one document (the body of `Indexer.indexFile` after the file is read).
   *
   * @param doc the document
   * @param mtimeMs its modification time
   * @returns its id
   */
  async add(doc: LibraryDoc, mtimeMs: number): Promise<string> {
    const c = this.catalog;
    let t = performance.now();
    const lap = (k: Step) => {
      const now = performance.now();
      this.ms[k] += now - t;
      t = now;
    };
    const path = this.pathOf(doc);
    const bytes = new TextEncoder().encode(doc.text);
    const hash = createHash("sha256").update(bytes).digest("hex");
    const docId = docIdFor(path);
    const result = await this.#extract({
      path,
      extension: ".md",
      bytes,
      mimeType: sniff(bytes).mimeType,
    });
    if (!result) throw new Error(`no extractor for ${path}`);
    const { extracted } = result;
    const lines = storableLines(extracted);
    lap("extract");
    const outline = buildOutline(lines, extracted.headings ?? [], this.#stats);
    const quality = outline.length ? (extracted.outlineQuality ?? "high") : "none";
    lap("outline");
    const text = lines.join("\n");
    const modified = new Date(mtimeMs).toISOString();
    const { card, terms, distinct } = buildCard({
      doc_id: docId,
      path,
      library: this.lib.name,
      doc_type: result.extractor,
      lines,
      extracted,
      outline,
      outline_quality: quality,
      modified_at: modified,
      size: bytes.length,
      stats: this.#stats,
    });
    c.countTerms(distinct);
    const fields = documentFields(extracted.meta, this.#wanted);
    lap("card");
    c.put(
      { card, outline, pages: extracted.pages, terms, hash, mtime_ms: mtimeMs, fields },
      text,
      extracted.links,
    );
    this.#stored();
    lap("put");
    const indexed: IndexedDoc = { card, outline, lines };
    await this.fts.upsert([indexed]);
    lap("fts");
    if (++this.#inBatch >= BATCH_FILES || Date.now() - this.#batchStart > BATCH_MS) {
      this.flush();
      this.catalog.begin();
      lap("commit");
    }
    return docId;
  }

  /** Commit the batch (term counts with it, as the indexer does). */
  flush(): void {
    this.catalog.saveTermCounts();
    this.catalog.commit();
    this.#inBatch = 0;
    this.#batchStart = Date.now();
  }
}
