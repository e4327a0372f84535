/**
 * The man(7) renderer behind the man-page extractor (`man.ts`): a small groff interpreter
 * (requests, macros, strings, registers, conditionals, tbl, a little mdoc) that lays a page
 * out as `man` shows it on a terminal. This module walks the page's lines (control lines,
 * conditionals, macro definitions and calls); its parts sit beside it: `_man_lex.ts` (lexing,
 * tables), `_man_escape.ts` (escapes, definitions), `_man_expr.ts` (conditions, arithmetic),
 * `_man_layout.ts` (fill and output), `_man_requests.ts` (one-line requests and macros),
 * `_man_mdoc.ts` (mdoc) and `_man_tbl.ts` (tables).
 *
 * @module
 */
import type { Heading } from "../core/extractor.ts";
import { Definitions, resolve } from "./_man_escape.ts";
import { condition } from "./_man_expr.ts";
import { Layout } from "./_man_layout.ts";
import {
  braceDelta,
  BUILTIN,
  escapeRe,
  joinContinuations,
  MANUALS,
  MAX_DEPTH,
  NBSP,
  splitArgs,
  stripBraces,
  stripComment,
} from "./_man_lex.ts";
import { Mdoc } from "./_man_mdoc.ts";
import { type Page, request } from "./_man_requests.ts";
import { table } from "./_man_tbl.ts";

/** Renders one page. */
class Renderer implements Page {
  readonly layout = new Layout();
  readonly defs = new Definitions();
  readonly mdoc: Mdoc = new Mdoc(this.layout, (s) => this.text(s));
  title?: { name: string; section: string; extra: string[] };
  url?: string;
  #lastCond: boolean[] = [];

  constructor(readonly src: string[]) {}

  /** Text with its escapes resolved (fonts dropped, glyphs, strings, registers). */
  text(s: string): string {
    return resolve(this.defs, s);
  }

  /** Render the whole page. */
  render(): void {
    this.#run(this.src, 0);
    this.layout.flush();
    const lines = this.layout.lines;
    while (lines.length && lines[lines.length - 1] === "") lines.pop();
    // the footer `man` shows: the source and the date of the page
    const [date, source, given] = this.title?.extra ?? [];
    const manual = given || MANUALS[this.title?.section[0] ?? ""];
    const footer = [manual, source, date].filter((x) => x).join("  ");
    if (footer) lines.push("", footer);
  }

