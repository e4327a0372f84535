/**
 * Hybrid search that does no harm: the rules of `hybrid.ts` on their own, then end to end
 * on a real catalog and LanceDB table. The end-to-end part uses the toy embedder of
 * `tests/embed_standin.ts` in process (a bag of concepts where "chat" = "cat"): the rules
 * must be checked against vectors that are known to disagree with the keywords, which the
 * real default model cannot be made to do on purpose. `tests/vectors_test.ts` runs hybrid
 * search with the real model.
 */
import { join } from "node:path";
import { assert, assertEquals } from "../tests/assert.ts";
import { toyVector } from "../tests/embed_standin.ts";
import { openTestShelf } from "../tests/shelf_helper.ts";
import { callTool } from "../server/dispatch.ts";
import { parseQuery } from "./query.ts";
import type { Embedder, Hit } from "../core/types.ts";
import { guardFusion, keywordIsWeak, requiredWords } from "./hybrid.ts";
import { partsOf } from "../shelf/_parts.ts";

const h = (doc_id: string, score = 0.9): Hit => ({ doc_id, score, raw: -10, retriever: "x" });
const ids = (hits: Hit[]) => hits.map((x) => x.doc_id);

Deno.test("guardFusion: a confident keyword answer keeps its first hit; vector-only hits come after", () => {
  const keyword = [h("a"), h("b"), h("c")];
  const fused = [h("v"), h("c"), h("a"), h("b")];
  assertEquals(ids(guardFusion(fused, keyword, new Map())), ["a", "c", "b", "v"]);
});

Deno.test("guardFusion: a weak keyword answer is fused as it is", () => {
  const fewHits = [h("a"), h("b")];
  assert(keywordIsWeak(fewHits));
  assertEquals(ids(guardFusion([h("v"), h("b"), h("a")], fewHits, new Map())), ["v", "b", "a"]);
  const poorMatch = [h("a", 0.3), h("b", 0.2), h("c", 0.1)];
  assert(keywordIsWeak(poorMatch));
  assertEquals(
    ids(guardFusion([h("v"), h("c"), h("a"), h("b")], poorMatch, new Map())),
    ["v", "c", "a", "b"],
  );
});

Deno.test("guardFusion: a document never rises by its vector above one holding more required words", () => {
  const keyword = [h("a", 0.3), h("b", 0.3), h("c", 0.3)]; // weak: vectors may reorder
  const fused = [h("v"), h("c"), h("b"), h("a")];
  // a and b hold the rare word, c and v do not.
  const held = new Map([["a", 1], ["b", 1]]);
  // b and a rise above v and c; among equals the fused order stays (b before a, v before c).
  assertEquals(ids(guardFusion(fused, keyword, held)), ["b", "a", "v", "c"]);
  // Where the keyword ranking already put a document above, it may stay there.
  const kw2 = [h("c", 0.3), h("a", 0.3), h("b", 0.3)];
  assertEquals(ids(guardFusion([h("c"), h("a"), h("b")], kw2, held)), ["c", "a", "b"]);
});

Deno.test("requiredWords: identifiers and rare words, rarest first; not plain numbers or common words", () => {
  const df: Record<string, number> = { zstd: 3, compression: 400, level: 900, window: 80 };
  const stats = { docCount: () => 1000, df: (w: string) => df[w] ?? 0 };
  assertEquals(requiredWords(parseQuery("zstd compression level"), stats), ["zstd"]);
  assertEquals(
    requiredWords(parseQuery("ZSTD_c_windowLog v1.5 level 19"), stats).sort(),
    ["ZSTD_c_windowLog", "v1.5"].sort(),
  );
  assertEquals(requiredWords(parseQuery("compression level"), stats), []);
});

/** The toy embedder (see the module doc), in process. */
function toyEmbedder(): Embedder {
  return {
    model: "toy",
    dimensions: 64,
    multilingual: true,
    maxChars: 4000,
    minSimilarity: 0,
    defaultMode: "hybrid",
    embed: (texts) => Promise.resolve(texts.map((t) => Float32Array.from(toyVector(t)))),
  };
}

const filler = (i: number) =>
  `# Note ${i}\n\nCompression of logs in the archive, note ${i}, about disks and backups.\n`;

Deno.test({
  name:
    "hybrid search on a real index: required words hold, vector-only hits point at their passage",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const base = await Deno.makeTempDir({ prefix: "shelfmark-hybrid-" });
    const lib = join(base, "notes");
    await Deno.mkdir(lib);
    for (let i = 0; i < 30; i++) await Deno.writeTextFile(join(lib, `note${i}.md`), filler(i));
    // Holds the rare word once; its vector is far from the query's.
    await Deno.writeTextFile(
      join(lib, "zstd.md"),
      "# Archive tools\n\nWe switched the archive to zstd last year.\n\n" +
        "Gardening, soil, tomatoes, watering schedules and other unrelated words.\n",
    );
    // Never says the rare word; its vector is the query's nearest.
    await Deno.writeTextFile(
      join(lib, "levels.md"),
      "# Compression levels\n\nCompression levels, compression levels: higher levels " +
        "compress more.\n",
    );
    // About cats, in English, deep in the document; the query will say "chat".
    const garden = Array.from({ length: 40 }, (_, i) => `Planting row ${i} of beans.`).join("\n");
    await Deno.writeTextFile(
      join(lib, "animals.md"),
      `# Garden diary\n\n${garden}\n\n# Animals\n\nThe cat and the cats sleep on the warm bench.\n`,
    );
    await using s = await openTestShelf({ base, folders: [lib], embedder: toyEmbedder() });
    await s.shelf.index();
    await partsOf(s.shelf).vectors!.idle();
    const search = async (query: string, mode: string) =>
      (await callTool(s.shelf, "search", { query, mode, limit: 5, output_format: "json" }))
        .json;
    type R = { path: string; passages?: { start_line: number; snippet: string }[] };

    await t.step("a document without the rare word never rises above one with it", async () => {
      const q = "zstd compression levels";
      const keyword = ((await search(q, "keyword")).results as R[]).map((r) => r.path);
      const semantic = ((await search(q, "semantic")).results as R[]).map((r) => r.path);
      const hybrid = ((await search(q, "hybrid")).results as R[]).map((r) => r.path);
      const zstd = "notes/zstd.md";
      // The vectors rank it low (notes about compression first), the keywords high.
      assert(semantic.indexOf(zstd) === -1 || semantic.indexOf(zstd) > 2, semantic.join(", "));
      assert(keyword.indexOf(zstd) >= 0 && keyword.indexOf(zstd) < 2, keyword.join(", "));
      // In hybrid, only what the keywords put above it stays above it.
      const at = hybrid.indexOf(zstd);
      assert(at >= 0, hybrid.join(", "));
      for (const above of hybrid.slice(0, at)) {
        assert(keyword.indexOf(above) < keyword.indexOf(zstd), `${above} rose above ${zstd}`);
      }
    });

    await t.step("a hit found by its vector alone shows its nearest passage", async () => {
      const r = await search("chat", "hybrid");
      const hits = r.results as R[];
      const cats = hits.find((x) => x.path === "notes/animals.md");
      assert(cats, `the vectors found the English page: ${JSON.stringify(hits)}`);
      const p = cats.passages?.[0];
      assert(p && p.start_line > 40, `a passage inside the document: ${JSON.stringify(p)}`);
      assert(/cat/.test(p.snippet), p.snippet);
    });
  },
});
