/**
 * The requests and man(7) macros of the man(7) renderer (`_man_render.ts`) that act on one
 * line: titles, headings, paragraphs and indentation, fonts (dropped), links, fill mode,
 * strings, registers and translations; mdoc lines go to `_man_mdoc.ts`.
 *
 * @module
 */
import type { Definitions } from "./_man_escape.ts";
import { evaluate } from "./_man_expr.ts";
import type { Layout } from "./_man_layout.ts";
import { columns, INDENT, JOIN, MDOC_INLINE, splitArgs } from "./_man_lex.ts";
import type { Mdoc } from "./_man_mdoc.ts";

/** The state of a page that requests read and change. */
export interface Page {
  /** The lines and the fill state. */
  readonly layout: Layout;
  /** Strings, registers, macros and translations. */
  readonly defs: Definitions;
  /** The mdoc state. */
  readonly mdoc: Mdoc;
  /** The page's `.TH` (or `.Dt`): name, section and the rest (date, source, manual). */
  title?: { name: string; section: string; extra: string[] };
  /** The link a `.UR` or `.MT` opened, until its `.UE` or `.ME`. */
  url?: string;
  /** A piece of text with its escapes resolved. */
  text(s: string): string;
}

/**
 * A request or man macro that does not read further lines (`.TH .SH .TP .RS .B .ds .nr` ...).
 *
 * @param page the page it changes
 * @param name the request's name
 * @param rest the rest of its line (comment and braces removed)
 */
export function request(page: Page, name: string, rest: string): void {
  const layout = page.layout;
  const args = () => splitArgs(rest);
  const joined = (sep: string) => args().map((a) => page.text(a)).join(sep);
  switch (name) {
    case "TH": {
      const a = args().map((x) => page.text(x).trim());
      page.title = { name: a[0] ?? "", section: a[1] ?? "", extra: a.slice(2) };
      return;
    }
    case "Dt":
      page.mdoc.on = true;
      page.title = {
        name: page.text(args()[0] ?? ""),
        section: page.text(args()[1] ?? ""),
        extra: [],
      };
      return;
    case "Dd":
    case "Os":
      page.mdoc.on = true;
      return;
    case "SH":
    case "Sh":
    case "SS":
    case "Ss": {
      const kind = name === "SH" || name === "Sh" ? "SH" : "SS";
      layout.par = 0;
      layout.rs = [];
      layout.base = INDENT;
      const t = joined(" ").trim();
      if (t) {
        layout.capture = undefined;
        layout.heading(kind, t);
      } else {
        layout.flush();
        layout.capture = kind;
      }
      return;
    }
    case "PP":
    case "LP":
    case "P":
    case "Pp":
    case "HP":
      layout.paragraph();
      return;
    case "TP":
    case "TQ":
      if (name === "TP") layout.paragraph();
      else layout.flush();
      layout.par = columns(args()[0]) ?? layout.lastPar;
      layout.lastPar = layout.par;
      layout.capture = "TP";
      return;
    case "IP": {
      layout.paragraph();
      const a = args();
      layout.par = columns(a[1]) ?? layout.lastPar;
      layout.lastPar = layout.par;
      const tag = page.text(a[0] ?? "").replaceAll(JOIN, "").trim();
      if (tag) layout.tag = tag;
      return;
    }
    case "RS": {
      layout.flush();
      layout.rs.push({ base: layout.base, par: layout.par });
      layout.base += columns(args()[0]) ?? (layout.par || INDENT);
      layout.par = 0;
      return;
    }
    case "RE": {
      layout.flush();
      const prev = layout.rs.pop();
      if (prev) {
        layout.base = prev.base;
        layout.par = prev.par;
      }
      return;
    }
    case "B":
    case "I":
    case "SM":
    case "SB":
    case "R":
      if (rest) layout.add(joined(" "));
      return;
    case "BR":
    case "BI":
    case "IB":
    case "IR":
    case "RB":
    case "RI":
      if (rest) layout.add(joined(""));
      return;
    case "MR": {
      const [ref, sec, trail] = args().map((x) => page.text(x));
      layout.add(`${ref ?? ""}(${sec ?? ""})${trail ?? ""}`);
      return;
    }
    case "UR":
    case "MT":
      page.url = page.text(args()[0] ?? "");
      return;
    case "UE":
    case "ME": {
      const url = page.url;
      page.url = undefined;
      if (url) layout.add(`<${url}>${joined("")}`);
      return;
    }
    case "SY": {
      layout.paragraph();
      const cmd = joined(" ");
      layout.tag = cmd;
      layout.par = cmd.length + 1;
      return;
    }
    case "OP": {
      const a = args().map((x) => page.text(x));
      if (a.length) layout.add(`[${a.join(" ")}]`);
      return;
    }
    case "YS":
      layout.flush();
      layout.par = 0;
      return;
    case "br":
    case "ce":
      layout.flush();
      return;
    case "sp":
    case "Sp":
    case "bp":
      layout.flush();
      layout.blank();
      return;
    case "nf":
    case "EX":
    case "Vb":
      layout.flush();
      layout.fill = false;
      return;
    case "fi":
    case "EE":
    case "Ve":
      layout.flush();
      layout.fill = true;
      return;
    case "ds":
    case "ds1":
    case "as": {
      const m = /^(\S+)[ \t]?(.*)$/.exec(rest);
      if (!m) return;
      const value = m[2]!.replace(/^"/, "");
      page.defs.strings.set(
        m[1]!,
        name === "as" ? (page.defs.strings.get(m[1]!) ?? "") + value : value,
      );
      return;
    }
    case "nr": {
      const [reg, val] = args();
      if (!reg) return;
      // `+1` and `-1` change the register; a plain value sets it
      const v = evaluate(page.defs, val ?? "0");
      page.defs.registers.set(
        reg,
        /^[+-]/.test(val ?? "") ? (page.defs.registers.get(reg) ?? 0) + v : v,
      );
      return;
    }
    case "rr":
    case "rm":
      page.defs.registers.delete(rest.trim());
      page.defs.strings.delete(rest.trim());
      page.defs.macros.delete(rest.trim());
      return;
    case "tr": {
      const chars = [...page.text(rest.split(/\s/)[0] ?? "")];
      for (let k = 0; k + 1 < chars.length; k += 2) {
        page.defs.translate.set(chars[k]!, chars[k + 1]!);
      }
      return;
    }
    case "so":
      layout.add(`See ${rest.trim()}.`);
      return;
    case "Nm":
    case "Nd":
    case "It":
    case "D1":
    case "Dl":
      if (page.mdoc.on) return page.mdoc.line(name, rest);
      return;
    case "Bd":
      layout.paragraph();
      if (/-(literal|unfilled)/.test(rest)) layout.fill = false;
      return;
    case "Ed":
      layout.flush();
      layout.fill = true;
      return;
    case "Bl":
    case "El":
      layout.paragraph();
      return;
  }
  if (page.mdoc.on && MDOC_INLINE.has(name)) page.mdoc.line(name, rest);
  // everything else (.ft .ad .na .nh .hy .ne .in .ti .ta .PD .DT .IX .ll .ps ...) does not
  // change the text
}
