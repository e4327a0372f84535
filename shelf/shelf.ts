/**
 * A shelf: the libraries, the catalog, the extractors, the retrievers and the index
 * state, opened from a data directory. Tools and the CLI work on one shelf.
 *
 * @module
 */
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { extractorsFrom } from "../extraction/plugins.ts";
import { createEmbedder } from "../embedders/mod.ts";
import { Fts5Retriever } from "../retrievers/fts5.ts";
import { LanceRetriever } from "../retrievers/lancedb.ts";
import { SearchPool } from "../retrievers/fts5_pool.ts";
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
import type { Embedder, Extractor, Library, Retriever } from "../core/types.ts";
import { VectorIndex } from "./vectors.ts";

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

/** The libraries, catalog, extractors, retrievers and index state. */
export class Shelf {
  /**
   * The catalog.
   *
   * @ignore internal: the tools and the search path use it
   */
  readonly catalog: Catalog;
  /** Extractors by extension and sniffed type. */
  readonly registry: ExtractorRegistry;
  /**
   * The full-text retriever (it also makes snippets and checks hard query constraints).
   *
   * @ignore internal: the tools and the search path use it
   */
  readonly fts: Fts5Retriever;
  /**
   * Every retriever, as the search path asks them: the keyword retriever (run on the
   * search workers when there are some), then vectors when an embedder is configured.
   */
  readonly retrievers: Retriever[];
  /**
   * Keyword-search workers (undefined: searches run on this thread).
   *
   * @ignore internal: the tools and the search path use it
   */
  readonly searchPool?: SearchPool;
  /**
   * Document vectors (undefined when the embedder is `none`).
   *
   * @ignore internal: the tools and the search path use it
   */
  readonly vectors?: VectorIndex;
  /**
   * The indexer.
   *
   * @ignore internal: the tools and the search path use it
   */
  readonly indexer: Indexer;
  /**
   * The extraction workers (undefined when extracting in this thread).
   *
   * @ignore internal: the tools and the search path use it
   */
  readonly pool?: ExtractPool;
  /** The data directory. */
  readonly data: string;
  /** Whether answers may show absolute paths. */
  readonly fullPaths: boolean;
  /** Logger. */
  readonly log: (msg: string) => void;
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
    mkdirSync(opts.data, { recursive: true });
    this.catalog = new Catalog(join(opts.data, "catalog.db"));
    this.registry = new ExtractorRegistry();
    for (const e of extractors) this.registry.register(e);
    this.fts = new Fts5Retriever(this.catalog.db, { stats: this.catalog });
    if (opts.searchWorkers) {
      this.searchPool = new SearchPool(join(opts.data, "catalog.db"), opts.searchWorkers);
    }
    this.retrievers = [this.searchPool ? pooled(this.fts, this.searchPool) : this.fts];
    if (embedder) {
      const lance = new LanceRetriever(join(opts.data, "vectors"), this.catalog, embedder);
      this.vectors = new VectorIndex(this.catalog, lance, embedder, this.log);
      this.retrievers.push(lance);
    }
    const limits = config.limits ?? {};
    const workers = opts.workers ?? limits.workers ??
      Math.min(4, navigator.hardwareConcurrency || 2);
    const timeoutMs = opts.fileTimeoutMs ??
      (limits.file_timeout_s ? limits.file_timeout_s * 1000 : undefined);
    this.#maxFileBytes = (limits.max_file_mb ?? 64) * 1024 * 1024;
    this.#firstIndexWaitMs = opts.firstIndexWaitMs ?? (limits.first_index_wait_s ?? 20) * 1000;
    const ocrLanguages = config.ocr?.languages;
    if (workers > 0) this.pool = new ExtractPool({ workers, timeoutMs, plugins, ocrLanguages });
    const pool = this.pool;
    this.indexer = new Indexer(
      this.catalog,
      pool?.extract ?? inProcess(this.registry, { ocrLanguages }),
      this.retrievers,
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
    this.#first = this.#libraries.some((l) => this.catalog.count(l.name) === 0);
    this.#running = (async () => {
      try {
        await this.#purgeUnconfigured();
        const p = await this.indexer.run(this.#libraries, {
          maxFileBytes: this.#maxFileBytes,
          full: fullNow,
          onProgress: (p) => {
            this.#status.progress = p;
            onProgress?.(p);
          },
        });
        this.#status = { ...this.#status, state: "ready", finished_at: new Date().toISOString() };
        this.vectors?.kick();
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
    for (const lib of this.catalog.storedLibraries()) {
      if (names.has(lib)) continue;
      await this.indexer.removeDocs(this.catalog.idsOf(lib));
      this.catalog.forgetSkipped(lib);
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

  /** Close the catalog (after the run in progress and the embedding batch in progress). */
  async close(): Promise<void> {
    await this.idle();
    await this.vectors?.close();
    this.searchPool?.close();
    this.pool?.close();
    this.catalog.close();
  }
}

/**
 * Resident memory (MiB) of this process and its extraction processes over which the indexer
 * starts no file beside those in flight (one file always runs).
 */
const INDEX_MEMORY_MB = 400;
/** What a file that runs alone may add: idle extraction processes leave when there is less. */
const ALONE_HEADROOM_MB = 200;

/** The keyword retriever with its searches sent to the search workers. */
function pooled(fts: Fts5Retriever, pool: SearchPool): Retriever {
  return {
    name: fts.name,
    kind: fts.kind,
    upsert: (docs) => fts.upsert(docs),
    remove: (ids) => fts.remove(ids),
    search: (q) => pool.search(q),
    ready: () => fts.ready(),
  };
}
