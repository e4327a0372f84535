import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import type { QueryUnit } from "../core/types.ts";
import { parseQuery } from "../search/query.ts";
import { tieredMatch, toFtsMatch } from "./fts5_match.ts";

const match = (q: string) => toFtsMatch(parseQuery(q));

Deno.test("toFtsMatch() drops stop words unless nothing else remains", () => {
  assertEquals(match("the history of rome"), '"history" OR "rome"');
  assertEquals(match("the who"), '"the" OR "who"');
  assertEquals(match('"the who"'), '"the who"');
  assertEquals(match("+rome the"), '"rome"');
});

Deno.test("toFtsMatch() returns undefined when nothing searchable remains", () => {
  for (const q of ["", "   ", "-excluded", '-"only this"', "* ^ :", "-", "+", "|"]) {
    assertEquals(match(q), undefined, q);
  }
});

Deno.test("toFtsMatch() quotes FTS5 operators from user text", () => {
  assertEquals(match("NEAR(a b) c*"), '"NEAR(a" OR "b)" OR "c*"');
  assertEquals(match("title:x ^zebra"), '"title:x" OR "^zebra"');
  assertEquals(match("cats AND dogs"), '"cats" OR "dogs"');
});

Deno.test("toFtsMatch() segments CJK runs", () => {
  assertEquals(match("+全文検索"), '"全文 検索"');
  const m = match("全文検索エンジン");
  assert(m?.startsWith('("全文 検索 エンジン" OR "全文"'), m);
});

Deno.test("toFtsMatch() never produces an FTS5 syntax error", () => {
  const db = new DatabaseSync(":memory:");
  db.exec(
    "CREATE VIRTUAL TABLE t USING fts5(a, b, tokenize='porter unicode61 remove_diacritics 2')",
  );
  db.prepare("INSERT INTO t VALUES (?, ?)").run("near and or not", "café 全文 検索");
  const pieces = [
    '"',
    "-",
    "+",
    "|",
    "*",
    "^",
    ":",
    "(",
    ")",
    "NEAR",
    "AND",
    "OR",
    "NOT",
    "a",
    "é",
    "全文",
    " ",
    "{",
    "}",
    ",",
    "\\",
    "'",
    "\0",
  ];
  let seed = 7;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const stmt = db.prepare("SELECT count(*) FROM t WHERE t MATCH ?");
  for (let n = 0; n < 2000; n++) {
    let q = "";
    const len = 1 + Math.floor(rand() * 8);
    for (let i = 0; i < len; i++) q += pieces[Math.floor(rand() * pieces.length)];
    const m = match(q);
    if (m !== undefined) stmt.get(m); // throws on a syntax error
  }
  db.close();
});

Deno.test("toFtsMatch() drops the function words of questions in German, Spanish and French", () => {
  assertEquals(
    toFtsMatch(parseQuery("Warum kann ich Tausende zlib Objekte haben?")),
    '"Tausende" OR "zlib" OR "Objekte"',
  );
  assertEquals(
    toFtsMatch(parseQuery("¿Cómo restauro un volcado de pg_dump?")),
    '"restauro" OR "volcado" OR "pg_dump?"',
  );
  assertEquals(toFtsMatch(parseQuery("Pourquoi mon man page")), '"man" OR "page"');
});

Deno.test("tieredMatch() splits a long question into its rarest words and the others", () => {
  const df: Record<string, number> = { zlib: 3, objects: 900, thousands: 400, git: 50 };
  const docs = (u: QueryUnit) => df[u.alternatives[0]!.text] ?? 0;
  const t = tieredMatch(parseQuery("thousands of zlib git objects -pack"), docs, {
    whole: 1000,
    rare: 100,
  });
  assertEquals(t, {
    rare: '"zlib" OR "git"',
    common: '"thousands" OR "objects"',
    excluded: '"pack"',
    rareUnits: 2,
  });
  // more rare units when asked; common units past `drop` left out
  assertEquals(
    tieredMatch(parseQuery("thousands of zlib git objects"), docs, {
      whole: 1000,
      rare: 100,
      minRare: 3,
      drop: 800,
    }),
    { rare: '"thousands" OR "zlib" OR "git"', common: "", rareUnits: 3 },
  );
  // few enough documents: the whole OR is ranked
  assertEquals(
    tieredMatch(parseQuery("thousands of zlib objects"), docs, { whole: 2000, rare: 100 }),
    undefined,
  );
  // a + unit or a quoted phrase restricts the matches already
  assertEquals(
    tieredMatch(parseQuery("+thousands zlib objects"), docs, { whole: 0, rare: 100 }),
    undefined,
  );
  assertEquals(
    tieredMatch(parseQuery('"zlib objects" thousands git'), docs, { whole: 0, rare: 100 }),
    undefined,
  );
  // the rarest unit is a candidate even past the limit
  assertEquals(
    tieredMatch(parseQuery("thousands objects"), docs, { whole: 0, rare: 1 })?.rare,
    '"thousands"',
  );
});
