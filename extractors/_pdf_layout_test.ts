import { assert, assertEquals } from "../tests/assert.ts";
import { layoutLines, readingGroups, type Run } from "./_pdf_layout.ts";

const run = (str: string, x: number, y: number, w = str.length * 5, h = 10): Run => ({
  str,
  x,
  y,
  w,
  h,
  bold: false,
});

/** A page: a full-width title, then two columns of 20 prose lines side by side. */
function twoColumns(): Run[] {
  const runs = [run("A Title Across The Whole Page Width", 60, 760, 480, 16)];
  for (let i = 0; i < 20; i++) {
    runs.push(run(`left column line ${i} with some words in it`, 50, 700 - i * 12, 230));
    runs.push(run(`right column line ${i} with other words too`, 310, 700 - i * 12, 230));
  }
  return runs;
}

Deno.test("layout: two text columns are read column by column, the title first", () => {
  const lines = layoutLines(twoColumns()).map((l) => l.text);
  assertEquals(lines[0], "A Title Across The Whole Page Width");
  assertEquals(lines[1], "left column line 0 with some words in it");
  assertEquals(lines[20], "left column line 19 with some words in it");
  assertEquals(lines[21], "right column line 0 with other words too");
  assertEquals(lines.length, 41);
  const starts = layoutLines(twoColumns()).filter((l) => l.gapBefore).map((l) => l.text);
  assert(starts.includes("right column line 0 with other words too"));
});

Deno.test("layout: one column and tables are read row by row", () => {
  const prose: Run[] = [];
  for (let i = 0; i < 45; i++) {
    prose.push(run(`a full width line of prose number ${i}`, 50, 700 - i * 12, 490));
  }
  assertEquals(readingGroups(prose).length, 1);
  // A table whose cells leave a gutter: short cells, unequal columns.
  const table: Run[] = [];
  for (let i = 0; i < 25; i++) {
    table.push(run(`U+${i}`, 50, 700 - i * 12, 40), run(`\\macro${i}`, 120, 700 - i * 12, 60));
    table.push(run(`name ${i}`, 400, 700 - i * 12, 60));
  }
  assertEquals(readingGroups(table).length, 1);
  const rows = layoutLines(table).map((l) => l.text);
  assertEquals(rows[0], "U+0 | \\macro0 | name 0");
});

Deno.test("layout: words hyphenated at a line break are joined", () => {
  const lines = layoutLines([run("the man-", 50, 700), run("uals (e.g. this)", 50, 688)]);
  assertEquals(lines.map((l) => l.text), ["the manuals", "(e.g. this)"]);
});

Deno.test("layout: a full-width table on a two-column page is read row by row", () => {
  const runs = twoColumns();
  // Below the columns, a table whose cells leave the gutter empty: three columns of cells.
  for (let i = 0; i < 6; i++) {
    const y = 440 - i * 12;
    runs.push(run(`item ${i}`, 50, y, 40), run(`${i * 7}`, 150, y, 20));
    runs.push(run(`kind ${i}`, 330, y, 40), run(`note ${i}`, 450, y, 40));
  }
  const lines = layoutLines(runs).map((l) => l.text);
  assertEquals(
    lines.slice(1, 21),
    twoColumns().slice(1).filter((_, i) => i % 2 === 0).map((r) => r.str),
  );
  assertEquals(lines.slice(-6, -4), [
    "item 0 | 0 | kind 0 | note 0",
    "item 1 | 7 | kind 1 | note 1",
  ]);
});

Deno.test("layout: cells a word space apart split where a column runs three rows", () => {
  // Cells set 0.8 font heights apart (a table without padding), in line on every row.
  const rows = ["C-a", "C-e", "C-b"].map((key, i) => [
    run(key, 50, 700 - i * 12, 15),
    run(`Go somewhere ${i}.`, 73, 700 - i * 12, 100),
  ]);
  assertEquals(layoutLines(rows.flat()).map((l) => l.text), [
    "C-a | Go somewhere 0.",
    "C-e | Go somewhere 1.",
    "C-b | Go somewhere 2.",
  ]);
  // Two such rows, or a list's markers, are not a table.
  assertEquals(layoutLines(rows.slice(0, 2).flat()).map((l) => l.text)[0], "C-a Go somewhere 0.");
  const list = [0, 1, 2].map((
    i,
  ) => [run("•", 50, 700 - i * 12, 5), run(`point ${i}`, 63, 700 - i * 12, 40)]);
  assertEquals(layoutLines(list.flat()).map((l) => l.text)[0], "• point 0");
});

Deno.test("layout: every kind of whitespace and control character becomes one space", () => {
  const odd = [
    "plain words here",
    "  padded  ",
    "tab\there",
    "no\u00a0break",
    "ideo\u3000graphic",
    "thin\u2009space",
    "bom\ufeffmark",
    "line\u2028sep",
    "nul\u0000char",
    "del\u007fchar",
    "trail ",
  ];
  // One run per line, far apart, so each is a line of its own.
  const lines = layoutLines(odd.map((s, i) => run(s, 50, 700 - i * 40)));
  const want = odd.map((s) =>
    // deno-lint-ignore no-control-regex
    s.replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, " ").replace(/\s+/g, " ").trim()
  );
  assertEquals(lines.map((l) => l.text), want);
  assertEquals(lines.map((l) => l.lead), want);
  assert(want.every((t) => !/\s\s|^\s|\s$/.test(t)), "the expected texts are collapsed");
});

Deno.test("layout: a line's size and font are those of most of its characters", () => {
  const line = [
    { ...run("ab", 50, 700, 10, 9), font: "f1" },
    { ...run("cdefgh", 70, 700, 30, 12), font: "f2" },
    { ...run("ij", 110, 700, 10, 9), font: "f1" },
    { ...run("klm", 130, 700, 15, 9.04), font: "f1" },
  ];
  const [l] = layoutLines(line);
  // Size 9 (2 + 2 + 3 characters, 9.04 rounds to 9) beats 12 (6); font f1 (7) beats f2 (6).
  assertEquals(l?.size, 9);
  assertEquals(l?.font, "f1");
  assertEquals(l?.leadFont, "f1");
  assertEquals(l?.lead, "ab");
});
