/**
 * The mdoc(7) subset of the man(7) renderer (`_man_render.ts`), for BSD pages: `.Nm .Nd .It
 * .D1 .Dl` and the inline macros (`Fl x` -> `-x`, `Xr ls 1` -> `ls(1)`, `Op`, quotes).
 *
 * @module
 */
import type { Layout } from "./_man_layout.ts";
import { INDENT, MDOC_INLINE, splitArgs } from "./_man_lex.ts";

/** What enclosing macros open with, and close with at the end of the line (`Oo`: at `Oc`). */
const ENCLOSE = new Map<string, [string, string]>([
  ["Op", ["[", "]"]],
  ["Oo", ["[", ""]],
  ["Dq", ["\u201c", "\u201d"]],
  ["Qq", ["\u201c", "\u201d"]],
  ["Sq", ["\u2018", "\u2019"]],
  ["Ql", ["\u2018", "\u2019"]],
  ["Pq", ["(", ")"]],
]);

/** The mdoc state of a page and its macro lines, laid out into `layout`. */
export class Mdoc {
  /** Whether the page is mdoc (it has `.Dd`, `.Dt` or `.Os`). */
  on = false;
  /** The page's name, from its first `.Nm` with an argument. */
  #name = "";

  /**
   * @param layout where the text goes
   * @param text resolves a piece of text's escapes
   */
  constructor(readonly layout: Layout, readonly text: (s: string) => string) {}

  /** An mdoc line: block macros and the inline macros called on it. */
  line(name: string, rest: string): void {
    const a = splitArgs(rest);
    switch (name) {
      case "Nm":
        if (!this.#name && a[0]) this.#name = this.text(a[0]);
        break;
      case "Nd":
        this.layout.add("- " + this.#inline(a));
        return;
      case "It":
        this.layout.paragraph();
        this.layout.par = INDENT;
        this.layout.tag = this.#inline(a).trim();
        if (!this.layout.tag) this.layout.tag = undefined;
        return;
      case "D1":
      case "Dl":
        this.layout.flush();
        this.layout.add(this.#inline(a));
        this.layout.flush();
        return;
    }
    this.layout.add(this.#inline([name, ...a]));
  }

  /** Inline mdoc: macro names dropped or rendered (`Fl x` -> `-x`, `Xr ls 1` -> `ls(1)`). */
  #inline(tokens: string[]): string {
    let out = "";
    let space = "";
    const close: string[] = [];
    for (let k = 0; k < tokens.length; k++) {
      const t = tokens[k]!;
      let word: string | undefined;
      switch (MDOC_INLINE.has(t) ? t : "") {
        case "Fl":
          tokens[k + 1] !== undefined && !MDOC_INLINE.has(tokens[k + 1]!)
            ? (word = "-" + this.text(tokens[++k]!))
            : (word = "-");
          break;
        case "Xr":
          word = `${this.text(tokens[k + 1] ?? "")}(${this.text(tokens[k + 2] ?? "")})`;
          k += 2;
          break;
        case "In":
          word = `#include <${this.text(tokens[++k] ?? "")}>`;
          break;
        case "Fn": {
          const fn = this.text(tokens[++k] ?? "");
          const params: string[] = [];
          while (k + 1 < tokens.length && !MDOC_INLINE.has(tokens[k + 1]!)) {
            params.push(this.text(tokens[++k]!));
          }
          word = `${fn}(${params.join(", ")})`;
          break;
        }
        case "Nm":
          if (tokens[k + 1] === undefined || MDOC_INLINE.has(tokens[k + 1]!)) word = this.#name;
          break;
        case "Op":
        case "Oo":
        case "Dq":
        case "Qq":
        case "Sq":
        case "Ql":
        case "Pq": {
          const [open, shut] = ENCLOSE.get(t)!;
          out += space + open;
          space = "";
          if (shut) close.push(shut);
          continue;
        }
        case "Oc":
          out += "]";
          continue;
        case "Ns":
          space = "";
          continue;
        case "":
          word = this.text(t);
          break;
        default:
          continue;
      }
      if (word === undefined) continue;
      if (/^[.,:;)\]?!]$/.test(word)) out += word;
      else out += space + word;
      space = " ";
    }
    return out + close.reverse().join("");
  }
}
