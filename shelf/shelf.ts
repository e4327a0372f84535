/**
 * A shelf: the libraries, the catalog, the extractors, the keyword and vector
 * indexes and the index state, opened from a data directory. It is the application: one method per use case
 * (read lines, outline, links, browse, status, ...), each returning plain data; the tools,
 * the CLI and the web page are adapters over it (the logic of the use cases lives in
 * `documents.ts`, `links.ts`, `listings.ts`, `context.ts`, `similar.ts`).
 *
 * @module
 */
import { makePrivateDir, makePrivateFile } from "../core/private_files.ts";
import pLimit, { type LimitFunction } from "p-limit";
import { join, resolve } from "node:path";
import { extractorsFrom } from "../extraction/plugins.ts";
import { createEmbedder } from "../embedders/mod.ts";
import { Fts5Index } from "../stores/fts5.ts";
import { LanceIndex } from "../stores/lancedb.ts";
import { SearchPool } from "../stores/fts5_pool.ts";
import { Catalog } from "../core/catalog.ts";
import {
  addFolders,
  type Config,
  configLibraries,
  loadConfig,
  saveConfig,
} from "../core/config.ts";
import { Indexer, type IndexProgress } from "./indexer.ts";
import { ExtractorRegistry } from "../core/registry.ts";
import { ExtractPool, inProcess } from "../extraction/pool.ts";
import { type VectorStatus, VectorSync } from "./vectors.ts";
import { PARTS, type ShelfParts } from "./_parts.ts";
import type { Card, Embedder, Hit, Library, SearchFilters, Skipped } from "../core/types.ts";
import { fieldsChanged, type FieldValues } from "../core/fields.ts";
import type { DocEntry } from "../core/listing.ts";
import type { PathAggregate } from "../search/path.ts";
import { type DocumentContext, documentContext } from "./context.ts";
import {
  type DocumentFile,
  documentFile,
  type DocumentOutline,
  documentOutline,
  findDocument,
  type ReadLines,
  readLines,
  type ReadRequest,
} from "./documents.ts";
import {
  type Connection,
  connection,
  type DocumentLinks,
  documentLinks,
  type LinkReport,
  linkReport,
  type LinkReportKind,
  type LinksRequest,
} from "./links.ts";
import {
  browseFolder,
  type BrowseRequest,
  documentsNamed,
  type FolderListing,
  foldersMatching,
  type LibraryOverview,
  libraryOverview,
  type NameMatches,
  type NameRequest,
  type NamesCache,
  recentDocuments,
  tagValues,
} from "./listings.ts";
import {
  defaultMode,
  type SearchMode,
  type SearchOutcome,
  type SearchRequest,
  searchShelf,
} from "../search/search.ts";
import { similarTo } from "./similar.ts";
import { GrepRunner } from "./grep_runner.ts";
import {
  grepDocument,
  type GrepDocumentAnswer,
  type GrepDocumentOptions,
  grepDocuments,
  type GrepDocumentsAnswer,
  type GrepDocumentsOptions,
} from "./grep.ts";
import type { Extractor } from "../core/extractor.ts";
import { OCR_MAX_PAGES, type OcrStatus, OcrSync } from "./ocr.ts";
import { readInside } from "../core/read_inside.ts";

/** Options to open a shelf. */
export interface ShelfOptions {
  /** Data directory (see `dataDir()`). */
  data: string;
  /** Folders named on the command line; added to the configuration. */
  folders?: string[];
  /** Extra extractor plugins (module paths or URLs), after those of the config. */
  extractors?: string[];
  /** Show absolute paths in answers. */
  fullPaths?: boolean;
  /** Logger for warnings (stderr by default). */
  log?: (msg: string) => void;
  /** Extraction workers (default: one per core, at most 4; 0 extracts in this thread). */
  workers?: number;
  /** Time limit for extracting one file, in ms (default 60 s). */
  fileTimeoutMs?: number;
  /**
   * The embedder: a name (`default`, `none`, `ollama:<model>`, `openai:<model>`) that
   * overrides the config's, or an instance. Default: the config's, else `default`.
   */
  embedder?: string | Embedder;
  /** Save a named `embedder` to the configuration (given on the command line). */
  saveEmbedder?: boolean;
  /** Worker threads for keyword searches (default 0: searches run on the caller's thread). */
  searchWorkers?: number;
  /**
   * Time limit of one keyword search on the search workers, in ms (default: the config's
   * `limits.query_timeout_s`, else 10 s); past it the search fails with `QUERY_TIMEOUT`.
   */
  queryTimeoutMs?: number;
  /**
   * How long tool calls wait for a first index still being built, in ms (default: the
   * config's `limits.first_index_wait_s`, else 20 s).
   */
  firstIndexWaitMs?: number;
}

