/**
 * The PowerPoint extractor (`.pptx`, `.pptm`, `.ppsx`): one section per slide, in the order
 * of `ppt/presentation.xml`. A slide is a page; its title placeholder is a level-1 heading
 * (`Slide N` for a slide without one), its other text boxes and tables follow as lines
 * (paragraphs of body placeholders as `- ` items, indented by level), and its speaker notes
 * come under a level-2 `Notes` heading. Hyperlink targets go to `links`; slide numbers,
 * dates and footers are left out. Metadata comes from `docProps/core.xml`.
 *
 * Only the slide and notes parts are inflated (layouts, masters and media are not), with the
 * size limits of `_zip.ts`.
 *
 * @module
 */
import type { Extracted, ExtractInput, Extractor } from "../core/extractor.ts";
import { ExtractError } from "../core/extractor.ts";
import { attr, decodeEntities, elements, tags } from "./_xml.ts";
import {
  coreMeta,
  deckTitle,
  DocBuilder,
  openPackage,
  partRels,
  partText,
  type Rel,
  tableRow,
} from "./_office.ts";

const MIME = "application/vnd.openxmlformats-officedocument.presentationml.presentation";
const WHAT = "PowerPoint presentation";

/** Placeholders whose text is not the slide's: number, date, footer, header, thumbnail. */
const NOT_TEXT = new Set(["sldNum", "dt", "ftr", "hdr", "sldImg"]);

/** A paragraph of a slide with its links (`at`: offset of the link text). */
interface Block {
  text: string;
  group: string;
  links: { target: string; text: string; at: number }[];
}

/** The text of a slide or notes part. */
interface SlideText {
  title: string[];
  blocks: Block[];
}

interface Shape {
  title: boolean;
  skip: boolean;
  bullets: boolean;
  /** Counters of numbered paragraphs, by level. */
  nums: number[];
}

/**
 * Read the text of a slide (or, with `notes`, of the body placeholder of a notes slide).
 */
