/**
 * The RTF extractor (`.rtf`): a small reader of its own (the npm RTF packages are stream
 * tokenizers, HTML renderers that need a DOM, or unmaintained; none gives outline levels).
 *
 * It walks the groups and control words of the file: `\uN` (with its `\ucN` fallback skipped)
 * and `\'hh` in the code page of the current font (`\fcharset`, `\cpg`) or of `\ansicpg`,
 * multi-byte ones such as Shift-JIS included; `\par`, `\line`, `\tab`, table cells and rows
 * (as Markdown rows), list markers (`\listtext`, `\pntext`, `\bullet`) as `- ` / `1. `;
 * footnotes as `[^n]` with their text after the paragraph; `HYPERLINK` fields as links. It
 * passes over `\*` destinations, the font, colour, list and revision tables, pictures,
 * objects, headers and footers. Headings are paragraphs with an `\outlinelevelN`, or of a
 * style whose stylesheet entry has one or is named `heading N`. `\info` gives the title,
 * author and creation time.
 *
 * @module
 */
import type { DocMeta, Extracted, ExtractInput, Extractor } from "../core/extractor.ts";
import { ExtractError } from "../core/extractor.ts";
import type { DocBuilder } from "./_office.ts";
import {
  controlWord,
  decoderFor,
  encodingOf,
  hyperlink,
  isLetter,
  MAX_DEPTH,
  MULTI_BYTE,
  rootState,
  RtfBody,
  SKIP_DESTINATIONS,
  skipGroup,
  type State,
  styleLevel,
  SYMBOLS,
} from "./_rtf.ts";

