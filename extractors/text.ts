/**
 * The plain-text extractor, the generic fallback (priority 10): UTF-8, UTF-16 with a BOM
 * or Latin-1, lines as they are, headings from the plain-text heuristics (Org headings for
 * `.org`). A file that sniffs as binary is refused with reason `binary`.
 *
 * @module
 */
import { leadTitle, orgHeadings, textHeadings } from "./_headings_text.ts";
import { decodeText, sniff, splitLines } from "../core/sniff.ts";
import {
  type Extracted,
  ExtractError,
  type ExtractInput,
  type Extractor,
} from "../core/extractor.ts";

const MAN_HEADER = /^(\S+)\((\w+)\)\s{2,}.*\S\s*$/;

/**
 * The title of a man page rendered as text: its NAME line ("ldd - print shared object
 * dependencies"), else `name(section)` from the header line; undefined for other text.
 */
export function manTitle(lines: string[]): string | undefined {
  const m = MAN_HEADER.exec(lines[0] ?? "");
  if (!m || !lines[0]!.trimEnd().endsWith(`${m[1]}(${m[2]})`)) return undefined;
  const at = lines.findIndex((l, i) => i < 40 && l.trim() === "NAME");
  if (at >= 0) {
    const parts: string[] = [];
    for (let i = at + 1; i < lines.length && lines[i]!.trim() && parts.length < 4; i++) {
      parts.push(lines[i]!.trim());
    }
    const name = parts.join(" ").replace(/\u2010 /g, "").replace(/\s+/g, " ").trim();
    if (name) return name.length > 160 ? name.slice(0, 159) + "…" : name;
  }
  return `${m[1]}(${m[2]})`;
}

/** Extensions of source code and configuration read as text. */
const CODE_EXTENSIONS = new Set(
  (".sh .bash .zsh .csh .fish .py .pl .pm .rb .js .mjs .cjs .ts .c .h .cc .cpp .hpp .java " +
    ".go .rs .el .lisp .scm .lua .tcl .php .awk .sed .vim .ps1 .bat .cmd .mk .cmake .conf " +
    ".cfg .ini .cnf .toml .yaml .yml .json .properties .service .desktop .patch .diff").split(" "),
);

/**
 * Whether a text file is source code or configuration: a script (`#!` first line), a
 * code or config extension, or a Makefile.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.ok(isCode("lib/run", "", "#!/bin/sh"));
 * assert.equal(isCode("lib/notes.txt", ".txt", "# Notes"), false);
 * ```
 */
export function isCode(path: string, extension: string, firstLine: string): boolean {
  return firstLine.startsWith("#!") || CODE_EXTENSIONS.has(extension) ||
    /(^|\/)(GNU)?makefile$/i.test(path);
}

/**
 * The plain-text extractor.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const bytes = new TextEncoder().encode("Plain words.\n");
 * const doc = await text().extract({ path: "lib/a.txt", extension: ".txt", bytes });
 * assert.deepEqual(doc.lines, ["Plain words."]);
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
      if (isCode(input.path, input.extension, lines[0] ?? "")) {
        // Comment lines of scripts and config files are not headings, nor a title
        // ("[JNZ] Modified 21-Jun-2013"): the file name stands for them.
        return Promise.resolve({ lines, headings: [], outlineQuality: "none", warnings });
      }
      const { headings, quality } = textHeadings(lines);
      const title = manTitle(lines) ?? leadTitle(lines, headings);
      return Promise.resolve({
        lines,
        headings,
        outlineQuality: quality,
        warnings,
        meta: title ? { title } : undefined,
      });
    },
  };
}
