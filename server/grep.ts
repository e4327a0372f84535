/**
 * Grep with a time limit: jobs run one at a time in a worker that is terminated (and
 * replaced) when a pattern runs too long, so the server never hangs.
 *
 * @module
 */
import { ToolError } from "../core/types.ts";
import type { GrepJob, GrepResult } from "./grep_worker.ts";

/** Runs grep jobs in a worker with a time limit. */
export class GrepRunner {
  #worker?: Worker;
  #ready?: Promise<void>;
  #queue: Promise<unknown> = Promise.resolve();
  #next = 1;
  readonly timeoutMs: number;
  /** Time a new worker gets to load. */
  readonly startMs: number;

  #url: string;

  /**
   * @param timeoutMs time limit of one job
   * @param startMs time a new worker gets to load
   * @param workerUrl the worker module (tests replace it)
   */
  constructor(
    timeoutMs = 2000,
    startMs = 30_000,
    workerUrl = new URL("./grep_worker.ts", import.meta.url).href,
  ) {
    this.timeoutMs = timeoutMs;
    this.startMs = startMs;
    this.#url = workerUrl;
  }

  /**
   * The worker, once it has loaded (its start-up does not count against a job's limit).
   * A worker that fails to load, or does not load within `startMs`, is dropped and the
   * job fails; the next job starts a fresh worker, so one bad start never blocks grep.
   */
  async #spawn(): Promise<Worker> {
    if (!this.#worker) {
      const w = new Worker(this.#url, { type: "module" });
      this.#worker = w;
      this.#ready = new Promise<void>((resolve, reject) => {
        const fail = (why: string) => {
          clearTimeout(timer);
          this.#drop(w);
          reject(new Error(why));
        };
        const timer = setTimeout(() => fail("grep worker did not start"), this.startMs);
        w.onmessage = (e: MessageEvent<{ ready?: boolean }>) => {
          if (e.data.ready) {
            clearTimeout(timer);
            resolve();
          }
        };
        w.onerror = (e: ErrorEvent) => {
          e.preventDefault();
          fail(`grep worker failed to start: ${e.message}`);
        };
      });
    }
    await this.#ready;
    return this.#worker!;
  }

  #drop(w: Worker): void {
    w.terminate();
    if (this.#worker === w) {
      this.#worker = undefined;
      this.#ready = undefined;
    }
  }

  /** Run a job; throws `PATTERN_TIMEOUT` when it runs past the limit. */
  run(job: Omit<GrepJob, "id">): Promise<GrepResult> {
    const result = this.#queue.then(() => this.#run({ ...job, id: this.#next++ }));
    this.#queue = result.catch(() => {});
    return result;
  }

  async #run(job: GrepJob): Promise<GrepResult> {
    let w: Worker;
    try {
      w = await this.#spawn();
    } catch (e) {
      throw new ToolError(
        "INTERNAL",
        (e as Error).message,
        "Try again; the grep worker is restarted for the next request.",
      );
    }
    return await new Promise((resolve, reject) => {
      // A worker that dies mid-job (out of memory on a huge text) fails the job at once.
      w.onerror = (e: ErrorEvent) => {
        e.preventDefault();
        clearTimeout(timer);
        this.#drop(w);
        reject(
          new ToolError(
            "INTERNAL",
            `grep worker stopped: ${e.message}`,
            "Try again with a simpler pattern or a smaller limit.",
          ),
        );
      };
      const timer = setTimeout(() => {
        this.#drop(w);
        reject(
          new ToolError(
            "PATTERN_TIMEOUT",
            `Pattern ran longer than ${this.timeoutMs} ms and was stopped`,
            "Simplify the regular expression (avoid nested quantifiers such as (a+)+).",
          ),
        );
      }, this.timeoutMs);
      w.onmessage = (e: MessageEvent<GrepResult & { error?: string }>) => {
        if (e.data.id !== job.id) return;
        clearTimeout(timer);
        if (e.data.error) reject(new ToolError("INVALID_PATTERN", e.data.error));
        else resolve(e.data);
      };
      w.postMessage(job);
    });
  }

  /** Stop the worker. */
  close(): void {
    this.#worker?.terminate();
    this.#worker = undefined;
    this.#ready = undefined;
  }
}
