/**
 * The indexer: walks library roots, extracts what changed, builds outline and card,
 * and writes the catalog and the keyword index, in batches, yielding between files so a
 * server running it in the background keeps answering.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { extname } from "node:path";
import { rankCard } from "../core/card.ts";
import type { Catalog, FileState } from "../core/catalog.ts";
import type { StoredDoc } from "../core/catalog_docs.ts";
import { FINGERPRINT_VERSION } from "../core/fingerprint.ts";
import { HeapTrimmer } from "../core/heap.ts";
import { EXTRACTION_VERSIONS } from "../extractors/versions.ts";
import {
  docFields,
  documentFields,
  fieldsChanged,
  libraryFields,
  noteFields,
} from "../core/fields.ts";
import { rankOutline } from "../core/outline.ts";
import { measureDoc } from "../core/measure.ts";
import { docIdFor } from "../core/paths.ts";
import { readInside, UnsafeFileError } from "../core/read_inside.ts";
import { sniff } from "../core/sniff.ts";
import type { ExtractFn, IndexedDoc, Library, Skipped } from "../core/types.ts";
import { ExtractError, type ExtractInput } from "../core/extractor.ts";
import {
  type CatalogStore,
  HalfWrittenError,
  type KeywordIndex,
  type LibraryClaim,
  type VectorIndex,
} from "../stores/roles.ts";
import { type FoundFile, walkLibrary } from "../core/walk.ts";
import { MAX_BYTES_IN_FLIGHT, Room, type Weighed } from "./load.ts";
import { SchedLog } from "./sched_log.ts";
import { applyOcrPages, blankPages } from "./ocr.ts";
import { OCR_TYPES } from "../core/ocr_records.ts";

/** Progress of a run, reported after every file. */
export interface IndexProgress {
  /** Files looked at so far. */
  done: number;
  /** Files found under the roots. */
  total: number;
  /** Documents (re-)extracted in this run. */
  indexed: number;
  /** Files unchanged since the last run. */
  unchanged: number;
  /** Files skipped with a reason. */
  skipped: number;
  /** Documents removed because their file is gone. */
  removed: number;
  /**
   * Documents written to the keyword index again from their stored text, not extracted
   * (an index dropped for a new layout, or a crash between the catalog's write and the
   * index's); counted when there are some.
   */
  restored?: number;
  /** Display path of the file being worked on. */
  current?: string;
}

/** Warnings a card keeps at most, and characters of each. */
const MAX_WARNINGS = 20;
const MAX_WARNING_CHARS = 300;

/**
 * An extractor's warnings as a card keeps them: strings only, each cut at 300 characters,
 * at most 20 (then one saying how many more), or undefined when there are none.
 */
function keptWarnings(warnings: unknown): string[] | undefined {
  if (!Array.isArray(warnings)) return undefined;
  const all = warnings.filter((w): w is string => typeof w === "string" && w.trim() !== "");
  if (!all.length) return undefined;
  const kept = all.slice(0, MAX_WARNINGS).map((w) =>
    w.length > MAX_WARNING_CHARS ? `${w.slice(0, MAX_WARNING_CHARS - 1)}…` : w
  );
  if (all.length > MAX_WARNINGS) kept.push(`… ${all.length - MAX_WARNINGS} more warnings`);
  return kept;
}

/**
 * Extractions of one content that may be cut short or stopped by the time limit: the first
 * gets the per-file limit, each next one twice the one before (1, 2, 4, 8 times); after
 * the last the file is not extracted again until it changes (or an index run is `full`).
 */
export const MAX_ATTEMPTS = 4;

/**
 * The time allowance (a multiple of the per-file limit) of a file's extraction after
 * `attempts` that were cut short or stopped: 1, 2, 4, then 8 at most.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.deepEqual([0, 1, 2, 3, 4, 9].map(allowanceAfter), [1, 2, 4, 8, 8, 8]);
 * ```
 */
export function allowanceAfter(attempts: number): number {
  return 2 ** Math.min(Math.max(0, attempts), MAX_ATTEMPTS - 1);
}

