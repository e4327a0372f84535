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
  // How many runs cover each bin: +1 where a run starts, -1 past its end, summed left to right.
  const cover = new Int32Array(BINS + 1);
  for (const r of runs) {
    const a = Math.max(0, Math.floor((r.x - minX) * scale));
    const b = Math.min(BINS - 1, Math.floor((r.x + r.w - minX) * scale));
    if (a > b) continue;
    cover[a]!++;
    cover[b + 1]!--;
  }
  for (let i = 1; i < BINS; i++) cover[i]! += cover[i - 1]!;
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
  // A table row runs across the gutter: two cells or more besides the right column's start,
  // lined up with a row above or below (a loosely set line of prose lines up by chance).
  const rows = baselineRows(runs);
  const cutXs = tableCells(rows).map((cells) =>
    cells.slice(1).map((c) => c[0]!.x).filter((x) => x < gutterL || x > gutterR + 2 / scale)
  );
  const shared = (i: number, j: number) =>
    cutXs[i]!.filter((x) => cutXs[j]?.some((y) => Math.abs(x - y) <= SAME_X)).length;
  rows.forEach((row, i) => {
    if (Math.max(shared(i, i - 1), shared(i, i + 1)) >= 2) spanY.push(row[0]!.y);
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
  // Full-width lines with no column text between them (a table's rows) read as one group.
  const out: Run[][] = [];
  let lastSpan = -1;
  groups.forEach((g, i) => {
    if (!g?.length) return;
    if (i % 3 === 2 && lastSpan === out.length - 1 && lastSpan >= 0) out[lastSpan]!.push(...g);
    else out.push(g);
    if (i % 3 === 2) lastSpan = out.length - 1;
  });
  return out;
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
/** A gap this wide (wider than a word space) separates cells where a column runs 3 rows. */
const WORD_GAP = 0.6;
/** Cells of one column start (or, numbers, end) within this many PDF units of each other. */
const SAME_X = 1;
/** A number in a cell: "42", "-3.5", "1,024", "12%", "$7", "(3.2)". */
const NUMBER = /^[-+−(]?[$€£¥]?\d[\d,.]*%?\)?$/;
/** Rows further apart than this many font heights are not rows of one table. */
const ROW_GAP = 3;
/** Dot leaders: a contents line ("2.1 Title . . . . 7") is a line, not a table row. */
const LEADER = /(?:\.\s?){4}|\u2026{2}/;
/** A list's marker ("•", "-", "2.", "b)"): what follows it is an item, not a cell. */
const MARKER = /^(?:[\p{P}\p{S}]{1,2}|\d{1,3}[.)]|\p{L}[.)])$/u;

/** Where a row's runs can split into cells: each run after a gap, with the gap's width. */
function gapsOf(row: Run[]): { at: number; x: number; end: number; gap: number }[] {
  const out: { at: number; x: number; end: number; gap: number }[] = [];
  let end = row[0] ? row[0].x + row[0].w : -Infinity;
  for (let k = 1; k < row.length; k++) {
    const r = row[k]!;
    const h = Math.max(r.h, row[k - 1]!.h);
    if (r.x - end > h * WORD_GAP) out.push({ at: k, x: r.x, end: 0, gap: (r.x - end) / h });
    end = Math.max(end, r.x + r.w);
  }
  // The right edge of a cell holding a number (a column of numbers lines up on it).
  out.forEach((g, i) => {
    const cell = row.slice(g.at, out[i + 1]?.at ?? row.length);
    g.end = NUMBER.test(joinRuns(cell)) ? Math.max(...cell.map((r) => r.x + r.w)) : NaN;
  });
  return out;
}

/**
 * The cells of each row that is a table row, else `[row]`. Rows in a fixed-pitch font (code
 * keeps its spacing) or with dot leaders are lines. A row splits where a gap wider than a
 * font height leaves a cell that starts (a number: ends) where one of the row above or below
 * does;
 * and at a narrower gap (wider than a word space, not after a list marker) whose next cell starts where
 * one does on two neighbouring rows too: a column three rows long.
 */
function tableCells(rows: Run[][]): Run[][][] {
  const gaps = rows.map((row) => {
    if (row.length < 2) return [];
    const mono = row.reduce((n, r) => n + (r.mono ? r.str.length : -r.str.length), 0) > 0;
    return mono || row.some((r) => LEADER.test(r.str)) ? [] : gapsOf(row);
  });
  const near = (a: number, b: number) => {
    const ra = rows[a];
    const rb = rows[b];
    if (!ra || !rb || !gaps[a]!.length || !gaps[b]!.length) return false;
    return Math.abs(ra[0]!.y - rb[0]!.y) <= Math.max(ra[0]!.h, rb[0]!.h) * ROW_GAP;
  };
  const strong = (i: number) => gaps[i]!.filter((g) => g.gap > CELL_GAP);
  const lined = (i: number, j: number) => {
    if (!near(i, j)) return false;
    const other = strong(j);
    return strong(i).some((g) =>
      other.some((o) => Math.abs(g.x - o.x) <= SAME_X || Math.abs(g.end - o.end) <= SAME_X)
    );
  };
  const starts = gaps.map((list, i) =>
    list.filter((g) => g.at > 1 || !MARKER.test(joinRuns(rows[i]!.slice(0, 1)))).map((g) => g.x)
  );
  const at = (j: number, x: number) => starts[j]!.some((s) => Math.abs(s - x) <= SAME_X);
  const column = (i: number, x: number) =>
    (near(i, i - 1) && at(i - 1, x) &&
      ((near(i, i + 1) && at(i + 1, x)) || (near(i - 1, i - 2) && at(i - 2, x)))) ||
    (near(i, i + 1) && at(i + 1, x) && near(i + 1, i + 2) && at(i + 2, x));
  return rows.map((row, i) => {
    if (!gaps[i]!.length) return [row];
    const byGap = lined(i, i - 1) || lined(i, i + 1);
    const cuts = gaps[i]!.filter((g) => (byGap && g.gap > CELL_GAP) || column(i, g.x));
    if (!cuts.length) return [row];
    const cells: Run[][] = [];
    let from = 0;
    for (const c of cuts) cells.push(row.slice(from, c.at)), from = c.at;
    cells.push(row.slice(from));
    return cells;
  });
}

