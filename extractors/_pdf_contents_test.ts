import { assert, assertEquals } from "../tests/assert.ts";
import { contentsKey, readContents } from "./_pdf_contents.ts";
import type { PdfLine } from "./_headings_pdf.ts";

/** Pages of lines: [text, size, font, lead?, leadFont?] per line; lowercase starts wrap. */
function doc(pages: [string, number, string, string?, string?][][]): PdfLine[] {
  const out: PdfLine[] = [];
  pages.forEach((rows, p) =>
    rows.forEach(([text, size, font, lead, leadFont], index) =>
      out.push({
        text,
        line: out.length + 1,
        page: p + 1,
        size,
        bold: false,
        index,
        ofPage: rows.length,
        gapBefore: !/^\p{Ll}/u.test(text),
        font,
        lead: lead ?? text,
        leadFont: leadFont ?? font,
      })
    )
  );
  return out;
}

const prose = (n: number): [string, number, string] => [
  `Body text of paragraph ${n} that runs on for a while.`,
  10,
  "body",
];

// Page 1: title; page 2: contents (printed pages start at 1 on physical page 3).
const lines = doc([
  [["A Manual", 20, "big"]],
  [
    ["Contents", 14, "big"],
    ["1 Intro . . . . . . . . 1", 10, "body"],
    ["1.1 Goals . . . . . . . 1", 10, "body"],
    ["1.2 A title that wraps over", 10, "body"],
    ["two lines . . . . . . . 2", 10, "body"],
    ["Column . . . . . . . . 2", 10, "body"],
    ["2 Use . . . . . . . . . 3", 10, "body"],
  ],
  [["1 Intro", 14, "big"], prose(1), ["1.1 Goals", 10, "bold"], prose(2)],
  [
    ["1.2 A title that wraps over two lines", 10, "bold"],
    ["Column The column(x) function returns", 10, "body", "Column", "bold"],
    prose(3),
  ],
  [["2 Use", 14, "big"], ["Column The column(x) function again", 10, "body", "Column", "bold"]],
]);

Deno.test("contents: listed body-size headings are found on their page, once", () => {
  assertEquals(contentsKey("1.2 Goals . . . . 17"), "goals");
  assertEquals(contentsKey("Chapter 3 Shells 41"), "shells");
  const c = readContents(lines, 5, (l) => l.size >= 14);
  assert(c.listing(2) && !c.listing(3));
  const at = (text: string) => lines.find((l) => l.text === text)!;
  assertEquals(c.titleOf(at("1.1 Goals"), "body"), "1.1 Goals");
  assertEquals(c.titleOf(at("1.1 Goals"), "body"), undefined, "an entry names one heading");
  // An entry wrapped over two lines of the contents.
  const wrapped = at("1.2 A title that wraps over two lines");
  assertEquals(c.titleOf(wrapped, "body"), wrapped.text);
  // A run-in heading: the leading run in its own font, on the page the contents give.
  assertEquals(c.titleOf(at("Column The column(x) function returns"), "body"), "Column");
  assertEquals(c.titleOf(at("Column The column(x) function again"), "body"), undefined);
  // Prose in the body font is never a heading by the contents.
  assertEquals(c.titleOf(lines.find((l) => l.text.startsWith("Body text"))!, "body"), undefined);
});

Deno.test("contents: a heading found otherwise takes its entry", () => {
  const c = readContents(lines, 5, (l) => l.size >= 14);
  c.claim("1.1 Goals", 3);
  assertEquals(c.titleOf(lines.find((l) => l.text === "1.1 Goals")!, "body"), undefined);
  // Without a contents page nothing is listed.
  const none = readContents(lines.filter((l) => l.page !== 2), 5, () => false);
  assertEquals(none.titleOf(lines.find((l) => l.text === "1.1 Goals")!, "body"), undefined);
});
