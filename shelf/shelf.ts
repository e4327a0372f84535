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
import { SqliteCatalogStore } from "../stores/catalog_sqlite.ts";
import type { CatalogStore } from "../stores/roles.ts";
import { Catalog, type PartialDoc } from "../core/catalog.ts";
import { LinkGraphs } from "../core/graph.ts";
import {
  addFolders,
  type Config,
  ConfigError,
  configLibraries,
  loadConfig,
  machineName,
  saveConfig,
  storeUrlProblem,
} from "../core/config.ts";
import { Indexer, type IndexProgress } from "./indexer.ts";
import { admissionMb, expectedGrowthMb, INDEX_MEMORY_GOAL_MB } from "./load.ts";
import { ExtractorRegistry } from "../core/registry.ts";
import { fullCollection, HeapTrimmer, lastResortCollection } from "../core/heap.ts";
import { ExtractPool, inProcess } from "../extraction/pool.ts";
import { type VectorStatus, VectorSync } from "./vectors.ts";
import { IDLE_RELEASE_MS, IdleRelease } from "./idle.ts";
import { PARTS, type ShelfParts } from "./_parts.ts";
import {
  type Card,
  type Embedder,
  type Hit,
  type Library,
  type SearchFilters,
  type Skipped,
  ToolError,
} from "../core/types.ts";
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
  findStoredDocument,
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
import { GitCommitter } from "./git.ts";
import {
  gitLibraries,
  libraryDiff,
  libraryHistory,
  librarySync,
  type ShelfDiff,
  type ShelfDiffRequest,
  type ShelfHistory,
  type ShelfHistoryRequest,
  type ShelfSync,
} from "./git_library.ts";
import { matchesAny } from "../core/walk.ts";
import { realPath } from "../core/paths.ts";
import {
  type DeleteAnswer,
  deleteFile,
  type DeleteRequest,
  type EditAnswer,
  editFile,
  type EditRequest,
  fileSystemError,
  type MoveAnswer,
  moveFile,
  type MoveRequest,
  type VaultCommitter,
  type VaultHost,
  type WriteAnswer,
  writeFile,
  type WriteRequest,
} from "./vault.ts";
import { type FetchAnswer, fetchIntoLibrary, type FetchRequest } from "./fetch.ts";

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
  /** CPU time limit for extracting one file, in ms (default 60 s; see `limits.file_timeout_s`). */
  fileTimeoutMs?: number;
  /**
   * The embedder: a name (`default`, `none`, `ollama:<model>`, `openai:<model>`) that
   * overrides the config's, or an instance. Default: the config's, else `default`.
   */
  embedder?: string | Embedder;
  /** Save a named `embedder` to the configuration (given on the command line). */
  saveEmbedder?: boolean;
  /**
   * The PostgreSQL store of the keyword index (`--store`; overrides the config's `store`).
   * The catalog stays in the data folder.
   */
  store?: string;
  /**
   * Where searches read the PostgreSQL store (`--store-read`; overrides the config's
   * `store_read`): a read-only streaming replica of `store`.
   */
  storeRead?: string;
  /** Worker threads for keyword searches (default 0: searches run on the caller's thread). */
  searchWorkers?: number;
  /**
   * Time limit of one keyword search on the search workers, in ms (default: the config's
   * `limits.query_timeout_s`, else 10 s); past it the search fails with `QUERY_TIMEOUT`.
   */
  queryTimeoutMs?: number;
  /**
   * Memory goal of indexing, in MiB of the tree's PSS (default: the config's
   * `limits.index_memory_mb`, else 600); files start beside others only within it.
   */
  indexMemoryMb?: number;
  /**
   * How long tool calls wait for a first index still being built, in ms (default: the
   * config's `limits.first_index_wait_s`, else 20 s).
   */
  firstIndexWaitMs?: number;
  /**
   * Libraries where the write tools may write for this run (`--write LIBRARY`), beside
   * those with `"write": true` in the configuration.
   */
  write?: string[];
  /** Makes a commit after each write (libraries that are repositories); default none. */
  committer?: VaultCommitter;
  /**
   * Time without a tool call after which the shelf gives memory back (see
   * {@linkcode Shelf.releaseMemory}), in ms; 0 never (default 60 s).
   */
  idleReleaseMs?: number;
  /**
   * Time grep's worker (a thread, started by the first grep) gets to load, in ms (default
   * 30 s); past it that grep fails and the next one starts another worker.
   */
  grepStartMs?: number;
  /**
   * TESTS ONLY: `address:port` pairs that `fetch` may reach although they are not public
   * (a test's loopback server). No tool call, flag or `shelfmark.json` sets it.
   */
  fetchTestAllow?: readonly string[];
}

