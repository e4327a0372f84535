/**
 * Giving memory back when a server sits idle. A server that answered questions keeps what
 * they built: decoded texts, the document listing and link graph, SQLite's page cache, the
 * grep and search workers' isolates, and a JavaScript heap grown to several times what is
 * live. An {@link IdleRelease} notes each piece of work; when none has run for `idleMs` it
 * calls `release` once (the shelf's `releaseMemory`: caches dropped, workers stopped, the
 * heap collected), and again only after more work. Its timer never keeps a process alive.
 *
 * @module
 */

/** Default time without work after which memory is given back: 60 s. */
export const IDLE_RELEASE_MS = 60_000;

/**
 * The idle time of a server from `SHELFMARK_IDLE_S` (seconds; `0` turns the release off),
 * else {@link IDLE_RELEASE_MS}.
 *
 * @param env the environment's value, if any
 * @returns milliseconds, or 0 for never
 * @throws {Error} for a value that is not a number of seconds
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(idleReleaseMs(undefined), 60_000);
 * assert.equal(idleReleaseMs("2.5"), 2500);
 * assert.equal(idleReleaseMs("0"), 0);
 * assert.throws(() => idleReleaseMs("soon"), /SHELFMARK_IDLE_S/);
 * ```
 */
export function idleReleaseMs(env: string | undefined): number {
  if (env === undefined || env === "") return IDLE_RELEASE_MS;
  const s = Number(env);
  if (!Number.isFinite(s) || s < 0) {
    throw new Error(`SHELFMARK_IDLE_S must be a number of seconds (0: never), not "${env}"`);
  }
  return Math.round(s * 1000);
}

/**
 * Calls `release` once no work has run for `idleMs`: wrap each piece of work in
 * {@link IdleRelease.during} (or mark its end with {@link IdleRelease.touch}).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const { promise: released, resolve } = Promise.withResolvers<void>();
 * const idle = new IdleRelease(10, resolve);
 * await idle.during(async () => {});
 * assert.equal(idle.releases, 0); // work just ended: the timer runs
 * const alive = setInterval(() => {}, 1000); // the idle timer alone keeps no program alive
 * await released; // 10 ms without work
 * clearInterval(alive);
 * assert.equal(idle.releases, 1);
 * idle.stop();
 * ```
 */
export class IdleRelease {
  readonly #ms: number;
  readonly #release: () => unknown;
  readonly #busy: () => boolean;
  #timer?: ReturnType<typeof setTimeout>;
  #working = 0;
  #stopped = false;
  /** Times `release` ran. */
  releases = 0;

  /**
   * @param idleMs time without work before `release` (0: never)
   * @param release gives memory back
   * @param busy true while other work (an index run, embedding) goes on: the release waits
   */
  constructor(idleMs: number, release: () => unknown, busy: () => boolean = () => false) {
    this.#ms = idleMs;
    this.#release = release;
    this.#busy = busy;
  }

  /** Run a piece of work; the idle period starts again when it ends. */
  async during<T>(work: () => Promise<T>): Promise<T> {
    this.#working++;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    try {
      return await work();
    } finally {
      this.#working--;
      this.touch();
    }
  }

  /** Work just ended: `release` runs after `idleMs` unless more work comes. */
  touch(): void {
    if (this.#stopped || this.#ms <= 0 || this.#working > 0) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#fire(), this.#ms);
    // An idle timer never keeps a CLI run or a test alive.
    Deno.unrefTimer(this.#timer);
  }

  async #fire(): Promise<void> {
    this.#timer = undefined;
    if (this.#stopped || this.#working > 0) return;
    if (this.#busy()) {
      this.touch(); // background work goes on: look again later
      return;
    }
    this.releases++;
    try {
      await this.#release();
    } catch {
      // giving memory back is best effort; the next work starts what it needs again
    }
  }

  /** Whether a release is waiting for the idle time to pass. */
  get armed(): boolean {
    return this.#timer !== undefined;
  }

  /** No more releases (the shelf closes). */
  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
