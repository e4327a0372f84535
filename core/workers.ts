/**
 * One harness for the pools of workers (extraction, keyword search, grep, embedding): start a
 * worker and wait until it is ready, send requests with ids and match the replies, a time
 * limit per request, a replacement after a crash, the least busy of N workers, close.
 *
 * Both ends speak one shape of message. The pool sends `{ id: 0, data: init }` first, then
 * `{ id, data }` for each request; the worker answers each with `{ id, data }` or
 * `{ id, error }` (the ready signal is the answer to id 0). {@link serveThread} (or
 * {@link answer}, for other transports) is the worker's side; they and the message types live
 * in `core/worker_protocol.ts`.
 *
 * A worker is reached through a {@link Channel}: a worker thread ({@link threadChannel}), or
 * anything else that can post a message and be terminated, such as a child process.
 *
 * @module
 */

import type { ErrorInfo, WorkerAnswer, WorkerMessage } from "./worker_protocol.ts";

/**
 * Why a request failed: `failed` (the worker threw; see `remote`), `timeout` (past the time
 * limit; the worker was stopped), `start` (no worker could start), `crashed` (the worker died
 * with the request), `closed` (the pool was closed), or a channel's own reason (a child
 * process reports `out_of_memory`, `too_large`).
 */
export type WorkerFailure = "failed" | "timeout" | "start" | "crashed" | "closed" | string;

/** A request that did not get its result; pools map it to their own errors. */
export class WorkerError extends Error {
  /** Why (see {@link WorkerFailure}). */
  readonly kind: WorkerFailure;
  /** What happened, without the worker's name (the worker's own message for `failed`). */
  readonly detail: string;
  /** With `failed`: the error the worker threw. */
  readonly remote?: ErrorInfo;

  /**
   * @param kind why the request failed
   * @param message the whole sentence
   * @param detail what happened, without the worker's name
   * @param remote the worker's error, for `failed`
   */
  constructor(kind: WorkerFailure, message: string, detail = message, remote?: ErrorInfo) {
    super(message);
    this.name = "WorkerError";
    this.kind = kind;
    this.detail = detail;
    this.remote = remote;
  }
}

/** One worker as the pool sees it. */
export interface Channel {
  /** Send a message; `transfer` lists buffers to move rather than copy (threads only). */
  post(msg: WorkerMessage, transfer: Transferable[]): void;
  /** Stop the worker at once (no `exit` event follows). */
  terminate(): void;
}

/** What a channel reports to its pool. */
export interface ChannelEvents {
  /** An answer from the worker. */
  message(msg: unknown): void;
  /** The worker died: why (`crashed`, or the channel's own reason) and what happened. */
  exit(kind: string, detail: string): void;
}

/** Starts one worker. */
export type Connect = (events: ChannelEvents) => Channel;

/**
 * Workers as threads running the module at `url`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * // A worker module that never answers: the pool gives up on it after startMs.
 * const url = new URL(`file://${await Deno.makeTempDir()}/silent_worker.ts`);
 * await Deno.writeTextFile(url, "");
 * const pool = new WorkerPool({ name: "silent", connect: threadChannel(url), startMs: 200 });
 * await assert.rejects(pool.request("hello"), { name: "WorkerError" });
 * pool.close();
 * ```
 */
export function threadChannel(url: string | URL): Connect {
  return (events) => {
    const w = new Worker(url, { type: "module" });
    w.onmessage = (e: MessageEvent) => events.message(e.data);
    w.onerror = (e: ErrorEvent) => {
      e.preventDefault();
      events.exit("crashed", e.message);
    };
    return { post: (m, transfer) => w.postMessage(m, transfer), terminate: () => w.terminate() };
  };
}

