/**
 * Layout of the man(7) renderer (`_man_render.ts`): the lines laid out so far, the outline,
 * and the fill state (indentation, the paragraph's words, a tag or heading waiting for its
 * text) that requests change.
 *
 * @module
 */
import type { Heading } from "../core/extractor.ts";
import { INDENT, JOIN, NBSP, SS_INDENT, WIDTH, wrap } from "./_man_lex.ts";

/** The page's lines and the state that lays text out into them. */
export class Layout {
  /** The lines laid out. */
  readonly lines: string[] = [];
  /** Sections (`.SH`, level 1) and subsections (`.SS`, level 2), by the line after them. */
  readonly headings: Heading[] = [];
  /** The NAME section's text, for the title. */
  nameLine = "";
  /** Whether text goes to the NAME section. */
  inName = false;
  /** Whether text is filled (`.fi`) or kept line by line (`.nf`). */
  fill = true;
  /** The left margin (moved by `.RS`/`.RE`). */
  base: number = INDENT;
  /** The paragraph's indent past the margin (a tagged paragraph's). */
  par = 0;
  /** The last tagged paragraph's indent, for the next one that gives none. */
  lastPar: number = INDENT;
  /** The margins `.RS` saved. */
  rs: { base: number; par: number }[] = [];
  /** The words of the paragraph, not laid out yet. */
  words: string[] = [];
  /** Whether the next text continues the last word (`\c`). */
  join = false;
  /** The tag of a tagged paragraph, printed at the margin. */
  tag?: string;
  /** Where the next piece of text goes instead of the paragraph: a heading or a tag. */
  capture?: "SH" | "SS" | "TP";
  /** Text of the heading or tag gathered so far. */
  captured = "";

  /** A blank line, unless there is one already or the last line is a heading. */
  blank(): void {
    const n = this.lines.length;
    if (!n || this.lines[n - 1] === "" || this.headings.at(-1)?.line === n) return;
    this.lines.push("");
  }

  /** Add a finished line (non-breaking spaces made spaces, joins dropped, no trailing space). */
  emit(line: string): void {
    this.lines.push(line.replaceAll(NBSP, " ").replaceAll(JOIN, "").trimEnd());
  }

  /** Lay out the words gathered so far (a break). */
  flush(): void {
    if (!this.words.length && this.tag === undefined) return;
    const indent = this.base + this.par;
    const body = wrap(this.words, Math.max(20, WIDTH - indent));
    const pad = " ".repeat(indent);
    let i = 0;
    if (this.tag !== undefined) {
      const lead = " ".repeat(this.base) + this.tag;
      if (body.length && this.tag.length < this.par) {
        this.emit(lead.padEnd(indent) + body[0]);
        i = 1;
      } else this.emit(lead);
      this.tag = undefined;
    }
    for (; i < body.length; i++) this.emit(pad + body[i]);
    this.words = [];
    this.join = false;
  }

  /** Add text to the current paragraph (or to the heading or tag waiting for it). */
  add(text: string): void {
    if (this.capture) {
      // a tag or heading continued with `\c` takes the next text too
      this.captured += text.replaceAll(JOIN, "");
      if (text.endsWith(JOIN)) return;
      const t = this.captured.replace(/[\s\u00a0]+/g, " ").trim();
      this.captured = "";
      if (!t) return;
      const kind = this.capture;
      this.capture = undefined;
      if (kind === "TP") this.tag = t;
      else this.heading(kind, t);
      return;
    }
    if (this.inName) this.nameLine += " " + text.replaceAll(JOIN, "");
    if (!this.fill) {
      this.flush();
      const line = text.replaceAll(JOIN, "");
      this.emit(line.trim() ? " ".repeat(this.base + this.par) + line : "");
      return;
    }
    const join = text.endsWith(JOIN);
    const words = text.replaceAll(JOIN, "").split(/[ \t\n]+/).filter((w) => w);
    if (words.length) {
      if (this.join && this.words.length) {
        this.words[this.words.length - 1] += words.shift()!;
      }
      this.words.push(...words);
    }
    this.join = join;
  }

  /** A section (`SH`) or subsection (`SS`) heading: a line of its own, in the outline. */
  heading(kind: "SH" | "SS", title: string): void {
    this.flush();
    this.blank();
    const clean = title.replaceAll(NBSP, " ").replace(/\s+/g, " ").trim();
    this.emit((kind === "SS" ? " ".repeat(SS_INDENT) : "") + clean);
    this.headings.push({ level: kind === "SH" ? 1 : 2, title: clean, line: this.lines.length });
    this.inName = kind === "SH" && /^(NAME|NOM|NOMBRE|NAMN|NOME|BEZEICHNUNG)$/i.test(clean);
  }

  /** A new paragraph: break, a blank line, indentation back to the base. */
  paragraph(): void {
    this.flush();
    this.capture = undefined;
    this.blank();
    this.par = 0;
  }
}
