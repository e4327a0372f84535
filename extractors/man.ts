/**
 * Man pages in groff source (`ls.1`, `ls.1.gz` through the compressed-file container, or a
 * file whose content sniffs as troff): a small man(7) renderer in TypeScript, since the
 * extractor runs in a sandboxed child and must not start `groff`. It lays the page out as
 * `man` shows it on a terminal (section headings at the margin, text filled to 78 columns
 * and indented, tagged paragraphs), and takes the outline from `.SH` (level 1) and `.SS`
 * (level 2). The title is `name(section)` from `.TH` with the NAME line's description.
 *
 * What it reads: the man(7) macros (`.TH .SH .SS .PP .LP .P .TP .TQ .IP .HP .RS .RE .B .I
 * .SM .SB .BR .BI .IB .IR .RB .RI .UR .UE .MT .ME .SY .OP .YS .EX .EE .MR`), the requests
 * pages use (`.br .sp .nf .fi .ds .as .nr .tr .de .am .ig .if .ie .el .so .nop .do`), the
 * user macros a page defines (`.de`, with `\$1` arguments), tbl tables (`.TS`/`.TE`, cells
 * padded into columns), escapes for fonts (`\f`), glyphs (`\(xx`, `\[name]`, via
 * groff-escape's glyph names), strings (`\*`), registers (`\n`), comments and the rest, and
 * a small subset of mdoc (`.Sh .Ss .Pp .Nm .Nd .Fl .Ar .Op .Xr .It`) for BSD pages.
 * Drawing, motion and size escapes are dropped, as a terminal does.
 *
 * @module
 */
import { decodeText, sniff } from "../core/sniff.ts";
import {
  type Extracted,
  ExtractError,
  type ExtractInput,
  type Extractor,
} from "../core/extractor.ts";

import { renderMan } from "./_man_render.ts";

/** Whether a file's content is troff source (what `sniff` calls `text/troff`). */
function isTroff(input: ExtractInput): boolean {
  return (input.mimeType ?? sniff(input.bytes).mimeType) === "text/troff";
}

/**
 * The man page extractor: `.1`...`.9` and `.man` files whose content is troff, and any file
 * that sniffs as troff. A `.1` file that is not troff (`changelog.1`) is left to the others.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const bytes = new TextEncoder().encode(".TH LS 1\n.SH NAME\nls \\- list directory contents\n");
 * const doc = await man().extract({ path: "lib/ls.1", extension: ".1", bytes });
 * assert.equal(doc.meta?.title, "ls(1) - list directory contents");
 * ```
 */
export function man(): Extractor {
  return {
    name: "man",
    extensions: [".1", ".2", ".3", ".4", ".5", ".6", ".7", ".8", ".9", ".man"],
    mimeTypes: ["text/troff"],
    accepts: isTroff,
    extract(input: ExtractInput): Promise<Extracted> {
      if (input.bytes.length === 0) {
        return Promise.reject(new ExtractError("empty", "file is empty"));
      }
      const { text, warnings } = decodeText(input.bytes);
      const page = renderMan(text);
      return Promise.resolve({
        lines: page.lines,
        headings: page.headings,
        outlineQuality: page.headings.length ? "high" : "none",
        warnings,
        meta: page.title ? { title: page.title } : undefined,
      });
    },
  };
}
