/**
 * Embedders that call a local or remote service: Ollama (`POST /api/embed`) and any
 * OpenAI-compatible endpoint (`POST /embeddings`). Neither service runs on the machines
 * shelfmark is built on; their tests use a local HTTP stand-in that speaks the same API.
 *
 * @module
 */
import type { Embedder } from "../core/types.ts";
import { normalize } from "./normalize.ts";

/** Options of a remote embedder. */
export interface RemoteOptions {
  /** Model name as the service knows it. */
  model: string;
  /** Base URL of the service. */
  url?: string;
  /** API key (OpenAI-compatible only). */
  apiKey?: string;
  /** Whether the model is multilingual (for `status`; default: guessed from the name). */
  multilingual?: boolean;
  /** Time limit of one request, in ms (default 120 s). */
  timeoutMs?: number;
}

const MULTILINGUAL =
  /multilingual|bge-m3|e5|labse|paraphrase-multi|jina-embeddings-v3|qwen3?-embed|snowflake-arctic-embed2|granite-embedding.*278/i;

/** Models trained with task prefixes: `[name pattern, query prefix, document prefix]`. */
const PREFIXES: [RegExp, string, string][] = [
  [/nomic-embed/i, "search_query: ", "search_document: "],
  [/(^|[-/_])e5([-_]|$)/i, "query: ", "passage: "],
  [/mxbai-embed/i, "Represent this sentence for searching relevant passages: ", ""],
];

abstract class RemoteEmbedder implements Embedder {
  /** `<service>:<model>`, e.g. `ollama:nomic-embed-text`. */
  readonly model: string;
  dimensions = 0;
  readonly multilingual: boolean;
  readonly maxChars = 6000;
  protected readonly opts: RemoteOptions;

  constructor(service: string, opts: RemoteOptions) {
    this.model = `${service}:${opts.model}`;
    this.opts = opts;
    this.multilingual = opts.multilingual ?? MULTILINGUAL.test(opts.model);
  }

  /** Where to POST, the JSON body, and extra headers. */
  protected abstract request(
    texts: string[],
  ): { url: string; body: unknown; headers?: Record<string, string> };
  protected abstract vectors(body: unknown): number[][] | undefined;

  async embed(texts: string[], kind: "query" | "document" = "document"): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const prefix = PREFIXES.find(([re]) => re.test(this.opts.model))?.[kind === "query" ? 1 : 2] ??
      "";
    const { url, body: payload, headers } = this.request(texts.map((t) => prefix + t));
    let res: Response;
    try {
      res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify(payload),
        signal: AbortSignal.timeout(this.opts.timeoutMs ?? 120_000),
      });
    } catch (e) {
      throw new Error(`${this.model}: cannot reach ${url} (${(e as Error).message})`);
    }
    const text = await res.text();
    if (!res.ok) {
      throw new Error(`${this.model}: ${url} answered ${res.status}: ${text.slice(0, 200)}`);
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new Error(`${this.model}: ${url} did not answer JSON`);
    }
    const rows = this.vectors(body);
    if (
      !rows || rows.length !== texts.length ||
      rows.some((r) => !Array.isArray(r) || r.length === 0 || r.length !== rows[0]!.length)
    ) {
      throw new Error(`${this.model}: ${url} answered no vectors or the wrong number of them`);
    }
    this.dimensions = rows[0]!.length;
    return rows.map((r) => normalize(Float32Array.from(r)));
  }
}

/** Ollama's embedding API (`/api/embed`, default `http://127.0.0.1:11434`). */
export class OllamaEmbedder extends RemoteEmbedder {
  /** @param opts model, URL */
  constructor(opts: RemoteOptions) {
    super("ollama", opts);
  }

  protected request(texts: string[]) {
    const base = (this.opts.url ?? Deno.env.get("OLLAMA_HOST") ?? "http://127.0.0.1:11434")
      .replace(/\/+$/, "");
    return {
      url: `${/^https?:\/\//.test(base) ? base : `http://${base}`}/api/embed`,
      body: { model: this.opts.model, input: texts, truncate: true },
    };
  }

  protected vectors(body: unknown): number[][] | undefined {
    return (body as { embeddings?: number[][] })?.embeddings;
  }
}

/** An OpenAI-compatible embeddings API (`<url>/embeddings`, default `https://api.openai.com/v1`). */
export class OpenAIEmbedder extends RemoteEmbedder {
  /** @param opts model, URL, API key */
  constructor(opts: RemoteOptions) {
    super("openai", opts);
  }

  protected request(texts: string[]) {
    const base = (this.opts.url ?? "https://api.openai.com/v1").replace(/\/+$/, "");
    return {
      url: `${base}/embeddings`,
      body: { model: this.opts.model, input: texts },
      headers: this.opts.apiKey ? { authorization: `Bearer ${this.opts.apiKey}` } : undefined,
    };
  }

  protected vectors(body: unknown): number[][] | undefined {
    const data = (body as { data?: { embedding: number[]; index?: number }[] })?.data;
    if (!Array.isArray(data)) return undefined;
    return [...data].sort((a, b) => (a.index ?? 0) - (b.index ?? 0)).map((d) => d.embedding);
  }
}