function slideText(xml: string, rels: Map<string, Rel>, notes: boolean): SlideText {
  const out: SlideText = { title: [], blocks: [] };
  const shapes: Shape[] = [];
  let para:
    | { text: string; lvl: number; bullet: boolean; num?: number; links: Block["links"] }
    | undefined;
  let link: string | undefined;
  let textStart = -1;
  let table: { rows: string[][]; row: string[]; cell?: string[] } | undefined;
  let skip: { name: string; depth: number } | undefined;
  for (const t of tags(xml)) {
    if (t.kind !== "open" && t.kind !== "close") continue;
    const empty = t.kind === "open" && t.attrs.trimEnd().endsWith("/");
    if (skip) {
      if (t.name === skip.name && !empty) skip.depth += t.kind === "open" ? 1 : -1;
      if (skip.depth === 0) skip = undefined;
      continue;
    }
    const shape = shapes[shapes.length - 1];
    if (t.kind === "open") {
      switch (t.name) {
        case "mc:fallback": // the same content again, for older readers
          if (!empty) skip = { name: t.name, depth: 1 };
          break;
        case "p:sp":
        case "p:graphicframe":
          if (!empty) shapes.push({ title: false, skip: notes, bullets: false, nums: [] });
          break;
        case "p:ph": {
          if (!shape) break;
          const type = attr(t.attrs, "type") ?? "obj";
          shape.title = !notes && (type === "title" || type === "ctrTitle");
          shape.skip = NOT_TEXT.has(type) || (notes && type !== "body");
          shape.bullets = !notes && (type === "body" || type === "obj");
          break;
        }
        case "a:tbl":
          table = { rows: [], row: [] };
          break;
        case "a:tr":
          if (table) table.row = [];
          break;
        case "a:tc":
          if (table) table.cell = [];
          break;
        case "a:p":
          if (!empty) para = { text: "", lvl: 0, bullet: !!shape?.bullets, links: [] };
          break;
        case "a:ppr":
          if (para) para.lvl = Math.min(Number(attr(t.attrs, "lvl")) || 0, 8);
          break;
        case "a:bunone":
          if (para) para.bullet = false;
          break;
        case "a:buchar":
          if (para) para.bullet = true;
          break;
        case "a:buautonum":
          if (para) para.num = Number(attr(t.attrs, "startAt")) || 1;
          break;
        case "a:r":
        case "a:fld":
          link = undefined;
          break;
        case "a:hlinkclick": {
          const rel = rels.get(attr(t.attrs, "r:id") ?? "");
          link = rel?.type === "hyperlink" ? rel.target : undefined;
          break;
        }
        case "a:t":
          if (!empty) textStart = t.end;
          break;
        case "a:br":
          if (para) para.text += "\n";
          break;
      }
      continue;
    }
    switch (t.name) {
      case "a:t": {
        if (!para || textStart < 0) break;
        const text = decodeEntities(xml.slice(textStart, t.start));
        const last = para.links[para.links.length - 1];
        if (link && last?.target === link && last.at + last.text.length === para.text.length) {
          last.text += text;
        } else if (link) para.links.push({ target: link, text, at: para.text.length });
        para.text += text;
        textStart = -1;
        break;
      }
      case "a:p": {
        const p = para;
        para = undefined;
        if (!p || shape?.skip) break;
        const text = p.text.replace(/[ \t]+/g, " ").replace(/ ?\n ?/g, "\n").trim();
        if (!text) break;
        if (table?.cell) table.cell.push(text.replace(/\n/g, " "));
        else if (shape?.title) out.title.push(text.replace(/\n/g, " "));
        else {
          let mark = p.bullet ? "- " : "";
          if (shape) {
            if (p.num !== undefined) {
              const n = (shape.nums[p.lvl] ?? p.num - 1) + 1;
              shape.nums[p.lvl] = n;
              shape.nums.length = p.lvl + 1;
              mark = `${n}. `;
            } else shape.nums.length = Math.min(shape.nums.length, p.lvl);
          }
          const prefix = "  ".repeat(p.lvl) + mark;
          const lead = p.text.length - p.text.trimStart().length;
          const links = p.links.map((l) => ({
            ...l,
            at: Math.max(0, l.at - lead) + prefix.length,
          }));
          out.blocks.push({ text: prefix + text, group: notes ? "notes" : "slide", links });
        }
        break;
      }
      case "a:tc":
        if (table?.cell) table.row.push(table.cell.join(" "));
        if (table) table.cell = undefined;
        break;
      case "a:tr":
        if (table) table.rows.push(table.row);
        break;
      case "a:tbl": {
        const rows = table?.rows.filter((r) => r.some((c) => c)) ?? [];
        table = undefined;
        if (!rows.length || shape?.skip) break;
        const width = Math.max(...rows.map((r) => r.length));
        const lines = [tableRow(rows[0]!), tableRow(Array(width).fill("---"))];
        for (const r of rows.slice(1)) lines.push(tableRow(r));
        out.blocks.push({ text: lines.join("\n"), group: "table", links: [] });
        break;
      }
      case "p:sp":
      case "p:graphicframe":
        shapes.pop();
        break;
    }
  }
  return out;
}

/** The slide parts in presentation order (else in the order of their numbers). */
function slideOrder(zip: ReturnType<typeof openPackage>): string[] {
  const pres = partText(zip, "ppt/presentation.xml") ?? "";
  const rels = partRels(zip, "ppt/presentation.xml");
  const ordered: string[] = [];
  for (const t of elements(pres, "sldid")) {
    const rel = rels.get(attr(t.attrs, "r:id") ?? "");
    if (rel?.type === "slide" && zip.files.has(rel.target)) ordered.push(rel.target);
  }
  if (ordered.length) return ordered;
  const num = (n: string) => Number(/(\d+)\.xml$/.exec(n)?.[1] ?? 0);
  return [...zip.files.keys()].filter((n) => /^ppt\/slides\/slide\d+\.xml$/.test(n))
    .sort((a, b) => num(a) - num(b));
}

