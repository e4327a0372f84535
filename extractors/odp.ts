/**
 * The OpenDocument presentation extractor (`.odp`, `.otp`, flat `.fodp`), laid out like the
 * PowerPoint one: one section (and page) per `draw:page`, its title frame a level-1 heading
 * (else the page's own name, else `Slide N`), its other frames' text and tables as lines, the
 * speaker notes under a level-2 `Notes` heading. Page numbers, dates, headers and footers are
 * left out. Metadata comes from `meta.xml`.
 *
 * @module
 */
import type { Extracted, ExtractInput, Extractor } from "../core/extractor.ts";
import { attr, tags } from "./_xml.ts";
import { deckTitle, DocBuilder } from "./_office.ts";
import { listStyles, odfText, openOdf, walkOdf } from "./_odf.ts";

const MIME = "application/vnd.oasis.opendocument.presentation";
const WHAT = "OpenDocument presentation";

/** Frames whose text is not the slide's own (the title is read apart). */
const NOT_BODY = new Set(["title", "page-number", "date-time", "footer", "header"]);
const NOTES = new Set(["presentation:notes"]);

const frameClass = (attrs: string) => attr(attrs, "presentation:class") ?? "";

/**
 * The OpenDocument presentation extractor.
 *
 * @returns an extractor producing one section (and page) per slide, titles as headings,
 *   speaker notes under `Notes`, metadata from `meta.xml`
 * @example
 * ```ts
 * import { odp } from "./odp.ts";
 * import assert from "node:assert/strict";
 *
 * // A flat OpenDocument file (.fodp) is the package's content.xml on its own.
 * const fodp = `<office:document
 *   xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"
 *   xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0"
 *   xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0"
 *   xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"
 *   office:mimetype="application/vnd.oasis.opendocument.presentation"><office:body><office:presentation>
 *   <draw:page draw:name="p1">
 *     <draw:frame presentation:class="title"><draw:text-box><text:p>Tea</text:p></draw:text-box></draw:frame>
 *     <draw:frame presentation:class="outline"><draw:text-box><text:p>Steep it.</text:p></draw:text-box></draw:frame>
 *   </draw:page>
 * </office:presentation></office:body></office:document>`;
 * const bytes = new TextEncoder().encode(fodp);
 * const doc = await odp().extract({ path: "lib/talk.fodp", extension: ".fodp", bytes });
 * assert.deepEqual(doc.lines, ["# Tea", "", "Steep it."]);
 * assert.deepEqual(doc.pages, [1]);
 * ```
 */
export function odp(): Extractor {
  return {
    name: "odp",
    extensions: [".odp", ".otp", ".fodp"],
    mimeTypes: [MIME],
    priority: 0,
    extract(input: ExtractInput): Promise<Extracted> {
      try {
        const { content, styles, meta } = openOdf(input, MIME, WHAT);
        const lists = listStyles(content, styles);
        const doc = new DocBuilder();
        let n = 0;
        let first: string | undefined;
        for (const t of tags(content)) {
          if (t.kind !== "open" || t.name !== "draw:page") continue;
          n++;
          const close = content.indexOf("</draw:page>", t.end);
          const end = close < 0 ? content.length : close;
          const page = content.slice(t.end, end);
          const titleFrame =
            /<draw:frame\b[^>]*presentation:class="title"[^>]*>[\s\S]*?<\/draw:frame>/.exec(page);
          const name = attr(t.attrs, "draw:name") ?? "";
          const own = (titleFrame && odfText(titleFrame[0])) ||
            (/^(?:page|slide)\s*\d+$/i.test(name) ? "" : name);
          if (n === 1) first = own;
          const title = own || `Slide ${n}`;
          doc.page();
          doc.heading(1, title);
          walkOdf(
            content,
            doc,
            {
              compact: true,
              lists,
              skip: NOTES,
              skipFrame: (attrs) => NOT_BODY.has(frameClass(attrs)),
            },
            t.end,
            end,
          );
          const notes = /<presentation:notes\b[\s\S]*?<\/presentation:notes>/.exec(page);
          if (notes) {
            const part = new DocBuilder();
            walkOdf(notes[0], part, { compact: true, skipFrame: (a) => frameClass(a) !== "notes" });
            if (part.lines.some((l) => l.trim())) {
              doc.heading(2, "Notes");
              doc.block(part.lines.join("\n"), "notes");
              const first = doc.lines.length - part.lines.length;
              for (const l of part.links) doc.links.push({ ...l, line: l.line + first });
            }
          }
        }
        return Promise.resolve(doc.result(deckTitle(meta, first, input.path), WHAT));
      } catch (e) {
        return Promise.reject(e);
      }
    },
  };
}
