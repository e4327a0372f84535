/**
 * Choose the embedder named by the configuration or `--embedder`: `default` (offline
 * Universal Sentence Encoder lite), `none`, `ollama:<model>`, `openai:<model>` or
 * `onnx:<folder>` (a model on disk, run by transformers.js).
 *
 * @module
 */
import type { EmbedderConfig } from "../core/config.ts";
import type { Embedder } from "../core/types.ts";
import { OnnxEmbedder } from "./onnx.ts";
import { OllamaEmbedder, OpenAIEmbedder } from "./remote.ts";
import { UseEmbedder } from "./use.ts";

/**
 * The embedder for a configuration value (`undefined` means `default`); `undefined` for `none`.
 *
 * @throws {Error} for a name that is not one of the forms above, or an `onnx:` folder that
 *   is not a model (the message names the folder and what is missing)
 */
export function createEmbedder(spec?: string | EmbedderConfig): Embedder | undefined {
  const cfg: EmbedderConfig = typeof spec === "string"
    ? { name: spec }
    : spec ?? { name: "default" };
  const [kind, ...rest] = cfg.name.split(":");
  const model = rest.join(":");
  switch (kind) {
    case "default":
      return new UseEmbedder();
    case "none":
      return undefined;
    case "ollama":
      if (!model) break;
      return new OllamaEmbedder({ model, url: cfg.url, multilingual: cfg.multilingual });
    case "openai":
      if (!model) break;
      return new OpenAIEmbedder({
        model,
        url: cfg.url ?? Deno.env.get("OPENAI_BASE_URL"),
        apiKey: Deno.env.get(cfg.api_key_env ?? "OPENAI_API_KEY"),
        multilingual: cfg.multilingual,
      });
    case "onnx":
      if (!model) break;
      return new OnnxEmbedder(model, cfg);
  }
  throw new Error(
    `Unknown embedder ${
      JSON.stringify(cfg.name)
    }: use default, none, ollama:<model>, openai:<model> or onnx:<folder>`,
  );
}
