/**
 * OpenDocument helpers shared by the ODT, ODS and ODP extractors: opening a package (or a
 * flat `.fodt`/`.fods`/`.fodp` XML file), and {@link walkOdf}, which turns OpenDocument text
 * (`text:h` with outline levels, paragraphs, lists, tables, notes, links) into lines.
 *
 * @module
 */
import type { DocMeta, ExtractInput } from "../core/extractor.ts";
import { ExtractError } from "../core/extractor.ts";
import { attr, tags } from "./_xml.ts";
import { DocBuilder, odfMeta, openPackage, partText, tableRow, xmlText } from "./_office.ts";

/** An opened OpenDocument file. */
export interface OdfDoc {
  /** `content.xml` (the whole file for a flat XML document). */
  content: string;
  /** `styles.xml`, when the package has one. */
  styles: string;
  /** Metadata from `meta.xml`. */
  meta: DocMeta;
}

/** An element left out with everything inside it, and how deep its own name is nested. */
export interface Skipped {
  name: string;
  depth: number;
}

/**
 * Follow one tag while an element is left out: the skip still in force, or undefined once
 * the element has closed (elements of the same name nested inside it are counted).
 */
export function stillSkipped(
  skip: Skipped,
  t: { kind: string; name: string },
  empty: boolean,
): Skipped | undefined {
  if (t.name === skip.name && !empty) skip.depth += t.kind === "open" ? 1 : -1;
  return skip.depth === 0 ? undefined : skip;
}

/**
 * Open an OpenDocument file: a zip package whose `mimetype` starts with `mime`, or a flat
 * XML document (`office:document`) of that type.
 *
 * @throws ExtractError `encrypted` for a password-protected document (its manifest holds
 *   encryption data), `corrupt` for another kind of package, plus those of `openPackage`
 */
export function openOdf(input: ExtractInput, mime: string, what: string): OdfDoc {
  const head = new TextDecoder().decode(input.bytes.subarray(0, 2048));
  if (/^\s*(?:\uFEFF)?</.test(head)) {
    const xml = new TextDecoder().decode(input.bytes);
    if (!/<office:document[\s>]/.test(xml)) {
      throw new ExtractError("corrupt", `not a ${what}: XML without an office:document`);
    }
    const type = /office:mimetype="([^"]*)"/.exec(xml)?.[1];
    if (type && !type.startsWith(mime)) {
      throw new ExtractError("corrupt", `not a ${what}: the document is ${type}`);
    }
    return { content: xml, styles: xml, meta: odfMeta(xml) };
  }
  const wanted = new Set(["mimetype", "content.xml", "styles.xml", "meta.xml"]);
  const zip = openPackage(
    input.bytes,
    what,
    (name) => wanted.has(name) || name === "META-INF/manifest.xml",
  );
  const type = partText(zip, "mimetype")?.trim();
  if (type !== undefined && !type.startsWith(mime)) {
    throw new ExtractError("corrupt", `zip archive is not a ${what} (mimetype ${type})`);
  }
  const manifest = partText(zip, "META-INF/manifest.xml") ?? "";
  if (/<manifest:encryption-data[\s>]/.test(manifest)) {
    throw new ExtractError("encrypted", `password-protected ${what}`);
  }
  const content = partText(zip, "content.xml");
  if (content === undefined) {
    throw new ExtractError("corrupt", `zip archive is not a ${what} (no content.xml)`);
  }
  return {
    content,
    styles: partText(zip, "styles.xml") ?? "",
    meta: odfMeta(partText(zip, "meta.xml")),
  };
}

/** List style name -> the levels (1-based) numbered rather than bulleted. */
export type ListStyles = Map<string, Set<number>>;

/** The numbered levels of every `text:list-style` of the given XML parts. */
export function listStyles(...xmls: string[]): ListStyles {
  const out: ListStyles = new Map();
  const re = /<text:list-style\b([^>]*)>([\s\S]*?)<\/text:list-style>/g;
  for (const xml of xmls) {
    for (const m of xml.matchAll(re)) {
      const name = attr(m[1]!, "style:name");
      if (!name) continue;
      const levels = new Set<number>();
      for (const l of m[2]!.matchAll(/<text:list-level-style-number\b([^>]*)>/g)) {
        const level = Number(attr(l[1]!, "text:level"));
        if (level && attr(l[1]!, "style:num-format") !== "") levels.add(level);
      }
      out.set(name, levels);
    }
  }
  return out;
}

/** Subtrees never read: comments, tracked deletions, generated indexes, declarations. */
const SKIP = new Set([
  "office:annotation",
  "text:tracked-changes",
  "text:table-of-content",
  "text:alphabetical-index",
  "text:illustration-index",
  "text:table-index",
  "text:object-index",
  "text:user-index",
  "text:bibliography",
  "svg:title",
  "svg:desc",
  "office:forms",
  "office:scripts",
  "office:event-listeners",
  "text:sequence-decls",
  "text:variable-decls",
  "text:user-field-decls",
  "table:shapes",
  "text:number", // a heading's or item's rendered number ("1.2"), kept out of its title
]);