/** What a file stopped by the hard time limit after `attempts` (this one counted) waits for. */
function stoppedNote(attempts: number): string {
  return attempts < MAX_ATTEMPTS
    ? `tried again by the next index run with ${allowanceAfter(attempts)}x the time`
    : "not tried again until the file changes";
}

/** Options of the indexer. */
export interface IndexerOptions {
  /** Files larger than this are skipped with reason `too_large` (default 64 MiB). */
  maxFileBytes?: number;
  /** Called after every file. */
  onProgress?: (p: IndexProgress) => void;
  /** Stop early. */
  signal?: AbortSignal;
  /** Libraries whose every file is extracted again, changed or not. */
  full?: ReadonlySet<string>;
}

/**
 * How long a file kept waiting for memory waits before the memory is measured again (unless
 * a file in flight is done first).
 */
const MEMORY_POLL_MS = 100;
/** Files larger than this are skipped with reason `too_large`, unless told otherwise. */
const MAX_FILE_BYTES = 64 * 1024 * 1024;
const BATCH_FILES = 100;
const BATCH_MS = 1500;
const YIELD_MS = 30;

function rfc3339(ms: number): string {
  return new Date(ms || 0).toISOString();
}

/**
 * The indexes the indexer keeps in step with the catalog: documents go to the keyword
 * index; the vector index only loses those removed (vectors are computed in the background
 * after a run, see `VectorSync`).
 */
export interface KeptIndexes {
  /** The keyword index. */
  keyword?: KeywordIndex;
  /** The vector index. */
  vectors?: VectorIndex;
  /**
   * The catalog's copy in a shared store (PostgreSQL), written beside the local catalog:
   * each document after its keyword write, each library claimed for a run.
   */
  catalog?: CatalogStore;
}

/** SQLite primary result codes of storage failures: I/O error, read-only, full, cannot open. */
const STORAGE_CODES = new Set([8, 10, 13, 14]);

/**
 * Whether an error is the machine's, not the file's: the database or disk is full, an I/O
 * error, no file descriptors left. Such a file is not recorded as skipped; the run stops
 * as failed and the file is tried again next run.
 */
export function isEnvironmentError(e: unknown): boolean {
  const err = e as { code?: unknown; errcode?: unknown; message?: unknown } | null;
  if (!err || typeof err !== "object") return false;
  if (err.code === "EMFILE" || err.code === "ENFILE" || err.code === "ENOSPC") return true;
  if (err.code === "INDEX_UNAVAILABLE") return true; // the keyword index's server (PostgreSQL)
  if (typeof err.errcode === "number" && STORAGE_CODES.has(err.errcode & 0xff)) return true;
  return /database or disk is full|disk I\/O error|no space left|too many open files/i.test(
    String(err.message ?? ""),
  );
}

/** How much an {@link Indexer} does at once: its throughput and memory settings. */
export interface IndexerOptions {
  /** Files extracted at once (default 1). */
  concurrency?: number;
  /**
   * Bytes of a file, weighted by type (`expectedLoad` of `shelf/load.ts`), over which it is
   * "large": two large files never run at once (default 4 MiB). Without `admit`, also the
   * budget of the weighted bytes extracted and stored at once: a large file runs alone.
   */
  maxBytesInFlight?: number;
  /**
   * Asked before a file starts beside others still in flight, with its weighted load and
   * whether it is large: false makes it wait (say, while the process tree's measured memory
   * leaves no room for it) and it is asked again shortly, or when a file is done. One file
   * always runs. With it, memory rather than weights decides (`Room` of `shelf/load.ts`):
   * files start beside each other up to `concurrency` while this says yes, whatever their
   * weighted bytes. The large files of every library are queued from the start of a run,
   * largest first: the next one starts whenever no other large file is in flight and this
   * says yes; while it waits for another large file smaller files go on, while it waits for
   * memory they wait too.
   */
  admit?: (load: number, large: boolean) => boolean;
  /** Called before a large file starts, with its weighted load. */
  beforeLarge?: (load: number) => void;
  /**
   * Called when a file waits because `admit` found no memory for it (at most once a second
   * of waiting), with its weighted load: say, to have idle extraction processes collect
   * the garbage a large PDF left, which otherwise kept every other file waiting.
   */
  makeRoom?: (load: number) => void;
  /**
   * Called when a run starts; the function it returns when the run ends (say, to keep idle
   * extraction workers for the whole run).
   */
  hold?: () => () => void;
  /** Heap growth, in MB, after which the garbage is collected between files (default 96). */
  heapGrowthMb?: number;
}

