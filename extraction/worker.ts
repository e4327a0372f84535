/**
 * Worker-thread side of the extraction pool: builds its own extractor registry (built-ins
 * plus plugins) and extracts one file per message (see `extract_host.ts`).
 *
 * @module
 */
import { extractHost, type WorkerReply } from "./host.ts";

export type { WorkerReply, WorkerRequest } from "./host.ts";

// deno-lint-ignore no-explicit-any
const scope = globalThis as any;
const handle = extractHost((reply: WorkerReply) => scope.postMessage(reply));

scope.onmessage = (e: MessageEvent) => handle(e.data);
