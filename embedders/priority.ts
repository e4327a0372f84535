/**
 * Embedding is background work: the threads that compute vectors run at a lower CPU
 * priority (nice 10), so indexing, tool calls and the user's other programs go first on a
 * busy machine, and nothing is slower on an idle one.
 *
 * @module
 */
import os from "node:os";

/** The niceness embedding threads run at. */
export const EMBED_NICE = 10;

/**
 * Lower the CPU priority of the calling thread and of the threads it starts afterwards
 * (on Linux a thread's niceness is its own: the rest of the process keeps its priority).
 * Where priorities cannot be changed, nothing happens.
 *
 * @returns whether the priority was lowered
 * @example
 * ```ts
 * import { lowerPriority } from "./priority.ts";
 * import assert from "node:assert/strict";
 * // true on Linux, macOS and Windows
 * assert.equal(lowerPriority(), ["linux", "darwin", "windows"].includes(Deno.build.os));
 * ```
 */
export function lowerPriority(nice = EMBED_NICE): boolean {
  try {
    if (os.getPriority(0) < nice) os.setPriority(0, nice);
    return true;
  } catch {
    return false;
  }
}
