import { join } from "node:path";
import { ToolError } from "../core/types.ts";
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
