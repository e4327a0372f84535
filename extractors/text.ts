/**
 * The plain-text extractor, the generic fallback (priority 10): UTF-8, UTF-16 with a BOM
 * or Latin-1, lines as they are, headings from the plain-text heuristics (Org headings for
 * `.org`). A file that sniffs as binary is refused with reason `binary`.
 *
 * @module
 */
import { orgHeadings, textHeadings } from "../core/headings_text.ts";
import { decodeText, sniff, splitLines } from "../core/sniff.ts";
import { ExtractError, type Extracted, type ExtractInput, type Extractor } from "../core/types.ts";

/**
 * The plain-text extractor.
 *
 * @example
 * ```ts
 * const doc = await text().extract({ path: "lib/a.txt", extension: ".txt", bytes });
 * ```
 */
export function text(): Extractor {
  return {
    name: "text",
    extensions: [
      ".txt",
      ".text",
      ".rst",
      ".org",
      ".adoc",
      ".asciidoc",
      ".textile",
      ".log",
      ".nfo",
    ],
    mimeTypes: ["text/plain"],
    priority: 10,
    extract(input: ExtractInput): Promise<Extracted> {
      if (input.bytes.length === 0) {
        return Promise.reject(new ExtractError("empty", "file is empty"));
      }
      const s = sniff(input.bytes);
      if (!s.text) {
        return Promise.reject(
          new ExtractError("binary", `content is binary (${s.mimeType}), not text`),
        );
      }
      const { text, warnings } = decodeText(input.bytes);
      const lines = splitLines(text);
      if (input.extension === ".org") {
        const headings = orgHeadings(lines);
        return Promise.resolve({
          lines,
          headings,
          outlineQuality: headings.length ? "high" : "none",
          warnings,
        });
      }
      const { headings, quality } = textHeadings(lines);
      return Promise.resolve({ lines, headings, outlineQuality: quality, warnings });
    },
  };
}
