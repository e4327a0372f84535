/**
 * A server whose data folder has no catalog rows (the SQLite catalog deleted after
 * indexing, the libraries' files gone) answers keyword `search` from the PostgreSQL store
 * alone: the same hits in the same order, with the same passages, snippets, answer
 * sentences, pages and copies, filters included.
 */
import { join } from "node:path";
import { callTool } from "../server/dispatch.ts";
import { assert, assertEquals } from "./assert.ts";
import { smallCorpus } from "./corpus.ts";
import { noPostgres, PgServer } from "./pg_server.ts";
import { storeAlone } from "./store_cases.ts";
import { openTestShelf } from "./shelf_helper.ts";

/** Files of the small corpus, copied into two libraries (one file twice: copies). */
const FILES: [string, string][] = [
  ["pdf-plain/r-doc-pdf/R-FAQ.pdf", "Docs/R-FAQ.pdf"],
  ["markdown/zstd/zstd/README.md", "Docs/zstd.md"],
  ["text/licenses/Apache-2.0.txt", "Docs/apache.txt"],
  ["text/licenses/Apache-2.0.txt", "Notes/apache copy.txt"],
  ["text/licenses/LGPL-2.txt", "Notes/lgpl.txt"],
];

/** The searches asked, before and after the catalog is gone. */
const SEARCHES: Record<string, unknown>[] = [
  { query: "compression level dictionary" },
  { query: "CRAN packages", limit_passages: 3 },
  { query: "license grant patent", limit: 3 },
  { query: '"free software" -patent' },
  { query: "license", library: "Notes" },
  { query: "license", doc_types: ["text"], path_glob: "Docs/*" },
  { query: "license", path_glob: "*/[al]*.txt" },
  { query: "license", modified_after: "2001-01-01", sort: "newest" },
  { query: "R FAQ", limit: 1, limit_passages: 0 },
  { query: "zzzyzx" },
];

Deno.test({
  name: "keyword search answers from PostgreSQL alone when the data folder's catalog is gone",
  ignore: noPostgres,
  async fn() {
    const corpus = await smallCorpus();
    const server = await PgServer.start();
    const base = await Deno.makeTempDir({ prefix: "shelfmark-pgsearch-" });
    try {
      const libs = ["Docs", "Notes"].map((l) => join(base, l));
      for (const l of libs) await Deno.mkdir(l);
      for (const [from, to] of FILES) await Deno.copyFile(join(corpus, from), join(base, to));
      const store = await server.database();
      await using t = await openTestShelf({ base, store, folders: libs });
      assertEquals((await t.shelf.index()).indexed, FILES.length);
      const answers = async () => {
        const out: Record<string, unknown> = {};
        for (const s of SEARCHES) {
          const a = await callTool(t.shelf, "search", {
            mode: "keyword",
            ...s,
            output_format: "json",
          });
          const { _meta: _, ...rest } = a.json;
          out[JSON.stringify(s)] = rest;
        }
        return out;
      };
      const before = await answers();
      // what the searches must show, so that equal answers mean something
      const results = (s: Record<string, unknown>) =>
        (before[JSON.stringify(s)] as { results: Record<string, unknown>[] }).results;
      const first = results(SEARCHES[1]!)[0]!;
      assertEquals(first.path, "Docs/R-FAQ.pdf");
      assert(JSON.stringify(first).includes('"page"'), "pages of the PDF's passages");
      assert(first.answer, "an answer sentence");
      assert(
        results(SEARCHES[2]!).some((r) => (r.copies as unknown[] | undefined)?.length),
        "the copies collapsed",
      );
      assertEquals(results(SEARCHES[4]!).map((r) => r.path).sort(), [
        "Notes/apache copy.txt",
        "Notes/lgpl.txt",
      ]);
      assertEquals(results(SEARCHES[5]!).map((r) => r.path), ["Docs/apache.txt"]);
      assertEquals(results(SEARCHES[6]!).map((r) => r.path).sort(), [
        "Docs/apache.txt",
        "Notes/lgpl.txt",
      ]);
      assertEquals(results(SEARCHES[9]!), []);

      // the local catalog and the files go; the shelf opens on an empty catalog
      await storeAlone(t, store, libs);
      assertEquals(await answers(), before);
    } finally {
      await server.stop().catch(() => {});
      await Deno.remove(base, { recursive: true }).catch(() => {});
    }
  },
});
