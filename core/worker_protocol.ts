/**
 * The message protocol between a `WorkerPool` of `core/workers.ts` and its workers, and the
 * worker's side of it. The pool sends `{ id: 0, data: init }` first, then `{ id, data }`
 * for each request; the worker answers each with `{ id, data }` or `{ id, error }` (the ready
 * signal is the answer to id 0). {@link serveThread} (or {@link answer}, for other transports,
 * such as a child process) answers with a {@link WorkerBody}.
 *
 * Everything here is also exported by `core/workers.ts`. A worker module needs only this one.
 *
 * @module
 */

/**
 * The id of a message that asks an idle worker to collect its garbage now (no answer): the
 * extraction pool's `makeRoom` sends it to a process that holds much memory.
 */
export const COLLECT_ID = -1;

/** A message to a worker: id 0 starts it (`data` is the pool's `init`), any other a request. */
export interface WorkerMessage<T = unknown> {
  /** Request id, echoed in the answer; 0 for the start message. */
  id: number;
  /** The request, or the start data. */
  data: T;
}

/** An error as it crosses from a worker: its name, message and string fields. */
export interface ErrorInfo {
  /** The error's `name`, e.g. `ToolError`. */
  name: string;
  /** The error's `message`. */
  message: string;
  /** Its `code`, when a string (say, an ErrorCode). */
  code?: string;
  /** Its `reason`, when a string. */
  reason?: string;
  /** Its `hint`, when a string. */
  hint?: string;
}

/** A worker's answer to the message with the same id: a result, or the error thrown. */
export type WorkerAnswer<T = unknown> = { id: number; data: T } | { id: number; error: ErrorInfo };

/** What a worker does: `start` once with the pool's `init`, then `handle` each request. */
export interface WorkerBody<I, Q, R> {
  /** Get ready (load a model, open a database); the pool waits for it. */
  start?(init: I): void | Promise<void>;
  /** Answer one request. */
  handle(data: Q): R | Promise<R>;
  /** Buffers of a result to move rather than copy. */
  transfer?(result: R): Transferable[];
}

/** An error as plain data: name, message, and its string `code`, `reason` and `hint`. */
export function errorInfo(err: unknown): ErrorInfo {
  const e = err as Record<string, unknown> | undefined;
  const info: ErrorInfo = {
    name: typeof e?.name === "string" ? e.name : "Error",
    message: String(e?.message ?? err),
  };
  for (const k of ["code", "reason", "hint"] as const) {
    if (typeof e?.[k] === "string") info[k] = e[k] as string;
  }
  return info;
}

/**
 * The worker's side: a handler of the pool's messages that answers each through `post`.
 *
 * @param body what the worker does
 * @param post sends an answer to the pool
 */
export function answer<I, Q, R>(
  body: WorkerBody<I, Q, R>,
  post: (a: WorkerAnswer<R | undefined>, transfer: Transferable[]) => void,
): (msg: WorkerMessage) => Promise<void> {
  return async ({ id, data }) => {
    try {
      if (id === 0) {
        await body.start?.(data as I);
        post({ id, data: undefined }, []);
        return;
      }
      const r = await body.handle(data as Q);
      post({ id, data: r }, body.transfer?.(r) ?? []);
    } catch (err) {
      post({ id, error: errorInfo(err) }, []);
    }
  };
}

/**
 * In a worker thread, answer the pool's messages with `body`; elsewhere (the module imported
 * on the main thread, for its exports) do nothing.
 */
export function serveThread<I, Q, R>(body: WorkerBody<I, Q, R>): void {
  // deno-lint-ignore no-explicit-any
  const scope = globalThis as any;
  const inWorker = typeof scope.WorkerGlobalScope !== "undefined" &&
    scope instanceof scope.WorkerGlobalScope;
  if (!inWorker) return;
  const handle = answer(body, (a, transfer) => scope.postMessage(a, transfer));
  scope.onmessage = (e: MessageEvent<WorkerMessage>) => handle(e.data);
}
