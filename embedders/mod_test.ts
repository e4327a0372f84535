import { assert, assertEquals, assertMatch } from "../tests/assert.ts";
import { createEmbedder } from "./mod.ts";
import { OllamaEmbedder, OpenAIEmbedder } from "./remote.ts";
import { UseEmbedder } from "./use.ts";

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

Deno.test({
  name: "UseEmbedder (real model): queries jump ahead of document batches; order is kept",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const e = new UseEmbedder();
    try {
      const docs = Array.from(
        { length: 10 },
        (_, i) => `Document number ${i} about topic ${i * 7}.`,
      );
      const done: string[] = [];
      const d = e.embed(docs).then((v) => (done.push("documents"), v));
      const q = e.embed(["which topic is 21?"], "query").then((v) => (done.push("query"), v));
      const [dv, qv] = await Promise.all([d, q]);
      assertEquals(done, ["query", "documents"]);
      assertEquals([dv.length, qv.length, dv[0]!.length], [10, 1, 512]);
      const alone = await e.embed([docs[7]!]);
      const diff = Math.max(...alone[0]!.map((x, i) => Math.abs(x - dv[7]![i]!)));
      assert(diff < 1e-4, `document 7 came back as another row (max diff ${diff})`);
    } finally {
      e.close();
    }
  },
});
