/**
 * Layout tables in HTML pages ({@link unwrapLayoutTables}): old pages (libxslt, libxml2,
 * many pages of the 2000s) place their header, menus and body in the cells of nested
 * tables. Converted as tables, the whole page becomes one Markdown table cell: no headings,
 * list items and paragraphs run together. Those tables are unwrapped into blocks; tables of
 * data stay tables.
 *
 * @module
 */
import { attr, tags } from "./_xml.ts";

/** Headings: a table whose rows hold them is a page's layout, not data. */
const HEADINGS = new Set(["h1", "h2", "h3", "h4", "h5", "h6"]);
/** Table parts written as blocks when their table is unwrapped. */
const AS_BLOCK = new Set(["table", "tr", "td", "th", "caption"]);
/** Table parts dropped when their table is unwrapped. */
const DROPPED = new Set(["tbody", "thead", "tfoot", "colgroup", "col"]);

/** One edit of the page: replace `[start, end)` by `text`. */
interface Edit {
  start: number;
  end: number;
  text: string;
}

/** What one table holds, gathered while its tags are read. */
class TableScan {
  /** The edits that unwrap the table, applied when it is a layout table. */
  readonly edits: Edit[] = [];
  private readonly presentation: boolean;
  private rows = 0;
  private columns = 0;
  /** Rows with a heading in a cell. */
  private headingRows = 0;
  private headingInRow = false;
  /** Whether a row has header cells (`th`). */
  private headers = false;
  private cells = 0;
  private cellOpen = false;
  private rowOpen = false;

  constructor(attrs: string) {
    const role = attr(attrs, "role")?.trim().toLowerCase();
    this.presentation = role === "presentation" || role === "none";
  }

  /** An element opened in the current cell, or in a table nested in it. */
  content(name: string): void {
    if (!this.cellOpen) return;
    if (HEADINGS.has(name) && !this.headingInRow) {
      this.headingInRow = true;
      this.headingRows++;
    }
  }

  /**
   * One of the table's own tags (`tr`, `td`, `</table>`, …) at `[start, end)`; as a block
   * it closes the cell and row left open before it, so the blocks nest as the table did.
   */
  part(name: string, close: boolean, start: number, end: number): void {
    let text = "";
    const endCell = () => {
      if (this.cellOpen) text += "</div>";
      this.cellOpen = false;
    };
    const endRow = () => {
      endCell();
      if (this.rowOpen) text += "</div>";
      this.rowOpen = false;
    };
    if (name === "td" || name === "th") {
      endCell();
      if (!close) {
        if (!this.rowOpen) this.startRow();
        if (name === "th") this.headers = true;
        this.cellOpen = true;
        this.columns = Math.max(this.columns, ++this.cells);
        text += "<div>";
      }
    } else if (name === "tr") {
      endRow();
      if (!close) {
        this.startRow();
        text += "<div>";
      }
    } else if (DROPPED.has(name)) {
      if (name !== "col") endRow();
    } else {
      // table or caption
      endRow();
      text += close ? "</div>" : "<div>";
    }
    this.edits.push({ start, end, text });
  }

  private startRow(): void {
    this.rowOpen = true;
    this.headingInRow = false;
    this.rows++;
    this.cells = 0;
  }

  /** Whether the table lays out the page (known once it is closed). */
  isLayout(): boolean {
    return this.presentation || this.headingRows * 2 >= Math.max(this.rows, 1) ||
      this.rows <= 1 || (this.columns <= 1 && !this.headers);
  }
}

/**
 * Unwrap the layout tables of a page into blocks (`<div>`), keeping the tables of data.
 *
 * A table lays out the page when it has `role="presentation"` (or `none`), a single row, a
 * single column without header cells (a box or a menu), or headings in at least half of
 * its rows (in its cells or in tables nested in them). Tables of data keep their headings
 * in `th` cells and hold values in many rows: a heading in one cell of a long table (a
 * note) or paragraphs and lists in cells (Sphinx, DocBook) leave them tables. Everything
 * inside an unwrapped table is kept; its rows and cells become blocks, so headings become
 * headings again and the items of a menu stay apart. Linear in the size of the page.
 *
 * @param html the page, chrome removed
 * @param check called at each tag (see `deadlineCheck`)
 * @returns the page with layout tables replaced by blocks
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const page = "<table><tr><td><h1>Title</h1><p>Text</p></td></tr></table>";
 * assert.equal(unwrapLayoutTables(page), "<div><div><div><h1>Title</h1><p>Text</p></div></div></div>");
 * const data = "<table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table>";
 * assert.equal(unwrapLayoutTables(data), data);
 * ```
 */
export function unwrapLayoutTables(html: string, check?: () => void): string {
  if (!/<table\b/i.test(html)) return html;
  const open: TableScan[] = [];
  const edits: Edit[] = [];
  const finish = (table: TableScan) => {
    if (table.isLayout()) edits.push(...table.edits);
  };
  for (const t of tags(html)) {
    check?.();
    const inner = open.at(-1);
    if (t.kind !== "open" && t.kind !== "close") continue;
    const close = t.kind === "close";
    if (t.name === "table" && !close) {
      open.push(new TableScan(t.attrs));
      open.at(-1)!.part("table", false, t.start, t.end);
    } else if (!inner) {
      continue;
    } else if (AS_BLOCK.has(t.name) || DROPPED.has(t.name)) {
      inner.part(t.name, close, t.start, t.end);
      if (t.name === "table") finish(open.pop()!);
    } else if (!close) {
      for (const table of open) table.content(t.name);
    }
  }
  // tables never closed end with the page
  while (open.length) {
    const table = open.pop()!;
    table.part("table", true, html.length, html.length);
    finish(table);
  }
  if (!edits.length) return html;
  edits.sort((a, b) => a.start - b.start);
  const out: string[] = [];
  let copied = 0;
  for (const e of edits) {
    out.push(html.slice(copied, e.start), e.text);
    copied = e.end;
  }
  out.push(html.slice(copied));
  return out.join("");
}