/** A walked library of a run: its files and those refused. */
type Plan = { lib: Library; files: FoundFile[]; refused: Skipped[] };
/** A library of a run: its files not yet started, and its removals once they are all done. */
type LibRun = { name: string; left: number; finish: () => Promise<void> };
/** A file of a run that needs work: not skipped before and unchanged since. */
type Task = {
  lib: Library;
  run: LibRun;
  f: FoundFile;
  file: Weighed;
  known?: FileState;
  full: boolean;
  stopped: number;
};

/** Builds and updates the index of a set of libraries. */
export class Indexer {
  #catalog: Catalog;
  #extract: ExtractFn;
  #indexes: KeptIndexes;
  #concurrency: number;
  #maxBytesInFlight: number;
  #admit?: (load: number, large: boolean) => boolean;
  #beforeLarge?: (load: number) => void;
  #makeRoom?: (load: number) => void;
  #hold?: () => () => void;
  /** Documents written to the catalog whose keyword index write has not finished. */
  #writing = 0;
  /**
   * Extractor output versions by `doc_type` (`extractors/versions.ts`): a type whose version
   * differs from the one the catalog was built with is extracted again.
   */
  versions: Readonly<Record<string, number>> = EXTRACTION_VERSIONS;
  /**
   * Collects the garbage between files once the heap has grown (V8 would otherwise let it
   * reach several times the live size: 250 MB of garbage beside 25 MB live).
   */
  readonly heap: HeapTrimmer;

  /**
   * @param catalog the catalog to write
   * @param extract extracts one file (a worker pool, or in process)
   * @param indexes the indexes kept in step with the catalog
   * @param opts how much it does at once
   */
  constructor(
    catalog: Catalog,
    extract: ExtractFn,
    indexes: KeptIndexes,
    opts: IndexerOptions = {},
  ) {
    this.#catalog = catalog;
    this.#extract = extract;
    this.#indexes = indexes;
    this.#concurrency = Math.max(1, opts.concurrency ?? 1);
    this.#maxBytesInFlight = opts.maxBytesInFlight ?? MAX_BYTES_IN_FLIGHT;
    this.#admit = opts.admit;
    this.#beforeLarge = opts.beforeLarge;
    this.#makeRoom = opts.makeRoom;
    this.#hold = opts.hold;
    this.heap = new HeapTrimmer({ growthMb: opts.heapGrowthMb ?? 96 });
  }

