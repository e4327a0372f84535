import { zipSync } from "fflate";
import { zipBomb } from "../tests/zip_bomb.ts";
import { assert, assertEquals, assertRejects } from "../tests/assert.ts";
import { ExtractError } from "../core/extractor.ts";
import { serialDate, xlsx } from "./xlsx.ts";
import { MAX_ROWS } from "./_office.ts";

const FIXTURE = new URL("./testdata/office/tables.xlsx", import.meta.url);
const run = (bytes: Uint8Array, maxRows?: number) =>
  xlsx({ maxRows }).extract({ path: "l/tables.xlsx", extension: ".xlsx", bytes });

async function reason(bytes: Uint8Array): Promise<string> {
  const err = await assertRejects(() => run(bytes));
  assert(err instanceof ExtractError, String(err));
  return err.reason;
}

Deno.test("xlsx() makes one section per sheet, named as the sheet, rows as lines", async () => {
  const doc = await run(await Deno.readFile(FIXTURE));
  assertEquals(doc.headings?.map((h) => [h.level, h.title]), [
    [1, "Manual pages"],
    [1, "ISO 8859-14"],
    [1, "Corpus"],
  ]);
  assertEquals(doc.outlineQuality, "high");
  for (const h of doc.headings!) assertEquals(doc.lines[h.line - 1], `# ${h.title}`);
  // strings, numbers and a date cell (a serial number in a date format) as shown
  assert(doc.lines.includes("Page | Section | Date | Summary"));
  assert(
    doc.lines.includes(
      "getent | 1 | 2023-01-07 | getent - get entries from Name Service Switch libraries",
    ),
  );
  assert(doc.lines.includes("241 | 161 | A1 | Ḃ | LATIN CAPITAL LETTER B WITH DOT ABOVE"));
  // an empty cell keeps its place
  assert(doc.lines.includes("240 | 160 | A0 |  | NO-BREAK SPACE"));
  assert(
    doc.lines.includes("text/man/manpages/man7/unix.7.txt | text | text | manpages | 35034"),
    "no unix.7 row",
  );
  assertEquals(doc.meta?.title, "Corpus tables");
  assertEquals(doc.meta?.author, "shelfmark fixtures");
  assertEquals(doc.warnings, undefined);
});

Deno.test("xlsx() keeps at most maxRows rows a sheet and says so in the warnings", async () => {
  assertEquals(MAX_ROWS, 5000);
  const doc = await run(await Deno.readFile(FIXTURE), 20);
  const corpus = doc.headings!.find((h) => h.title === "Corpus")!;
  assertEquals(doc.lines.length - corpus.line - 1, 20);
  assertEquals(doc.warnings, [
    'sheet "ISO 8859-14": first 20 of 97 rows kept (row cap 20)',
    'sheet "Corpus": first 20 of 154 rows kept (row cap 20)',
  ]);
});

Deno.test("serialDate() reads 1900 and 1904 serial numbers, times included", () => {
  assertEquals(serialDate(44933), "2023-01-07");
  assertEquals(serialDate(1), "1900-01-01");
  assertEquals(serialDate(61), "1900-03-01");
  assertEquals(serialDate(44933.5), "2023-01-07 12:00:00");
  assertEquals(serialDate(0.25, false, "time"), "06:00:00");
  assertEquals(serialDate(0, true), "1904-01-01");
});

Deno.test("xlsx() skips bad files with a reason: truncated, not a workbook, zip bomb, empty", async () => {
  const bytes = await Deno.readFile(FIXTURE);
  assertEquals(await reason(bytes.slice(0, 4000)), "corrupt");
  assertEquals(await reason(new TextEncoder().encode("a,b,c\n1,2,3\n")), "corrupt");
  assertEquals(await reason(zipSync({ "a.txt": new TextEncoder().encode("hello") })), "corrupt");
  assertEquals(await reason(zipBomb("xl/worksheets/sheet1.xml", 310)), "too_large");
  assertEquals(await reason(new Uint8Array(0)), "empty");
});