/** Read an RTF document. */
function read(b: Uint8Array): { doc: DocBuilder; meta: DocMeta; truncated: boolean } {
  const meta: DocMeta = {};
  const fonts = new Map<number, string>();
  const styles = new Map<number, number>();
  let defaultEnc = "windows-1252";
  let defaultFont = 0;
  let st: State = rootState();
  const stack: State[] = [];
  const out = new RtfBody();
  let note = "";
  let noteN = 0;
  const created: Record<string, number> = {};
  let pendingBytes: number[] = [];
  let skipChars = 0;
  let atDestStart = false;
  let ignorable = false;
  let upr: { title?: string; author?: string } | undefined;

  const put = (s: string) => {
    switch (st.target) {
      case "body":
        out.para += s;
        break;
      case "mark":
        out.mark = (out.mark ?? "") + s;
        break;
      case "note":
        note += s;
        break;
      case "inst":
        if (st.fld) st.fld.inst += s;
        break;
      case "style":
        if (st.entry) st.entry.name += s;
        break;
      case "meta":
        if (st.field) meta[st.field] = (meta[st.field] ?? "") + s;
        break;
    }
  };
  const encoding = () => fonts.get(st.font) ?? defaultEnc;
  const flushBytes = () => {
    if (!pendingBytes.length) return;
    put(decoderFor(encoding()).decode(new Uint8Array(pendingBytes)));
    pendingBytes = [];
  };
  const endPara = () => {
    flushBytes();
    if (st.target === "note") note += " ";
    if (st.target !== "body") return;
    const level = st.outline >= 0 && st.outline < 9 ? st.outline + 1 : styles.get(st.style);
    out.paragraph(st.intbl, level, st.ilvl);
  };

  let i = 0;
  const n = b.length;
  while (i < n) {
    const c = b[i]!;
    if (c === 0x7b) { // {
      flushBytes();
      i++;
      skipChars = 0;
      if (stack.length >= MAX_DEPTH) {
        throw new ExtractError("corrupt", "RTF groups nested too deeply");
      }
      stack.push(st);
      st = { ...st };
      if (st.target === "style") st.entry = { num: 0, level: -1, name: "" };
      if (st.target === "fonttbl") st.fontDef = undefined;
      atDestStart = true;
      ignorable = false;
      continue;
    }
    if (c === 0x7d) { // }
      flushBytes();
      i++;
      skipChars = 0;
      const closed = st;
      const parent = stack.pop();
      if (!parent) continue; // a stray brace past the document's end
      if (closed.entry && closed.entry !== parent.entry) {
        const level = styleLevel(closed.entry);
        if (level) styles.set(closed.entry.num, level);
      }
      if (closed.target === "note" && parent.target !== "note") {
        const text = note.replace(/\s+/g, " ").trim();
        if (text) out.notes.push(`[^${noteN}]: ${text}`);
        note = "";
      }
      if (closed.fld && closed.fld !== parent.fld) {
        const url = hyperlink(closed.fld.inst);
        const text = out.para.slice(closed.fld.at).replace(/\s+/g, " ");
        if (url && text.trim()) out.links.push({ target: url, text, at: closed.fld.at });
      }
      st = parent;
      continue;
    }
    if (c === 0x5c) { // backslash
      const d = b[i + 1];
      if (d === undefined) break;
      if (d === 0x27) { // \'hh
        const hex = String.fromCharCode(b[i + 2] ?? 0, b[i + 3] ?? 0);
        i += 4;
        if (skipChars > 0) {
          skipChars--;
          continue;
        }
        const v = parseInt(hex, 16);
        if (!Number.isNaN(v)) pendingBytes.push(v);
        continue;
      }
      flushBytes();
      if (!isLetter(d)) { // a control symbol
        i += 2;
        if (d === 0x2a) { // \*
          ignorable = true;
          continue;
        }
        if (skipChars > 0) {
          skipChars--;
          continue;
        }
        if (d === 0x0a || d === 0x0d) endPara();
        else if (d === 0x7e) put("\u00a0");
        else if (d === 0x5f) put("\u2011");
        else if (d === 0x2d) { /* optional hyphen */ }
        else put(String.fromCharCode(d));
        continue;
      }
      const { word, param, end } = controlWord(b, i);
      i = end;
      const destStart = atDestStart;
      atDestStart = false;
      if (word === "bin") {
        i += Math.max(0, param ?? 0);
        continue;
      }
      if (skipChars > 0 && word !== "u") {
        skipChars--;
        continue;
      }
      // destinations
      if (destStart && (ignorable || SKIP_DESTINATIONS.has(word))) {
        if (word === "fldinst") st.target = "inst";
        else if (word === "ud" && upr) {
          // the Unicode version of an \upr destination replaces the ANSI one read before it
          meta.title = upr.title;
          meta.author = upr.author;
        } else {
          i = skipGroup(b, i);
          st = stack.pop() ?? st;
        }
        ignorable = false;
        continue;
      }
      ignorable = false;
      switch (word) {
        case "fonttbl":
          st.target = "fonttbl";
          continue;
        case "stylesheet":
          st.target = "style";
          continue;
        case "info":
          st.target = "info";
          continue;
        case "title":
        case "author":
          if (st.target === "info") {
            [st.target, st.field] = ["meta", word];
            meta[word] = "";
          } else if (st.target !== "body") st.target = "skip";
          continue;
        case "upr":
          upr = { title: meta.title, author: meta.author };
          continue;
        case "creatim":
          if (st.target === "info") st.target = "time";
          continue;
        case "yr":
        case "mo":
        case "dy":
        case "hr":
        case "min":
          if (st.target === "time" && param !== undefined) created[word] = param;
          continue;
        case "listtext":
        case "pntext":
          if (st.target === "body") [st.target, out.mark] = ["mark", out.mark ?? ""];
          continue;
        case "footnote":
          if (st.target === "body") {
            st.target = "note";
            out.para += `[^${++noteN}]`;
          }
          continue;
        case "chftn":
          continue;
        case "field":
          if (st.target === "body") st.fld = { inst: "", at: out.para.length };
          continue;
        case "fldrslt":
          if (st.fld) st.target = /^\s*TOC\b/.test(st.fld.inst) ? "skip" : "body";
          if (st.fld) st.fld.at = out.para.length;
          continue;
        case "ansicpg":
          defaultEnc = encodingOf(param ?? 1252) ?? defaultEnc;
          continue;
        case "deff":
          defaultFont = st.font = param ?? 0;
          continue;
        case "f":
          if (st.target === "fonttbl") st.fontDef = param ?? 0;
          else st.font = param ?? 0;
          continue;
        case "fcharset":
        case "cpg": {
          const enc = word === "cpg" ? encodingOf(param ?? 0) : encodingOf(param ?? 0, true);
          if (st.target === "fonttbl" && st.fontDef !== undefined && enc) {
            fonts.set(st.fontDef, enc);
          }
          continue;
        }
        case "plain":
          st.font = defaultFont;
          continue;
        case "pard":
          [st.outline, st.style, st.intbl, st.ilvl] = [-1, 0, false, 0];
          continue;
        case "s":
          if (st.target === "style" && st.entry) st.entry.num = param ?? 0;
          else st.style = param ?? 0;
          continue;
        case "outlinelevel":
          if (st.target === "style" && st.entry) st.entry.level = param ?? -1;
          else st.outline = param ?? -1;
          continue;
        case "intbl":
          st.intbl = true;
          continue;
        case "ilvl":
          st.ilvl = param ?? 0;
          continue;
        case "uc":
          st.uc = Math.max(0, param ?? 1);
          continue;
        case "u":
          put(String.fromCharCode(((param ?? 0) + 65536) % 65536));
          skipChars = st.uc;
          continue;
        case "par":
        case "sect":
        case "page":
          endPara();
          continue;
        case "line":
          put("\n");
          continue;
        case "tab":
          put("\t");
          continue;
        case "cell":
        case "nestcell":
          endPara();
          if (word === "cell") out.endCell();
          continue;
        case "row":
          out.endRow();
          continue;
      }
      const sym = SYMBOLS[word];
      if (sym !== undefined) put(sym);
      continue;
    }
    // text
    if (c === 0x0d || c === 0x0a) {
      i++;
      continue;
    }
    if (skipChars > 0) {
      skipChars--;
      i++;
      continue;
    }
    atDestStart = false;
    if (c >= 0x80 || (pendingBytes.length && MULTI_BYTE.has(encoding()))) {
      pendingBytes.push(c);
      i++;
      continue;
    }
    flushBytes();
    let j = i;
    while (
      j < n && b[j]! < 0x80 && b[j] !== 0x5c && b[j] !== 0x7b && b[j] !== 0x7d && b[j] !== 0x0d &&
      b[j] !== 0x0a
    ) j++;
    put(String.fromCharCode(...b.subarray(i, Math.min(j, i + 4096))));
    i = Math.min(j, i + 4096);
  }
  const truncated = stack.length > 0;
  endPara();
  out.flushTable();
  if (created.yr) {
    const p = (v: number | undefined) => String(v ?? 0).padStart(2, "0");
    meta.created = `${created.yr}-${p(created.mo || 1)}-${p(created.dy || 1)}T${p(created.hr)}:${
      p(created.min)
    }:00`;
  }
  if (meta.title !== undefined) meta.title = meta.title.replace(/\s+/g, " ").trim() || undefined;
  if (meta.author !== undefined) meta.author = meta.author.replace(/\s+/g, " ").trim() || undefined;
  if (!meta.title) delete meta.title;
  if (!meta.author) delete meta.author;
  return { doc: out.doc, meta, truncated };
}

