/**
 * Worker side of the extraction pool: builds its own extractor registry (built-ins plus
 * plugins) and extracts one file per message.
 *
 * @module
 */
import { extractorsFrom } from "./plugins.ts";
import { ExtractorRegistry } from "./registry.ts";
import type { Extracted, ExtractInput } from "./types.ts";

/** A message to the worker. */
export type WorkerRequest =
  | { type: "init"; plugins: string[]; softMs: number }
  | { type: "extract"; id: number; input: ExtractInput };

/** A message from the worker. */
export type WorkerReply =
  | { id: 0; ready: true }
  | { id: number; extractor: string; extracted: Extracted }
  | { id: number; none: true }
  | { id: number; error: { reason: string; message: string } };

// deno-lint-ignore no-explicit-any
const scope = globalThis as any;
let registry: Promise<ExtractorRegistry> = Promise.resolve(new ExtractorRegistry());
let softMs = 50_000;

/**
 * A signal that reads as aborted once the soft deadline has passed, even inside a long
 * synchronous extractor loop (where timers never get to fire), so extractors that check
 * it between pieces can return what they have before the pool's hard limit kills them.
 */
function deadline(ms: number): AbortSignal {
  const end = Date.now() + ms;
  const signal = new AbortController().signal;
  Object.defineProperty(signal, "aborted", { get: () => Date.now() > end });
  return signal;
}

scope.onmessage = async (e: MessageEvent<WorkerRequest>) => {
  const msg = e.data;
  if (msg.type === "init") {
    softMs = msg.softMs;
    registry = extractorsFrom(msg.plugins, (m) => console.error(m)).then((list) => {
      const r = new ExtractorRegistry();
      for (const ex of list) r.register(ex);
      return r;
    });
    await registry;
    scope.postMessage({ id: 0, ready: true } satisfies WorkerReply);
    return;
  }
  const { id, input } = msg;
  try {
    const ex = (await registry).select(input);
    if (!ex) {
      scope.postMessage({ id, none: true } satisfies WorkerReply);
      return;
    }
    const extracted = await ex.extract({ ...input, signal: deadline(softMs) });
    scope.postMessage({ id, extractor: ex.name, extracted } satisfies WorkerReply);
  } catch (err) {
    const e = err as { name?: string; reason?: unknown; message?: string };
    const reason = e?.name === "ExtractError" && typeof e.reason === "string" ? e.reason : "failed";
    scope.postMessage(
      { id, error: { reason, message: String(e?.message ?? err) } } satisfies WorkerReply,
    );
  }
};