/** Options of {@link walkOdf}. */
export interface WalkOptions {
  /** Slides: paragraphs follow each other without blank lines. */
  compact?: boolean;
  /** Numbered list levels (see {@link listStyles}). */
  lists?: ListStyles;
  /** More subtrees to pass over (element names, lower case). */
  skip?: ReadonlySet<string>;
  /** Pass over a `draw:frame` whose attributes this accepts. */
  skipFrame?: (attrs: string) => boolean;
  /** Paragraph styles of code (see {@link codeStyles}): their lines stay together. */
  code?: ReadonlySet<string>;
}

/**
 * The paragraph styles of code: `Preformatted Text`, `Source Code` and the styles based on
 * them (`style:parent-style-name`).
 */
export function codeStyles(...xmls: string[]): Set<string> {
  const parent = new Map<string, string>();
  for (const xml of xmls) {
    for (const m of xml.matchAll(/<style:style\b([^>]*)>/g)) {
      const name = attr(m[1]!, "style:name");
      const base = attr(m[1]!, "style:parent-style-name");
      if (name && base) parent.set(name, base);
    }
  }
  const isCode = (n: string) => /^(?:Preformatted_20_Text|Source_20_Code|Code)$/i.test(n);
  const out = new Set<string>();
  for (const name of [...parent.keys(), "Preformatted_20_Text", "Source_20_Code"]) {
    let n: string | undefined = name;
    for (let i = 0; n && i < 10; i++, n = parent.get(n)) {
      if (isCode(n)) {
        out.add(name);
        break;
      }
    }
  }
  return out;
}

interface Para {
  level?: number;
  code: boolean;
  text: string;
  prefix: string;
  links: { target: string; text: string; at: number }[];
  open: { target: string; at: number }[];
}

interface Table {
  rows: string[][];
  row: string[];
  cell?: string[];
  /** Paragraph depth at the cell's start. */
  base: number;
}

interface List {
  style?: string;
  numbered: boolean;
  n: number;
}

/**
 * Walk OpenDocument body XML from `from` to `to` into `doc`: `text:h` become headings of
 * their `text:outline-level`, paragraphs blocks, list items `- ` / `1. ` lines, tables
 * Markdown rows, notes `[^n]` with their text after the paragraph, `text:a` links.
 */
