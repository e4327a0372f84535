/**
 * The version of what each built-in extractor produces, by `doc_type`. Raise a format's
 * number when its extractor's output changes (lines, headings, pages, metadata): the next
 * index run extracts that format's documents again, in every library, while the rest of
 * the catalog (other formats, vectors of unchanged text) stays. A format not listed is at
 * version 1.
 *
 * Light on purpose: the indexing process reads it without loading the extractors.
 *
 * @module
 */

/** Extractor output versions by `doc_type`. */
export const EXTRACTION_VERSIONS: Readonly<Record<string, number>> = {
  // 2: headings of PDFs without bookmarks from fonts, the section-number sequence and the
  // table of contents (session 6; pdf-plain heading F1 0.739 -> 0.861).
  // 3: table rows keep their cells (` | `), running headers, footers and page numbers
  // dropped (issue 27).
  pdf: 3,
  // 2: layout tables unwrapped, only the main content of pages that mark one, permalink
  // anchors out of headings, no `2\.` escapes in heading lines (issue 29, items 5, 9, 13).
  // EPUB and DOCX are converted through the HTML extractor: their output changes with it.
  html: 2,
  epub: 2,
  docx: 2,
  // 2: a centred or leading title line, repeated headings tagged with their release
  // (issue 29, item 8: randrproto.txt, bash INTRO and CHANGES); languages detected on
  // prose only (item 11: text files were most of the `fr` labels).
  text: 2,
  // 2: OCR text of icons and charts (too few real words) dropped, and unsure marks
  // (issue 29, item 10).
  // 3: the text pass gives an empty page 1; the text is read in the background OCR worker
  // (issue 30), so images stored with inline OCR text are stored again and queued.
  image: 3,
};
