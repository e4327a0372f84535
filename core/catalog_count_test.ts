/**
 * `docCount()` (the document count TF-IDF and the common-word cut use) is counted again
 * once more than 1 % of documents were written since the last count (every write below
 * 100), so storing a document no longer scans every document; `count()` stays exact.
 */
import { assertEquals } from "../tests/assert.ts";
import { testCard } from "../tests/card_fixture.ts";
import { Catalog } from "./catalog.ts";
import type { StoredDoc } from "./catalog_docs.ts";

function doc(i: number): StoredDoc {
  return {
    card: testCard({
      doc_id: `d${i}`,
      path: `lib/n${i}.md`,
      title: `Note ${i}`,
      word_count: 2,
      size: 10,
    }),
    outline: [],
    terms: { note: 1 },
    hash: `h${i}`,
    mtime_ms: 1,
  };
}

Deno.test("Catalog.docCount: exact below 100 documents, then recounted after 1 % more writes", () => {
  const c = new Catalog(":memory:");
  try {
    let stored = 0;
    const put = (k: number) => {
      for (let i = 0; i < k; i++) c.put(doc(stored++), "note text");
    };
    assertEquals(c.docCount(), 0);
    for (let i = 1; i <= 99; i++) {
      put(1);
      assertEquals(c.docCount(), i, "below 100 documents every write counts");
    }
    put(101);
    assertEquals(c.docCount(), 200);
    put(2); // 1 % of 200: the last count stands
    assertEquals(c.docCount(), 200);
    assertEquals(c.count(), 202, "count() is always exact");
    put(1);
    assertEquals(c.docCount(), 203, "past 1 %: counted again");
    c.remove(["d0", "d1", "d2"]);
    assertEquals(c.docCount(), 200, "removals are writes too");
  } finally {
    c.close();
  }
});
