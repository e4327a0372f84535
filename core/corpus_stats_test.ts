import { assertEquals } from "../tests/assert.ts";
import { Catalog } from "./catalog.ts";

function dfRows(c: Catalog): Record<string, number> {
  const rows = c.db.prepare("SELECT term, n FROM df ORDER BY term").all();
  return Object.fromEntries(rows.map((r) => [r.term as string, r.n as number]));
}

Deno.test("CorpusStats looks terms up one by one: a row added after the first lookup is seen", () => {
  const c = new Catalog(":memory:");
  try {
    c.db.exec("INSERT INTO df (term, n) VALUES ('alpha', 3), ('beta', 5)");
    assertEquals(c.df("alpha"), 3);
    assertEquals(c.df("missing"), 0);
    // A whole-table snapshot taken at the first lookup would not hold this row.
    c.db.exec("INSERT INTO df (term, n) VALUES ('gamma', 7)");
    assertEquals(c.df("gamma"), 7);
    assertEquals(c.df("beta"), 5);
  } finally {
    c.close();
  }
});

Deno.test("CorpusStats counts terms, writes changes on save and drops terms that reach 0", () => {
  const c = new Catalog(":memory:");
  try {
    c.db.exec("INSERT INTO df (term, n) VALUES ('alpha', 3), ('beta', 1), ('keep', 2)");
    c.countTerms(["alpha", "new"]);
    c.countTerms(["beta", "ghost"], -1);
    assertEquals([c.df("alpha"), c.df("new"), c.df("beta"), c.df("ghost")], [4, 1, 0, 0]);
    assertEquals(dfRows(c), { alpha: 3, beta: 1, keep: 2 }, "nothing written before save");
    c.saveTermCounts();
    assertEquals(dfRows(c), { alpha: 4, keep: 2, new: 1 });
    assertEquals([c.df("alpha"), c.df("new"), c.df("beta"), c.df("keep")], [4, 1, 0, 2]);
    c.countTerms(["new", "alpha"], -1);
    c.countTerms(["alpha"]);
    c.saveTermCounts();
    assertEquals(dfRows(c), { alpha: 4, keep: 2 });
  } finally {
    c.close();
  }
});

Deno.test("CorpusStats reads a document's stored terms at once, whatever their characters", () => {
  const c = new Catalog(":memory:");
  try {
    const stored = ["l'été", "全文", 'say"hi', "back\\slash", "o’clock", "node.js"];
    const ins = c.db.prepare("INSERT INTO df (term, n) VALUES (?, ?)");
    stored.forEach((t, i) => ins.run(t, i + 2));
    const fresh = Array.from({ length: 3000 }, (_, i) => `w${i}`);
    c.countTerms([...fresh, ...stored]);
    assertEquals(stored.map((t) => c.df(t)), [3, 4, 5, 6, 7, 8]);
    assertEquals([c.df("w0"), c.df("w2999")], [1, 1]);
    c.saveTermCounts();
    assertEquals(dfRows(c)["全文"], 4);
    assertEquals(Object.keys(dfRows(c)).length, 3006);
  } finally {
    c.close();
  }
});

Deno.test("CorpusStats saves a batch's changes at once, whatever the terms are called", () => {
  const c = new Catalog(":memory:");
  try {
    c.db.exec("INSERT INTO df (term, n) VALUES ('old', 2), ('gone', 1), ('constructor', 1)");
    // Terms that name an object's own properties are terms like any other.
    for (const doc of [["__proto__", "old", "gone"], ["__proto__", "constructor", "new"]]) {
      c.countTerms(doc);
    }
    c.countTerms(["gone", "old"], -1);
    c.countTerms(["gone"], -1);
    assertEquals([c.df("__proto__"), c.df("old"), c.df("gone"), c.df("constructor")], [2, 2, 0, 2]);
    c.saveTermCounts();
    assertEquals(dfRows(c), { ["__proto__"]: 2, constructor: 2, new: 1, old: 2 });
  } finally {
    c.close();
  }
});
