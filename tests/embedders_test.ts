/**
 * The Ollama and OpenAI-compatible embedders, and vectors end to end with a multilingual
 * model, against a local HTTP stand-in of those services (the real services cannot run on
 * these machines; see `embed_standin.ts`). LanceDB and the catalog are real.
 */
import { join } from "node:path";
import { Shelf } from "../shelf/shelf.ts";
import { OllamaEmbedder, OpenAIEmbedder } from "../embedders/remote.ts";
import { callTool } from "../server/dispatch.ts";
import { assert, assertEquals, assertMatch, assertRejects } from "./assert.ts";
import { startStandIn } from "./embed_standin.ts";
import { partsOf } from "../shelf/_parts.ts";

const opts = { sanitizeResources: false, sanitizeOps: false };

Deno.test(
  "OllamaEmbedder posts the model and texts to /api/embed and returns unit vectors",
  opts,
  async () => {
    const s = startStandIn();
    try {
      const e = new OllamaEmbedder({ model: "toy", url: s.url });
      const [a, b] = await e.embed(["a cat sleeping", "baking bread"]);
      assertEquals(s.requests[0]!.path, "/api/embed");
      assertEquals(s.requests[0]!.body.model, "toy");
      assertEquals(s.requests[0]!.body.input, ["a cat sleeping", "baking bread"]);
      assertEquals(e.dimensions, 64);
      const len = Math.hypot(...a!);
      assert(Math.abs(len - 1) < 1e-5, `not unit length: ${len}`);
      assert(b!.length === 64);
      assertEquals(e.model, "ollama:toy");
    } finally {
      await s.close();
    }
  },
);

Deno.test(
  "OpenAIEmbedder sends the key, keeps the order of data[].index, and names failures",
  opts,
  async () => {
    const s = startStandIn();
    try {
      const e = new OpenAIEmbedder({ model: "toy-3", url: `${s.url}/v1`, apiKey: "sk-test" });
      const [cat, bread] = await e.embed(["cat", "bread"]);
      assertEquals(s.requests[0]!.auth, "Bearer sk-test");
      assertEquals(s.requests[0]!.path, "/v1/embeddings");
      // The stand-in answers data[] in reverse order: the embedder must sort by index.
      const [expectCat] = await new OllamaEmbedder({ model: "toy", url: s.url }).embed(["cat"]);
      assertEquals(Array.from(cat!), Array.from(expectCat!));
      assert(Array.from(bread!).some((x, i) => x !== cat![i]));
      s.failWith = 404;
      const err = await assertRejects(() => e.embed(["cat"]));
      assertMatch(err.message, /answered 404/);
      await s.close();
      const down = await assertRejects(() => e.embed(["cat"]));
      assertMatch(down.message, /cannot reach/);
    } finally {
      await s.close().catch(() => {});
    }
  },
);

Deno.test(
  "vectors: pending means keyword mode, then a multilingual model finds a document in another language",
  opts,
  async () => {
    const s = startStandIn();
    const base = await Deno.makeTempDir({ prefix: "shelfmark-ml-" });
    const lib = join(base, "Notes");
    await Deno.mkdir(lib);
    await Deno.writeTextFile(join(lib, "cats.md"), "# Cats\n\nCats sleep most of the day.\n");
    await Deno.writeTextFile(join(lib, "brot.md"), "# Brot\n\nBrot backen am Morgen.\n");
    await Deno.writeTextFile(join(lib, "dogs.md"), "# Dogs\n\nDogs bark at night.\n");
    s.hold = true;
    const embedder = new OllamaEmbedder({ model: "toy-multilingual", url: s.url });
    const shelf = await Shelf.open({
      data: join(base, "data"),
      folders: [lib],
      log: () => {},
      embedder,
    });
    try {
      await shelf.index();
      // The stand-in holds the first batch: vectors are pending, search says keyword mode.
      const pending = await callTool(shelf, "search", { query: "cats", output_format: "json" });
      assertEquals(pending.json.mode_used, "keyword");
      assertMatch(String(pending.json.note), /vectors pending/);
      assertEquals((pending.json._meta as { index: { vectors: string } }).index.vectors, "pending");
      const md = await callTool(shelf, "search", { query: "cats" });
      assertMatch(md.text, /vectors=pending/);
      s.hold = false;
      await partsOf(shelf).vectors!.idle();
      const st = await callTool(shelf, "status", { output_format: "json" });
      const v = st.json.vectors as {
        state: string;
        model: string;
        multilingual: boolean;
        embedded: number;
      };
      assertEquals([v.state, v.model, v.multilingual, v.embedded], [
        "ready",
        "ollama:toy-multilingual",
        true,
        3,
      ]);
      // French "chat" (cat) and "pain" (bread): no shared word with the documents.
      const fr = await callTool(shelf, "search", {
        query: "chat",
        mode: "semantic",
        output_format: "json",
      });
      assertEquals(fr.json.mode_used, "semantic");
      assertEquals((fr.json.results as { path: string }[])[0]!.path, "Notes/cats.md");
      const kw = await callTool(shelf, "search", {
        query: "chat",
        mode: "keyword",
        output_format: "json",
      });
      assertEquals((kw.json.results as unknown[]).length, 0);
      const pain = await callTool(shelf, "search", { query: "pain", output_format: "json" });
      assertEquals(pain.json.mode_used, "hybrid");
      assertEquals((pain.json.results as { path: string }[])[0]!.path, "Notes/brot.md");
    } finally {
      await shelf.close();
      await s.close();
      await Deno.remove(base, { recursive: true });
    }
  },
);

Deno.test(
  "remote embedders add the task prefixes their models were trained with",
  opts,
  async () => {
    const s = startStandIn();
    try {
      const e = new OllamaEmbedder({ model: "nomic-embed-text", url: s.url });
      await e.embed(["a cat"], "query");
      await e.embed(["a cat"]);
      assertEquals(s.requests.map((r) => r.body.input[0]), [
        "search_query: a cat",
        "search_document: a cat",
      ]);
      await new OllamaEmbedder({ model: "toy", url: s.url }).embed(["a cat"], "query");
      assertEquals(s.requests[2]!.body.input[0], "a cat");
    } finally {
      await s.close();
    }
  },
);
