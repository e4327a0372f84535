import { assert, assertEquals, assertRejects } from "../tests/assert.ts";
import { ExtractError } from "../core/extractor.ts";
import { ods } from "./ods.ts";
import { xlsx } from "./xlsx.ts";

const dir = new URL("./testdata/office/", import.meta.url);
const run = (bytes: Uint8Array, maxRows?: number) =>
  ods({ maxRows }).extract({ path: "l/tables.ods", extension: ".ods", bytes });

async function reason(bytes: Uint8Array): Promise<string> {
  const err = await assertRejects(() => run(bytes));
  assert(err instanceof ExtractError, String(err));
  return err.reason;
}

Deno.test("ods() makes one section per sheet, the same lines as the workbook saved as .xlsx", async () => {
  const doc = await run(await Deno.readFile(new URL("tables.ods", dir)));
  assertEquals(doc.headings?.map((h) => h.title), ["Manual pages", "ISO 8859-14", "Corpus"]);
  assert(
    doc.lines.includes(
      "getent | 1 | 2023-01-07 | getent - get entries from Name Service Switch libraries",
    ),
  );
  assert(doc.lines.includes("240 | 160 | A0 |  | NO-BREAK SPACE"));
  assertEquals(doc.meta?.title, "Corpus tables");
  const bytes = await Deno.readFile(new URL("tables.xlsx", dir));
  const excel = await xlsx().extract({ path: "l/tables.xlsx", extension: ".xlsx", bytes });
  assertEquals(doc.lines, excel.lines);
});

Deno.test("ods() keeps at most maxRows rows a sheet and says so in the warnings", async () => {
  const doc = await run(await Deno.readFile(new URL("tables.ods", dir)), 10);
  assertEquals(doc.warnings, [
    'sheet "Manual pages": first 10 of 12 rows kept (row cap 10)',
    'sheet "ISO 8859-14": first 10 of 97 rows kept (row cap 10)',
    'sheet "Corpus": first 10 of 154 rows kept (row cap 10)',
  ]);
});

Deno.test("ods() reads a flat .fods spreadsheet", async () => {
  const xml = `<?xml version="1.0"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"
 xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"
 xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"
 office:mimetype="application/vnd.oasis.opendocument.spreadsheet">
<office:body><office:spreadsheet><table:table table:name="Flat">
<table:table-row><table:table-cell table:number-columns-repeated="2"><text:p>x</text:p></table:table-cell>
<table:table-cell table:number-columns-repeated="1000"/><table:table-cell><text:p>far</text:p></table:table-cell></table:table-row>
<table:table-row table:number-rows-repeated="1048575"><table:table-cell table:number-columns-repeated="1024"/></table:table-row>
</table:table></office:spreadsheet></office:body></office:document>`;
  const doc = await ods().extract({
    path: "l/a.fods",
    extension: ".fods",
    bytes: new TextEncoder().encode(xml),
  });
  assertEquals(doc.lines, ["# Flat", "", "x | x"]);
  assertEquals(doc.warnings, ["cells past column 1000 left out"]);
});

Deno.test("ods() skips bad files with a reason: password, truncated, other document, empty", async () => {
  assertEquals(await reason(await Deno.readFile(new URL("tables-password.ods", dir))), "encrypted");
  const bytes = await Deno.readFile(new URL("tables.ods", dir));
  assertEquals(await reason(bytes.slice(0, 5000)), "corrupt");
  assertEquals(await reason(await Deno.readFile(new URL("zstd-readme.odt", dir))), "corrupt");
  assertEquals(await reason(new Uint8Array(0)), "empty");
});
