/**
 * Parts of the RTF reader (`rtf.ts`): {@link RtfBody}, which turns its paragraphs, list
 * items, table cells and footnotes into lines; the destinations passed over, the control
 * words that stand for a character, and the text encodings of code pages and font
 * character sets.
 *
 * @module
 */
import { DocBuilder, tableRow } from "./_office.ts";

/** Where the text of a group goes. */
export type Target =
  | "body"
  | "skip"
  | "fonttbl"
  | "style"
  | "info"
  | "meta"
  | "inst"
  | "mark"
  | "note"
  | "time";

/** The state of a group, copied when a group opens. */
export interface State {
  /** Where its text goes. */
  target: Target;
  /** Fallback characters after `\uN`. */
  uc: number;
  /** Current font. */
  font: number;
  /** Outline level of the paragraph, 0-based; -1 for none. */
  outline: number;
  /** Paragraph style (`\sN`). */
  style: number;
  /** Whether the paragraph is in a table (`\intbl`). */
  intbl: boolean;
  /** List level (`\ilvlN`). */
  ilvl: number;
  /** The meta field a `meta` group fills. */
  field?: "title" | "author";
  /** An open `\field`: its instruction and where its result starts in the paragraph. */
  fld?: { inst: string; at: number };
  /** A stylesheet entry being read. */
  entry?: { num: number; level: number; name: string };
  /** The font-table entry being read. */
  fontDef?: number;
}

/** Deepest group nesting read. */
export const MAX_DEPTH = 10_000;

/** The state of the document's outer group. */
export function rootState(): State {
  return { target: "body", uc: 1, font: 0, outline: -1, style: 0, intbl: false, ilvl: 0 };
}

/** The heading level (1-based) a stylesheet entry gives its paragraphs, or 0. */
export function styleLevel(e: { level: number; name: string }): number {
  if (e.level >= 0 && e.level < 9) return e.level + 1;
  const named = /^heading\s*(\d)\b/i.exec(e.name.replace(/;\s*$/, "").trim());
  return named ? Number(named[1]) : 0;
}

/** The target of a `HYPERLINK` field instruction. */
export function hyperlink(inst: string): string | undefined {
  return /HYPERLINK\s+(?:\\l\s+)?"([^"]+)"/.exec(inst)?.[1];
}

/** Whether a byte is an ASCII letter. */
export function isLetter(x: number | undefined): boolean {
  return x !== undefined && ((x >= 0x61 && x <= 0x7a) || (x >= 0x41 && x <= 0x5a));
}

/**
 * The control word whose backslash is at `i`: its name, numeric parameter and the index
 * past it (and past the space that ends it).
 */
export function controlWord(
  b: Uint8Array,
  i: number,
): { word: string; param: number | undefined; end: number } {
  let j = i + 1;
  while (isLetter(b[j])) j++;
  const word = String.fromCharCode(...b.subarray(i + 1, Math.min(j, i + 33)));
  let param: number | undefined;
  const neg = b[j] === 0x2d;
  let k = neg ? j + 1 : j;
  if (b[k]! >= 0x30 && b[k]! <= 0x39) {
    param = 0;
    while (b[k]! >= 0x30 && b[k]! <= 0x39) param = param * 10 + b[k++]! - 0x30;
    if (neg) param = -param;
    j = k;
  }
  if (b[j] === 0x20) j++;
  return { word, param, end: j };
}

/** A link of the current paragraph: `at` is the offset of its text. */
export interface ParaLink {
  /** The link's target. */
  target: string;
  /** The link's text. */
  text: string;
  /** Offset of the text in the paragraph. */
  at: number;
}

/** The document text of an RTF file as it is read: the current paragraph, table and notes. */
export class RtfBody {
  /** The lines so far. */
  readonly doc: DocBuilder = new DocBuilder();
  /** Text of the current paragraph. */
  para = "";
  /** Links of the current paragraph. */
  links: ParaLink[] = [];
  /** The list marker of the current paragraph (`\listtext`, `\pntext`), if it has one. */
  mark: string | undefined;
  /** Footnotes met in the current paragraph, written after it. */
  notes: string[] = [];
  #cell: string[] = [];
  #row: string[] = [];
  #rows: string[][] = [];

