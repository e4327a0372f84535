/**
 * tbl(1) tables of the man(7) renderer (`_man_render.ts`): `.TS` ... `.TE` with its options
 * and format lines skipped, `T{ T}` text blocks, cells padded into columns.
 *
 * @module
 */
import type { Layout } from "./_man_layout.ts";
import { NBSP, stripComment } from "./_man_lex.ts";

/**
 * A tbl table from `.TS` at `i` to `.TE`: rows of cells padded into columns.
 *
 * @param lines the lines the table stands in
 * @param i the index of its `.TS` line
 * @param layout where the table goes (at the current indentation)
 * @param text resolves a cell's escapes
 * @returns the index of its `.TE` line (or the end)
 */
export function table(
  lines: string[],
  i: number,
  layout: Layout,
  text: (s: string) => string,
): number {
  let j = i + 1;
  let tab = "\t";
  const opts = lines[j] ?? "";
  if (/;\s*$/.test(opts)) {
    const t = /tab\s*\((.)\)/.exec(opts);
    if (t) tab = t[1]!;
    j++;
  }
  const end = (l: string) => /^[.'][ \t]*TE\b/.test(l);
  const skipFormat = () => {
    while (j < lines.length && !end(lines[j]!) && !/\.\s*$/.test(stripComment(lines[j]!))) j++;
    if (j < lines.length && !end(lines[j]!)) j++;
  };
  skipFormat();
  const rows: string[][] = [];
  for (; j < lines.length; j++) {
    const l = lines[j]!;
    if (end(l)) break;
    if (/^[.'][ \t]*T&/.test(l)) {
      j++;
      skipFormat();
      j--;
      continue;
    }
    if (/^[.'][ \t]*\\"/.test(l) || /^[_=]$/.test(l.trim()) || /^[.']/.test(l)) continue;
    const cells: string[] = [];
    const parts = l.split(tab);
    for (let k = 0; k < parts.length; k++) {
      let cell = parts[k]!;
      if (cell.trim() === "T{") {
        const block: string[] = [];
        let rest = "";
        for (j++; j < lines.length; j++) {
          const b = lines[j]!;
          if (b.startsWith("T}")) {
            rest = b.slice(2);
            break;
          }
          if (!/^[.']/.test(b)) block.push(text(stripComment(b)));
        }
        cell = block.join(" ");
        cells.push(cell.replace(/\s+/g, " ").trim());
        if (rest) parts.push(...rest.split(tab).slice(1));
        continue;
      }
      cell = /^[_=]$/.test(cell.trim()) || cell.trim() === "\\^" ? "" : text(stripComment(cell));
      cells.push(cell.replaceAll(NBSP, " ").trim());
    }
    rows.push(cells);
  }
  const widths: number[] = [];
  for (const r of rows) {
    r.forEach((c, k) => (widths[k] = Math.max(widths[k] ?? 0, Math.min(c.length, 30))));
  }
  layout.blank();
  const pad = " ".repeat(layout.base + layout.par);
  for (const r of rows) {
    const line = r.map((c, k) => (k < r.length - 1 ? c.padEnd(widths[k]!) : c)).join("  ");
    layout.emit(pad + line);
  }
  layout.blank();
  return j;
}