/** The PostgreSQL store's modules, loaded only for a store that uses them. */
type PgModules =
  & typeof import("../stores/postgres.ts")
  & typeof import("../stores/postgres_pool.ts")
  & typeof import("../stores/catalog_postgres.ts")
  & typeof import("../stores/catalog_machines.ts");

/** State of the index as answers report it. */
export interface IndexStatus {
  /** `building` while a run is in progress. */
  state: "building" | "ready" | "failed";
  /** Progress of the current or last run. */
  progress: IndexProgress;
  /** When the current or last run started. */
  started_at?: string;
  /** When the last run finished (kept while the next one is building). */
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
  /** TESTS ONLY: non-public `address:port` pairs `fetch` may reach (see `ShelfOptions`). */
  readonly #fetchTestAllow: readonly string[];
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
  readonly #grepStartMs?: number;
  /** The run in progress is the first of a library (it had no document when it started). */
  #first = false;
  /** Normalised names of the documents, for finding them by name. */
  #names: NamesCache = new WeakMap();
  #closed = false;
  /** Libraries writable for this run (`--write`). */
  #writeFor: ReadonlySet<string>;
  /** The commit hook of writes. */
  readonly #committer?: VaultCommitter;
  /** Gives memory back after a while without tool calls. */
  readonly #idle: IdleRelease;
  /** The catalog's copy in a PostgreSQL store as the indexer writes it (on the primary). */
  readonly #storeWriter?: CatalogStore;
  /** The writer is a store of its own (not the one the reads go through). */
  readonly #writerApart: boolean;

