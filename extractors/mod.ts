/**
 * The built-in extractors, one file per format.
 *
 * @module
 */
import type { Extractor } from "../core/extractor.ts";
import { compressed } from "./compressed.ts";
import { docx } from "./docx.ts";
import { epub } from "./epub.ts";
import { html } from "./html.ts";
import { image } from "./image.ts";
import { man } from "./man.ts";
import { markdown } from "./markdown.ts";
import { odp } from "./odp.ts";
import { ods } from "./ods.ts";
import { odt } from "./odt.ts";
import { pdf } from "./pdf.ts";
import { pptx } from "./pptx.ts";
import { rtf } from "./rtf.ts";
import { text } from "./text.ts";
import { xlsx } from "./xlsx.ts";

/**
 * A fresh list of the built-in extractors, specific formats first. The compressed-file
 * container comes last and reads the document inside with the others.
 */
export function builtinExtractors(): Extractor[] {
  const formats = [
    ...[text(), markdown(), html(), pdf(), docx(), epub(), image(), man()],
    ...[pptx(), xlsx(), odt(), ods(), odp(), rtf()],
  ];
  return [...formats, compressed(formats)];
}
