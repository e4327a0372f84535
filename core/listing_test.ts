/**
 * The listing table (browse, find_documents, recent) is read from the `documents_list`
 * index alone, titles and line counts included, and is rebuilt after the catalog changes.
 */
import { assert, assertEquals } from "../tests/assert.ts";
import { testCard } from "../tests/card_fixture.ts";
import { Catalog } from "./catalog.ts";
import { docTable } from "./listing.ts";

function put(c: Catalog, path: string, title: string, lines: number): void {
  c.put({
    card: testCard({ path, title, total_lines: lines }),
    outline: [],
    terms: { note: 1 },
    hash: path,
    mtime_ms: 1,
  }, "note text");
}

Deno.test("docTable: every document by path with its title and lines, rebuilt after a change", () => {
  const c = new Catalog(":memory:");
  try {
    put(c, "lib/b.md", "Bee", 7);
    put(c, "lib/a.md", "Ant", 3);
    const first = docTable(c);
    assertEquals(
      first.entries.map((e) => [e.path, e.title, e.total_lines]),
      [["lib/a.md", "Ant", 3], ["lib/b.md", "Bee", 7]],
    );
    assertEquals(docTable(c), first, "unchanged catalog: the same table");
    put(c, "lib/a.md", "Ant, again", 4);
    const second = docTable(c);
    assertEquals(second.byId.get("lib_a_md")?.title, "Ant, again");
    assertEquals(second.byId.get("lib_a_md")?.total_lines, 4);
    const plan = c.db.prepare(
      `EXPLAIN QUERY PLAN SELECT doc_id, library, path, doc_type, size, modified_at,
         json_extract(card, '$.title'), json_extract(card, '$.total_lines')
       FROM documents INDEXED BY documents_list ORDER BY path`,
    ).all().map((r) => r.detail).join(" ");
    assert(plan.includes("COVERING INDEX documents_list"), plan);
  } finally {
    c.close();
  }
});