  /**
   * Documents of a type whose extractor output version changed are marked for extraction,
   * in this run's transaction with the new versions (a run stopped halfway resumes).
   */
  #reextractChanged(): void {
    const now = JSON.stringify(this.versions);
    const before = this.#catalog.getMeta("extraction_versions");
    if (before === now) return;
    if (before !== undefined) {
      const old = JSON.parse(before) as Record<string, number>;
      const types = new Set([...Object.keys(old), ...Object.keys(this.versions)]);
      for (const t of types) {
        if ((old[t] ?? 1) !== (this.versions[t] ?? 1)) this.#catalog.invalidateType(t);
      }
    } else if (this.#catalog.count() > 0) {
      // A catalog from before versions were kept: its PDFs predate version 2.
      for (const [t, v] of Object.entries(this.versions)) {
        if (v > 1) this.#catalog.invalidateType(t);
      }
    }
    this.#catalog.setMeta("extraction_versions", now);
  }

  /** Index every library: new and changed files are extracted, deleted ones removed. */
  async run(libraries: Library[], opts: IndexerOptions = {}): Promise<IndexProgress> {
    const p: IndexProgress = {
      done: 0,
      total: 0,
      indexed: 0,
      unchanged: 0,
      skipped: 0,
      removed: 0,
    };
    const plans: Plan[] = [];
    for (const lib of libraries) {
      const { files, refused } = await walkLibrary(lib);
      plans.push({ lib, files, refused });
      // Refused files (unreadable folders, links leading out) count as skipped, as status counts them.
      p.total += files.length + refused.length;
    }
    opts.onProgress?.({ ...p });
    const release = this.#hold?.();
    const claims: LibraryClaim[] = [];
    try {
      for (const { lib } of plans) {
        const claim = await this.#indexes.catalog?.claimLibrary?.(lib.name);
        if (claim) claims.push(claim);
      }
      return await this.#run(plans, p, opts);
    } finally {
      for (const claim of claims) await claim.release();
      release?.();
    }
  }

  /** The files of a run's walked libraries: extracted, stored, committed in batches. */
  async #run(
    plans: Plan[],
    p: IndexProgress,
    opts: IndexerOptions,
  ): Promise<IndexProgress> {
    let batchStart = Date.now();
    let lastYield = performance.now();
    let inBatch = 0;
    /** A storage failure of a file's task: it stops the run (see `isEnvironmentError`). */
    let fatal: { error: unknown } | undefined;
    let log: SchedLog | undefined;
    this.#catalog.begin();
    try {
      this.#reextractChanged();
      await this.#refingerprint(opts.signal);
      await this.#restoreKeywords(p, opts);
      await this.#restoreCatalog(opts);
      // One room and one set of files in flight for every library, and every file known
      // before the first starts: the large files of every library are queued from the start,
      // largest first, and one runs whenever none does, while the smaller files go on in walk
      // order in the other slots (longest processing time first: the large files of a library
      // walked late, run one after another at the end, left a core idle for minutes). A
      // library's removals wait until its files are done.
      const inflight = new Set<Promise<void>>();
      const room = new Room(this.#concurrency, this.#maxBytesInFlight, this.#admit);
      log = SchedLog.fromEnv(() => inflight.size);
      const { large, small, libs } = this.#plan(plans, p, room, opts);
      opts.onProgress?.({ ...p });
      let madeRoom = -Infinity;
      /**
       * Wait until a file in flight is done. A file kept waiting for memory first asks for
       * room (at most once a second), and waits at most {@link MEMORY_POLL_MS}: memory comes
       * back without a file finishing (processes collect their garbage), and a large PDF in
       * flight may take half a minute.
       */
      const wait = async (f: Weighed) => {
        const why = room.why(f);
        if (why === "memory" && performance.now() - madeRoom > 1000) {
          this.#makeRoom?.(f.load);
          madeRoom = performance.now();
        }
        const t0 = performance.now();
        let timer: ReturnType<typeof setTimeout> | undefined;
        const poll = why === "memory"
          ? [new Promise((r) => timer = setTimeout(r, MEMORY_POLL_MS))]
          : [];
        try {
          await Promise.race([...inflight, ...poll]);
        } finally {
          clearTimeout(timer);
        }
        if (why) log?.waited(why, performance.now() - t0);
      };
      const start = ({ lib, run, f, file, known, full, stopped }: Task) => {
        if (file.large) this.#beforeLarge?.(file.load);
        room.add(file);
        log?.started(file.large);
        run.left--;
        p.current = f.path;
        const task = this.indexFile(lib, f, known, opts.maxFileBytes, full, stopped).then(
          (outcome) => {
            p[outcome]++;
            if (outcome !== "unchanged") inBatch++;
            this.heap.trim();
            p.done++;
            opts.onProgress?.({ ...p });
          },
          (error) => {
            fatal ??= { error };
          },
        );
        inflight.add(task);
        task.finally(() => {
          inflight.delete(task);
          room.remove(file);
          log?.finished(file.large);
        }).catch(() => {});
      };
      let next = 0;
      while (!opts.signal?.aborted && !fatal) {
        // The large file next in line goes first, and before any smaller one unless another
        // large file is in flight: smaller files go beside that one and while this one waits
        // for it, but not while it waits for memory (they would keep the memory it waits for,
        // and it would wait for the last of them, at the end of the run). Where memory is
        // not measured a large file runs alone: the smaller ones wait until the large are done.
        const big = large[0];
        const why = big && room.why(big.file);
        const smallGoes = !big || why === "large";
        const task = big && why === undefined
          ? large.shift()
          : smallGoes && next < small.length && room.fits(small[next]!.file)
          ? small[next++]
          : undefined;
        if (!task) {
          const waiting = smallGoes && next < small.length ? small[next] : big;
          if (!waiting) break;
          await wait(waiting.file);
          continue;
        }
        start(task);
        if (inBatch >= BATCH_FILES || Date.now() - batchStart > BATCH_MS) {
          // Never a commit between a document's catalog rows and its keyword write (a
          // store of its own, PostgreSQL): killed then, the catalog would hold a document
          // the keyword index lacks, and the next run would take its file as unchanged.
          while (this.#writing && inflight.size) await Promise.race(inflight);
          // Document frequencies go in the same transaction as the documents they
          // count, and the next batch opens before yielding: files that finish during
          // the yield must not write outside a transaction, or a crash would leave
          // documents without their text, FTS row or term counts.
          this.#catalog.saveTermCounts();
          this.#catalog.commit();
          this.#catalog.begin();
          await new Promise((r) => setTimeout(r, 0));
          batchStart = Date.now();
          inBatch = 0;
        } else if (performance.now() - lastYield > YIELD_MS) {
          // Let a server running this in the background answer requests.
          await new Promise((r) => setTimeout(r, 0));
          lastYield = performance.now();
        }
      }
      await Promise.all(inflight);
      log?.close();
      if (fatal) throw fatal.error;
      // A library of which a stopped run left files unstarted removes nothing; those whose
      // files are all done remove what is gone now.
      for (const lib of libs) {
        if (lib.left === 0) await lib.finish();
        await this.shareRunFiles(lib.name);
      }
    } catch (e) {
      log?.close();
      // The batch is undone, its files are retried next run; the run fails with the cause
      // (a commit after SQLite gave up the transaction would only say "no transaction").
      this.#catalog.rollback();
      throw e;
    }
    try {
      this.#catalog.saveTermCounts();
    } finally {
      this.#catalog.commit();
    }
    if (p.indexed || p.removed || p.restored) await this.#indexes.keyword?.afterRun?.();
    p.current = undefined;
    opts.onProgress?.({ ...p });
    return p;
  }

  /**
   * The files of a run's walked libraries that need work, weighed, before the first starts:
   * the large ones, largest first, and the others in walk order. Refused files, and those
   * skipped before and unchanged since, are counted as skipped here; a file unchanged since
   * the last run (its size and time) or over the size limit weighs nothing, as nothing
   * extracts it. A library whose indexed front-matter fields changed is marked for
   * extraction again, in this run's transaction with the new field list, so a run stopped
   * halfway resumes with what is left instead of starting over.
   */
  #plan(
    plans: Plan[],
    p: IndexProgress,
    room: Room,
    opts: IndexerOptions,
  ): { large: Task[]; small: Task[]; libs: LibRun[] } {
    const large: Task[] = [];
    const small: Task[] = [];
    const libs: LibRun[] = [];
    const maxBytes = opts.maxFileBytes ?? MAX_FILE_BYTES;
    for (const { lib, files, refused } of plans) {
      if (fieldsChanged(this.#catalog, lib)) {
        this.#catalog.invalidate(lib.name);
        noteFields(this.#catalog, lib);
      }
      const known = this.#catalog.fileStates(lib.name);
      const full = opts.full?.has(lib.name) ?? false;
      const skippedBefore = this.#catalog.skippedStates(lib.name);
      const seen = new Set<string>();
      for (const r of refused) {
        this.#catalog.skip(lib.name, r, 0, 0);
        seen.add(r.path);
        p.skipped++;
        p.done++;
      }
      const run: LibRun = {
        name: lib.name,
        left: 0,
        finish: async () => {
          // Documents under a folder that could not be read this time are kept: only a
          // folder that is really gone (or excluded) removes its documents.
          const unread = refused.filter((r) => r.reason === "unreadable")
            .map((r) => r.path.replace(/\/$/, ""));
          const kept = (path: string) => unread.some((u) => path === u || path.startsWith(`${u}/`));
          for (const path of known.keys()) if (kept(path)) seen.add(path);
          for (const path of skippedBefore.keys()) if (kept(path)) seen.add(path);
          const gone = [...known.values()].filter((s) => !seen.has(s.path));
          if (gone.length) await this.removeDocs(gone.map((s) => s.doc_id));
          p.removed += gone.length;
          this.#catalog.unskip([...skippedBefore.keys()].filter((k) => !seen.has(k)));
        },
      };
      libs.push(run);
      for (const f of files) {
        seen.add(f.path);
        const prev = skippedBefore.get(f.path);
        const same = prev && prev.size === f.size && prev.mtime_ms === f.mtime_ms;
        // Stopped by the time limit (a catalog from before attempts were counted says 0):
        // tried again with more time, up to the last attempt.
        const stopped = same && prev.reason === "timeout" ? Math.max(1, prev.attempts) : 0;
        if (!full && same && !(stopped && stopped < MAX_ATTEMPTS)) {
          // Given up on; a partial document whose retries were stopped keeps its part,
          // a document as `status` counts it, not a skipped file.
          if (known.has(f.path)) p.unchanged++;
          else p.skipped++;
          p.done++;
          continue;
        }
        const state = known.get(f.path);
        const unchanged = !full && state?.size === f.size && state.mtime_ms === f.mtime_ms;
        const file = room.file(f.path, unchanged || f.size > maxBytes ? 0 : f.size);
        run.left++;
        (file.large ? large : small).push({ lib, run, f, file, known: state, full, stopped });
      }
    }
    large.sort((a, b) => b.file.load - a.file.load);
    return { large, small, libs };
  }

  /**
   * Fingerprints made by an older rule (`FINGERPRINT_VERSION`) are computed again from the
   * stored texts, in committed batches with a yield between them (a server keeps answering;
   * a stopped run starts over next time).
   */
  async #refingerprint(signal?: AbortSignal): Promise<void> {
    if (this.#catalog.getMeta("fingerprints") === FINGERPRINT_VERSION) return;
    const ids = this.#catalog.ids();
    for (let i = 0; i < ids.length; i += BATCH_FILES) {
      if (signal?.aborted) return;
      this.#catalog.refingerprint(ids.slice(i, i + BATCH_FILES));
      this.#catalog.commit();
      this.#catalog.begin();
      await new Promise((r) => setTimeout(r, 0));
    }
    this.#catalog.setMeta("fingerprints", FINGERPRINT_VERSION);
  }

  /**
   * Documents of the catalog that the keyword index does not hold are written to it again
   * from their stored texts (nothing is extracted).
   */
  async #restoreKeywords(p: IndexProgress, opts: IndexerOptions): Promise<void> {
    const keyword = this.#indexes.keyword;
    if (!keyword || keyword.ready().documents >= this.#catalog.count()) return;
    await this.#restore(
      (ids) => keyword.indexed(ids),
      async (_id, doc, text) => {
        const { card, outline, pages } = doc;
        await keyword.upsert([{ card, outline, pages, lines: text.split("\n") }]);
        p.restored = (p.restored ?? 0) + 1;
      },
      () => opts.onProgress?.({ ...p }),
      opts.signal,
    );
  }

  /**
   * Documents of the catalog that its copy in the store does not hold (a store that had
   * only the keyword index, a crash between the two writes) are written to it again from
   * the local catalog.
   */
  async #restoreCatalog(opts: IndexerOptions): Promise<void> {
    const store = this.#indexes.catalog;
    if (!store || await store.count() >= this.#catalog.count()) return;
    await this.#restore(
      (ids) => store.cards(ids),
      async (id, doc, text) => {
        const fields = docFields(this.#catalog.db, id);
        await store.put({ ...doc, fields }, text, this.#catalog.links(id));
      },
      () => {},
      opts.signal,
    );
  }

  /**
   * The catalog's documents that another store lacks, written to it one at a time (one
   * text in memory), in committed batches with a yield between them; a stopped run resumes
   * with those left.
   *
   * @param held which of a batch of ids the store holds
   * @param write writes one document to it
   * @param batchDone called after each batch
   * @param signal stops it between batches
   */
  async #restore(
    held: (ids: string[]) => Promise<{ has(id: string): boolean }>,
    write: (id: string, doc: StoredDoc, text: string) => Promise<void>,
    batchDone: () => void,
    signal?: AbortSignal,
  ): Promise<void> {
    const ids = this.#catalog.ids();
    for (let i = 0; i < ids.length; i += BATCH_FILES) {
      if (signal?.aborted) return;
      const batch = ids.slice(i, i + BATCH_FILES);
      const there = await held(batch);
      for (const id of batch) {
        const doc = there.has(id) ? undefined : this.#catalog.get(id);
        const text = doc && this.#catalog.text(id);
        if (doc && text !== undefined) await write(id, doc, text);
      }
      this.#catalog.commit();
      this.#catalog.begin();
      batchDone();
      await new Promise((r) => setTimeout(r, 0));
    }
  }

  /**
   * Keep a library's skipped files and documents extracted in part in a shared store, as
   * the catalog has them now (after a run, or a file indexed again): other machines'
   * servers show them in `status`. Nothing without such a store.
   */
  async shareRunFiles(library: string): Promise<void> {
    await this.#indexes.catalog?.saveRunFiles?.(
      library,
      this.#catalog.skipped(library),
      this.#catalog.partialDocuments(-1, library).first,
    );
  }

  /** Remove documents from the catalog, the indexes and the term statistics. */
  async removeDocs(ids: string[]): Promise<void> {
    // One transaction (or the batch's), so a crash leaves all of it or none of it.
    this.#catalog.begin();
    try {
      this.#catalog.uncountTerms(ids);
      this.#catalog.remove(ids);
      await this.#indexes.keyword?.remove(ids);
      await this.#indexes.catalog?.remove(ids);
      await this.#indexes.vectors?.remove(ids);
      this.#catalog.saveTermCounts();
    } finally {
      this.#catalog.commit();
    }
  }

  /**
   * Index one file; says whether it was indexed, unchanged or skipped. `stopped` counts the
   * extractions of the file (unchanged since) that the hard time limit stopped.
   */
  async indexFile(
    lib: Library,
    f: FoundFile,
    known: FileState | undefined,
    maxBytes = MAX_FILE_BYTES,
    force = false,
    stopped = 0,
  ): Promise<"indexed" | "unchanged" | "skipped"> {
    if (!force && known && known.size === f.size && known.mtime_ms === f.mtime_ms) {
      return "unchanged";
    }
    const skip = (reason: string, message: string, attempts = 0) => {
      const s = { path: f.path, reason, message };
      this.#catalog.skip(lib.name, s, f.size, f.mtime_ms, attempts);
      return "skipped" as const;
    };
    if (f.size > maxBytes) {
      return skip("too_large", `${f.size} bytes is over the limit of ${maxBytes}`);
    }
    let bytes: Uint8Array;
    try {
      bytes = await readInside(lib.root, f.abs);
    } catch (e) {
      if (isEnvironmentError(e)) throw e;
      if (e instanceof UnsafeFileError) return skip("outside_root", e.message);
      return skip("unreadable", (e as Error).message);
    }
    const hash = createHash("sha256").update(bytes).digest("hex");
    const docId = known?.doc_id ?? docIdFor(f.path);
    // A partial document is stored with mtime_ms -1 (see below): not done, extracted again.
    if (!force && known && known.hash === hash && known.mtime_ms !== -1) {
      this.#catalog.touch(docId, f.mtime_ms, rfc3339(f.mtime_ms));
      await this.#indexes.catalog?.touch(docId, f.mtime_ms, rfc3339(f.mtime_ms));
      return "unchanged";
    }
    // Extractions of this content cut short before (a partial document's card counts them;
    // one from before they were counted, 1) or stopped: this one gets more time.
    const partCard = known && known.hash === hash
      ? this.#catalog.cards([docId]).get(docId)
      : undefined;
    const attempts = Math.max(stopped, partCard?.partial ? partCard.attempts ?? 1 : 0);
    const sniffed = sniff(bytes);
    const input: ExtractInput = {
      path: f.path,
      extension: extname(f.path).toLowerCase(),
      bytes,
      mimeType: sniffed.mimeType,
      allowance: allowanceAfter(attempts),
    };
    try {
      const result = await this.#extract(input);
      if (!result) {
        return skip(
          "unsupported",
          sniffed.text
            ? `no extractor for "${input.extension}"`
            : `binary file (${sniffed.mimeType})`,
        );
      }
      const { extracted } = result;
      let measured = result.measured;
      // Scanned pages read by OCR before (shelf/ocr.ts) go back in place of their blank
      // lines, and the document is measured again with them.
      const ocr = extracted.pages ? this.#catalog.ocr.texts(docId, hash) : undefined;
      if (ocr?.size) {
        applyOcrPages(extracted, ocr);
        measured = undefined;
      }
      // Measured where it was extracted (`withMeasure`), else here: the same step.
      measured ??= measureDoc(f.path, extracted, result.extractor);
      const lines = extracted.lines;
      const outline = rankOutline(measured.outline, this.#catalog);
      const text = lines.join("\n");
      if (known) this.#catalog.uncountTerms([known.doc_id]);
      const { card, terms, distinct } = rankCard(measured.card, {
        doc_id: docId,
        path: f.path,
        library: lib.name,
        doc_type: result.extractor,
        modified_at: rfc3339(f.mtime_ms),
        size: f.size,
      }, this.#catalog);
      const warnings = keptWarnings(extracted.warnings);
      if (warnings) card.warnings = warnings;
      if (result.partial) {
        card.partial = result.partial;
        card.attempts = attempts + 1;
      }
      this.#writing++;
      try {
        this.#catalog.countTerms(distinct);
        const fields = documentFields(extracted.meta, libraryFields(lib));
        const stored: StoredDoc = {
          card,
          outline,
          pages: extracted.pages,
          terms,
          hash,
          // A partial document is marked for extraction, as `Catalog.invalidate` marks
          // one: the next run extracts it again with more time (and it keeps its warnings
          // if cut again), until the last attempt.
          mtime_ms: result.partial && attempts + 1 < MAX_ATTEMPTS ? -1 : f.mtime_ms,
          fields,
          prepared: measured.text,
          distinct,
        };
        this.#catalog.put(stored, text, extracted.links);
        // Blank pages of a PDF, and an image file's page, wait for OCR in the background
        // (shelf/ocr.ts).
        if (OCR_TYPES.includes(result.extractor) && extracted.pages) {
          this.#catalog.ocr.noteBlank(docId, hash, blankPages(lines, extracted.pages));
        }
        // A document that was partial has more text now, from the same file: its vector,
        // made from the part, is made again.
        if (known?.mtime_ms === -1 && known.hash === hash) this.#catalog.vectors.outdated(docId);
        const doc: IndexedDoc = { card, outline, lines, pages: extracted.pages };
        await this.#indexes.keyword?.upsert([doc]);
        // the same row, with its fields, links and text, to a PostgreSQL store's catalog
        await this.#indexes.catalog?.put(stored, text, extracted.links);
      } finally {
        this.#writing--;
      }
      return "indexed";
    } catch (e) {
      // Not the file's fault: the batch is rolled back (a keyword index's write that failed
      // halfway left part of the document in it) and the file retried next run.
      if (isEnvironmentError(e) || e instanceof HalfWrittenError) throw e;
      if (e instanceof ExtractError && e.reason === "timeout") {
        // Stopped by the hard limit: tried again with more time, up to the last attempt.
        // A partial document of this content is kept (its part loses nothing), given up on
        // with the file too (its mtime stored: not extracted again until the file changes).
        if (partCard?.partial && attempts + 1 >= MAX_ATTEMPTS) {
          this.#catalog.touch(docId, f.mtime_ms, rfc3339(f.mtime_ms));
        } else if (known && !partCard?.partial) await this.removeDocs([known.doc_id]);
        const at = attempts ? ` (${allowanceAfter(attempts)}x the time limit)` : "";
        return skip(e.reason, `${e.message}${at}; ${stoppedNote(attempts + 1)}`, attempts + 1);
      }
      if (known) await this.removeDocs([known.doc_id]);
      if (e instanceof ExtractError) return skip(e.reason, e.message);
      return skip("failed", (e as Error)?.message ?? String(e));
    }
  }
}