/** Options of a {@link WorkerPool}. */
export interface WorkerPoolOptions<I> {
  /** Name used in messages, e.g. `grep worker`. */
  name: string;
  /** Starts one worker. */
  connect: Connect;
  /** Workers at most (default 1). */
  size?: number;
  /** Requests one worker holds at a time (default 1); more wait in the pool. */
  perWorker?: number;
  /**
   * Start every worker as soon as work comes (default: one more at a time, while work
   * waits and no worker is starting).
   */
  startAll?: boolean;
  /** Data of the start message. */
  init?: I;
  /** Time a worker gets to become ready (default: no limit). */
  startMs?: number;
  /** Time limit of one request (default: no limit); past it the worker is stopped. */
  timeoutMs?: number;
  /** Workers that fail to start in a row before the waiting requests fail (default 1). */
  startAttempts?: number;
  /** What a failed request throws (default: the {@link WorkerError} itself). */
  error?: (e: WorkerError) => unknown;
  /**
   * Stop a worker that has had no request for this long (default: keep it until `close`),
   * so an idle pool holds no memory; the next request starts another.
   */
  idleMs?: number;
  /**
   * Asked when a worker has finished its last request: true stops it (say, it has grown
   * too large); the next request starts another.
   */
  retire?: (ch: Channel) => boolean;
}

interface Pending {
  id: number;
  data: unknown;
  transfer: Transferable[];
  ok: (r: never) => void;
  fail: (e: unknown) => void;
  timer?: ReturnType<typeof setTimeout>;
  /** This request's own time limit, in place of the pool's. */
  timeoutMs?: number;
}

interface Slot {
  ch: Channel;
  ready: boolean;
  /** Settles when the worker is ready or fails to start. */
  started: Promise<void>;
  startedOk: () => void;
  startFailed: (e: WorkerError) => void;
  timer?: ReturnType<typeof setTimeout>;
  /** Stops the worker when it stays idle (see `idleMs`). */
  idle?: ReturnType<typeof setTimeout>;
  pending: Map<number, Pending>;
}

/**
 * Workers behind one call: `request(data)` runs on the least busy ready worker and resolves
 * with its answer. A worker that crashes or runs past the time limit is stopped and replaced
 * when work waits; requests it held fail with a {@link WorkerError}, never hang. With
 * `idleMs`, workers leave when there is nothing to do and come back with the next request.
 *
 * @example
 * ```ts
 * import { threadChannel, WorkerPool } from "./workers.ts";
 * import assert from "node:assert/strict";
 *
 * // The worker: a module that answers requests with serveThread().
 * const protocol = new URL("./worker_protocol.ts", import.meta.url).href;
 * const url = new URL(`file://${await Deno.makeTempDir()}/length_worker.ts`);
 * await Deno.writeTextFile(
 *   url,
 *   `import { serveThread } from "${protocol}";\n` +
 *     `serveThread({ handle: (text: string) => text.length });\n`,
 * );
 * const pool = new WorkerPool<string, number>({ name: "w", connect: threadChannel(url) });
 * assert.equal(await pool.request("text"), 4);
 * pool.close();
 * ```
 */
export class WorkerPool<Q, R, I = unknown> {
  readonly #o: WorkerPoolOptions<I>;
  readonly #size: number;
  readonly #perWorker: number;
  #slots: Slot[] = [];
  #queue: Pending[] = [];
  #next = 1;
  /** Workers that failed to start, in a row. */
  #startFailures = 0;
  /** Holds taken by `hold()` and not yet released: idle workers are not stopped meanwhile. */
  #holds = 0;

  /** @param opts how to start a worker, how many, and their limits */
  constructor(opts: WorkerPoolOptions<I>) {
    this.#o = opts;
    this.#size = Math.max(1, opts.size ?? 1);
    this.#perWorker = Math.max(1, opts.perWorker ?? 1);
  }

  /**
   * Run a request on a worker; `transfer` lists buffers of `data` to move to a thread;
   * `timeoutMs` is this request's time limit in place of the pool's.
   */
  request(data: Q, transfer: Transferable[] = [], timeoutMs?: number): Promise<R> {
    return new Promise<R>((ok, fail) => {
      const id = this.#next++;
      this.#queue.push({ id, data, transfer, ok: ok as (r: never) => void, fail, timeoutMs });
      this.#pump();
    });
  }

