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
