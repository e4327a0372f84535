/**
 * glibc's malloc with a fixed mmap threshold. By default glibc raises the threshold each time
 * a large block mapped apart is freed, so later large buffers (a large file's text, its
 * answer's frames, SQLite's text conversions) come from the main arena, which keeps the
 * memory once they are freed: the index process grew 21 -> 69 MiB in steps and never gave it
 * back. A fixed threshold maps such buffers apart and returns them when freed. On the full
 * corpus (session 22, docs/benchmarks.md) the first index waited 47 s for memory instead of 89,
 * and took 252 s instead of 273, at 550 MiB peak PSS instead of 568.
 *
 * @module
 */

/** The threshold in bytes: allocations from this size up are mapped apart. */
export const MMAP_THRESHOLD = 128 * 1024;
/** `M_MMAP_THRESHOLD` of glibc's `mallopt`. */
const M_MMAP_THRESHOLD = -3;

/**
 * Fix this process's mmap threshold at {@link MMAP_THRESHOLD} (glibc's `mallopt`), unless the
 * user set `MALLOC_MMAP_THRESHOLD_` (glibc then read it at start). Only on Linux with glibc and
 * with permission to load libraries (`--allow-ffi`, part of `-A`); elsewhere nothing changes.
 * Returns whether the threshold was set.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const set = fixMmapThreshold();
 * assert.equal(typeof set, "boolean");
 * ```
 */
export function fixMmapThreshold(): boolean {
  if (Deno.build.os !== "linux") return false;
  try {
    if (Deno.permissions.querySync({ name: "ffi" }).state !== "granted") return false;
    if (ownThreshold() !== undefined) return false;
    const libc = Deno.dlopen("libc.so.6", {
      mallopt: { parameters: ["i32", "i32"], result: "i32" },
    });
    try {
      return libc.symbols.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD) === 1;
    } finally {
      libc.close();
    }
  } catch {
    // No glibc (musl): the default allocator's behaviour stays.
    return false;
  }
}

/**
 * The environment that gives a child process the same threshold (glibc reads it at start):
 * the user's own value if set, else {@link MMAP_THRESHOLD}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.match(mmapThresholdEnv().MALLOC_MMAP_THRESHOLD_, /^\d+$/);
 * ```
 */
export function mmapThresholdEnv(): { MALLOC_MMAP_THRESHOLD_: string } {
  return { MALLOC_MMAP_THRESHOLD_: ownThreshold() ?? String(MMAP_THRESHOLD) };
}

/**
 * The user's own `MALLOC_MMAP_THRESHOLD_`: its value, undefined when it is not set, null when
 * this process may not read the environment (then it may be set: leave glibc's alone).
 */
function ownThreshold(): string | undefined | null {
  try {
    return Deno.env.get("MALLOC_MMAP_THRESHOLD_");
  } catch {
    return null;
  }
}
