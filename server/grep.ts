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

  /** @param timeoutMs time limit of one job */
  constructor(timeoutMs = 2000) {
    this.timeoutMs = timeoutMs;
  }

  /** The worker, once it has loaded (its start-up does not count against a job's limit). */
  async #spawn(): Promise<Worker> {
    if (!this.#worker) {
      const w = new Worker(new URL("./grep_worker.ts", import.meta.url).href, { type: "module" });
      this.#worker = w;
      this.#ready = new Promise((resolve) => {
        w.onmessage = (e: MessageEvent<{ ready?: boolean }>) => {
          if (e.data.ready) resolve();
        };
      });
    }
    await this.#ready;
    return this.#worker;
  }

  /** Run a job; throws `PATTERN_TIMEOUT` when it runs past the limit. */
  run(job: Omit<GrepJob, "id">): Promise<GrepResult> {
    const result = this.#queue.then(() => this.#run({ ...job, id: this.#next++ }));
    this.#queue = result.catch(() => {});
    return result;
  }

  async #run(job: GrepJob): Promise<GrepResult> {
    const w = await this.#spawn();
    return await new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        w.terminate();
        this.#worker = undefined;
        this.#ready = undefined;
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
