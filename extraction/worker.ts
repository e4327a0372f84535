/**
 * Worker-thread side of the extraction pool: builds its own extractor registry (built-ins
 * plus plugins) and extracts one file per request (see `host.ts`).
 *
 * @module
 */
import { extractionWorker } from "./host.ts";
import { serveThread } from "../core/worker_protocol.ts";

serveThread(extractionWorker("thread"));
