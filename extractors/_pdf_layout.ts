/**
 * Page layout for the PDF extractor: pdf.js text items rebuilt into lines in reading order.
 * Pages set in two columns are read column by column (a full-width title or figure caption
 * stays where it is); the rows of a table stay rows, their cells joined by ` | `. Pure
 * functions over plain runs, so they can be tested without pdf.js.
 *
 * @module
 */

/** A text item reduced to what line building needs. */
export interface Run {
  /** The text. */
  str: string;
  /** Left edge. */
  x: number;
  /** Baseline. */
  y: number;
  /** Width. */
  w: number;
  /** Height (font size). */
  h: number;
  /** Whether its font is bold. */
  bold: boolean;
  /** The font's id within the document (pdf.js `fontName`), if known. */
  font?: string;
  /** Whether its font is fixed-pitch. */
  mono?: boolean;
}

/** One rebuilt line. */
export interface PageLine {
  /** The text, whitespace collapsed. */
  text: string;
  /** Dominant font size, weighted by characters. */
  size: number;
  /** Whether most characters are bold. */
  bold: boolean;
  /** Whether a large vertical gap (or a new column) precedes the line. */
  gapBefore: boolean;
  /** The font of most of its characters (`""` when the runs name none). */
  font: string;
  /** Whether most characters are in a fixed-pitch font. */
  mono: boolean;
  /** The leading runs set in the line's first font (a run-in heading: "Column The ..."). */
  lead: string;
  /** That first font. */
  leadFont: string;
  /** Left edge of the line. */
  x: number;
  /** Right edge of the line. */
  right: number;
  /** Baseline of the line (PDF units, up the page). */
  y: number;
  /** Cells of a table row (1 for a line that is not one). */
  cells: number;
}

// Control characters (and Unicode line separators) must never reach a line.
// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u001f\u007f\u2028\u2029]/;
// deno-lint-ignore no-control-regex
const CONTROL_ALL = /[\u0000-\u001f\u007f\u2028\u2029]+/g;

const BINS = 120;

/**
 * Split a page's runs into groups in reading order: `[runs]` for a one-column page; for two
 * columns, bands between full-width lines, each band's left column before its right one.
 */