/**
 * The RTF extractor.
 *
 * @returns an extractor producing Markdown-flavoured lines, headings from outline levels and
 *   heading styles, metadata from `\info`
 * @example
 * ```ts
 * import { rtf } from "./rtf.ts";
 * import assert from "node:assert/strict";
 *
 * const letter = String.raw`{\rtf1\ansi{\info{\title Letter}{\author Ann}}
 * {\pard\outlinelevel0 Greetings\par}{\pard Dear Bob, thank you.\par}}`;
 * const bytes = new TextEncoder().encode(letter);
 * const doc = await rtf().extract({ path: "lib/letter.rtf", extension: ".rtf", bytes });
 * assert.deepEqual(doc.lines, ["# Greetings", "", "Dear Bob, thank you."]);
 * assert.deepEqual(doc.meta, { title: "Letter", author: "Ann" });
 * ```
 */
export function rtf(): Extractor {
  return {
    name: "rtf",
    extensions: [".rtf"],
    mimeTypes: ["text/rtf", "application/rtf"],
    priority: 0,
    extract(input: ExtractInput): Promise<Extracted> {
      try {
        const bytes = input.bytes;
        if (bytes.length === 0) throw new ExtractError("empty", "file is empty");
        const head = String.fromCharCode(...bytes.subarray(0, 16));
        if (!/^(?:\xef\xbb\xbf)?\s*\{\\rtf/.test(head)) {
          throw new ExtractError("corrupt", "not an RTF document: it does not start with {\\rtf");
        }
        const { doc, meta, truncated } = read(bytes);
        if (truncated) doc.warnings.push("the RTF ends before its groups close (truncated?)");
        return Promise.resolve(doc.result(meta, "RTF document"));
      } catch (e) {
        return Promise.reject(e);
      }
    },
  };
}