export function walkOdf(
  xml: string,
  doc: DocBuilder,
  opts: WalkOptions = {},
  from = 0,
  to = xml.length,
): void {
  const paras: Para[] = [];
  const tables: Table[] = [];
  const lists: List[] = [];
  const counts = new Map<string, number>();
  const notes: string[] = [];
  let fresh = false;
  let noteDepth = 0;
  let citation: string | undefined;
  let cited = "";
  let skip: Skipped | undefined;
  let pos = from;
  const group = (p: Para) =>
    opts.compact ? "slide" : p.prefix ? "list" : p.code ? "code" : undefined;

  const emit = (p: Para) => {
    const text = p.code
      ? p.text.replace(/^\n+|\s+$/g, "")
      : p.text.split("\n").map((l) => l.replace(/ {2,}/g, " ").trim()).join("\n").trim();
    const table = tables[tables.length - 1];
    if (noteDepth > 0) {
      if (text) notes.push(`[^${cited}]: ${text.replace(/\n/g, " ")}`);
    } else if (table?.cell && paras.length === table.base) {
      if (text) table.cell.push(text.replace(/\n/g, " "));
    } else if (p.level !== undefined) {
      doc.heading(p.level, text);
    } else {
      const shift = p.prefix.length - (p.text.length - p.text.trimStart().length);
      doc.block(
        p.prefix + text,
        group(p),
        p.links.map((l) => ({ ...l, at: Math.max(0, l.at + shift) })),
      );
    }
    if (!paras.length && noteDepth === 0 && notes.length) {
      for (const n of notes.splice(0)) doc.block(n, "notes");
    }
  };

  for (const t of tags(xml, from)) {
    if (t.start >= to) break;
    const top = paras[paras.length - 1];
    if (top && !skip && t.start > pos) {
      const raw = xml.slice(pos, t.start);
      if (citation !== undefined) citation += xmlText(raw);
      else top.text += xmlText(raw);
    }
    pos = t.end;
    if (t.kind !== "open" && t.kind !== "close") continue;
    const empty = t.kind === "open" && t.attrs.trimEnd().endsWith("/");
    if (skip) {
      skip = stillSkipped(skip, t, empty);
      continue;
    }
    if (t.kind === "open") {
      if (
        SKIP.has(t.name) || opts.skip?.has(t.name) ||
        (t.name === "draw:frame" && opts.skipFrame?.(t.attrs))
      ) {
        if (!empty) skip = { name: t.name, depth: 1 };
        continue;
      }
      switch (t.name) {
        case "text:p":
        case "text:h": {
          if (empty) break;
          const list = lists[lists.length - 1];
          let prefix = "";
          if (list && t.name === "text:p" && noteDepth === 0) {
            const indent = "  ".repeat(lists.length - 1);
            prefix = fresh ? indent + (list.numbered ? `${list.n}. ` : "- ") : indent + "  ";
          }
          fresh = false;
          const style = attr(t.attrs, "text:style-name") ?? "";
          const code = !!opts.code?.has(style);
          const p: Para = { text: "", prefix, code, links: [], open: [] };
          if (t.name === "text:h") p.level = Number(attr(t.attrs, "text:outline-level")) || 1;
          paras.push(p);
          break;
        }
        case "text:s":
          if (top) top.text += " ".repeat(Math.min(Number(attr(t.attrs, "text:c")) || 1, 100));
          break;
        case "text:tab":
          if (top) top.text += "\t";
          break;
        case "text:line-break":
          if (top) top.text += "\n";
          break;
        case "text:a":
          if (top && !empty) {
            top.open.push({ target: attr(t.attrs, "xlink:href") ?? "", at: top.text.length });
          }
          break;
        case "text:note":
          if (!empty) noteDepth++;
          break;
        case "text:note-citation":
          if (!empty) citation = "";
          break;
        case "text:list": {
          const outer = lists[lists.length - 1];
          const style = attr(t.attrs, "text:style-name") ?? outer?.style;
          const numbered = !!style && !!opts.lists?.get(style)?.has(lists.length + 1);
          const goOn = attr(t.attrs, "text:continue-numbering") === "true";
          const n = goOn && style ? counts.get(style) ?? 0 : 0;
          if (!empty) lists.push({ style, numbered, n });
          break;
        }
        case "text:list-item":
        case "text:list-header": {
          const list = lists[lists.length - 1];
          const start = Number(attr(t.attrs, "text:start-value"));
          if (list && t.name === "text:list-item") list.n = start > 0 ? start : list.n + 1;
          fresh = t.name === "text:list-item";
          break;
        }
        case "table:table":
          if (!empty) tables.push({ rows: [], row: [], base: paras.length });
          break;
        case "table:table-row":
          if (tables.length) tables[tables.length - 1]!.row = [];
          break;
        case "table:table-cell":
        case "table:covered-table-cell": {
          const table = tables[tables.length - 1];
          if (!table) break;
          if (empty) table.row.push("");
          else {
            table.cell = [];
            table.base = paras.length;
          }
          break;
        }
      }
      continue;
    }
    // close tags
    switch (t.name) {
      case "text:p":
      case "text:h": {
        const p = paras.pop();
        if (p) emit(p);
        break;
      }
      case "text:a": {
        const open = top?.open.pop();
        if (top && open) {
          top.links.push({ ...open, text: top.text.slice(open.at).replace(/\s+/g, " ") });
        }
        break;
      }
      case "text:note":
        noteDepth = Math.max(0, noteDepth - 1);
        break;
      case "text:note-citation":
        cited = (citation ?? "").trim();
        citation = undefined;
        if (top) top.text += `[^${cited}]`;
        break;
      case "text:list": {
        const list = lists.pop();
        if (list?.style) counts.set(list.style, list.n);
        break;
      }
      case "text:list-item":
        fresh = false;
        break;
      case "table:table-cell":
      case "table:covered-table-cell": {
        const table = tables[tables.length - 1];
        if (table?.cell) {
          table.row.push(table.cell.join(" "));
          table.cell = undefined;
        }
        break;
      }
      case "table:table-row": {
        const table = tables[tables.length - 1];
        if (table) table.rows.push(table.row);
        break;
      }
      case "table:table": {
        const table = tables.pop();
        if (!table) break;
        const rows = table.rows.filter((r) => r.some((c) => c));
        const outer = tables[tables.length - 1];
        if (outer?.cell) outer.cell.push(rows.map((r) => r.join(", ")).join("; "));
        else if (rows.length) {
          const width = Math.max(...rows.map((r) => r.length));
          const pad = (r: string[]) => [...r, ...Array(width - r.length).fill("")];
          const lines = [tableRow(pad(rows[0]!)), tableRow(Array(width).fill("---"))];
          for (const r of rows.slice(1)) lines.push(tableRow(pad(r)));
          doc.block(lines.join("\n"), "table");
        }
        break;
      }
    }
  }
}

/** The plain text of an OpenDocument fragment: paragraphs joined with a space. */
export function odfText(xml: string): string {
  const doc = new DocBuilder();
  walkOdf(xml, doc, { compact: true });
  return doc.lines.join(" ").replace(/\s+/g, " ").trim();
}
