/**
 * `fileStates()` (what an indexing run compares each file with) is read from the
 * `documents_states` index alone: looking each row up cost 86 s at a million documents.
 */
import { assert, assertEquals } from "../tests/assert.ts";
import { testCard } from "../tests/card_fixture.ts";
import { Catalog } from "./catalog.ts";

Deno.test("Catalog.fileStates: a library's files with size, mtime and hash, from a covering index", () => {
  const c = new Catalog(":memory:");
  try {
    for (const [i, library] of [[1, "a"], [2, "a"], [3, "b"]] as const) {
      c.put({
        card: testCard({ doc_id: `d${i}`, library, path: `${library}/n${i}.md`, size: 10 * i }),
        outline: [],
        terms: { note: 1 },
        hash: `h${i}`,
        mtime_ms: i,
      }, "note text");
    }
    const states = c.fileStates("a");
    assertEquals([...states.keys()].sort(), ["a/n1.md", "a/n2.md"]);
    assertEquals(
      { ...states.get("a/n2.md") },
      { doc_id: "d2", path: "a/n2.md", size: 20, mtime_ms: 2, hash: "h2" },
    );
    const plan = c.db.prepare(
      "EXPLAIN QUERY PLAN SELECT doc_id, path, size, mtime_ms, hash FROM documents WHERE library = ?",
    ).all("a").map((r) => r.detail).join(" ");
    assert(plan.includes("COVERING INDEX documents_states"), plan);
  } finally {
    c.close();
  }
});

Deno.test("Catalog.head: a document's card, pages and hash, as get() reads them", () => {
  const c = new Catalog(":memory:");
  try {
    const card = testCard({ doc_id: "d1", library: "a", path: "a/m.pdf", size: 10 });
    const outline = [{
      id: "1",
      title: "Intro",
      level: 1,
      start_line: 1,
      end_line: 2,
      line_count: 2,
      children: [],
    }];
    c.put({ card, outline, pages: [1, 2], terms: { note: 1 }, hash: "h1", mtime_ms: 1 }, "a\nb");
    const full = c.get("d1")!;
    assertEquals(c.head("d1"), { card: full.card, pages: [1, 2], hash: "h1" });
    assertEquals(c.head("missing"), undefined);
  } finally {
    c.close();
  }
});
