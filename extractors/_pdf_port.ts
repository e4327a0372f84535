/**
 * A lighter in-thread channel between pdf.js's API and its "worker" code than pdf.js's own
 * `LoopbackPort`, which runs every message (each chunk of every page's text content) through
 * `structuredClone`. Here plain objects, arrays and typed arrays are copied by a small
 * recursive clone (transferred buffers are handed over as they are); anything else (errors,
 * maps, deep or cyclic structures) still goes through `structuredClone`, so what each side
 * receives is the same as before, only cheaper to make. Text content chunks are not copied
 * at all (see {@link FastPort}).
 *
 * @module
 */

type Listener = (event: { data: unknown }) => void;

const MAX_DEPTH = 64;

/** A copy of `v` as `structuredClone` would make it, fast for plain data. */
export function fastClone(v: unknown, transfer?: Set<unknown>, depth = 0): unknown {
  if (typeof v !== "object" || v === null) return v;
  if (depth > MAX_DEPTH) return structuredClone(v);
  if (Array.isArray(v)) {
    const n = v.length;
    const out = new Array(n);
    for (let i = 0; i < n; i++) {
      const e = v[i];
      // Numbers and strings (most of a text chunk) are copied without a call.
      out[i] = typeof e !== "object" || e === null ? e : fastClone(e, transfer, depth + 1);
    }
    return out;
  }
  const proto = Object.getPrototypeOf(v);
  if (proto === Object.prototype || proto === null) {
    const out: Record<string, unknown> = {};
    const o = v as Record<string, unknown>;
    for (const k in o) {
      const e = o[k];
      out[k] = typeof e !== "object" || e === null ? e : fastClone(e, transfer, depth + 1);
    }
    return out;
  }
  if (v instanceof ArrayBuffer) return transfer?.has(v) ? v : v.slice(0);
  if (ArrayBuffer.isView(v) && !(v instanceof DataView)) {
    if (transfer?.has(v.buffer)) return v;
    return (v as unknown as { slice(): unknown }).slice();
  }
  return structuredClone(v);
}

/** pdf.js's stream message kinds (`StreamKind` of its message handler) that matter here. */
const CANCEL_COMPLETE = 2;
const CLOSE = 3;
const ENQUEUE = 4;
const ERROR = 5;

/** The fields of a pdf.js message handler message that say which stream it belongs to. */
interface StreamMessage {
  sourceName?: unknown;
  targetName?: unknown;
  action?: unknown;
  stream?: unknown;
  streamId?: unknown;
  chunk?: unknown;
}

const streamKey = (source: unknown, target: unknown, id: unknown) => `${source}|${target}|${id}`;

/**
 * One end of an in-thread message channel, shaped like a Worker for pdf.js.
 *
 * The chunks of a page's text content are handed over without a copy: the worker builds
 * each chunk's `items` and `styles` afresh, sends them once and starts new ones
 * (`enqueueChunk` of pdf.js's evaluator), and the API only reads them (`getTextContent`
 * appends the items to its own list), so nothing is shared that either side changes. Only
 * the chunk object itself is copied (pdf.js sends its own `textContent` object and then
 * swaps its fields). Everything else is copied as `structuredClone` would.
 */
export class FastPort {
  /** The other end. */
  peer?: FastPort;
  #listeners = new Map<Listener, () => void>();
  #deferred = Promise.resolve();
  #closed = false;
  /** Text content streams whose chunks this end sends as they are (`streamKey`). */
  #handOver = new Set<string>();

  /** The message as the other end receives it: a copy, or a text chunk's own parts. */
  #deliverable(obj: unknown, transfer?: unknown[]): unknown {
    if (typeof obj === "object" && obj !== null) {
      const m = obj as StreamMessage;
      if (m.action === "GetTextContent" && this.peer) {
        this.peer.#handOver.add(streamKey(m.targetName, m.sourceName, m.streamId));
      } else if (m.stream !== undefined && this.#handOver.size) {
        const key = streamKey(m.sourceName, m.targetName, m.streamId);
        if (this.#handOver.has(key)) {
          if (m.stream === ENQUEUE && typeof m.chunk === "object" && m.chunk !== null) {
            return { ...m, chunk: { ...m.chunk } };
          }
          if (m.stream === CLOSE || m.stream === ERROR || m.stream === CANCEL_COMPLETE) {
            this.#handOver.delete(key);
          }
        }
      }
    }
    return fastClone(obj, transfer?.length ? new Set(transfer) : undefined);
  }

  /** Deliver `obj` to the other end's listeners, after the current task. */
  postMessage(obj: unknown, transfer?: unknown[]): void {
    const peer = this.peer;
    if (!peer || this.#closed) return;
    const event = { data: this.#deliverable(obj, transfer) };
    this.#deferred.then(() => {
      for (const [listener] of peer.#listeners) listener.call(peer, event);
    });
  }

  /** Listen for messages (`options.signal` removes the listener). */
  addEventListener(
    _name: string,
    listener: Listener,
    options?: { signal?: AbortSignal } | null,
  ): void {
    const signal = options?.signal;
    if (signal?.aborted) return;
    const onAbort = () => this.removeEventListener(_name, listener);
    signal?.addEventListener("abort", onAbort);
    this.#listeners.set(listener, () => signal?.removeEventListener("abort", onAbort));
  }

  /** Stop listening. */
  removeEventListener(_name: string, listener: Listener): void {
    this.#listeners.get(listener)?.();
    this.#listeners.delete(listener);
  }

  /** Drop every listener of both ends. */
  terminate(): void {
    for (const p of [this, this.peer]) {
      if (!p) continue;
      p.#closed = true;
      for (const off of p.#listeners.values()) off();
      p.#listeners.clear();
    }
  }
}

/** Two connected ends: `[main, worker]`. */
export function fastPorts(): [FastPort, FastPort] {
  const a = new FastPort();
  const b = new FastPort();
  a.peer = b;
  b.peer = a;
  return [a, b];
}
