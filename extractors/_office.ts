/**
 * Helpers shared by the office extractors (PowerPoint, Excel, OpenDocument, RTF): opening a
 * package with the checks that give a clear skip reason (an encrypted or legacy binary file,
 * a damaged zip, a zip bomb through `_zip.ts`), document metadata, package relationships,
 * and {@link DocBuilder}, which lays out lines, headings, pages and links the same way for
 * every format.
 *
 * @module
 */
import type { DocMeta, Extracted, Heading, Link } from "../core/extractor.ts";
import { ExtractError } from "../core/extractor.ts";
import { attr, decodeEntities, elements, xmlValue } from "./_xml.ts";
import { entryText, looksLikeZip, readZip, resolveHref, type ZipContents } from "./_zip.ts";

/** The first bytes of an OLE compound file: legacy .doc/.xls/.ppt, or an encrypted OOXML file. */
const OLE = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];

/** `EncryptedPackage` in UTF-16LE: the stream an encrypted OOXML file keeps in its OLE container. */
const ENCRYPTED_PACKAGE = new Uint8Array(
  [..."EncryptedPackage"].flatMap((c) => [c.charCodeAt(0), 0]),
);

function indexOf(hay: Uint8Array, needle: Uint8Array): number {
  const first = needle[0]!;
  for (let i = hay.indexOf(first); i >= 0 && i <= hay.length - needle.length; i++) {
    i = hay.indexOf(first, i);
    if (i < 0) return -1;
    let j = 1;
    while (j < needle.length && hay[i + j] === needle[j]) j++;
    if (j === needle.length) return i;
  }
  return -1;
}

/**
 * Whether any entry of a zip archive is encrypted (general-purpose flag bit 0), read from the
 * central directory. False when the directory cannot be walked: `readZip` then says why.
 */
