import { join } from "node:path";
import { type Card, type Hit, ToolError } from "../core/types.ts";
import { Catalog } from "../core/catalog.ts";
import { Fts5Index } from "./fts5.ts";
import type { Query } from "./roles.ts";
import { assert, assertEquals } from "../tests/assert.ts";
import { openTestShelf } from "../tests/shelf_helper.ts";
import { SearchPool } from "./fts5_pool.ts";
import { prepareQuery } from "../search/query.ts";
import { partsOf } from "../shelf/_parts.ts";

const SAMPLES = new URL("../samples", import.meta.url).pathname;

Deno.test({
  name: "SearchPool: workers answer like the in-thread retriever, errors keep their code",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const t = await openTestShelf({ folders: [SAMPLES] });
    const shelf = t.shelf;
    const pool = new SearchPool(join(t.data, "catalog.db"), 2);
    try {
      await shelf.index();
      for (
        const text of ["sqlite archive", "zstd compression", '"file format" -zstd', "large files"]
      ) {
        const q = prepareQuery(text, 5);
        const [here, there] = await Promise.all([partsOf(shelf).keyword.search(q), pool.search(q)]);
        assert(here.length > 0, text);
        assertEquals(there, here);
      }
      // Many at once, spread over both workers.
      const many = await Promise.all(
        Array.from({ length: 20 }, () => pool.search(prepareQuery("sqlite", 3))),
      );
      assert(
        many.every((h) => h.length === many[0]!.length && h[0]!.doc_id === many[0]![0]!.doc_id),
      );
      let err: unknown;
      try {
        await pool.search(prepareQuery("  ", 5));
      } catch (e) {
        err = e;
      }
      assert(err instanceof ToolError, String(err));
      assertEquals(err.code, "INVALID_ARGUMENT");
    } finally {
      pool.close();
      await t.close();
    }
  },
});

/** A catalog file holding one large document of common words (some 6 MB). */
async function largeCatalog(dir: string): Promise<string> {
  const file = join(dir, "catalog.db");
  const catalog = new Catalog(file);
  const fts = new Fts5Index(catalog.db, { stats: catalog });
  const words = ["the", "a", "of", "and", "to", "in", "is", "it", "that", "was", "for", "on"];
  const lines = Array.from(
    { length: 60_000 },
    (_, i) => Array.from({ length: 16 }, (_, k) => words[(i * 7 + k * 5) % words.length]).join(" "),
  );
  lines.push("The one aardvark of the document.");
  const card = {
    doc_id: "large",
    path: "lib/large.md",
    library: "lib",
    doc_type: "markdown",
    title: "Large",
    language: "en",
    word_count: 16 * 60_000,
    total_lines: lines.length,
    abstract: "",
    keywords: [],
    brief: true,
    outline_quality: "high",
    has_outline: false,
    modified_at: "2026-01-01T00:00:00.000Z",
    size: 6_000_000,
  } satisfies Card;
  await fts.upsert([{ card, outline: [], lines }]);
  catalog.close();
  return file;
}

Deno.test({
  name: "SearchPool: a query past the time limit fails with QUERY_TIMEOUT, others answer",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const dir = await Deno.makeTempDir();
    const pool = new SearchPool(await largeCatalog(dir), 2, { timeoutMs: 1000 });
    try {
      // The query, parsed by hand to pass the parse-time bounds: 499 copies of a
      // word in every line of the document (seconds of work, far past the limit).
      const slow: Query = {
        text: "the ".repeat(499),
        parsed: {
          optional: Array.from({ length: 499 }, () => ({
            alternatives: [{ kind: "term" as const, text: "the" }],
          })),
          required: [],
          excluded: [],
        },
        limit: 10,
        filters: {},
      };
      const [stopped, normal] = await Promise.allSettled([
        pool.search(slow),
        pool.search(prepareQuery("aardvark", 5)),
      ]);
      assertEquals(normal.status, "fulfilled");
      assertEquals((normal as PromiseFulfilledResult<Hit[]>).value.map((h) => h.doc_id), [
        "large",
      ]);
      assertEquals(stopped.status, "rejected");
      const err = (stopped as PromiseRejectedResult).reason;
      assert(err instanceof ToolError, String(err));
      assertEquals(err.code, "QUERY_TIMEOUT");
      assertEquals(err.message, "Search ran longer than 1000 ms and was stopped");
      // The stopped worker is replaced: the next searches answer.
      const after = await Promise.all([
        pool.search(prepareQuery("aardvark", 5)),
        pool.search(prepareQuery("aardvark document", 5)),
      ]);
      assertEquals(after.map((hits) => hits.length), [1, 1]);
    } finally {
      pool.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
