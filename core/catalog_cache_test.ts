/**
 * A catalog's caches (listing, link graph, texts) belong to it: made once on first use,
 * never shared with another catalog, dropped when it closes.
 */
import { assert, assertEquals } from "../tests/assert.ts";
import { Catalog, CatalogCache } from "./catalog.ts";

Deno.test("Catalog.cache: one instance per catalog, made on first use, dropped on close", () => {
  const made: Catalog[] = [];
  const kind = new CatalogCache("test", (c) => {
    made.push(c);
    return { owner: c };
  });
  const a = new Catalog(":memory:");
  const b = new Catalog(":memory:");
  try {
    const first = a.cache(kind);
    assert(a.cache(kind) === first, "the same instance on every call");
    assertEquals(made.length, 1);
    assert(b.cache(kind) !== first, "another catalog has its own");
    assert(b.cache(kind).owner === b);
    assertEquals(made.length, 2);
  } finally {
    b.close();
  }
  const before = a.cache(kind);
  a.close();
  assert(a.cache(kind) !== before, "close dropped the cache: a new one is made");
  assertEquals(made.length, 3);
});