/** State of the index as answers report it. */
export interface IndexStatus {
  /** `building` while a run is in progress. */
  state: "building" | "ready" | "failed";
  /** Progress of the current or last run. */
  progress: IndexProgress;
  /** When the current or last run started. */
  started_at?: string;
  /** When the last run finished. */
  finished_at?: string;
  /** Last error. */
  last_error?: string;
}

/**
 * The libraries, catalog, extractors, keyword and vector indexes and index state, and the use cases
 * over them.
 */
export class Shelf {
  /**
   * Runs the heavy tool calls (search, grep, outline, explore) a few at a time: a burst
   * of them from many clients queues here instead of holding every answer in memory.
   *
   * @ignore internal: the tool dispatcher uses it
   */
  readonly heavyCalls: LimitFunction = pLimit(
    Math.max(2, Math.min(4, navigator.hardwareConcurrency || 2)),
  );
  /** The data directory. */
  readonly data: string;
  /** Whether answers may show absolute paths. */
  readonly fullPaths: boolean;
  /** Logger. */
  readonly log: (msg: string) => void;
  /** The catalog, indexes, workers and indexer (see `partsOf`). */
  readonly #parts: ShelfParts;
  #config: Config;
  #libraries: Library[];
  #status: IndexStatus = {
    state: "ready",
    progress: { done: 0, total: 0, indexed: 0, unchanged: 0, skipped: 0, removed: 0 },
  };
  #running?: Promise<IndexProgress>;
  #pending = false;
  #stale = false;
  /** Libraries the next run extracts in full. */
  #fullNext = new Set<string>();
  #maxFileBytes: number;
  #firstIndexWaitMs: number;
  /** The run in progress is the first of a library (it had no document when it started). */
  #first = false;
  /** Normalised names of the documents, for finding them by name. */
  #names: NamesCache = new WeakMap();

  private constructor(
    opts: ShelfOptions,
    config: Config,
    extractors: Extractor[],
    plugins: string[],
    embedder: Embedder | undefined,
  ) {
    this.data = opts.data;
    this.fullPaths = opts.fullPaths ?? false;
    this.log = opts.log ?? ((m) => console.error(m));
    this.#config = config;
    this.#libraries = configLibraries(config);
    makePrivateDir(opts.data);
    makePrivateFile(join(opts.data, "catalog.db"));
    const catalog = new Catalog(join(opts.data, "catalog.db"));
    const registry = new ExtractorRegistry();
    for (const e of extractors) registry.register(e);
    const limits = config.limits ?? {};
    const queryS = limits.query_timeout_s;
    const searchPool = opts.searchWorkers
      ? new SearchPool(join(opts.data, "catalog.db"), opts.searchWorkers, {
        timeoutMs: opts.queryTimeoutMs ?? (queryS ? queryS * 1000 : undefined),
      })
      : undefined;
    const keyword = new Fts5Index(catalog.db, { stats: catalog, pool: searchPool });
    let vectors: VectorSync | undefined;
    if (embedder) {
      makePrivateDir(join(opts.data, "vectors"));
      const lance = new LanceIndex(join(opts.data, "vectors"), catalog);
      vectors = new VectorSync(catalog, lance, embedder, this.log);
    }
    const workers = opts.workers ?? limits.workers ??
      Math.min(4, navigator.hardwareConcurrency || 2);
    const timeoutMs = opts.fileTimeoutMs ??
      (limits.file_timeout_s ? limits.file_timeout_s * 1000 : undefined);
    this.#maxFileBytes = (limits.max_file_mb ?? 64) * 1024 * 1024;
    this.#firstIndexWaitMs = opts.firstIndexWaitMs ?? (limits.first_index_wait_s ?? 20) * 1000;
    const ocrLanguages = config.ocr?.languages;
    const pool = workers > 0
      ? new ExtractPool({ workers, timeoutMs, plugins, ocrLanguages })
      : undefined;
    const indexer = new Indexer(
      catalog,
      pool?.extract ?? inProcess(registry, { ocrLanguages }),
      { keyword, vectors: vectors?.index },
      {
        concurrency: workers + 1,
        // A file starts beside others only while the process tree is under its memory budget.
        admit: pool && (() => pool.roomFor(INDEX_MEMORY_MB)),
        // A file that runs alone (a page to OCR, a large PDF) does not sit beside idle
        // extraction processes: all but the one that takes it leave (their memory goes back).
        beforeAlone: pool && (() => {
          if (!pool.roomFor(INDEX_MEMORY_MB - ALONE_HEADROOM_MB)) pool.stopIdle(1);
        }),
      },
    );
    this.#parts = { catalog, registry, keyword, searchPool, vectors, indexer, pool };
    if (config.ocr?.pdf_pages !== false) {
      this.#ocr = this.#scannedPages(catalog, timeoutMs ?? 60_000);
    }
  }

  /**
   * The catalog, indexes, workers and indexer, for the use-case modules (`partsOf`).
   *
   * @ignore internal
   */
  [PARTS](): ShelfParts {
    return this.#parts;
  }

  /** Open the shelf of a data directory, adding command-line folders to its configuration. */
  static async open(opts: ShelfOptions): Promise<Shelf> {
    const config = loadConfig(opts.data);
    if (opts.folders?.length) {
      for (const f of opts.folders) {
        const st = await Deno.stat(f).catch(() => undefined);
        if (!st?.isDirectory) throw new Error(`Not a folder: ${f}`);
      }
      const before = JSON.stringify(config);
      addFolders(config, opts.folders);
      if (JSON.stringify(config) !== before) saveConfig(opts.data, config);
    }
    // A bad embedder name throws here, before it is saved.
    const embedder = typeof opts.embedder === "object"
      ? opts.embedder
      : createEmbedder(opts.embedder ?? config.embedder);
    if (
      typeof opts.embedder === "string" && opts.saveEmbedder && config.embedder !== opts.embedder
    ) {
      config.embedder = opts.embedder;
      saveConfig(opts.data, config);
    }
    const log = opts.log ?? ((m: string) => console.error(m));
    const plugins = [...(config.extractors ?? []), ...(opts.extractors ?? [])].map((p) =>
      /^[a-z][a-z0-9+.-]*:/i.test(p) ? p : resolve(p)
    );
    // Extraction workers load their own extractors (pdf.js, OCR: tens of MB): this process
    // needs them only when it extracts itself.
    const extractsHere = (opts.workers ?? config.limits?.workers ?? 1) === 0;
    const extractors = extractsHere ? await extractorsFrom(plugins, log) : [];
    return new Shelf(opts, config, extractors, plugins, embedder);
  }

  /** The configured libraries. */
  get libraries(): Library[] {
    return this.#libraries;
  }

  /** The configuration as loaded. */
  get config(): Config {
    return this.#config;
  }

  /** Current index state. */
  get status(): IndexStatus {
    return this.#status;
  }

  /** True while writes are pending (a change waits for the next run). */
  get stale(): boolean {
    return this.#pending || this.#stale;
  }

  /** Note that files changed and the index does not show it yet. */
  markStale(): void {
    this.#stale = true;
  }

  /**
   * Index every library now (or join the run in progress; a request during a run
   * schedules one more run after it).
   *
   * @param onProgress called after every file
   * @param full libraries whose files are all extracted again, changed or not
   */
  index(
    onProgress?: (p: IndexProgress) => void,
    full?: readonly string[],
  ): Promise<IndexProgress> {
    for (const name of full ?? []) this.#fullNext.add(name);
    if (this.#running) {
      this.#pending = true;
      return this.#running;
    }
    const fullNow = this.#fullNext;
    this.#fullNext = new Set();
    this.#status = {
      state: "building",
      progress: { done: 0, total: 0, indexed: 0, unchanged: 0, skipped: 0, removed: 0 },
      started_at: new Date().toISOString(),
    };
    this.#stale = false;
    this.#first = this.#libraries.some((l) => this.#parts.catalog.count(l.name) === 0);
    this.#running = (async () => {
      try {
        await this.#ocrWrite;
        await this.#purgeUnconfigured();
        const p = await this.#parts.indexer.run(this.#libraries, {
          maxFileBytes: this.#maxFileBytes,
          full: fullNow,
          onProgress: (p) => {
            this.#status.progress = p;
            onProgress?.(p);
          },
        });
        this.#status = { ...this.#status, state: "ready", finished_at: new Date().toISOString() };
        this.#parts.vectors?.kick();
        this.#ocr?.kick();
        return p;
      } catch (e) {
        const msg = (e as Error)?.message ?? String(e);
        this.#status = { ...this.#status, state: "failed", last_error: msg };
        this.log(`shelfmark: indexing failed: ${msg}`);
        throw e;
      } finally {
        this.#running = undefined;
        if (this.#pending) {
          this.#pending = false;
          this.index().catch(() => {});
        }
      }
    })();
    return this.#running;
  }

  async #purgeUnconfigured(): Promise<void> {
    const names = new Set(this.#libraries.map((l) => l.name));
    for (const lib of this.#parts.catalog.storedLibraries()) {
      if (names.has(lib)) continue;
      await this.#parts.indexer.removeDocs(this.#parts.catalog.idsOf(lib));
      this.#parts.catalog.forgetSkipped(lib);
    }
  }

  /**
   * Wait (bounded) while the first index of a library is being built, so that the first
   * calls of a client that starts the server see the library, not an empty catalog. Later
   * runs (changes to an indexed library) never make a call wait.
   *
   * @param ms the longest wait (default: the configured one)
   * @returns whether the index was complete when the wait ended
   */
  async waitForFirstIndex(ms: number = this.#firstIndexWaitMs): Promise<boolean> {
    const running = this.#running;
    if (!running || !this.#first || ms <= 0) return !running;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const done = await Promise.race([
      running.then(() => true, () => true),
      new Promise<boolean>((r) => timer = setTimeout(() => r(false), ms)),
    ]);
    clearTimeout(timer);
    return done;
  }

  /**
   * Wait (bounded) until no change is waiting to be indexed: the run in progress, and a
   * run for changes noticed but not yet indexed (started now rather than after the
   * watcher's debounce).
   *
   * @param ms the longest wait
   * @returns whether the index was fresh when the wait ended
   */
  async waitForFresh(ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (this.#running || this.stale) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      const run = this.#running ?? this.index();
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        run.catch(() => {}),
        new Promise((r) => timer = setTimeout(r, left)),
      ]);
      clearTimeout(timer);
    }
    return true;
  }

  /** Wait for the run in progress, if any. */
  async idle(): Promise<void> {
    while (this.#running) await this.#running.catch(() => {});
  }

  // The use cases: what the tools, the CLI and the web page ask of the shelf, as plain
  // data (paths are display paths, `<library>/<path inside it>`).

  /**
   * Queue an index run of changed files (`full`: of every file) and return at once;
   * `status` shows its progress. A run in progress finishes first.
   *
   * @param library the library to re-index (default: all)
   * @param full extract every file again, changed or not
   * @returns the libraries queued, whether the run waits for one in progress, and the run
   */
  reindex(
    library: string | undefined,
    full: boolean,
  ): { libraries: string[]; after_run_in_progress: boolean; run: Promise<IndexProgress> } {
    const libraries = library !== undefined ? [library] : this.#libraries.map((l) => l.name);
    const joined = this.#status.state === "building";
    const run = this.index(undefined, full ? libraries : undefined);
    run.catch(() => {});
    return { libraries, after_run_in_progress: joined, run };
  }

  /** Documents indexed, in one library or in all. */
  documentCount(library?: string): number {
    return this.#parts.catalog.count(library);
  }

  /**
   * Libraries no index run has covered as they are configured now (new ones, or ones whose
   * indexed fields changed); an empty library once indexed is not among them.
   */
  unindexedLibraries(): string[] {
    return this.#libraries.filter((l) => fieldsChanged(this.#parts.catalog, l)).map((l) => l.name);
  }

  /** The document types of the indexed documents (plugins' types included). */
  documentTypes(): string[] {
    return this.#parts.catalog.docTypes();
  }

  /** Files the index skipped, with their reasons, in one library or in all. */
  skippedFiles(library?: string): Skipped[] {
    return this.#parts.catalog.skipped(library);
  }

  /** State of the document vectors (undefined when no embedder is configured). */
  vectorStatus(): VectorStatus | undefined {
    return this.#parts.vectors?.status();
  }

  /**
   * Documents that answer a query, ranked by the keyword index (and the vector index in
   * hybrid or semantic mode), copies collapsed, each with its best passages.
   *
   * @param request the query, its filters, the mode and how many hits
   * @returns the hits with their cards, the mode used and why
   */
  search(request: SearchRequest): Promise<SearchOutcome> {
    return searchShelf(this, request);
  }

  /** The mode a search takes when none is asked for, and why. */
  defaultSearchMode(): { mode: SearchMode; why: string } {
    return defaultMode(this);
  }

  /**
   * Wait until the documents waiting for a vector have one (or embedding fails).
   *
   * @param onProgress called after every batch
   * @returns the vectors' state then (undefined when no embedder is configured)
   */
  async embedded(
    onProgress?: (s: VectorStatus) => void,
  ): Promise<VectorStatus | undefined> {
    const v = this.#parts.vectors;
    if (!v) return undefined;
    const before = v.onProgress;
    v.onProgress = onProgress;
    try {
      await v.idle();
    } finally {
      v.onProgress = before;
    }
    return v.status();
  }

  /** The stored id of a document named by its id or by `<library>/<path>`, or undefined. */
  findDocument(ref: string): string | undefined {
    return findDocument(this, ref);
  }

  /** Cards of stored documents by id (ids not stored are left out). */
  cards(ids: string[]): Map<string, Card> {
    return this.#parts.catalog.cards(ids);
  }

  /** A stored document's card and outline. */
  outline(id: string): DocumentOutline | undefined {
    return documentOutline(this, id);
  }

  /** Numbered lines of a stored document: from an offset, a section or a page. */
  readLines(id: string, r: ReadRequest): ReadLines {
    return readLines(this, id, r);
  }

  /** Where a document's original file is, when it still lies inside its library. */
  documentFile(id: string): DocumentFile {
    return documentFile(this, id);
  }

  /** Documents like a stored document: by its vector, else by its keywords. */
  similar(id: string, limit: number): Promise<{ hits: Hit[]; by: "vectors" | "keywords" }> {
    return similarTo(this, this.#parts.catalog.cards([id]).get(id)!, limit);
  }

  /** A stored document's dossier: card, links, similar documents, folder, fields. */
  documentContext(id: string, limit: number): Promise<DocumentContext> {
    return documentContext(this, id, limit);
  }

  /** A stored document's outgoing links and backlinks, a page of each. */
  documentLinks(id: string, r: LinksRequest): DocumentLinks {
    return documentLinks(this, id, r);
  }

  /** A page of the broken links, orphans or most linked documents of a library (or all). */
  linkReport(
    kind: LinkReportKind,
    library: string | undefined,
    offset: number,
    limit: number,
  ): LinkReport {
    return linkReport(this, kind, library, offset, limit);
  }

  /** The shortest chain of links between two stored documents. */
  connection(from: string, to: string, maxDepth: number): Connection {
    return connection(this, from, to, maxDepth);
  }

  /** A page of a folder's sub-folders and documents (or of the libraries). */
  browse(r: BrowseRequest): FolderListing {
    return browseFolder(this, r);
  }

  /** The most recently modified documents under search filters. */
  recentDocuments(filters: SearchFilters, limit: number): DocEntry[] {
    return recentDocuments(this, filters, limit);
  }

  /** Documents by file name or title. */
  findDocuments(r: NameRequest): NameMatches {
    return documentsNamed(this, this.#names, r);
  }

  /** What a library (or every library) holds: types, folders, top keywords. */
  overview(library?: string): LibraryOverview {
    return libraryOverview(this, library);
  }

  /** The values of an indexed front-matter field with their document counts. */
  tagValues(field: string, library: string | undefined, limit: number): FieldValues {
    return tagValues(this, field, library, limit);
  }

  /** Folders whose path contains any of the patterns, with their file counts. */
  findFolders(patterns: string[], library: string | undefined, limit: number): PathAggregate {
    return foldersMatching(this, patterns, library, limit);
  }

  // --- Grep: the runner (a worker thread) is started on first use, stopped by close().
  #grepRunner?: GrepRunner;

  /**
   * Regular-expression matches inside one document, with merged context.
   *
   * @param docId the document's id
   * @param options the pattern, context and page of matches
   * @returns the matches (display paths)
   * @throws {ToolError} `DOCUMENT_NOT_FOUND`, `INVALID_PATTERN`, `PATTERN_TIMEOUT`
   */
  grep(docId: string, options: GrepDocumentOptions): Promise<GrepDocumentAnswer> {
    return grepDocument(this, this.#grepRunner ??= new GrepRunner(), docId, options);
  }

  /**
   * Regular-expression matches across the documents of a scope, grouped by document.
   *
   * @param options the pattern, scope, context and pages
   * @returns the documents with matches (display paths), copies folded
   * @throws {ToolError} `INVALID_PATTERN`, `PATTERN_TIMEOUT`
   */
  grepDocuments(options: GrepDocumentsOptions): Promise<GrepDocumentsAnswer> {
    return grepDocuments(this, this.#grepRunner ??= new GrepRunner(), options);
  }
  // --- end of grep

  // --- OCR of scanned PDF pages, in the background after index runs (see `ocr.ts`).
  #ocr?: OcrSync;
  /** A document being extracted again with its pages read: index runs start after it. */
  #ocrWrite?: Promise<void>;

  #scannedPages(catalog: Catalog, pageTimeoutMs: number): OcrSync {
    return new OcrSync(catalog, {
      languages: this.#config.ocr?.languages,
      pageTimeoutMs,
      maxPages: this.#config.ocr?.max_pages ?? OCR_MAX_PAGES,
      log: this.log,
      quiet: () => this.idle(),
      // The OCR worker does not sit beside idle extraction processes (memory bound).
      beforeRead: () => this.#parts.pool?.stopIdle(),
      read: async (todo) => {
        const lib = this.#libraries.find((l) => l.name === todo.library);
        if (!lib || !todo.path.startsWith(`${lib.name}/`)) return undefined;
        const abs = join(lib.root, todo.path.slice(lib.name.length + 1));
        return await readInside(lib.root, abs).catch(() => undefined);
      },
      reextract: async (docId) => {
        const doc = this.#parts.catalog.get(docId);
        const lib = doc && this.#libraries.find((l) => l.name === doc.card.library);
        if (!doc || !lib) return;
        const abs = join(lib.root, doc.card.path.slice(lib.name.length + 1));
        const st = await Deno.stat(abs).catch(() => undefined);
        if (!st?.isFile) return;
        const found = {
          abs,
          path: doc.card.path,
          size: st.size,
          mtime_ms: st.mtime?.getTime() ?? 0,
        };
        const known = {
          doc_id: docId,
          path: doc.card.path,
          size: doc.card.size,
          mtime_ms: doc.mtime_ms,
          hash: doc.hash,
        };
        // Not beside an index run: one that starts meanwhile waits for this write.
        await this.idle();
        this.#ocrWrite = (async () => {
          this.#parts.catalog.begin();
          try {
            await this.#parts.indexer.indexFile(lib, found, known, this.#maxFileBytes, true);
          } finally {
            this.#parts.catalog.commit();
            this.#parts.catalog.dropCaches();
          }
          // Its card and outline now hold the pages read: its vector is made again.
          this.#parts.catalog.vectors.outdated(docId);
          this.#parts.vectors?.kick();
        })();
        try {
          await this.#ocrWrite;
        } finally {
          this.#ocrWrite = undefined;
        }
      },
    });
  }

  /** Progress of the OCR of scanned PDF pages (undefined when `ocr.pdf_pages` is false). */
  ocrStatus(): OcrStatus | undefined {
    return this.#ocr?.status();
  }

  /**
   * Wait until no scanned PDF page waits for OCR.
   *
   * @param onProgress called every `everyMs` with the progress
   * @param everyMs how often to report
   * @returns the progress then (undefined when `ocr.pdf_pages` is false)
   */
  async ocrDone(
    onProgress?: (s: OcrStatus) => void,
    everyMs = 1000,
  ): Promise<OcrStatus | undefined> {
    const ocr = this.#ocr;
    if (!ocr) return undefined;
    const timer = onProgress && setInterval(() => onProgress(ocr.status()), everyMs);
    try {
      await ocr.idle();
    } finally {
      clearInterval(timer);
    }
    return ocr.status();
  }
  // --- end of OCR

  /**
   * Close every part, after the run in progress and the embedding batch in progress: the
   * vector index and the embedder, the search and extraction workers, the grep worker, the
   * OCR worker, the catalog (with the keyword index on it) and the caches.
   */
  async close(): Promise<void> {
    await this.idle();
    await this.#parts.vectors?.close();
    await this.#ocr?.close();
    this.#parts.searchPool?.close();
    this.#parts.pool?.close();
    this.#grepRunner?.close();
    this.#grepRunner = undefined;
    this.#parts.catalog.close();
    this.#names = new WeakMap();
  }
}

/**
 * Resident memory (MiB) of this process and its extraction processes over which the indexer
 * starts no file beside those in flight (one file always runs).
 */
const INDEX_MEMORY_MB = 400;
/** What a file that runs alone may add: idle extraction processes leave when there is less. */
const ALONE_HEADROOM_MB = 200;