  private constructor(
    opts: ShelfOptions,
    config: Config,
    extractors: Extractor[],
    plugins: string[],
    embedder: Embedder | undefined,
    pg: PgModules | undefined,
  ) {
    this.data = opts.data;
    this.fullPaths = opts.fullPaths ?? false;
    this.#fetchTestAllow = opts.fetchTestAllow ?? [];
    this.#grepStartMs = opts.grepStartMs;
    this.log = opts.log ?? ((m) => console.error(m));
    this.#config = config;
    this.#libraries = configLibraries(config);
    this.#writeFor = new Set(opts.write ?? []);
    this.#committer = opts.committer;
    this.#idle = new IdleRelease(
      opts.idleReleaseMs ?? IDLE_RELEASE_MS,
      () => this.releaseMemory(),
      () => this.#busy() !== undefined,
    );
    makePrivateDir(opts.data);
    makePrivateFile(join(opts.data, "catalog.db"));
    const catalog = new Catalog(join(opts.data, "catalog.db"));
    const registry = new ExtractorRegistry();
    for (const e of extractors) registry.register(e);
    const limits = config.limits ?? {};
    const queryS = limits.query_timeout_s;
    const store = opts.store ?? config.store;
    const releaseMs = opts.idleReleaseMs ?? IDLE_RELEASE_MS;
    const searchPool = opts.searchWorkers && !store
      ? new SearchPool(join(opts.data, "catalog.db"), opts.searchWorkers, {
        timeoutMs: opts.queryTimeoutMs ?? (queryS ? queryS * 1000 : undefined),
        // The idle release stops them (then collects, which gives their isolates' memory
        // back; workers that left on their own before it kept 40 MiB resident, measured).
        idleMs: releaseMs > 0 ? releaseMs + 30_000 : undefined,
      })
      : undefined;
    const pgOptions = pg && {
      readUrl: opts.storeRead ?? config.store_read,
      machine: { name: machineName(config), owner: pg.dataFolderId(opts.data) },
    };
    // the catalog's copy in PostgreSQL, which the indexer writes beside the local one
    const pgCatalog = store && pg ? new pg.PgCatalogStore(store, pgOptions) : undefined;
    // a server reads every machine's catalog: its own, and the others' read only
    const readStore = pgCatalog && pgOptions
      ? new pg.MachinesCatalogStore(pgCatalog, store!, {
        machine: pgOptions.machine.name,
        readUrl: pgOptions.readUrl,
      })
      : new SqliteCatalogStore(catalog);
    // searches rank every machine's documents, and read their hits' passages and snippets
    // from every machine's catalog
    const keyword = store && pg
      ? new pg.PgKeywordIndex(store, catalog, {
        ...pgOptions,
        store: readStore,
        everyMachine: true,
      })
      : new Fts5Index(catalog.db, { stats: catalog, pool: searchPool });
    // the indexer reads what it wrote (which documents the copy holds): on the primary, not
    // on a replica that may lag behind it
    this.#storeWriter = store && pg && pgOptions?.readUrl
      ? new pg.PgCatalogStore(store, { ...pgOptions, readUrl: undefined })
      : pgCatalog;
    this.#writerApart = this.#storeWriter !== pgCatalog;
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
    const lineMb = admissionMb(
      opts.indexMemoryMb ?? limits.index_memory_mb ?? INDEX_MEMORY_GOAL_MB,
    );
    const pool = workers > 0
      ? new ExtractPool({ workers, timeoutMs, plugins, ocrLanguages })
      : undefined;
    const indexer = new Indexer(
      catalog,
      pool?.extract ?? inProcess(registry, { ocrLanguages }),
      { keyword, vectors: vectors?.index, catalog: this.#storeWriter },
      {
        concurrency: workers + 1,
        // A file starts beside others only while the process tree's measured memory leaves
        // room for it (for a large file, what it is expected to add).
        admit: pool &&
          ((load, large) => pool.roomFor(lineMb - (large ? expectedGrowthMb(load) : 0))),
        // A large file (a page to OCR, a large PDF) does not sit beside idle extraction
        // processes full of garbage when the tree has no room for what it is expected to add:
        // this process's garbage goes first (a collection of a 100-200 MiB heap costs about
        // 0.1 s), then, if that is not enough, the idle processes' (`makeRoom`: they are not
        // stopped, as a process started again for the next file costs 0.7-0.9 s of CPU).
        beforeLarge: pool && ((load) => {
          const budget = lineMb - expectedGrowthMb(load);
          if (pool.roomFor(budget)) return;
          fullCollection()?.();
          pool.makeRoom(budget);
        }),
        // A file kept waiting for memory: this process's garbage once it has grown 16 MiB
        // since the last such collection (one a second cost 20 s of CPU over a 500 s run),
        // and the idle processes' that hold much.
        makeRoom: pool && ((relief) => () => {
          relief.trim();
          pool.makeRoom(lineMb);
        })(new HeapTrimmer({ growthMb: 16, floorMb: 0 })),
        hold: pool && (() => pool.hold()),
      },
    );
    const parts = { catalog, registry, keyword, searchPool, vectors, indexer, pool };
    this.#parts = { ...parts, store: readStore, graphs: new LinkGraphs(readStore) };
    const ocrTypes = [
      ...(config.ocr?.pdf_pages !== false ? ["pdf"] : []),
      ...(config.ocr?.images !== false ? ["image"] : []),
    ];
    if (ocrTypes.length) this.#ocr = this.#scannedPages(catalog, timeoutMs ?? 60_000, ocrTypes);
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
    for (const [flag, url] of [["--store", opts.store], ["--store-read", opts.storeRead]]) {
      const problem = url === undefined ? undefined : storeUrlProblem(url);
      if (problem) throw new ConfigError(`${flag} ${problem}`);
    }
    if ((opts.storeRead ?? config.store_read) && !(opts.store ?? config.store)) {
      throw new ConfigError("--store-read needs --store (the primary that writes go to)");
    }
    if (
      (opts.store !== undefined && config.store !== opts.store) ||
      (opts.storeRead !== undefined && config.store_read !== opts.storeRead)
    ) {
      // the data folder's index is there from now on
      config.store = opts.store ?? config.store;
      config.store_read = opts.storeRead ?? config.store_read;
      saveConfig(opts.data, config);
    }
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
    for (const name of opts.write ?? []) {
      if (!config.libraries.some((l) => l.name === name)) {
        throw new Error(
          `--write ${name}: no library named so (libraries: ${
            config.libraries.map((l) => l.name).join(", ") || "none"
          })`,
        );
      }
    }
    const log = opts.log ?? ((m: string) => console.error(m));
    const plugins = [...(config.extractors ?? []), ...(opts.extractors ?? [])].map((p) =>
      /^[a-z][a-z0-9+.-]*:/i.test(p) ? p : resolve(p)
    );
    // Extraction workers load their own extractors (pdf.js, OCR: tens of MB): this process
    // needs them only when it extracts itself.
    const extractsHere = (opts.workers ?? config.limits?.workers ?? 1) === 0;
    const extractors = extractsHere ? await extractorsFrom(plugins, log) : [];
    // the PostgreSQL client loads only for a store that uses it (about 70 ms of start-up)
    const pg = (opts.store ?? config.store)
      ? {
        ...await import("../stores/postgres.ts"),
        ...await import("../stores/postgres_pool.ts"),
        ...await import("../stores/catalog_postgres.ts"),
        ...await import("../stores/catalog_machines.ts"),
      }
      : undefined;
    return new Shelf(opts, config, extractors, plugins, embedder, pg);
  }

