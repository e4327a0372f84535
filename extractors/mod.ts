/**
 * The built-in extractors, one file per format.
 *
 * @module
 */
import type { Extractor } from "../core/types.ts";
import { html } from "./html.ts";
import { markdown } from "./markdown.ts";
import { pdf } from "./pdf.ts";
import { text } from "./text.ts";

export { html, markdown, pdf, text };

/** A fresh list of the built-in extractors, specific formats first. */
export function builtinExtractors(): Extractor[] {
  return [text(), markdown(), html(), pdf()];
}