export function readingGroups(runs: Run[]): Run[][] {
  if (runs.length < 40) return [runs];
  let minX = Infinity;
  let maxX = -Infinity;
  for (const r of runs) {
    if (r.x < minX) minX = r.x;
    if (r.x + r.w > maxX) maxX = r.x + r.w;
  }
  const width = maxX - minX;
  if (!(width > 100)) return [runs];
  const scale = BINS / width;
  const cover = new Int32Array(BINS);
  for (const r of runs) {
    const a = Math.max(0, Math.floor((r.x - minX) * scale));
    const b = Math.min(BINS - 1, Math.floor((r.x + r.w - minX) * scale));
    for (let i = a; i <= b; i++) cover[i]!++;
  }
  // The gutter: the widest stretch of nearly uncovered bins in the middle third of the page.
  const allowed = Math.max(1, Math.floor(runs.length * 0.03));
  let best = -1;
  let bestLen = 0;
  for (let i = Math.floor(BINS * 0.3); i < Math.ceil(BINS * 0.7); i++) {
    if (cover[i]! > allowed) continue;
    let j = i;
    while (j + 1 < BINS && cover[j + 1]! <= allowed) j++;
    if (j - i + 1 > bestLen) [best, bestLen] = [i, j - i + 1];
    i = j;
  }
  if (best < 0) return [runs];
  const gutterL = minX + best / scale;
  const gutterR = minX + (best + bestLen) / scale;
  const left: Run[] = [];
  const right: Run[] = [];
  const span: Run[] = [];
  const spanY: number[] = [];
  for (const r of runs) {
    if (r.x + r.w > gutterL + 1 && r.x < gutterR - 1) spanY.push(r.y);
  }
  // A table row of three cells or more runs across the gutter: it is read whole.
  const rows = baselineRows(runs);
  const cells = tableCells(rows);
  cells.forEach((c, i) => {
    if (c.length >= 3 && (cells[i - 1]?.length ?? 0) + (cells[i + 1]?.length ?? 0) >= 3) {
      spanY.push(rows[i]![0]!.y);
    }
  });
  // A line crossing the gutter is full width as a whole: its other runs stay with it.
  const crosses = (r: Run) => spanY.some((y) => Math.abs(y - r.y) <= r.h * 0.4);
  for (const r of runs) {
    if (spanY.length && crosses(r)) span.push(r);
    else if (r.x + r.w <= gutterL + 1) left.push(r);
    else if (r.x >= gutterR - 1) right.push(r);
    else span.push(r);
  }
  // Both sides must read as text columns: many rows each, and most left rows running up to
  // the gutter (a table's short cells do not).
  const rowEnds = (list: Run[]) => {
    const byY = new Map<number, number>();
    for (const r of list) {
      const k = Math.round(r.y);
      byY.set(k, Math.max(byY.get(k) ?? -Infinity, r.x + r.w));
    }
    return byY;
  };
  const lRows = rowEnds(left);
  const rRows = rowEnds(right);
  if (lRows.size < 8 || rRows.size < 8) return [runs];
  let reach = 0;
  for (const end of lRows.values()) if (end >= gutterL - width * 0.12) reach++;
  if (reach < lRows.size * 0.5) return [runs];
  const chars = (list: Run[]) => list.reduce((n, r) => n + r.str.length, 0);
  const total = chars(runs);
  const lChars = chars(left);
  const rChars = chars(right);
  if (lChars < total * 0.25 || rChars < total * 0.25) return [runs];
  // Text columns are about as wide as each other and hold lines of words; the columns of a
  // table are unequal or hold short cells, and are read row by row.
  const lWidth = gutterL - minX;
  const rWidth = maxX - gutterR;
  if (Math.min(lWidth, rWidth) < Math.max(lWidth, rWidth) * 0.7) return [runs];
  if (lChars / lRows.size < 18 || rChars / rRows.size < 18) return [runs];

  // Bands: full-width lines cut the page; each band reads left column, then right.
  // One cut per full-width line (its runs within 40 % of their height of each other).
  const cuts: number[] = [];
  for (const r of [...span].sort((a, b) => b.y - a.y)) {
    const last = cuts[cuts.length - 1];
    if (last === undefined || last - r.y > r.h * 0.4) cuts.push(r.y);
  }
  const band = (y: number) => {
    let i = 0;
    while (i < cuts.length && cuts[i]! > y) i++;
    return i;
  };
  const cutOf = (y: number) => {
    let i = 0;
    while (i + 1 < cuts.length && cuts[i + 1]! >= y) i++;
    return i;
  };
  const groups: Run[][] = [];
  const at = (i: number) => (groups[i] ??= []);
  // Group index per band: 3 * band + 0 (left), + 1 (right); spans sit at 3 * band + 2.
  for (const r of left) at(3 * band(r.y)).push(r);
  for (const r of right) at(3 * band(r.y) + 1).push(r);
  for (const r of span) at(3 * cutOf(r.y) + 2).push(r);
  return groups.filter((g) => g?.length);
}

/** Runs grouped into visual lines (one baseline each), top to bottom, each left to right. */
function baselineRows(runs: Run[]): Run[][] {
  const sorted = [...runs].sort((a, b) => b.y - a.y || a.x - b.x);
  const rows: Run[][] = [];
  let i = 0;
  while (i < sorted.length) {
    const head = sorted[i]!;
    const tol = head.h * 0.4;
    let j = i + 1;
    while (j < sorted.length && head.y - sorted[j]!.y <= tol) j++;
    rows.push(sorted.slice(i, j).sort((a, b) => a.x - b.x));
    i = j;
  }
  return rows;
}

/** A gap between runs wider than this many font heights separates table cells. */
const CELL_GAP = 1;
/** Rows further apart than this many font heights are not rows of one table. */
const ROW_GAP = 3;

/** Dot leaders: a contents line ("2.1 Title . . . . 7") is a line, not a table row. */
const LEADER = /(?:\.\s?){4}|\u2026{2}/;

/** A row's runs split where a gap wider than a cell gap separates them. */
function splitCells(row: Run[]): Run[][] {
  const cells: Run[][] = [];
  let end = -Infinity;
  for (const r of row) {
    const h = Math.max(r.h, cells.at(-1)?.at(-1)?.h ?? 0);
    if (!cells.length || r.x - end > h * CELL_GAP) cells.push([r]);
    else cells.at(-1)!.push(r);
    end = Math.max(end, r.x + r.w);
  }
  return cells;
}

/**
 * The cells of each row that is a table row, else `[row]`: a row of two cells or more, not
 * in a fixed-pitch font (code keeps its spacing) nor with dot leaders, with a row just above or below it whose
 * cells line up with its own (a cell after the first starting or ending where one of the
 * other row's does).
 */
