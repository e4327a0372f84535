/**
 * Cutting a large `word/document.xml` into several smaller ones that mammoth converts one
 * after the other: mammoth holds about fifty times the XML while it converts (310 MB for the
 * 6 MB body of a 0.4 MB DOCX), and the HTML of the pieces, put end to end, is the HTML of
 * the whole.
 *
 * A cut falls only before a top-level heading paragraph (`Heading1`–`Heading9` or `Title`
 * style, no numbering of its own), with the bookmarks just before it: mammoth maps headings
 * to fresh elements, so nothing before a cut (a list, a code block) would have continued past
 * it. Documents whose conversion carries state from one paragraph to another are left whole:
 * footnote, endnote and comment references (numbered and listed at the end) and complex
 * fields (which can span paragraphs).
 *
 * @module
 */

/** Tags (start, end or empty), attributes in quotes skipped whole. */
const TAG =
  /<(\/?)([A-Za-z_][\w:.-]*)(?:[^>"']|"[^"]*"|'[^']*')*?(\/?)>|<!--[\s\S]*?-->|<\?[\s\S]*?\?>/g;
const STATEFUL = /<\w+:(?:footnoteReference|endnoteReference|commentReference|fldChar)\b/;

/**
 * The document XML as several complete documents of about `maxChars` each (the same head and
 * tail, a share of the body's elements), or undefined when it is small or must stay whole.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const parts = splitDocumentXml("<w:document><w:body>...</w:body></w:document>", 1 << 20);
 * assert.equal(parts, undefined); // small enough to convert whole
 * ```
 */
export function splitDocumentXml(xml: string, maxChars: number): string[] | undefined {
  if (xml.length <= maxChars || STATEFUL.test(xml)) return undefined;
  const open = /<(\w+):body\b[^>]*>/.exec(xml);
  if (!open || open[0].endsWith("/>")) return undefined;
  const w = open[1]!;
  const bodyStart = open.index + open[0].length;
  const bodyEnd = xml.lastIndexOf(`</${w}:body>`);
  if (bodyEnd < bodyStart) return undefined;
  const head = xml.slice(0, bodyStart);
  const tail = xml.slice(bodyEnd);
  const heading = new RegExp(
    `^<${w}:p\\b[^>]*>\\s*<${w}:pPr\\b[^>]*>\\s*<${w}:pStyle ${w}:val="(?:Heading[1-9]|Title)"`,
  );
  const numbered = `<${w}:numPr`;
  // Cut points: offsets in the body before which a new piece may start.
  const cuts: number[] = [];
  let depth = 0;
  let start = bodyStart;
  /** Where the bookmarks just before the current element begin, if any. */
  let marks = -1;
  TAG.lastIndex = bodyStart;
  for (let m = TAG.exec(xml); m && m.index < bodyEnd; m = TAG.exec(xml)) {
    if (!m[2]) continue; // a comment or processing instruction
    if (depth === 0 && !m[1]) {
      start = m.index;
      const name = m[2];
      if (name === `${w}:bookmarkStart` || name === `${w}:bookmarkEnd`) {
        if (marks < 0) marks = start;
      } else {
        // Only a heading's properties are read whole (for a numbering of its own).
        const pPr = name === `${w}:p` ? xml.slice(start, Math.min(bodyEnd, start + 400)) : "";
        if (pPr && heading.test(pPr)) {
          const end = xml.indexOf(`</${w}:pPr>`, start);
          const props = end > 0 ? xml.slice(start, end) : pPr;
          if (!props.includes(numbered)) cuts.push(marks < 0 ? start : marks);
        }
        marks = -1;
      }
    }
    if (m[3]) continue; // empty element
    depth += m[1] ? -1 : 1;
    if (depth < 0) return undefined; // not well formed
  }
  if (depth !== 0) return undefined;
  const parts: string[] = [];
  let from = bodyStart;
  for (const c of cuts) {
    if (c - from >= maxChars) {
      parts.push(head + xml.slice(from, c) + tail);
      from = c;
    }
  }
  if (!parts.length) return undefined;
  parts.push(head + xml.slice(from, bodyEnd) + tail);
  return parts;
}