  /**
   * End the current paragraph: into the current table cell, or as a heading of `level`, a
   * list item, or a paragraph.
   */
  paragraph(intbl: boolean, level: number | undefined, ilvl: number): void {
    let text = this.para.replace(/[ \t]+\n/g, "\n").replace(/\n[ \t]+/g, "\n").trim();
    const lead = this.para.length - this.para.trimStart().length;
    const shift = (by: number) =>
      this.links.map((l) => ({ ...l, at: Math.max(0, l.at - lead) + by }));
    if (intbl) {
      if (text) this.#cell.push(text.replace(/\s+/g, " "));
    } else {
      this.flushTable();
      const isList = this.mark !== undefined || /^(?:[•·▪◦\uF0B7]|\d{1,3}[.)])\t/.test(text);
      if (level !== undefined && text) {
        this.doc.heading(level, text.replace(/^(?:\d+(?:\.\d+)*\.?)?\t/, ""));
      } else if (isList && text) {
        let m = (this.mark ?? "").trim();
        if (!m) {
          const head = /^(\S{1,4})\t/.exec(text);
          if (head) [m, text] = [head[1]!, text.slice(head[0].length)];
        }
        const bullet = /^\w{1,3}[.)]$/.test(m) ? `${m} ` : "- ";
        const prefix = "  ".repeat(Math.min(ilvl, 8)) + bullet;
        this.doc.block(prefix + text.trim(), "list", shift(prefix.length));
      } else if (text) {
        this.doc.block(text.replace(/\t+/g, " "), undefined, shift(0));
      }
    }
    for (const n of this.notes) this.doc.block(n, "notes");
    this.notes = [];
    this.para = "";
    this.links = [];
    this.mark = undefined;
  }

  /** End a table cell (`\cell`). */
  endCell(): void {
    this.#row.push(this.#cell.join(" "));
    this.#cell = [];
  }

  /** End a table row (`\row`). */
  endRow(): void {
    if (this.#cell.length) this.endCell();
    if (this.#row.length) this.#rows.push(this.#row);
    this.#row = [];
  }

  /** Write the table read so far as Markdown rows. */
  flushTable(): void {
    this.endRow();
    const rows = this.#rows.filter((r) => r.some((c) => c.trim()));
    this.#rows = [];
    if (!rows.length) return;
    const width = Math.max(...rows.map((r) => r.length));
    const pad = (r: string[]) => [...r, ...Array(width - r.length).fill("")];
    const lines = [tableRow(pad(rows[0]!)), tableRow(Array(width).fill("---"))];
    for (const r of rows.slice(1)) lines.push(tableRow(pad(r)));
    this.doc.block(lines.join("\n"), "table");
  }
}

/** Skip a group whose `{` is before `i`: the index just past its `}` (or the end). */
export function skipGroup(b: Uint8Array, i: number): number {
  let depth = 1;
  while (i < b.length) {
    const c = b[i++]!;
    if (c === 0x5c) { // backslash
      if (b[i] === 0x62 && b[i + 1] === 0x69 && b[i + 2] === 0x6e) { // \bin
        let j = i + 3, n = 0;
        while (b[j]! >= 0x30 && b[j]! <= 0x39) n = n * 10 + b[j++]! - 0x30;
        i = j + (b[j] === 0x20 ? 1 : 0) + n;
      } else i++;
    } else if (c === 0x7b) depth++;
    else if (c === 0x7d && --depth === 0) return i;
  }
  return i;
}

/**
 * Destinations whose text is not the document's: tables, pictures, objects, headers and
 * footers, index and contents entries, comments, separators. (`\*` destinations are passed
 * over too, apart from `\fldinst`.)
 */
export const SKIP_DESTINATIONS: ReadonlySet<string> = new Set([
  "colortbl",
  "pict",
  "object",
  "nonshppict",
  "shp",
  "header",
  "headerl",
  "headerr",
  "headerf",
  "footer",
  "footerl",
  "footerr",
  "footerf",
  "listtable",
  "listoverridetable",
  "revtbl",
  "rsidtbl",
  "filetbl",
  "xmlnstbl",
  "themedata",
  "colorschememapping",
  "latentstyles",
  "datastore",
  "generator",
  "docvar",
  "ftnsep",
  "ftnsepc",
  "aftnsep",
  "aftnsepc",
  "xe",
  "tc",
  "txe",
  "rxe",
  "annotation",
  "atnid",
  "atnauthor",
  "atndate",
  "atnref",
  "atntime",
  "atrfstart",
  "atrfend",
  "template",
  "keywords",
  "comment",
  "doccomm",
  "pn",
  "pgdsctbl",
]);

/** Control words that stand for a character. */
export const SYMBOLS: Readonly<Record<string, string>> = {
  emdash: "\u2014",
  endash: "\u2013",
  emspace: " ",
  enspace: " ",
  qmspace: " ",
  bullet: "\u2022",
  lquote: "\u2018",
  rquote: "\u2019",
  ldblquote: "\u201c",
  rdblquote: "\u201d",
  zwj: "",
  zwnj: "",
  zwbo: "",
  zwnbo: "",
};

/** Font character sets (`\fcharsetN`) and their text encodings. */
const CHARSETS: Record<number, string> = {
  77: "macintosh",
  128: "shift_jis",
  129: "euc-kr",
  134: "gbk",
  136: "big5",
  161: "windows-1253",
  162: "windows-1254",
  163: "windows-1258",
  177: "windows-1255",
  178: "windows-1256",
  186: "windows-1257",
  204: "windows-1251",
  222: "windows-874",
  238: "windows-1250",
};

/** Code pages (`\ansicpgN`, `\cpgN`) that are not `windows-N`. */
const CODEPAGES: Record<number, string> = {
  874: "windows-874",
  932: "shift_jis",
  936: "gbk",
  949: "euc-kr",
  950: "big5",
  10000: "macintosh",
  20866: "koi8-r",
  28591: "iso-8859-1",
  65001: "utf-8",
};

/** Encodings of more than one byte a character. */
export const MULTI_BYTE: ReadonlySet<string> = new Set([
  "shift_jis",
  "euc-kr",
  "gbk",
  "big5",
  "utf-8",
]);

/**
 * The text encoding of an RTF code page, or with `charset` of a font character set;
 * undefined for the default (ANSI) set and for unknown ones.
 */
export function encodingOf(n: number, charset = false): string | undefined {
  if (charset) return CHARSETS[n];
  if (n >= 1250 && n <= 1258) return `windows-${n}`;
  return CODEPAGES[n];
}

const decoders = new Map<string, TextDecoder>();

/** A (cached) decoder for an encoding; windows-1252 for one the runtime lacks. */
export function decoderFor(encoding: string): TextDecoder {
  let d = decoders.get(encoding);
  if (!d) {
    try {
      d = new TextDecoder(encoding);
    } catch {
      d = new TextDecoder("windows-1252");
    }
    decoders.set(encoding, d);
  }
  return d;
}
