/**
 * The Excel extractor (`.xlsx`, `.xlsm`): one section per worksheet, in workbook order, the
 * sheet's name a level-1 heading and each non-empty row a line of its cells joined with
 * ` | ` (empty cells between kept, so columns line up). Cells show their value: shared and
 * inline strings, numbers, booleans, errors, the cached result of a formula; numbers in a
 * date format become ISO dates (`2023-01-07`, with the time when the format has one), in a
 * percent format percentages. At most {@link MAX_ROWS} rows a sheet are kept (the warnings
 * say which sheet was cut and how many rows it has). Metadata comes from `docProps/core.xml`.
 *
 * @module
 */
import type { Extracted, ExtractInput, Extractor } from "../core/extractor.ts";
import { ExtractError } from "../core/extractor.ts";
import { attr, decodeEntities, elements, tags } from "./_xml.ts";
import {
  coreMeta,
  DocBuilder,
  MAX_COLUMNS,
  MAX_ROWS,
  openPackage,
  partRels,
  partText,
  SheetWriter,
} from "./_office.ts";

const MIME = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";
const WHAT = "Excel workbook";

/** Options of {@link xlsx}. */
export interface SheetOptions {
  /** Rows kept of one sheet; default {@link MAX_ROWS}. */
  maxRows?: number;
}

/** The text of every shared string (`<si>`), phonetic runs (`<rPh>`) left out. */
function sharedStrings(xml: string | undefined): string[] {
  const out: string[] = [];
  if (!xml) return out;
  let cur: string | undefined;
  let phonetic = 0;
  let textStart = -1;
  for (const t of tags(xml)) {
    const name = t.name.replace(/^\w+:/, "");
    const empty = t.kind === "open" && t.attrs.trimEnd().endsWith("/");
    if (t.kind === "open") {
      if (name === "si") cur = "";
      if (name === "si" && empty) out.push("");
      if (name === "rph" && !empty) phonetic++;
      if (name === "t" && !empty) textStart = t.end;
    } else if (t.kind === "close") {
      if (name === "t" && cur !== undefined && !phonetic && textStart >= 0) {
        cur += decodeEntities(xml.slice(textStart, t.start));
      }
      if (name === "t") textStart = -1;
      if (name === "rph") phonetic--;
      if (name === "si" && cur !== undefined) {
        out.push(cur);
        cur = undefined;
      }
    }
  }
  return out;
}

/** Built-in number formats that show dates or times. */
const DATE_IDS = new Set([
  14,
  15,
  16,
  17,
  18,
  19,
  20,
  21,
  22,
  27,
  28,
  29,
  30,
  31,
  32,
  33,
  34,
  35,
  36,
  45,
  46,
  47,
  50,
  51,
  52,
  53,
  54,
  55,
  56,
  57,
  58,
]);

/** How a style shows numbers: `date`, `percent` or as they are. */
type NumKind = "date" | "time" | "percent" | "plain";

/** The number kind of every cell style (`cellXfs`), by index. */
function styleKinds(xml: string | undefined): NumKind[] {
  if (!xml) return [];
  const formats = new Map<number, string>();
  for (const t of elements(xml, "numfmt")) {
    formats.set(Number(attr(t.attrs, "numFmtId")), attr(t.attrs, "formatCode") ?? "");
  }
  const kind = (id: number): NumKind => {
    const code = formats.get(id);
    if (code === undefined) {
      if (id === 9 || id === 10) return "percent";
      if (id >= 18 && id <= 21 || id >= 45 && id <= 47) return "time";
      return DATE_IDS.has(id) ? "date" : "plain";
    }
    const bare = code.replace(/"[^"]*"|\[[^\]]*\]|\\./g, "");
    if (/[dy]/i.test(bare) || /m/i.test(bare) && !/[hs]/i.test(bare)) return "date";
    if (/[hs]/i.test(bare)) return "time";
    return bare.includes("%") ? "percent" : "plain";
  };
  const xfs = /<(?:\w+:)?cellXfs\b[\s\S]*?<\/(?:\w+:)?cellXfs>/.exec(xml)?.[0] ?? "";
  return [...elements(xfs, "xf")].map((t) => kind(Number(attr(t.attrs, "numFmtId") ?? 0)));
}

