import { assert, assertEquals } from "../tests/assert.ts";
import { testCard } from "../tests/card_fixture.ts";
import { Catalog } from "./catalog.ts";
import { textReader } from "./catalog_sql.ts";
import { decodeText, encodeText } from "./text_codec.ts";
import type { Card } from "./types.ts";

function card(id: string): Card {
  return testCard({ doc_id: id, path: `lib/${id}.md`, title: id });
}

Deno.test("encodeText/decodeText: long texts are compressed and come back exactly", () => {
  const text = "Grüße, 数据库 and emoji 🦘 on one line\n".repeat(500) + "\u2028end\r\n";
  const stored = encodeText(text);
  assert(stored instanceof Uint8Array);
  assert(stored.length < text.length / 10, `${stored.length} bytes`);
  assertEquals(decodeText(stored), text);
  // Short or incompressible texts are kept as they are.
  assertEquals(encodeText("short"), "short");
  const noise = Array.from(
    { length: 4000 },
    (_, i) => String.fromCharCode(0x4e00 + ((i * 7919) % 20000)),
  ).join("");
  assertEquals(decodeText(encodeText(noise)), noise);
  assertEquals(decodeText(undefined), undefined);
});

Deno.test("Catalog stores texts compressed and every reader gets them back", () => {
  const catalog = new Catalog(":memory:");
  const long = Array.from({ length: 3000 }, (_, i) => `line ${i}: words ${i % 17} é 漢字`).join(
    "\n",
  );
  const docs = { big: long, small: "one line", empty: "" };
  for (const [id, text] of Object.entries(docs)) {
    catalog.put({ card: card(id), outline: [], terms: {}, hash: id, mtime_ms: 0 }, text);
  }
  // (stored in blocks of lines: each of the long text's blocks is compressed)
  const raw = catalog.db.prepare(
    `SELECT doc_id, group_concat(DISTINCT typeof(text)) AS t, count(*) AS n FROM text_blocks
     GROUP BY doc_id ORDER BY doc_id`,
  ).all()
    .map((r) => [r.doc_id, r.t, (r.n as number) > 1]);
  assertEquals(raw, [["big", "blob", true], ["empty", "text", false], ["small", "text", false]]);
  const reader = textReader(catalog.db);
  for (const [id, text] of Object.entries(docs)) {
    assertEquals(catalog.text(id), text);
    assertEquals(reader(id), text);
  }
  assertEquals(
    Object.fromEntries([...catalog.iterTexts()].map((r) => [r.doc_id, r.text])),
    docs,
  );
  assertEquals(catalog.text("missing"), undefined);
  catalog.close();
});