export function zipEncrypted(bytes: Uint8Array): boolean {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let eocd = -1;
  for (let i = bytes.length - 22; i >= 0 && i >= bytes.length - 65557; i--) {
    if (view.getUint32(i, true) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) return false;
  const count = view.getUint16(eocd + 10, true);
  let at = view.getUint32(eocd + 16, true);
  for (let n = 0; n < count && at + 46 <= bytes.length; n++) {
    if (view.getUint32(at, true) !== 0x02014b50) return false;
    if (view.getUint16(at + 8, true) & 1) return true;
    at += 46 + view.getUint16(at + 28, true) + view.getUint16(at + 30, true) +
      view.getUint16(at + 32, true);
  }
  return false;
}

/**
 * Open an office package: refuse an empty file (`empty`), an encrypted OOXML file or a zip
 * with encrypted entries (`encrypted`), a legacy binary Office file (`unsupported`) and
 * anything that is not a zip (`corrupt`), then read the entries `want` selects with the size
 * limits of `_zip.ts` (`too_large` for a zip bomb).
 *
 * @param bytes the file
 * @param what the format, for messages: `"PowerPoint presentation"`
 * @param want which entries to inflate
 */
export function openPackage(
  bytes: Uint8Array,
  what: string,
  want: (name: string) => boolean,
): ZipContents {
  if (bytes.length === 0) throw new ExtractError("empty", "file is empty");
  if (OLE.every((b, i) => bytes[i] === b)) {
    if (indexOf(bytes, ENCRYPTED_PACKAGE) >= 0) {
      throw new ExtractError("encrypted", `password-protected ${what}`);
    }
    throw new ExtractError(
      "unsupported",
      `legacy binary Office file (OLE compound document), not a ${what}`,
    );
  }
  if (!looksLikeZip(bytes)) {
    throw new ExtractError("corrupt", `not a ${what}: the file is not a zip archive`);
  }
  if (zipEncrypted(bytes)) {
    throw new ExtractError("encrypted", `password-protected ${what} (encrypted zip entries)`);
  }
  return readZip(bytes, (e) => want(e.name));
}

/** The text of an inflated entry, or undefined when the package lacks it. */
export function partText(zip: ZipContents, name: string): string | undefined {
  const data = zip.files.get(name);
  return data ? entryText(data) : undefined;
}

/** Metadata from an OOXML `docProps/core.xml`. */
export function coreMeta(xml: string | undefined): DocMeta {
  return pickMeta(xml, {
    title: ["dc:title"],
    author: ["dc:creator"],
    created: ["dcterms:created"],
    language: ["dc:language"],
  });
}

/** Metadata from an OpenDocument `meta.xml` (or the `office:meta` of a flat file). */
export function odfMeta(xml: string | undefined): DocMeta {
  return pickMeta(xml, {
    title: ["dc:title"],
    author: ["meta:initial-creator", "dc:creator"],
    created: ["meta:creation-date", "dc:date"],
    language: ["dc:language"],
  });
}

function pickMeta(
  xml: string | undefined,
  fields: Record<"title" | "author" | "created" | "language", string[]>,
): DocMeta {
  const meta: DocMeta = {};
  if (!xml) return meta;
  for (const [key, tags] of Object.entries(fields)) {
    for (const tag of tags) {
      const v = xmlValue(xml, tag, " ");
      if (v) {
        meta[key as keyof typeof fields] = v;
        break;
      }
    }
  }
  return meta;
}

/**
 * A presentation's title when its metadata has none: the title of its first slide, else
 * the file name without extension (never the `Slide 1` that stands for an untitled slide).
 */
export function deckTitle(meta: DocMeta, firstSlide: string | undefined, path: string): DocMeta {
  if (!meta.title) {
    const name = path.replace(/^.*[\\/]/, "");
    meta.title = firstSlide || (name.lastIndexOf(".") > 0 ? name.replace(/\.[^.]*$/, "") : name);
  }
  return meta;
}

/** A relationship of an OOXML part: its type (last path segment) and resolved target. */
export interface Rel {
  /** The type's last segment: `slide`, `notesSlide`, `worksheet`, `hyperlink`, ... */
  type: string;
  /** An entry name inside the package, or the URL as written for an external target. */
  target: string;
}

/**
 * The relationships of `part` (from `dir/_rels/name.rels`), by id; internal targets are
 * resolved to entry names.
 */
export function partRels(zip: ZipContents, part: string): Map<string, Rel> {
  const slash = part.lastIndexOf("/");
  const relsName = `${part.slice(0, slash + 1)}_rels/${part.slice(slash + 1)}.rels`;
  const out = new Map<string, Rel>();
  const xml = partText(zip, relsName);
  if (!xml) return out;
  for (const t of elements(xml, "relationship")) {
    const id = attr(t.attrs, "Id");
    const target = attr(t.attrs, "Target");
    if (!id || target === undefined) continue;
    const type = (attr(t.attrs, "Type") ?? "").replace(/^.*\//, "");
    const external = attr(t.attrs, "TargetMode") === "External";
    out.set(id, { type, target: external ? target : resolveHref(part, target) });
  }
  return out;
}

/** The text of XML character data: entities decoded, whitespace runs made one space. */
export function xmlText(raw: string): string {
  return decodeEntities(raw.replace(/\s+/g, " "));
}

/** A table row as a compact Markdown row: `| a | b |`, pipes and line ends in cells escaped. */
export function tableRow(cells: string[]): string {
  return `| ${cells.map(cell).join(" | ")} |`;
}

/** A spreadsheet row: cells joined with ` | `, trailing empty cells dropped. */
export function sheetRow(cells: string[]): string {
  let end = cells.length;
  while (end > 0 && !cells[end - 1]) end--;
  return cells.slice(0, end).map(cell).join(" | ");
}

function cell(s: string): string {
  return s.replace(/\s*\n\s*/g, " ").replace(/\|/g, "\\|").trim();
}

/** Default cap on the rows kept of one sheet. */
export const MAX_ROWS = 5000;

/** Cap on the columns kept of one row (a stray cell in column XFD would make a huge line). */
export const MAX_COLUMNS = 1000;

/**
 * Lays out the sheets of a workbook in a {@link DocBuilder}: a level-1 heading per sheet, its
 * non-empty rows as lines (cells joined with ` | `), at most `maxRows` rows a sheet; a sheet
 * cut short is named in the warnings with its number of rows.
 */
export class SheetWriter {
  #kept = 0;
  #total = 0;
  #name: string | undefined;

  /**
   * @param doc where the lines go
   * @param maxRows the row cap of one sheet
   */
  constructor(readonly doc: DocBuilder, readonly maxRows: number = MAX_ROWS) {}

  /** Start a sheet (ending the one before). */
  sheet(name: string): void {
    this.end();
    this.doc.heading(1, name.trim() || "Sheet");
    this.#name = name;
    this.#kept = this.#total = 0;
  }

  /** Whether the current sheet has all the rows it keeps. */
  get full(): boolean {
    return this.#kept >= this.maxRows;
  }

  /** Add a row `times` times (a repeated row); empty rows are passed over. */
  row(cells: string[], times = 1): void {
    const line = sheetRow(cells);
    if (!line) return;
    this.#total += times;
    for (; times > 0 && !this.full; times--) {
      this.#kept++;
      this.doc.block(line, "rows");
    }
  }

  /** Count `n` more non-empty rows past the cap. */
  skipped(n: number): void {
    this.#total += n;
  }

  /** End the current sheet: a warning when rows were left out. */
  end(): void {
    if (this.#name !== undefined && this.#total > this.#kept) {
      this.doc.warnings.push(
        `sheet "${this.#name}": first ${this.#kept} of ${this.#total} rows kept (row cap ${this.maxRows})`,
      );
    }
    this.#name = undefined;
  }
}

/**
 * Builds an extracted document: headings as Markdown `#` lines, blocks separated by a blank
 * line (lines of one group, such as list items or table rows, kept together), pages and links.
 */
export class DocBuilder {
  /** The lines so far. */
  readonly lines: string[] = [];
  /** The headings so far. */
  readonly headings: Heading[] = [];
  /** The links so far. */
  readonly links: Link[] = [];
  /** First line of each page (slide). */
  readonly pages: number[] = [];
  /** Non-fatal problems. */
  readonly warnings: string[] = [];
  #group: string | undefined;
  #page: number | undefined;

  /** Start a page (a slide): its first line is the next one. */
  page(): void {
    this.#sep();
    this.pages.push(this.lines.length + 1);
    this.#page = this.pages.length;
  }

  /** Add a heading of `level` (1 = top); an empty title adds nothing. */
  heading(level: number, title: string): void {
    title = title.replace(/\s+/g, " ").trim();
    if (!title) return;
    this.#sep();
    this.lines.push(`${"#".repeat(Math.min(Math.max(level, 1), 6))} ${title}`);
    const h: Heading = { level, title, line: this.lines.length };
    if (this.#page) h.page = this.#page;
    this.headings.push(h);
    this.#group = "heading";
  }

  /**
   * Add a block of text (a paragraph; `\n` in it starts new lines) with its links, whose
   * `at` is the character offset of the link's text in `text`. Blocks of the same `group`
   * follow each other without a blank line.
   */
  block(
    text: string,
    group?: string,
    links: { target: string; text: string; at: number }[] = [],
  ): void {
    if (!text.trim()) return;
    if (group === undefined || group !== this.#group) this.#sep();
    const first = this.lines.length + 1;
    this.lines.push(...text.split("\n").map((l) => l.trimEnd()));
    for (const l of links) {
      const line = first + (text.slice(0, l.at).match(/\n/g)?.length ?? 0);
      if (l.target && l.text.trim()) {
        this.links.push({ target: l.target, text: l.text.trim(), line });
      }
    }
    this.#group = group ?? "block";
  }

  /** A blank line before the next block, unless the document starts or one is there. */
  #sep(): void {
    if (this.lines.length && this.lines[this.lines.length - 1] !== "") this.lines.push("");
    this.#group = undefined;
  }

  /**
   * The document: throws `empty` when it has no text.
   *
   * @param meta metadata
   * @param what the format, for the message of an empty document
   */
  result(meta: DocMeta, what: string): Extracted {
    while (this.lines.length && this.lines[this.lines.length - 1] === "") this.lines.pop();
    if (!this.lines.some((l) => l.trim())) {
      throw new ExtractError("empty", `the ${what} has no text`);
    }
    const out: Extracted = {
      lines: this.lines,
      headings: this.headings,
      outlineQuality: this.headings.length ? "high" : "none",
      meta,
    };
    if (this.pages.length) out.pages = this.pages;
    if (this.warnings.length) out.warnings = this.warnings;
    if (this.links.length) out.links = this.links;
    return out;
  }
}