  /**
   * Where the keyword index lives: SQLite FTS5 in the data folder, or PostgreSQL named by
   * host, port and database only (never a user name or password), with the machine whose
   * schema this data folder writes and the replica that searches read when there is one.
   */
  keywordStore(): string {
    const { store, store_read: read } = this.#config;
    if (!store) return "SQLite FTS5 in the data folder";
    const at = (u: string) => {
      const url = URL.parse(u);
      return url ? ` at ${url.host}${url.pathname}` : "";
    };
    const machine = ` (machine "${machineName(this.#config)}")`;
    return `PostgreSQL${at(store)}${machine}${
      read ? `; searches read the replica${at(read)}` : ""
    }`;
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
    // The last run's end stays visible while the next one runs: a run that starts as the
    // one before ends (changes came meanwhile) would otherwise leave no moment to see it.
    this.#status = {
      state: "building",
      progress: { done: 0, total: 0, indexed: 0, unchanged: 0, skipped: 0, removed: 0 },
      started_at: new Date().toISOString(),
      finished_at: this.#status.finished_at,
    };
    this.#stale = false;
    this.#first = this.#libraries.some((l) => this.#parts.catalog.count(l.name) === 0);
    this.#running = (async () => {
      try {
        await this.#ocrWrite;
        await this.#vaultWrite;
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
        this.#idle.touch(); // a run leaves garbage and caches behind
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

  /**
   * Documents indexed, in one library or in all, as the catalog store holds them (with a
   * PostgreSQL store: its count, whatever the data folder's catalog holds).
   */
  documentCount(library?: string): Promise<number> {
    return this.#parts.store.count(library);
  }

  /**
   * The libraries other machines indexed into a shared PostgreSQL store, by their names in
   * it (`laptop:Papers`): this shelf lists and reads them too. None without such a store.
   */
  async otherLibraries(): Promise<string[]> {
    return await this.#parts.store.otherLibraries?.() ?? [];
  }

  /**
   * The fields other machines' libraries of a shared store hold values of (folded), by
   * their names in it: what `search` filters on them may name. None without such a store.
   */
  async otherLibraryFields(): Promise<Map<string, string[]>> {
    return await this.#parts.store.otherLibraryFields?.() ?? new Map();
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

  /**
   * The skipped files and documents extracted in part of other machines' libraries of a
   * shared store, as their last index runs left them, by their names in it
   * (`laptop:Papers/a.pdf`). None without such a store.
   */
  async otherRunFiles(): Promise<{ skipped: Skipped[]; partial: PartialDoc[] }> {
    return await this.#parts.store.otherRunFiles?.() ?? { skipped: [], partial: [] };
  }

  /** Files the index skipped, with their reasons, in one library or in all. */
  skippedFiles(library?: string): Skipped[] {
    return this.#parts.catalog.skipped(library);
  }

  /**
   * Documents extracted only in part (the time limit cut them), which the next index run
   * extracts again: how many, and the first `limit` by path with their warnings.
   */
  partialDocuments(limit: number): { count: number; first: PartialDoc[] } {
    return this.#parts.catalog.partialDocuments(limit);
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

  /**
   * As {@link findDocument}, through the catalog store: what `read`, `outline` and `context`
   * resolve (a server with a PostgreSQL store finds documents without the local catalog).
   */
  findStoredDocument(ref: string, check = true): Promise<string | undefined> {
    return findStoredDocument(this, ref, check);
  }

  /** Cards of stored documents by id (ids not stored are left out). */
  cards(ids: string[]): Map<string, Card> {
    return this.#parts.catalog.cards(ids);
  }

  /** A stored document's card and outline. */
  outline(id: string): Promise<DocumentOutline | undefined> {
    return documentOutline(this, id);
  }

  /** Numbered lines of a stored document: from an offset, a section or a page. */
  readLines(id: string, r: ReadRequest): Promise<ReadLines> {
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
  documentLinks(id: string, r: LinksRequest): Promise<DocumentLinks> {
    return documentLinks(this, id, r);
  }

  /** A page of the broken links, orphans or most linked documents of a library (or all). */
  linkReport(
    kind: LinkReportKind,
    library: string | undefined,
    offset: number,
    limit: number,
  ): Promise<LinkReport> {
    return linkReport(this, kind, library, offset, limit);
  }

  /** The shortest chain of links between two stored documents. */
  connection(from: string, to: string, maxDepth: number): Promise<Connection> {
    return connection(this, from, to, maxDepth);
  }

  /** A page of a folder's sub-folders and documents (or of the libraries). */
  browse(r: BrowseRequest): Promise<FolderListing> {
    return browseFolder(this, r);
  }

  /** The most recently modified documents under search filters. */
  recentDocuments(filters: SearchFilters, limit: number): DocEntry[] {
    return recentDocuments(this, filters, limit);
  }

  /** Documents by file name or title. */
  findDocuments(r: NameRequest): Promise<NameMatches> {
    return documentsNamed(this, this.#names, r);
  }

  /** What a library (or every library) holds: types, folders, top keywords. */
  overview(library?: string): LibraryOverview {
    return libraryOverview(this, library);
  }

  /**
   * The values of an indexed front-matter field with their document counts (every
   * machine's on a server of a shared store).
   */
  tagValues(field: string, library: string | undefined, limit: number): Promise<FieldValues> {
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
    return grepDocument(this, this.#grepRunner ??= this.#newGrepRunner(), docId, options);
  }

  /**
   * Regular-expression matches across the documents of a scope, grouped by document.
   *
   * @param options the pattern, scope, context and pages
   * @returns the documents with matches (display paths), copies folded
   * @throws {ToolError} `INVALID_PATTERN`, `PATTERN_TIMEOUT`
   */
  grepDocuments(options: GrepDocumentsOptions): Promise<GrepDocumentsAnswer> {
    return grepDocuments(this, this.#grepRunner ??= this.#newGrepRunner(), options);
  }

  /** Grep's runner with the default time limit of a job and this shelf's start limit. */
  #newGrepRunner(): GrepRunner {
    return new GrepRunner(undefined, this.#grepStartMs);
  }
  // --- end of grep

  // --- OCR of scanned PDF pages and images, in the background after index runs (`ocr.ts`).
  #ocr?: OcrSync;
  /** A document being extracted again with its pages read: index runs start after it. */
  #ocrWrite?: Promise<void>;

  #scannedPages(catalog: Catalog, pageTimeoutMs: number, types: string[]): OcrSync {
    return new OcrSync(catalog, {
      languages: this.#config.ocr?.languages,
      types,
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
        // Not beside an index run or a vault write: one that starts meanwhile waits for
        // this write (the check and the start are one synchronous step).
        while (this.#busy()) await this.#busy()!.catch(() => {});
        this.#ocrWrite = (async () => {
          this.#parts.catalog.begin();
          try {
            await this.#parts.indexer.indexFile(lib, found, known, this.#maxFileBytes, true);
            // The terms of the text read are counted (document frequencies stay exact).
            this.#parts.catalog.saveTermCounts();
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

  /**
   * Progress of the OCR of scanned PDF pages and images (undefined when `ocr.pdf_pages` and
   * `ocr.images` are both false).
   */
  ocrStatus(): OcrStatus | undefined {
    return this.#ocr?.status();
  }

  /** The libraries that are git work trees (detected, or `"git": true`). */
  gitLibraries(): Library[] {
    return gitLibraries(this);
  }

  /**
   * The committer of the vault's writes: one commit per write in the git libraries (author:
   * `git.author`), none elsewhere.
   */
  gitCommitter(): GitCommitter {
    const roots = this.gitLibraries().map((l) => l.root);
    return new GitCommitter({ author: this.#config.git?.author, roots });
  }

  /** Commits that touched a document (or a git library), newest first, a page of them. */
  history(r: ShelfHistoryRequest): Promise<ShelfHistory> {
    return libraryHistory(this, r);
  }

  /** A document's diff between a commit and HEAD or its file on disk, size-capped. */
  diff(r: ShelfDiffRequest): Promise<ShelfDiff> {
    return libraryDiff(this, r);
  }

  /**
   * Pull (rebasing local commits) and push a git library where writing is enabled, then
   * index what changed; it runs between the vault's writes, never during one.
   */
  sync(library: string | undefined, dryRun: boolean): Promise<ShelfSync> {
    return this.#vault(() => librarySync(this, library, dryRun));
  }

  /**
   * Wait until no scanned PDF page or image waits for OCR.
   *
   * @param onProgress called every `everyMs` with the progress
   * @param everyMs how often to report
   * @returns the progress then (undefined when `ocr.pdf_pages` and `ocr.images` are false)
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

  // --- The writable vault (see `vault.ts`): writes run one at a time, each re-indexed
  // before it answers.
  #vaultCalls: LimitFunction = pLimit(1);
  /** The re-index of a write in progress: index runs start after it. */
  #vaultWrite?: Promise<void>;
  /** Files the vault changed lately (absolute path -> when), for the watcher to pass over. */
  #ownChanges = new Map<string, number>();

  /** The index run, OCR re-extraction or vault re-index in progress, if any. */
  #busy(): Promise<unknown> | undefined {
    return this.#running ?? this.#ocrWrite ?? this.#vaultWrite;
  }

  /** Names of the libraries where writing is enabled (configuration or `--write`). */
  writableLibraries(): string[] {
    return this.#config.libraries.filter((l) => l.write === true || this.#writeFor.has(l.name))
      .map((l) => l.name);
  }

  /**
   * Whether a file event is the echo of a change the vault made and indexed itself in the
   * last few seconds (the watcher does not index it a second time).
   */
  isOwnChange(abs: string): boolean {
    const now = Date.now();
    for (const [p, at] of this.#ownChanges) {
      if (now - at > OWN_CHANGE_MS) this.#ownChanges.delete(p);
    }
    return this.#ownChanges.has(abs);
  }

  #vaultHost(): VaultHost {
    const writable = new Set(this.writableLibraries());
    return {
      libraries: this.#libraries,
      writable: (name) => writable.has(name),
      reindex: (lib, paths) => this.#indexWritten(lib, paths),
      ownChange: (lib, rel) => {
        // The watcher reports paths under the root as configured; the vault writes under
        // its real path: both are noted.
        const at = Date.now();
        this.#ownChanges.set(join(lib.root, rel), at);
        this.#ownChanges.set(join(realPath(lib.root) ?? lib.root, rel), at);
      },
      committer: this.#committer ?? this.gitCommitter(),
    };
  }

  #docIdOf = (path: string): string | undefined => this.#parts.catalog.idByPath(path);

  /** Run a vault operation after those before it; refused at once when nothing is writable. */
  #vault<T>(op: (host: VaultHost) => Promise<T>): Promise<T> {
    if (!this.writableLibraries().length) {
      return Promise.reject(
        new ToolError(
          "NOT_ALLOWED",
          "Writing is not enabled for any library",
          'Set "write": true on a library in shelfmark.json, or start with --write LIBRARY.',
        ),
      );
    }
    return this.#vaultCalls(() =>
      op(this.#vaultHost()).catch((e) => {
        throw fileSystemError(e);
      })
    );
  }

  /**
   * Index files the vault just wrote, moved or deleted, before the write answers: after
   * the run in progress, and before the next one starts.
   */
  async #indexWritten(lib: Library, paths: string[]): Promise<void> {
    const { catalog, indexer } = this.#parts;
    // The check and the start of the job are one synchronous step: whatever starts after
    // it (an index run, an OCR write) waits for it.
    while (this.#busy()) await this.#busy()!.catch(() => {});
    const job = (async () => {
      catalog.begin();
      try {
        for (const path of paths) {
          const rel = path.slice(lib.name.length + 1);
          const abs = join(lib.root, rel);
          const id = catalog.idByPath(path);
          const st = await Deno.stat(abs).catch(() => undefined);
          const walked = !matchesAny(rel, lib.exclude) &&
            (!lib.include?.length || matchesAny(rel, lib.include));
          catalog.unskip([path]);
          if (!st?.isFile || !walked) {
            if (id) await indexer.removeDocs([id]);
            continue;
          }
          const doc = id ? catalog.get(id) : undefined;
          // No size and time shortcut: a rewrite within the same millisecond and of the
          // same size is still compared by its content hash.
          const known = doc && { doc_id: id!, path, size: -1, mtime_ms: -1, hash: doc.hash };
          const found = { abs, path, size: st.size, mtime_ms: st.mtime?.getTime() ?? 0 };
          await indexer.indexFile(lib, found, known, this.#maxFileBytes);
        }
        await indexer.shareRunFiles(lib.name);
        catalog.saveTermCounts();
      } catch (e) {
        catalog.rollback();
        throw e;
      }
      catalog.commit();
      this.#parts.vectors?.kick();
    })();
    this.#vaultWrite = job;
    try {
      await job;
    } finally {
      if (this.#vaultWrite === job) this.#vaultWrite = undefined;
    }
  }

  /**
   * Create or overwrite a file in a writable library, and index it before answering.
   *
   * @param r the path, the content (text, with front matter for Markdown, or base64), the
   *   version it must have (`ifMatch`) and the commit message
   * @returns the path, its id, whether it was created, its version and the commit
   * @throws {ToolError} `NOT_ALLOWED`, `PATH_OUTSIDE_LIBRARY`, `CONFLICT`, `TOO_LARGE`, ...
   */
  writeFile(r: WriteRequest): Promise<WriteAnswer> {
    return this.#vault((host) => writeFile(host, this.#docIdOf, r));
  }

  /**
   * Replace text in a text file of a writable library (exact, normalized, or a line range),
   * and index it before answering.
   *
   * @param r the path, the text or lines to replace, the replacement, `ifMatch`, message
   * @returns how it matched, the lines replaced, the new version and the commit
   * @throws {ToolError} `NO_MATCH` (with the closest line), `NOT_UNIQUE`, `CONFLICT`, ...
   */
  editFile(r: EditRequest): Promise<EditAnswer> {
    return this.#vault((host) => editFile(host, this.#docIdOf, r));
  }

  /**
   * Move a file to a new path in the same or another writable library (never over a file),
   * and index both places before answering.
   *
   * @param r from, to, `ifMatch`, message
   * @returns both paths, the new id, the version and the commits
   * @throws {ToolError} `ALREADY_EXISTS`, `FILE_NOT_FOUND`, `CONFLICT`, ...
   */
  moveFile(r: MoveRequest): Promise<MoveAnswer> {
    return this.#vault((host) => moveFile(host, this.#docIdOf, r));
  }

  /**
   * Delete a file of a writable library with its document (passages, links, vectors).
   *
   * @param r the path, `ifMatch`, message
   * @returns the path, the id removed, the version it had and the commit
   * @throws {ToolError} `FILE_NOT_FOUND`, `CONFLICT`, ...
   */
  deleteFile(r: DeleteRequest): Promise<DeleteAnswer> {
    return this.#vault((host) => deleteFile(host, this.#docIdOf, r));
  }
  // --- end of the vault

  /**
   * Download an http/https URL into a writable library (a web page as Markdown), SSRF-safe
   * (`core/safe_fetch.ts`), and index it before answering (see `fetch.ts`).
   *
   * @param r the URL, the library and path to save it at, the commit message
   * @returns where it was saved, its size, type and version, and whether it is new
   * @throws {ToolError} `NOT_ALLOWED`, `INVALID_ARGUMENT`, `REDIRECTED`, `TOO_LARGE`, ...
   */
  fetchUrl(r: FetchRequest): Promise<FetchAnswer> {
    return fetchIntoLibrary(this, r, { testAllow: this.#fetchTestAllow });
  }

  /**
   * Run a tool call: memory is given back once no call has run for the idle time.
   *
   * @ignore internal: the tool dispatcher wraps every call in it
   */
  during<T>(call: () => Promise<T>): Promise<T> {
    return this.#idle.during(call);
  }

  /**
   * Give memory back, as an idle server does once no tool call has run for
   * `idleReleaseMs`: the catalog's caches (texts, listing, link graph) and SQLite's page
   * cache are dropped, idle search, grep and extraction workers stop (their isolates go),
   * remembered query vectors are forgotten and V8 collects its garbage. Everything comes
   * back on demand: the next call answers as before, a little slower.
   */
  releaseMemory(): void {
    if (this.#closed) return;
    this.#parts.catalog.releaseMemory();
    this.#parts.graphs.release();
    this.#names = new WeakMap();
    this.#parts.searchPool?.stopIdle();
    this.#parts.pool?.stopIdle();
    this.#grepRunner?.close();
    this.#grepRunner = undefined;
    this.#parts.vectors?.releaseMemory();
    lastResortCollection();
    // A worker's isolate goes when its Worker object is collected, after the thread ended:
    // a second collection a moment later lets V8 give those pages back too.
    const again = setTimeout(() => lastResortCollection(), 1000);
    Deno.unrefTimer(again);
  }

  /**
   * Close every part, after the run in progress and the embedding batch in progress: the
   * vector index and the embedder, the search and extraction workers, the grep worker, the
   * OCR worker, the catalog (with the keyword index on it) and the caches.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#idle.stop();
    await this.idle();
    await this.#parts.vectors?.close();
    await this.#ocr?.close();
    this.#parts.searchPool?.close();
    this.#parts.pool?.close();
    this.#grepRunner?.close();
    this.#grepRunner = undefined;
    await this.#parts.keyword.close?.();
    await this.#parts.store.close();
    // the own machine's catalog closes with the store; a writer on the primary is apart
    if (this.#writerApart) await this.#storeWriter?.close();
    this.#parts.catalog.close();
    this.#names = new WeakMap();
  }
}

/** How long a change the vault made is not taken for an outside change by the watcher. */
const OWN_CHANGE_MS = 3000;
