/**
 * Watching library roots: file events (through `Deno.watchFs`) mark the index stale and,
 * debounced, start an incremental run that picks up what was created, changed, renamed or
 * deleted. A folder that never stops changing (a log written every half second) still gets
 * a run at most `maxWaitMs` after its first unindexed change.
 *
 * @module
 */
import type { Shelf } from "./shelf.ts";

/** Watch every library of a shelf until the signal aborts. */
export async function watchLibraries(
  shelf: Shelf,
  opts: { debounceMs?: number; maxWaitMs?: number; signal?: AbortSignal } = {},
): Promise<void> {
  const roots = shelf.libraries.map((l) => l.root);
  if (!roots.length) return;
  const watcher = Deno.watchFs(roots, { recursive: true });
  opts.signal?.addEventListener("abort", () => watcher.close());
  let timer: ReturnType<typeof setTimeout> | undefined;
  let firstPending = 0;
  const run = () => {
    firstPending = 0;
    shelf.index().catch(() => {});
  };
  for await (const ev of watcher) {
    if (
      ev.kind === "access" ||
      // Hidden files, and the vault's own writes (indexed before they answered).
      ev.paths.every((p) => /(^|\/)\.[^/]*$/.test(p) || shelf.isOwnChange(p))
    ) continue;
    shelf.markStale();
    const now = Date.now();
    firstPending ||= now;
    clearTimeout(timer);
    const wait = Math.min(opts.debounceMs ?? 1000, firstPending + (opts.maxWaitMs ?? 5000) - now);
    timer = setTimeout(run, Math.max(0, wait));
  }
  clearTimeout(timer);
}