/** An Excel serial date as ISO 8601: the date, with the time when it has one. */
export function serialDate(serial: number, date1904 = false, kind: NumKind = "date"): string {
  if (!Number.isFinite(serial)) return String(serial);
  const day = 86_400_000;
  // 1900 system: serial 1 is 1900-01-01 and 60 the 1900-02-29 that never was
  const epoch = date1904 ? Date.UTC(1904, 0, 1) : Date.UTC(1899, 11, serial < 60 ? 31 : 30);
  const ms = Math.round(epoch + serial * day);
  if (ms < Date.UTC(-9999, 0, 1) || ms > Date.UTC(9999, 11, 31)) return String(serial);
  const iso = new Date(ms).toISOString();
  const time = iso.slice(11, 19);
  if (kind === "time" && serial < 1) return time;
  return time === "00:00:00" ? iso.slice(0, 10) : `${iso.slice(0, 10)} ${time}`;
}

/** Column index (0-based) of a cell reference such as `AB12`. */
function column(ref: string): number {
  let n = 0;
  for (const c of ref) {
    const code = c.charCodeAt(0);
    if (code < 65 || code > 90) break;
    n = n * 26 + code - 64;
  }
  return n - 1;
}

const ROW = /<(?:\w+:)?row\b[^>]*?(?:\/>|>([\s\S]*?)<\/(?:\w+:)?row>)/g;
const CELL = /<(?:\w+:)?c\b([^>]*?)(?:\/>|>([\s\S]*?)<\/(?:\w+:)?c>)/g;
const VALUE = /<(?:\w+:)?v\b[^>]*>([\s\S]*?)<\/(?:\w+:)?v>/;
const HAS_VALUE = /<(?:\w+:)?(?:v|is)\b/;

interface Book {
  strings: string[];
  kinds: NumKind[];
  date1904: boolean;
}

/** The text a cell shows. */
function cellText(attrs: string, inner: string, book: Book): string {
  const type = attr(attrs, "t") ?? "n";
  if (type === "inlineStr") {
    return [...inner.matchAll(/<(?:\w+:)?t\b[^>]*>([\s\S]*?)<\/(?:\w+:)?t>/g)]
      .map((m) => decodeEntities(m[1]!)).join("");
  }
  const raw = VALUE.exec(inner)?.[1];
  if (raw === undefined) return "";
  const v = decodeEntities(raw);
  switch (type) {
    case "s":
      return book.strings[Number(v)] ?? "";
    case "b":
      return v === "1" ? "TRUE" : "FALSE";
    case "str":
    case "e":
    case "d":
      return v;
  }
  const n = Number(v);
  if (!Number.isFinite(n)) return v;
  const kind = book.kinds[Number(attr(attrs, "s") ?? 0)] ?? "plain";
  if (kind === "date" || kind === "time") return serialDate(n, book.date1904, kind);
  if (kind === "percent") return `${Number((n * 100).toPrecision(12))}%`;
  return String(Number(n.toPrecision(15)));
}

