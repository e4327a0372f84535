import { assert, assertEquals } from "../tests/assert.ts";
import { testCard } from "../tests/card_fixture.ts";
import { openTestShelf } from "../tests/shelf_helper.ts";
import { Fts5Index } from "../stores/fts5.ts";
import { prepareQuery } from "./query.ts";
import { searchShelf } from "./search.ts";
import { partsOf } from "../shelf/_parts.ts";

const SAMPLES = new URL("../samples", import.meta.url).pathname;

Deno.test("searchShelf() hands back the card of every hit it answers", async () => {
  await using t = await openTestShelf({ folders: [SAMPLES] });
  await t.shelf.index();
  const { hits, cards, mode } = await searchShelf(t.shelf, { query: "sqlite archive", limit: 5 });
  assertEquals(mode, "keyword");
  assert(hits.length > 0);
  for (const h of hits) {
    assertEquals(cards.get(h.doc_id), partsOf(t.shelf).catalog.cards([h.doc_id]).get(h.doc_id));
  }
});

Deno.test("searchShelf() counts the CPU of its stages when asked, and answers the same", async () => {
  await using t = await openTestShelf({ folders: [SAMPLES] });
  await t.shelf.index();
  const req = { query: "sqlite archive format", limit: 5, mode: "keyword" as const };
  const stages: Record<string, number> = {};
  const timed = await searchShelf(t.shelf, { ...req, stages });
  const plain = await searchShelf(t.shelf, req);
  assert(timed.hits.length > 0);
  assertEquals(timed.hits, plain.hits);
  assertEquals(Object.keys(stages).sort(), [
    "copies",
    "passage query",
    "rank",
    "read passages",
    "shown passages",
  ]);
  for (const ms of Object.values(stages)) assert(ms >= 0 && Number.isFinite(ms));
});

Deno.test({
  name: "Shelf keyword index on search workers ranks as the index on the shelf's thread",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    await using t = await openTestShelf({ folders: [SAMPLES], searchWorkers: 1 });
    await t.shelf.index();
    const here = new Fts5Index(partsOf(t.shelf).catalog.db, {
      stats: partsOf(t.shelf).catalog,
      readOnly: true,
    });
    for (const text of ["sqlite archive", '"file format" -zstd']) {
      const q = prepareQuery(text, 5);
      const pooled = await partsOf(t.shelf).keyword.search(q);
      assert(pooled.length > 0, text);
      assertEquals(pooled, await here.search(q));
    }
    // The searches go to the workers: they read committed rows only, so a document written
    // in a transaction still open on the shelf's connection is found here and not there.
    partsOf(t.shelf).catalog.db.exec("BEGIN");
    try {
      const card = testCard({ doc_id: "f".repeat(16), path: "notes/new.md", title: "Zyzzyva" });
      await here.upsert([{ card, outline: [], lines: ["zyzzyva"] }]);
      const q = prepareQuery("zyzzyva", 5);
      assertEquals((await here.search(q)).map((h) => h.doc_id), [card.doc_id]);
      assertEquals(await partsOf(t.shelf).keyword.search(q), []);
    } finally {
      partsOf(t.shelf).catalog.db.exec("ROLLBACK");
    }
  },
});
