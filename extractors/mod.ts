/**
 * The built-in extractors, one file per format.
 *
 * @module
 */
import type { Extractor } from "../core/types.ts";
import { docx } from "./docx.ts";
import { epub } from "./epub.ts";
import { html } from "./html.ts";
import { image } from "./image.ts";
import { markdown } from "./markdown.ts";
import { pdf } from "./pdf.ts";
import { text } from "./text.ts";

export { docx, epub, html, image, markdown, pdf, text };

/** A fresh list of the built-in extractors, specific formats first. */
export function builtinExtractors(): Extractor[] {
  return [text(), markdown(), html(), pdf(), docx(), epub(), image()];
}
