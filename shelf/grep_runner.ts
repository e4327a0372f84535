/**
 * Grep with a time limit: jobs run one at a time in a worker that is terminated (and
 * replaced) when a pattern runs too long, so the server never hangs.
 *
 * @module
 */
import { ToolError } from "../core/types.ts";
import { threadChannel, type WorkerError, WorkerPool } from "../core/workers.ts";
import type { GrepJob, GrepResult } from "./grep_worker.ts";

/** Runs grep jobs in a worker with a time limit. */
export class GrepRunner {
  readonly timeoutMs: number;
  /** Time a new worker gets to load. */
  readonly startMs: number;
  #pool: WorkerPool<GrepJob, GrepResult[]>;

  /**
   * The worker's start-up does not count against a job's limit. A worker that fails to
   * load, or does not load within `startMs`, is dropped and the job fails; the next job
   * starts a fresh worker, so one bad start never blocks grep.
   *
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
    this.#pool = new WorkerPool({
      name: "grep worker",
      connect: threadChannel(workerUrl),
      timeoutMs,
      startMs,
      error: (e) => grepError(e, timeoutMs),
    });
  }

  /** Run a job (one result per text); throws `PATTERN_TIMEOUT` when it runs past the limit. */
  run(job: GrepJob): Promise<GrepResult[]> {
    return this.#pool.request(job);
  }

  /** Stop the worker. */
  close(): void {
    this.#pool.close();
  }
}

/** The tool error of a grep job that did not finish. */
function grepError(e: WorkerError, timeoutMs: number): ToolError {
  switch (e.kind) {
    case "failed":
      return new ToolError("INVALID_PATTERN", e.detail);
    case "timeout":
      return new ToolError(
        "PATTERN_TIMEOUT",
        `Pattern ran longer than ${timeoutMs} ms and was stopped`,
        "Simplify the regular expression (avoid nested quantifiers such as (a+)+).",
      );
    case "start":
      return new ToolError(
        "INTERNAL",
        e.message,
        "Try again; the grep worker is restarted for the next request.",
      );
    default:
      // A worker that dies mid-job (out of memory on a huge text) fails the job at once.
      return new ToolError(
        "INTERNAL",
        e.message,
        "Try again with a simpler pattern or a smaller limit.",
      );
  }
}
