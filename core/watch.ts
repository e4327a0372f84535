/**
 * Watching library roots: file events (through `Deno.watchFs`) mark the index stale and,
 * debounced, start an incremental run that picks up what was created, changed, renamed or
 * deleted.
 *
 * @module
 */
import type { Shelf } from "./shelf.ts";

/** Watch every library of a shelf until the signal aborts. */
export async function watchLibraries(
  shelf: Shelf,
  opts: { debounceMs?: number; signal?: AbortSignal } = {},
): Promise<void> {
  const roots = shelf.libraries.map((l) => l.root);
  if (!roots.length) return;
  const watcher = Deno.watchFs(roots, { recursive: true });
  opts.signal?.addEventListener("abort", () => watcher.close());
  let timer: ReturnType<typeof setTimeout> | undefined;
  for await (const ev of watcher) {
    if (ev.kind === "access" || ev.paths.every((p) => /(^|\/)\.[^/]*$/.test(p))) continue;
    shelf.markStale();
    clearTimeout(timer);
    timer = setTimeout(() => {
      shelf.index().catch(() => {});
    }, opts.debounceMs ?? 1000);
  }
  clearTimeout(timer);
}
