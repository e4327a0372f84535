import { assert, assertEquals, assertMatch } from "../tests/assert.ts";
import { createEmbedder, OllamaEmbedder, OpenAIEmbedder, UseEmbedder } from "./mod.ts";

Deno.test("createEmbedder() reads names and objects, refuses unknown ones", () => {
  assert(createEmbedder() instanceof UseEmbedder);
  assert(createEmbedder("default") instanceof UseEmbedder);
  assertEquals(createEmbedder("none"), undefined);
  const o = createEmbedder({ name: "ollama:nomic-embed-text", url: "http://127.0.0.1:9" });
  assert(o instanceof OllamaEmbedder);
  assertEquals([o.model, o.multilingual], ["ollama:nomic-embed-text", false]);
  const m = createEmbedder("ollama:bge-m3")!;
  assert(m.multilingual, "bge-m3 is multilingual");
  const p = createEmbedder({ name: "openai:text-embedding-3-small", multilingual: true });
  assert(p instanceof OpenAIEmbedder);
  assert(p.multilingual);
  for (const bad of ["ollama:", "openai", "huggingface:x"]) {
    let msg = "";
    try {
      createEmbedder(bad);
    } catch (e) {
      msg = (e as Error).message;
    }
    assertMatch(msg, /Unknown embedder/);
  }
});