/** Whether an entry is one the extractor reads. */
function wanted(name: string): boolean {
  return name === "ppt/presentation.xml" || name === "docProps/core.xml" ||
    /^ppt\/(?:_rels\/presentation\.xml\.rels|(?:slides|notesSlides)\/(?:_rels\/)?[^/]+\.(?:xml|rels))$/
      .test(name);
}

/**
 * The PowerPoint extractor.
 *
 * @returns an extractor producing one section (and page) per slide, titles as headings,
 *   speaker notes under `Notes`, metadata from `docProps/core.xml`
 * @example
 * ```ts
 * import { pptx } from "./pptx.ts";
 * import { strToU8, zipSync } from "fflate";
 * import assert from "node:assert/strict";
 *
 * const ns = `xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"
 *   xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"
 *   xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"`;
 * const rel = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/slide";
 * const shape = (ph: string, text: string) =>
 *   `<p:sp><p:nvSpPr><p:nvPr>${ph}</p:nvPr></p:nvSpPr>` +
 *   `<p:txBody><a:p><a:r><a:t>${text}</a:t></a:r></a:p></p:txBody></p:sp>`;
 * const bytes = zipSync({
 *   "ppt/presentation.xml": strToU8(
 *     `<p:presentation ${ns}><p:sldIdLst><p:sldId id="256" r:id="s1"/></p:sldIdLst></p:presentation>`,
 *   ),
 *   "ppt/_rels/presentation.xml.rels": strToU8(
 *     `<Relationships><Relationship Id="s1" Type="${rel}" Target="slides/slide1.xml"/></Relationships>`,
 *   ),
 *   "ppt/slides/slide1.xml": strToU8(
 *     `<p:sld ${ns}><p:cSld><p:spTree>${shape(`<p:ph type="title"/>`, "Tea")}` +
 *       `${shape("", "Steep it.")}</p:spTree></p:cSld></p:sld>`,
 *   ),
 * });
 * const doc = await pptx().extract({ path: "lib/talk.pptx", extension: ".pptx", bytes });
 * assert.deepEqual(doc.lines, ["# Tea", "", "Steep it."]);
 * assert.deepEqual(doc.pages, [1]);
 * ```
 */
export function pptx(): Extractor {
  return {
    name: "pptx",
    extensions: [".pptx", ".pptm", ".ppsx"],
    mimeTypes: [MIME],
    priority: 0,
    extract(input: ExtractInput): Promise<Extracted> {
      try {
        const zip = openPackage(input.bytes, WHAT, wanted);
        if (!zip.files.has("ppt/presentation.xml")) {
          throw new ExtractError("corrupt", `zip archive is not a ${WHAT}`);
        }
        const doc = new DocBuilder();
        let first: string | undefined;
        slideOrder(zip).forEach((part, i) => {
          const rels = partRels(zip, part);
          const slide = slideText(partText(zip, part) ?? "", rels, false);
          if (i === 0) first = slide.title.join(" ");
          doc.page();
          doc.heading(1, slide.title.join(" ") || `Slide ${i + 1}`);
          for (const b of slide.blocks) doc.block(b.text, b.group, b.links);
          const notesRel = [...rels.values()].find((r) => r.type === "notesSlide");
          const notesXml = notesRel && partText(zip, notesRel.target);
          if (!notesXml) return;
          const notes = slideText(notesXml, partRels(zip, notesRel.target), true);
          if (!notes.blocks.length) return;
          doc.heading(2, "Notes");
          for (const b of notes.blocks) doc.block(b.text, b.group, b.links);
        });
        const meta = deckTitle(coreMeta(partText(zip, "docProps/core.xml")), first, input.path);
        return Promise.resolve(doc.result(meta, WHAT));
      } catch (e) {
        return Promise.reject(e);
      }
    },
  };
}