/** Read one worksheet into the writer. */
function readSheet(xml: string, book: Book, out: SheetWriter): void {
  const data = /<(?:\w+:)?sheetData\b[^>]*>/.exec(xml);
  if (!data) return;
  ROW.lastIndex = data.index;
  let wide = false;
  for (let m = ROW.exec(xml); m; m = ROW.exec(xml)) {
    const inner = m[1] ?? "";
    if (out.full) {
      if (HAS_VALUE.test(inner)) out.skipped(1);
      continue;
    }
    const cells: string[] = [];
    let next = 0;
    for (const c of inner.matchAll(CELL)) {
      const ref = attr(c[1]!, "r");
      const col = ref ? column(ref) : next;
      next = col + 1;
      if (col < 0) continue;
      if (col >= MAX_COLUMNS) {
        wide = true;
        continue;
      }
      const text = cellText(c[1]!, c[2] ?? "", book);
      if (text) cells[col] = text;
    }
    out.row(Array.from(cells, (c) => c ?? ""));
  }
  if (wide) out.doc.warnings.push(`cells past column ${MAX_COLUMNS} left out`);
}

/**
 * The Excel extractor.
 *
 * @param options the row cap of one sheet
 * @returns an extractor producing one section per sheet, its rows as lines
 * @example
 * ```ts
 * import { xlsx } from "./xlsx.ts";
 * import { strToU8, zipSync } from "fflate";
 * import assert from "node:assert/strict";
 *
 * const ns = `xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"
 *   xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"`;
 * const rel = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet";
 * const bytes = zipSync({
 *   "xl/workbook.xml": strToU8(
 *     `<workbook ${ns}><sheets><sheet name="Costs" sheetId="1" r:id="s1"/></sheets></workbook>`,
 *   ),
 *   "xl/_rels/workbook.xml.rels": strToU8(
 *     `<Relationships><Relationship Id="s1" Type="${rel}" Target="worksheets/sheet1.xml"/></Relationships>`,
 *   ),
 *   "xl/worksheets/sheet1.xml": strToU8(
 *     `<worksheet ${ns}><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>Tea</t></is></c>` +
 *       `<c r="B1"><v>3</v></c></row></sheetData></worksheet>`,
 *   ),
 * });
 * const doc = await xlsx().extract({ path: "lib/budget.xlsx", extension: ".xlsx", bytes });
 * assert.deepEqual(doc.lines, ["# Costs", "", "Tea | 3"]);
 * ```
 */
export function xlsx(options: SheetOptions = {}): Extractor {
  return {
    name: "xlsx",
    extensions: [".xlsx", ".xlsm"],
    mimeTypes: [MIME],
    priority: 0,
    extract(input: ExtractInput): Promise<Extracted> {
      try {
        const zip = openPackage(
          input.bytes,
          WHAT,
          (n) =>
            /^(?:xl\/.*\.xml|xl\/.*\.rels|docProps\/core\.xml)$/.test(n) &&
            !/^xl\/(?:media|theme|drawings|charts|pivot|printerSettings)/.test(n),
        );
        const workbook = partText(zip, "xl/workbook.xml");
        if (!workbook) throw new ExtractError("corrupt", `zip archive is not an ${WHAT}`);
        const rels = partRels(zip, "xl/workbook.xml");
        const target = (type: string) => [...rels.values()].find((r) => r.type === type)?.target;
        const book: Book = {
          strings: sharedStrings(partText(zip, target("sharedStrings") ?? "xl/sharedStrings.xml")),
          kinds: styleKinds(partText(zip, target("styles") ?? "xl/styles.xml")),
          date1904: /<(?:\w+:)?workbookPr\b[^>]*date1904="(?:1|true)"/.test(workbook),
        };
        const doc = new DocBuilder();
        const out = new SheetWriter(doc, options.maxRows ?? MAX_ROWS);
        for (const t of elements(workbook, "sheet")) {
          const rel = rels.get(attr(t.attrs, "r:id") ?? "");
          if (rel?.type !== "worksheet") continue;
          const xml = partText(zip, rel.target);
          if (xml === undefined) continue;
          out.sheet(attr(t.attrs, "name") ?? "");
          readSheet(xml, book, out);
        }
        out.end();
        return Promise.resolve(doc.result(coreMeta(partText(zip, "docProps/core.xml")), WHAT));
      } catch (e) {
        return Promise.reject(e);
      }
    },
  };
}
