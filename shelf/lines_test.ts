import { assertEquals } from "../tests/assert.ts";
import { testCard } from "../tests/card_fixture.ts";
import { Catalog } from "../core/catalog.ts";
import { BLOCK_CHARS } from "../core/text_codec.ts";
import { docLines, docText } from "./lines.ts";

function put(catalog: Catalog, id: string, text: string, hash = id): void {
  const card = testCard({ doc_id: id, path: `lib/${id}.txt`, title: id });
  catalog.put({ card, outline: [], terms: {}, hash, mtime_ms: 0 }, text);
}

Deno.test("docLines() reads any range of a many-block text as the text has it", () => {
  const catalog = new Catalog(":memory:");
  const lines = Array.from({ length: 20_000 }, (_, i) => `line ${i + 1}: ${"é漢".repeat(i % 7)}`);
  const text = lines.join("\n");
  put(catalog, "big", text);
  put(catalog, "empty", "");
  put(catalog, "blank", "\n");
  const n = catalog.db.prepare("SELECT count(*) AS n FROM text_blocks WHERE doc_id = 'big'")
    .get()!.n as number;
  assertEquals(n > text.length / BLOCK_CHARS / 2, true, `${n} blocks`);
  const big = docLines(catalog, "big", "big");
  assertEquals(big.total, 20_000);
  for (const [a, b] of [[1, 1], [1, 40], [4_990, 5_210], [19_990, 20_000], [17, 15_000]]) {
    assertEquals(big.range(a!, b!), lines.slice(a! - 1, b!), `${a}-${b}`);
  }
  assertEquals(big.range(19_999, 20_500), lines.slice(19_998));
  assertEquals(docText(catalog, "big", "big").text, text);
  assertEquals(docLines(catalog, "empty", "empty").total, 0);
  assertEquals(docLines(catalog, "empty", "empty").range(1, 10), []);
  assertEquals(docLines(catalog, "blank", "blank").total, 2);
  assertEquals(docLines(catalog, "blank", "blank").range(1, 2), ["", ""]);
  // a new version (another hash) is read afresh
  put(catalog, "big", "changed", "big2");
  assertEquals(docLines(catalog, "big", "big2").range(1, 5), ["changed"]);
  catalog.close();
});
