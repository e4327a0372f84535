/**
 * The OpenDocument spreadsheet extractor (`.ods`, `.ots`, flat `.fods`), laid out like the
 * Excel one: one section per `table:table`, its name a level-1 heading, each non-empty row
 * a line of its cells joined with ` | `. A cell shows the text it displays (its `text:p`),
 * else its value. Repeated rows and cells (`table:number-rows-repeated`,
 * `table:number-columns-repeated`) count as many times as they repeat, empty ones cost
 * nothing. At most {@link MAX_ROWS} rows a sheet are kept, as for Excel.
 *
 * @module
 */
import type { Extracted, ExtractInput, Extractor } from "../core/extractor.ts";
import { attr, tags } from "./_xml.ts";
import { DocBuilder, MAX_COLUMNS, MAX_ROWS, SheetWriter, xmlText } from "./_office.ts";
import { openOdf, type Skipped, stillSkipped } from "./_odf.ts";
import type { SheetOptions } from "./xlsx.ts";

const MIME = "application/vnd.oasis.opendocument.spreadsheet";
const WHAT = "OpenDocument spreadsheet";

/** Subtrees that hold no cell text: comments, drawings, forms, declarations. */
const SKIP = new Set([
  "office:annotation",
  "table:shapes",
  "office:forms",
  "table:named-expressions",
  "table:database-ranges",
  "table:table-source",
  "svg:title",
  "svg:desc",
]);

/** The value of a cell without displayed text. */
function cellValue(attrs: string): string {
  for (const name of ["string-value", "date-value", "time-value", "boolean-value", "value"]) {
    const v = attr(attrs, `office:${name}`);
    if (v !== undefined) return v;
  }
  return "";
}

/** Read the sheets of `content.xml` into the writer. */
function readSheets(xml: string, out: SheetWriter): void {
  let cells: string[] = [];
  let rowTimes = 1;
  let col = 0;
  let cell: { text: string[]; attrs: string; times: number } | undefined;
  let para = false;
  let skip: Skipped | undefined;
  let pos = 0;
  let wide = false;
  const endCell = () => {
    if (!cell) return;
    const text = cell.text.join(" ").replace(/\s+/g, " ").trim() || cellValue(cell.attrs);
    if (text) {
      const stop = Math.min(col + cell.times, MAX_COLUMNS);
      for (let c = col; c < stop; c++) cells[c] = text;
      if (col + cell.times > MAX_COLUMNS) wide = true;
    }
    col += cell.times;
    cell = undefined;
  };
  for (const t of tags(xml)) {
    if (para && cell && !skip && t.start > pos) {
      cell.text[cell.text.length - 1] += xmlText(xml.slice(pos, t.start));
    }
    pos = t.end;
    if (t.kind !== "open" && t.kind !== "close") continue;
    const empty = t.kind === "open" && t.attrs.trimEnd().endsWith("/");
    if (skip) {
      skip = stillSkipped(skip, t, empty);
      continue;
    }
    if (t.kind === "open") {
      if (SKIP.has(t.name)) {
        if (!empty) skip = { name: t.name, depth: 1 };
        continue;
      }
      switch (t.name) {
        case "table:table":
          out.sheet(attr(t.attrs, "table:name") ?? "");
          break;
        case "table:table-row":
          cells = [];
          col = 0;
          rowTimes = Math.max(1, Number(attr(t.attrs, "table:number-rows-repeated")) || 1);
          break;
        case "table:table-cell":
        case "table:covered-table-cell": {
          const times = Math.max(1, Number(attr(t.attrs, "table:number-columns-repeated")) || 1);
          cell = { text: [], attrs: t.attrs, times };
          if (empty) endCell();
          break;
        }
        case "text:p":
          if (cell && !empty) {
            cell.text.push("");
            para = true;
          }
          break;
        case "text:s":
          if (para && cell) {
            cell.text[cell.text.length - 1] += " ".repeat(
              Math.min(Number(attr(t.attrs, "text:c")) || 1, 100),
            );
          }
          break;
        case "text:tab":
        case "text:line-break":
          if (para && cell) cell.text[cell.text.length - 1] += " ";
          break;
      }
      continue;
    }
    switch (t.name) {
      case "text:p":
        para = false;
        break;
      case "table:table-cell":
      case "table:covered-table-cell":
        endCell();
        break;
      case "table:table-row":
        out.row(Array.from(cells, (c) => c ?? ""), rowTimes);
        break;
      case "table:table":
        out.end();
        break;
    }
  }
  if (wide) out.doc.warnings.push(`cells past column ${MAX_COLUMNS} left out`);
}

/**
 * The OpenDocument spreadsheet extractor.
 *
 * @param options the row cap of one sheet
 * @returns an extractor producing one section per sheet, its rows as lines
 * @example
 * ```ts
 * import { ods } from "./ods.ts";
 * import assert from "node:assert/strict";
 *
 * // A flat OpenDocument file (.fods) is the package's content.xml on its own.
 * const fods = `<office:document
 *   xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"
 *   xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"
 *   xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"
 *   office:mimetype="application/vnd.oasis.opendocument.spreadsheet"><office:body><office:spreadsheet>
 *   <table:table table:name="Costs"><table:table-row>
 *     <table:table-cell><text:p>Tea</text:p></table:table-cell>
 *     <table:table-cell office:value-type="float" office:value="3"><text:p>3</text:p></table:table-cell>
 *   </table:table-row></table:table>
 * </office:spreadsheet></office:body></office:document>`;
 * const bytes = new TextEncoder().encode(fods);
 * const doc = await ods().extract({ path: "lib/budget.fods", extension: ".fods", bytes });
 * assert.deepEqual(doc.lines, ["# Costs", "", "Tea | 3"]);
 * ```
 */
export function ods(options: SheetOptions = {}): Extractor {
  return {
    name: "ods",
    extensions: [".ods", ".ots", ".fods"],
    mimeTypes: [MIME],
    priority: 0,
    extract(input: ExtractInput): Promise<Extracted> {
      try {
        const { content, meta } = openOdf(input, MIME, WHAT);
        const doc = new DocBuilder();
        const body = content.search(/<office:spreadsheet[\s>]/);
        if (body >= 0) {
          readSheets(content.slice(body), new SheetWriter(doc, options.maxRows ?? MAX_ROWS));
        }
        return Promise.resolve(doc.result(meta, WHAT));
      } catch (e) {
        return Promise.reject(e);
      }
    },
  };
}