  /** Start every worker and wait until all are ready; rejects when one fails to start. */
  async start(): Promise<void> {
    const started = this.#slots.map((s) => s.started);
    while (this.#slots.length < this.#size) {
      const slot = this.#spawn();
      started.push(slot.started);
      if (!this.#slots.includes(slot)) break;
    }
    await Promise.all(started);
  }

  /** Workers running now (started or starting). */
  get workers(): number {
    return this.#slots.length;
  }

  /**
   * Stop the ready workers that hold no request (say, to give their memory back while one
   * large request runs), but the first `keep` of them (the next request goes to the first);
   * a later request starts another. Returns how many stopped.
   */
  stopIdle(keep = 0): number {
    let n = 0;
    for (const s of [...this.#slots]) {
      if (!s.ready || s.pending.size > 0) continue;
      if (keep > 0) keep--;
      else if (this.#stop(s)) n++;
    }
    return n;
  }

  /** The channels of the ready workers that hold no request now. */
  idle(): Channel[] {
    return this.#slots.filter((s) => s.ready && s.pending.size === 0).map((s) => s.ch);
  }

  /**
   * Keep idle workers (no `idleMs` stop) until the returned function is called, say while a
   * run sends requests in bursts: a worker stopped between them is started again moments
   * later. `stopIdle` still stops them. Released, idle workers wait `idleMs` again.
   */
  hold(): () => void {
    this.#holds++;
    for (const s of this.#slots) clearTimeout(s.idle);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      if (--this.#holds === 0) { for (const s of [...this.#slots]) if (s.ready) this.#rest(s); }
    };
  }

  /** Stop every worker; requests in flight or waiting fail with `closed`. */
  close(): void {
    const slots = this.#slots;
    this.#slots = [];
    for (const s of slots) {
      clearTimeout(s.timer);
      clearTimeout(s.idle);
      s.ch.terminate();
      s.startFailed(new WorkerError("closed", `${this.#o.name} closed`));
      this.#failAll(s.pending.values(), "closed", `${this.#o.name} closed`);
    }
    this.#failAll(this.#queue.splice(0), "closed", `${this.#o.name} closed`);
    this.#startFailures = 0;
  }

  #reject(p: Pending, e: WorkerError): void {
    clearTimeout(p.timer);
    p.fail(this.#o.error ? this.#o.error(e) : e);
  }

  #failAll(ps: Iterable<Pending>, kind: WorkerFailure, message: string, detail?: string): void {
    for (const p of ps) this.#reject(p, new WorkerError(kind, message, detail));
  }

  /**
   * Start a worker. One that cannot even be started fails the waiting requests and is left
   * out of the pool (its `started` rejects).
   */
  #spawn(): Slot {
    const slot = { ready: false, pending: new Map() } as Slot;
    slot.started = new Promise<void>((ok, fail) => {
      slot.startedOk = ok;
      slot.startFailed = fail;
    });
    slot.started.catch(() => {});
    try {
      slot.ch = this.#o.connect({
        message: (m) => this.#answer(slot, m as WorkerAnswer),
        exit: (kind, detail) => this.#lost(slot, kind, detail),
      });
    } catch (e) {
      // Nothing to start: the waiting requests fail now.
      const detail = String((e as Error)?.message ?? e);
      const err = new WorkerError("start", `${this.#o.name} failed to start: ${detail}`, detail);
      slot.startFailed(err);
      for (const p of this.#queue.splice(0)) this.#reject(p, err);
      return slot;
    }
    this.#slots.push(slot);
    const ms = this.#o.startMs;
    if (ms !== undefined) {
      slot.timer = setTimeout(() => this.#lost(slot, "start", `did not start within ${ms} ms`), ms);
    }
    slot.ch.post({ id: 0, data: this.#o.init }, []);
    return slot;
  }

  #pump(): void {
    while (this.#queue.length) {
      if (this.#o.startAll) {
        while (this.#slots.length < this.#size && this.#queue.length) this.#spawn();
      }
      const slot = this.#leastBusy();
      if (!slot) {
        // Work waits and no ready worker has room: one more worker (one starting at a
        // time), which takes requests once ready.
        const starting = this.#slots.some((s) => !s.ready);
        if (!this.#o.startAll && !starting && this.#slots.length < this.#size) this.#spawn();
        return;
      }
      if (!this.#queue.length) return;
      const p = this.#queue.shift()!;
      clearTimeout(slot.idle);
      slot.pending.set(p.id, p);
      const ms = p.timeoutMs ?? this.#o.timeoutMs;
      if (ms !== undefined) p.timer = setTimeout(() => this.#timeout(slot, p, ms), ms);
      slot.ch.post({ id: p.id, data: p.data }, p.transfer);
    }
  }

  /** The ready worker holding the fewest requests, if one has room for another. */
  #leastBusy(): Slot | undefined {
    let best: Slot | undefined;
    for (const s of this.#slots) {
      if (!s.ready || s.pending.size >= this.#perWorker) continue;
      if (!best || s.pending.size < best.pending.size) best = s;
    }
    return best;
  }

  #answer(slot: Slot, a: WorkerAnswer): void {
    if (!this.#slots.includes(slot)) return;
    if (a.id === 0) {
      if (slot.ready) return;
      if ("error" in a) return this.#lost(slot, "failed", a.error.message);
      clearTimeout(slot.timer);
      slot.ready = true;
      this.#startFailures = 0;
      slot.startedOk();
      this.#pump();
      return this.#rest(slot);
    }
    const p = slot.pending.get(a.id);
    if (!p) return;
    slot.pending.delete(a.id);
    clearTimeout(p.timer);
    if ("error" in a) {
      this.#reject(p, new WorkerError("failed", a.error.message, a.error.message, a.error));
    } else p.ok(a.data as never);
    if (slot.pending.size === 0 && this.#o.retire?.(slot.ch)) this.#stop(slot);
    this.#pump();
    this.#rest(slot);
  }

  /** A worker left without requests: stop it after `idleMs` unless work comes first. */
  #rest(slot: Slot): void {
    const ms = this.#o.idleMs;
    if (ms === undefined || this.#holds > 0 || slot.pending.size > 0) return;
    if (!this.#slots.includes(slot)) return;
    clearTimeout(slot.idle);
    slot.idle = setTimeout(() => {
      if (slot.pending.size === 0) this.#stop(slot);
    }, ms);
    // An idle worker never keeps the program alive.
    if (typeof Deno !== "undefined") Deno.unrefTimer(slot.idle as unknown as number);
  }

  /** Stop a worker (idle, retired or lost); false when it was stopped already. */
  #stop(slot: Slot): boolean {
    const i = this.#slots.indexOf(slot);
    if (i < 0) return false;
    this.#slots.splice(i, 1);
    clearTimeout(slot.timer);
    clearTimeout(slot.idle);
    slot.ch.terminate();
    return true;
  }

  #timeout(slot: Slot, p: Pending, ms: number): void {
    slot.pending.delete(p.id);
    this.#reject(p, new WorkerError("timeout", `${this.#o.name} ran longer than ${ms} ms`));
    this.#lost(slot, "crashed", "another request ran past its time limit");
  }

  /** The worker is dead or must go: stop it, fail what it held, replace it if work waits. */
  #lost(slot: Slot, kind: string, detail: string): void {
    if (!this.#stop(slot)) return;
    const name = this.#o.name;
    this.#failAll(slot.pending.values(), kind, `${name} stopped: ${detail}`, detail);
    if (!slot.ready) {
      const message = kind === "start" ? `${name} ${detail}` : `${name} failed to start: ${detail}`;
      const err = new WorkerError("start", message, detail);
      slot.startFailed(err);
      if (++this.#startFailures >= (this.#o.startAttempts ?? 1)) {
        // Workers that cannot even start would be replaced forever: fail what waits.
        this.#startFailures = 0;
        for (const p of this.#queue.splice(0)) this.#reject(p, err);
      }
    }
    this.#pump();
  }
}