  /** Process lines (the page, a macro body or a conditional block). */
  #run(lines: string[], depth: number): void {
    for (let i = 0; i < lines.length; i++) i = this.#line(lines, i, depth);
  }

  /** Process the line at `i`; returns the index of the last line it used. */
  #line(lines: string[], i: number, depth: number): number {
    const raw = lines[i]!;
    if (raw.length > 1 && (raw[0] === "." || raw[0] === "'")) {
      return this.#control(raw.slice(1), lines, i, depth);
    }
    if (raw === "." || raw === "'") return i;
    if (raw.startsWith('\\"') || raw.startsWith("\\#")) return i; // a comment line
    const text = stripComment(stripBraces(raw));
    if (!text.trim()) {
      if (this.layout.fill) {
        this.layout.flush();
        this.layout.blank();
      } else this.layout.add("");
      return i;
    }
    if (this.layout.fill && /^[ \t]/.test(text)) this.layout.flush();
    this.layout.add(this.text(text));
    return i;
  }

  /** A control line (without its `.`); returns the index of the last line it used. */
  #control(body: string, lines: string[], i: number, depth: number): number {
    // a name ends at a space or an escape (`.el\{`)
    const m = /^[ \t]*([^\s\\]+)[ \t]*/.exec(body);
    if (!m) return i;
    const name = m[1]!;
    // the raw rest (braces kept) decides how far a false block reaches
    const rawRest = stripComment(body.slice(m[0].length));
    const rest = stripComment(stripBraces(rawRest)).replace(/^[ \t]+/, "");
    switch (name) {
      case "if":
      case "ie":
      case "el": {
        let value: boolean;
        let after: string;
        if (name === "el") {
          value = !(this.#lastCond.pop() ?? true);
          after = rawRest;
        } else {
          const c = condition(this.defs, rawRest);
          value = c.value;
          after = c.rest;
          if (name === "ie") this.#lastCond.push(value);
        }
        if (!value) {
          let open = braceDelta(after);
          while (open > 0 && i + 1 < lines.length) open += braceDelta(lines[++i]!);
          return i;
        }
        const inner = stripBraces(after).replace(/^[ \t]+/, "");
        if (!inner.trim()) return i;
        lines[i] = inner; // the line's own text, as if it stood alone
        return this.#line(lines, i, depth);
      }
      case "de":
      case "de1":
      case "am": {
        const args = splitArgs(rest);
        const end = args[1] ?? ".";
        const macro: string[] = [];
        let j = i + 1;
        for (; j < lines.length; j++) {
          const l = lines[j]!;
          if (
            end === "."
              ? /^[.'][ \t]*\.(\s|$)/.test(l)
              : new RegExp(`^[.'][ \\t]*${escapeRe(end)}(\\s|$)`).test(l)
          ) {
            break;
          }
          macro.push(l);
        }
        const key = args[0];
        if (key && !BUILTIN.has(key)) {
          this.defs.macros.set(
            key,
            name === "am" ? [...(this.defs.macros.get(key) ?? []), ...macro] : macro,
          );
        }
        return j;
      }
      case "ig": {
        const end = splitArgs(rest)[0] ?? ".";
        let j = i + 1;
        const re = new RegExp(`^[.'][ \\t]*${escapeRe(end)}(\\s|$)`);
        while (j < lines.length && !re.test(lines[j]!)) j++;
        return j;
      }
      case "TS":
        this.layout.flush();
        return table(lines, i, this.layout, (s) => this.text(s));
      case "do":
      case "nop": {
        if (!rest) return i;
        lines[i] = name === "do" ? "." + rest : rest;
        return this.#line(lines, i, depth);
      }
    }
    const userMacro = this.defs.macros.get(name);
    if (userMacro && !BUILTIN.has(name)) {
      if (depth >= MAX_DEPTH) return i;
      const args = splitArgs(rest);
      const body = userMacro.map((l) =>
        l.replace(/\\\\?\$(\d|\*|@|#|\(\d\d|\[\d+\])/g, (_m, k: string) => {
          if (k === "*") return args.join(" ");
          if (k === "@") return args.map((a) => `"${a}"`).join(" ");
          if (k === "#") return String(args.length);
          const n = Number(k.replace(/[(\[\]]/g, ""));
          return args[n - 1] ?? "";
        }).replace(/\\\\/g, "\\")
      );
      this.#run(joinContinuations(body.join("\n")), depth + 1);
      return i;
    }
    request(this, name, rest);
    return i;
  }
}

/** The rendering of a man page: lines, outline and title. */
export interface ManPage {
  lines: string[];
  headings: Heading[];
  /** `ls(1) - list directory contents`, when the page has `.TH`. */
  title?: string;
}

/**
 * Render groff man(7) source as text, with its sections as headings.
 *
 * @param source the page's source text
 * @returns lines, headings and title
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const page = renderMan('.TH LS 1\n.SH NAME\nls \\- list directory contents\n');
 * assert.equal(page.title, "ls(1) - list directory contents");
 * ```
 */
export function renderMan(source: string): ManPage {
  const r = new Renderer(joinContinuations(source.replace(/\r\n?/g, "\n")));
  r.render();
  let title: string | undefined;
  if (r.title?.name) {
    const desc = r.layout.nameLine.replaceAll(NBSP, " ").replace(/\s+/g, " ").trim();
    const m = /^(.*?)\s+[-\u2013\u2014]+\s+(.*)$/.exec(desc);
    const names = (m?.[1] ?? "").split(/,\s*/).filter((n) => n);
    const name = names.find((n) => n.toLowerCase() === r.title!.name.toLowerCase()) ?? names[0] ??
      r.title.name.toLowerCase();
    const section = r.title.section ? `(${r.title.section})` : "";
    title = `${name}${section}${m ? ` - ${m[2]}` : ""}`;
    if (title.length > 160) title = title.slice(0, 159) + "\u2026";
  }
  return { lines: r.layout.lines, headings: r.layout.headings, title };
}