function tableCells(rows: Run[][]): Run[][][] {
  const split = rows.map((row) => {
    const mono = row.reduce((n, r) => n + (r.mono ? r.str.length : -r.str.length), 0) > 0;
    return mono || row.some((r) => LEADER.test(r.str)) ? [row] : splitCells(row);
  });
  const edges = (cells: Run[][]) =>
    cells.slice(1).map((c) => [c[0]!.x, Math.max(...c.map((r) => r.x + r.w))] as const);
  const aligned = (a: number, b: number) => {
    const ra = rows[a];
    const rb = rows[b];
    if (!ra || !rb || split[a]!.length < 2 || split[b]!.length < 2) return false;
    const h = Math.max(ra[0]!.h, rb[0]!.h);
    if (Math.abs(ra[0]!.y - rb[0]!.y) > h * ROW_GAP) return false;
    const tol = h * 0.5;
    const eb = edges(split[b]!);
    return edges(split[a]!).some(([x0, x1]) =>
      eb.some(([y0, y1]) => Math.abs(x0 - y0) <= tol || Math.abs(x1 - y1) <= tol)
    );
  };
  return rows.map((row, i) => aligned(i, i - 1) || aligned(i, i + 1) ? split[i]! : [row]);
}

/** Join runs into text: a space where they do not touch, whitespace collapsed. */
function joinRuns(runs: Run[]): string {
  let text = "";
  let end = -Infinity;
  for (const r of runs) {
    if (text && r.x - end > r.h * 0.15 && !text.endsWith(" ") && !r.str.startsWith(" ")) {
      text += " ";
    }
    text += r.str;
    end = Math.max(end, r.x + r.w);
  }
  if (CONTROL.test(text)) text = text.replace(CONTROL_ALL, " ");
  return text.replace(/\s+/g, " ").trim();
}

/** Rebuild runs (of one reading group) into lines, top to bottom, table cells joined by `|`. */
function groupLines(runs: Run[], out: PageLine[]): void {
  const rows = baselineRows(runs);
  const cellsOf = tableCells(rows);
  let prevY = NaN;
  let prevH = 0;
  let first = true;
  rows.forEach((line, k) => {
    const head = line.reduce((a, b) => (b.y > a.y ? b : a));
    const cells = cellsOf[k]!.map(joinRuns).filter((c) => c);
    const text = cells.join(" | ");
    if (!text) return;
    let end = -Infinity;
    const sizes = new Map<number, number>();
    const fonts = new Map<string, number>();
    let boldChars = 0;
    let monoChars = 0;
    let chars = 0;
    let maxH = 0;
    for (const r of line) {
      end = Math.max(end, r.x + r.w);
      const n = r.str.length;
      const s = Math.round(r.h * 10) / 10;
      sizes.set(s, (sizes.get(s) ?? 0) + n);
      chars += n;
      if (r.bold) boldChars += n;
      if (r.mono) monoChars += n;
      if (r.font !== undefined) fonts.set(r.font, (fonts.get(r.font) ?? 0) + n);
      if (r.h > maxH) maxH = r.h;
    }
    let size = 0;
    let best = -1;
    for (const [s, n] of sizes) if (n > best) [size, best] = [s, n];
    let font = "";
    best = -1;
    for (const [f, n] of fonts) if (n > best) [font, best] = [f, n];
    const leadFont = line[0]!.font ?? "";
    let lead = "";
    for (const r of line) {
      if ((r.font ?? "") !== leadFont) break;
      lead += ` ${r.str}`;
    }
    lead = lead.replace(CONTROL_ALL, " ").replace(/\s+/g, " ").trim();
    const gap = prevY - head.y;
    const gapBefore = first || gap > 1.45 * Math.max(prevH, maxH);
    out.push({
      text,
      size,
      bold: boldChars * 2 > chars,
      gapBefore,
      font,
      mono: monoChars * 2 > chars,
      lead,
      leadFont,
      x: line[0]!.x,
      right: end,
      y: head.y,
      cells: cells.length,
    });
    first = false;
    prevY = head.y;
    prevH = maxH;
  });
}

/** Rebuild one page's runs into lines in reading order, joining words hyphenated at a break. */
export function layoutLines(runs: Run[]): PageLine[] {
  const out: PageLine[] = [];
  for (const g of readingGroups(runs)) groupLines(g, out);
  // Join a word hyphenated at the end of a line: "man-" + "uals (e.g." -> "manuals" / "(e.g."
  for (let k = 0; k + 1 < out.length; k++) {
    const a = out[k]!;
    const b = out[k + 1]!;
    if (b.gapBefore || !/\p{Ll}-$/u.test(a.text)) continue;
    const m = /^(\p{Ll}[\p{L}\p{N}]*[.,;:!?)]*)\s*/u.exec(b.text);
    if (!m) continue;
    a.text = a.text.slice(0, -1) + m[1];
    b.text = b.text.slice(m[0].length);
  }
  return out.filter((l) => l.text);
}
