/**
 * The OpenDocument text extractor (`.odt`, `.ott`, flat `.fodt`): `content.xml` read with
 * the shared OpenDocument walker. Headings are the `text:h` elements at their
 * `text:outline-level`; paragraphs, lists (`- `, `1. `), tables (Markdown rows) and notes
 * become lines; `text:a` targets go to `links`. Metadata comes from `meta.xml`, the title
 * else from the first paragraph of style `Title`.
 *
 * @module
 */
import type { Extracted, ExtractInput, Extractor } from "../core/extractor.ts";
import { DocBuilder } from "./_office.ts";
import { codeStyles, listStyles, odfText, openOdf, walkOdf } from "./_odf.ts";

const MIME = "application/vnd.oasis.opendocument.text";

/**
 * The OpenDocument text extractor.
 *
 * @returns an extractor producing Markdown-flavoured lines, headings from `text:h` and
 *   metadata from `meta.xml`
 * @example
 * ```ts
 * import { odt } from "./odt.ts";
 * import assert from "node:assert/strict";
 *
 * // A flat OpenDocument file (.fodt) is the package's content.xml on its own.
 * const fodt = `<office:document
 *   xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"
 *   xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"
 *   office:mimetype="application/vnd.oasis.opendocument.text"><office:body><office:text>
 *   <text:h text:outline-level="1">Tea</text:h><text:p>Steep it.</text:p>
 * </office:text></office:body></office:document>`;
 * const bytes = new TextEncoder().encode(fodt);
 * const doc = await odt().extract({ path: "lib/a.fodt", extension: ".fodt", bytes });
 * assert.deepEqual(doc.lines, ["# Tea", "", "Steep it."]);
 * assert.deepEqual(doc.headings, [{ level: 1, title: "Tea", line: 1 }]);
 * ```
 */
export function odt(): Extractor {
  return {
    name: "odt",
    extensions: [".odt", ".ott", ".fodt"],
    mimeTypes: [MIME],
    priority: 0,
    extract(input: ExtractInput): Promise<Extracted> {
      try {
        const { content, styles, meta } = openOdf(input, MIME, "OpenDocument text");
        const body = /<office:text\b[^>]*>/.exec(content);
        const doc = new DocBuilder();
        if (body) {
          const end = content.indexOf("</office:text>", body.index);
          const opts = { lists: listStyles(content, styles), code: codeStyles(content, styles) };
          walkOdf(content, doc, opts, body.index, end < 0 ? content.length : end);
        }
        if (!meta.title) {
          const title = /<text:p\b[^>]*text:style-name="Title"[^>]*>([\s\S]*?)<\/text:p>/
            .exec(content);
          const t = title && odfText(title[0]);
          if (t) meta.title = t;
        }
        return Promise.resolve(doc.result(meta, "OpenDocument text"));
      } catch (e) {
        return Promise.reject(e);
      }
    },
  };
}
