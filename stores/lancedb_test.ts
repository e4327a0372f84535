import { join } from "node:path";
import { Catalog } from "../core/catalog.ts";
import { assert, assertEquals, assertRejects } from "../tests/assert.ts";
import { normalize } from "../embedders/normalize.ts";
import { cosineScore, LanceIndex } from "./lancedb.ts";
import { parseQuery, queryText } from "../search/query.ts";

function randomUnit(seed: number): Float32Array {
  let x = seed * 7919 + 1;
  const v = new Float32Array(32);
  for (let i = 0; i < 32; i++) {
    x = (x * 48271) % 2147483647;
    v[i] = x / 2147483647 - 0.5;
  }
  return normalize(v);
}

/** A vector row of document `i` in `library`. */
function vectorRow(i: number, library: string) {
  return {
    doc_id: i.toString(16).padStart(12, "0"),
    vector: randomUnit(i),
    library,
    doc_type: "markdown",
    path: `${library}/${i}.md`,
    modified_at: "2024-01-01T00:00:00.000Z",
  };
}

Deno.test({
  name: "LanceIndex: real LanceDB table, filters from the catalog, ANN index past the threshold",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "shelfmark-lance-" });
    // The catalog's own schema; rows are the minimum the filters read.
    const catalog = new Catalog(":memory:");
    const ins = catalog.db.prepare(
      `INSERT INTO documents (doc_id, library, path, doc_type, modified_at, size, mtime_ms, hash,
         word_count, card, outline, terms, indexed_at) VALUES (?, ?, ?, ?, ?, 0, 0, '', 0, '{}', '[]', '{}', '')`,
    );
    const rows = Array.from({ length: 300 }, (_, i) => {
      const row = vectorRow(i, i % 2 ? "odd" : "even");
      ins.run(row.doc_id, row.library, row.path, row.doc_type, row.modified_at);
      return row;
    });
    const lance = new LanceIndex(join(dir, "v"), catalog, 256);
    try {
      await lance.upsert(rows.slice(0, 100));
      await lance.upsert(rows.slice(50)); // overlapping rows are replaced, not duplicated
      assertEquals(lance.count(), 300);
      const near = await lance.nearest(rows[42]!.vector, 3);
      assertEquals(near[0]!.doc_id, rows[42]!.doc_id);
      assert(near[0]!.score > 0.999 && near[1]!.score < near[0]!.score);
      // Library and type filter on the table's columns: only odd documents.
      const odd = await lance.nearest(rows[42]!.vector, 5, { library: "odd" });
      assertEquals(odd.length, 5);
      assert(odd.every((h) => parseInt(h.doc_id, 16) % 2 === 1));
      assertEquals(await lance.nearest(rows[42]!.vector, 5, { library: "none" }), []);
      assertEquals(await lance.nearest(rows[42]!.vector, 5, { library: "it's" }), []);
      const typed = { library: "odd", doc_types: ["markdown", "pdf"] };
      assertEquals((await lance.nearest(rows[42]!.vector, 5, typed)).length, 5);
      assertEquals(await lance.nearest(rows[42]!.vector, 5, { doc_types: ["pdf"] }), []);
      // Other filters come from the catalog (its GLOB, its dates, its fields).
      const glob = await lance.nearest(rows[42]!.vector, 50, { path_glob: "odd/1*.md" });
      assert(glob.length > 0 && glob.every((h) => parseInt(h.doc_id, 16) % 2 === 1));
      assert(glob.every((h) => String(parseInt(h.doc_id, 16)).startsWith("1")), "GLOB odd/1*");
      // `similar` leaves the document itself out.
      const sim = await lance.nearest(rows[7]!.vector, 4, {}, rows[7]!.doc_id);
      assertEquals(sim.length, 4);
      assert(!sim.some((h) => h.doc_id === rows[7]!.doc_id));
      assert(!(await lance.hasAnnIndex()));
      await lance.optimize();
      assert(await lance.hasAnnIndex(), "300 rows >= 256: an IVF index is built");
      assertEquals((await lance.nearest(rows[123]!.vector, 1))[0]!.doc_id, rows[123]!.doc_id);
      await lance.remove([rows[123]!.doc_id, "not-an-id'; DROP"]);
      assertEquals(lance.count(), 299);
      assert(!(await lance.ids()).includes(rows[123]!.doc_id));
      const v = await lance.vectorOf(rows[5]!.doc_id);
      assert(v && Math.abs(v[3]! - rows[5]!.vector[3]!) < 1e-6);
      assertEquals(await lance.vectorOf("'; --"), undefined);
    } finally {
      catalog.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "LanceIndex.close() frees the table: a later query fails, the vectors stay stored",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "shelfmark-lance-" });
    const catalog = new Catalog(":memory:");
    const row = (i: number) => vectorRow(i, "lib");
    try {
      const lance = new LanceIndex(join(dir, "v"), catalog);
      await lance.upsert([row(1), row(2), row(3)]);
      assertEquals((await lance.ids()).length, 3);
      await lance.close();
      await assertRejects(() => lance.ids());
      await assertRejects(() => lance.nearest(row(1).vector, 1));
      const again = new LanceIndex(join(dir, "v"), catalog);
      assertEquals(await again.open(), 3);
      assertEquals((await again.nearest(row(2).vector, 1))[0]?.doc_id, row(2).doc_id);
      await again.close();
    } finally {
      catalog.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test("cosineScore() and queryText()", () => {
  assertEquals([cosineScore(0), cosineScore(1), cosineScore(2)], [1, 0.5, 0]);
  assertEquals(queryText(parseQuery('+nginx "reverse proxy" -apache the')), "nginx reverse proxy");
});