/**
 * A run of whitespace that is not a single space: replacing these by a space is
 * `replace(/\s+/g, " ")`, without rewriting the string at every word space.
 */
const NOT_ONE_SPACE = /\s{2,}|[^\S ]/g;

/** `text` with control characters and whitespace runs made single spaces, trimmed. */
function collapse(text: string): string {
  if (isCollapsed(text)) return text;
  if (CONTROL.test(text)) text = text.replace(CONTROL_ALL, " ");
  return text.replace(NOT_ONE_SPACE, " ").trim();
}

/**
 * Whether `text` is already what {@link collapse} makes of it: no control character, no
 * whitespace but single spaces between other characters (one pass over the characters, for
 * the common case; any character that might be whitespace sends it to the regular path).
 */
function isCollapsed(text: string): boolean {
  let prev = 32;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 32) {
      if (prev === 32) return false;
    } else if (c < 32 || c === 0x7f || (c >= 0x80 && c <= 0xa0) || c === 0x1680) {
      return false;
    } else if (
      c >= 0x2000 && (c <= 0x200a || c === 0x2028 || c === 0x2029 || c === 0x202f ||
        c === 0x205f || c === 0x3000 || c === 0xfeff)
    ) {
      return false;
    }
    prev = c;
  }
  return prev !== 32;
}

/** Join runs into text: a space where they do not touch, whitespace collapsed. */
function joinRuns(runs: Run[]): string {
  let text = "";
  // The last character of `text`, kept aside: asking the growing string would flatten it.
  let last = "";
  let end = -Infinity;
  for (const r of runs) {
    const s = r.str;
    if (text && r.x - end > r.h * 0.15 && last !== " " && s[0] !== " ") {
      text += " ";
      last = " ";
    }
    text += s;
    if (s) last = s[s.length - 1]!;
    end = Math.max(end, r.x + r.w);
  }
  return collapse(text);
}

/** Rebuild runs (of one reading group) into lines, top to bottom, table cells joined by `|`. */
function groupLines(runs: Run[], out: PageLine[]): void {
  const rows = baselineRows(runs);
  const cellsOf = tableCells(rows);
  let prevY = NaN;
  let prevH = 0;
  let first = true;
  // Characters per font size and per font of a line, in order of first use (a line has few).
  const sizes: number[] = [];
  const sizeChars: number[] = [];
  const fonts: string[] = [];
  const fontChars: number[] = [];
  for (let k = 0; k < rows.length; k++) {
    const line = rows[k]!;
    const rowCells = cellsOf[k]!;
    // (One cell, nearly every line: no array to filter, no join to copy its text.)
    const cells = rowCells.length === 1
      ? [joinRuns(rowCells[0]!)]
      : rowCells.map(joinRuns).filter((c) => c);
    const text = cells.length === 1 ? cells[0]! : cells.join(" | ");
    if (!text) continue;
    let head = line[0]!;
    let end = -Infinity;
    let nSizes = 0;
    let nFonts = 0;
    let boldChars = 0;
    let monoChars = 0;
    let chars = 0;
    let maxH = 0;
    for (const r of line) {
      if (r.y > head.y) head = r;
      end = Math.max(end, r.x + r.w);
      const n = r.str.length;
      // `+ 0` makes -0 a 0, as a Map key would.
      const s = Math.round(r.h * 10) / 10 + 0;
      let i = 0;
      // NaN is one size, as a Map key is.
      while (i < nSizes && sizes[i] !== s && !(s !== s && sizes[i] !== sizes[i])) i++;
      if (i === nSizes) sizes[nSizes] = s, sizeChars[nSizes++] = n;
      else sizeChars[i]! += n;
      chars += n;
      if (r.bold) boldChars += n;
      if (r.mono) monoChars += n;
      if (r.font !== undefined) {
        let f = 0;
        while (f < nFonts && fonts[f] !== r.font) f++;
        if (f === nFonts) fonts[nFonts] = r.font, fontChars[nFonts++] = n;
        else fontChars[f]! += n;
      }
      if (r.h > maxH) maxH = r.h;
    }
    let size = 0;
    let best = -1;
    for (let i = 0; i < nSizes; i++) {
      if (sizeChars[i]! > best) [size, best] = [sizes[i]!, sizeChars[i]!];
    }
    let font = "";
    best = -1;
    for (let i = 0; i < nFonts; i++) {
      if (fontChars[i]! > best) [font, best] = [fonts[i]!, fontChars[i]!];
    }
    const leadFont = line[0]!.font ?? "";
    let lead = "";
    for (const r of line) {
      if ((r.font ?? "") !== leadFont) break;
      lead += ` ${r.str}`;
    }
    lead = collapse(lead);
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
  }
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
