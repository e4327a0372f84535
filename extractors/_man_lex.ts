/**
 * The lexical layer of the man(7) renderer (`_man_render.ts`): layout constants, glyph and
 * string tables, request-line parsing (arguments, comments, `\{ \}` braces, continuation
 * lines) and word wrapping.
 *
 * @module
 */
import { groffEscape } from "groff-escape";

/** Line length of the rendering, as `man` on an 80-column terminal. */
export const WIDTH = 78;
/** Indentation of body text, and the default indent of tagged paragraphs. */
export const INDENT = 7;
/** Indentation of subsection headings. */
export const SS_INDENT = 3;
/** Nesting limit of macro calls and string interpolation. */
export const MAX_DEPTH = 20;

/** A non-breaking space (`\ `, `\~`, `\0`) until the line is laid out. */
export const NBSP = "\u00a0";
/** `\c`: the next text continues this word. */
export const JOIN = "\ue000";

/** Glyph names (`\(em`, `\[co]`) to characters: groff-escape's table, reversed, plus ASCII. */
export const GLYPHS: Map<string, string> = (() => {
  const m = new Map<string, string>();
  for (const [ch, name] of Object.entries(groffEscape)) if (!m.has(name)) m.set(name, ch);
  const ascii: Record<string, string> = {
    aq: "'",
    dq: '"',
    ti: "~",
    ha: "^",
    ba: "|",
    bv: "|",
    br: "|",
    rs: "\\",
    sl: "/",
    at: "@",
    sh: "#",
    Do: "$",
    pl: "+",
    eq: "=",
    lB: "[",
    rB: "]",
    lC: "{",
    rC: "}",
    ul: "_",
    ru: "_",
    hy: "-",
    mi: "-",
    "\\-": "-",
    em: "\u2014",
    en: "\u2013",
    la: "\u27e8",
    ra: "\u27e9",
    bu: "\u2022",
    lq: "\u201c",
    rq: "\u201d",
    oq: "\u2018",
    cq: "\u2019",
    ga: "`",
    aa: "\u00b4",
    Fo: "\u00ab",
    Fc: "\u00bb",
    "*W": "\u03a9",
    "*p": "\u03c0",
    ua: "\u2191",
    da: "\u2193",
    pc: "\u00b7",
    fm: "\u2032",
    OK: "\u2713",
    tm: "\u2122",
    co: "\u00a9",
    rg: "\u00ae",
    "+-": "\u00b1",
    mu: "\u00d7",
    de: "\u00b0",
    "->": "\u2192",
    "<-": "\u2190",
    "<=": "\u2264",
    ">=": "\u2265",
    "!=": "\u2260",
    "==": "\u2261",
    "~=": "\u2245",
    sq: "\u25a1",
    ci: "\u25cb",
    dg: "\u2020",
    dd: "\u2021",
    ss: "\u00df",
    "12": "\u00bd",
    "14": "\u00bc",
    "34": "\u00be",
  };
  for (const [name, ch] of Object.entries(ascii)) m.set(name, ch);
  return m;
})();

/** A character named `\[name]`: a glyph name, `uXXXX` (maybe `_`-joined) or `charN`. */
export function glyph(name: string): string {
  const g = GLYPHS.get(name);
  if (g !== undefined) return g;
  const u = /^u([0-9A-Fa-f]{4,6}(?:_[0-9A-Fa-f]{4,6})*)$/.exec(name);
  if (u) return u[1]!.split("_").map((h) => String.fromCodePoint(parseInt(h, 16))).join("");
  const c = /^char(\d+)$/.exec(name);
  if (c) return String.fromCodePoint(Number(c[1]));
  return name.length === 1 ? name : "";
}

/** Strings groff's man macros define for a terminal. */
export const PREDEFINED_STRINGS: [string, string][] = [
  ["lq", "\\(lq"],
  ["rq", "\\(rq"],
  ["R", "\\(rg"],
  ["Tm", "\\(tm"],
  ["S", ""],
  ["HF", "B"],
  ["la", "\\(la"],
  ["ra", "\\(ra"],
  [".T", "utf8"],
];

/** The manual a section belongs to, when `.TH` does not name it (as groff's an.tmac). */
export const MANUALS: Record<string, string> = {
  "1": "General Commands Manual",
  "2": "System Calls Manual",
  "3": "Library Functions Manual",
  "4": "Kernel Interfaces Manual",
  "5": "File Formats Manual",
  "6": "Games Manual",
  "7": "Miscellaneous Information Manual",
  "8": "System Manager's Manual",
  "9": "Kernel Developer's Manual",
};

/** man(7) macros this renderer implements; a page's own `.de` of one of them is ignored. */
export const BUILTIN = new Set(
  (
    "TH SH SS PP LP P TP TQ IP HP RS RE B I SM SB BR BI IB IR RB RI R UR UE MT ME SY OP YS EX EE " +
    "MR br sp nf fi ds as nr tr de am ig if ie el so nop do TS TE Vb Ve Sh Ss Pp"
  ).split(" "),
);

/** mdoc macros that may be called inside a line, with how each renders its arguments. */
export const MDOC_INLINE = new Set(
  (
    "Ad An Ap Aq Ar At Bq Brq Bsx Bx Cd Cm Dl Dq Dv Dx Em Er Ev Fa Fd Fl Fn Fo Fc Ft Fx Ic In Lb " +
    "Li Lk Ms Mt Nm No Ns Nx Oo Oc Op Ox Pa Pf Pq Ql Qq Sq St Sx Sy Tn Ux Va Vt Xr"
  ).split(" "),
);

/** The arguments of a request or macro line: space-separated, `"..."` quoted (`""` is `"`). */
export function splitArgs(s: string): string[] {
  const args: string[] = [];
  let i = 0;
  while (i < s.length) {
    while (s[i] === " " || s[i] === "\t") i++;
    if (i >= s.length) break;
    let arg = "";
    if (s[i] === '"') {
      for (i++; i < s.length; i++) {
        if (s[i] === '"') {
          if (s[i + 1] === '"') {
            arg += '"';
            i++;
            continue;
          }
          i++;
          break;
        }
        if (s[i] === "\\" && i + 1 < s.length) arg += s[i++];
        arg += s[i];
      }
    } else {
      for (; i < s.length && s[i] !== " " && s[i] !== "\t"; i++) {
        if (s[i] === "\\" && i + 1 < s.length) arg += s[i++];
        arg += s[i];
      }
    }
    args.push(arg);
  }
  return args;
}

/** The line without its comment (`\"` to the end, `\#` too), escapes kept. */
export function stripComment(line: string): string {
  for (let i = 0; i < line.length; i++) {
    if (line[i] !== "\\") continue;
    const n = line[i + 1];
    if (n === '"' || n === "#") return line.slice(0, i);
    i++;
  }
  return line;
}

/** The change in `\{` ... `\}` nesting a line makes (escape-aware). */
export function braceDelta(line: string): number {
  let d = 0;
  for (let i = 0; i < line.length; i++) {
    if (line[i] !== "\\") continue;
    const n = line[i + 1];
    if (n === "{") d++;
    else if (n === "}") d--;
    i++;
  }
  return d;
}

/** The line with its `\{` and `\}` removed (escape-aware). */
export function stripBraces(line: string): string {
  let out = "";
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === "\\" && (line[i + 1] === "{" || line[i + 1] === "}")) {
      i++;
      continue;
    }
    out += c;
    if (c === "\\" && i + 1 < line.length) out += line[++i];
  }
  return out;
}

/** Input lines with `\`-newline continuations joined. */
export function joinContinuations(text: string): string[] {
  const raw = text.split("\n");
  const out: string[] = [];
  let acc: string | undefined;
  for (const line of raw) {
    const trailing = /\\+$/.exec(line)?.[0].length ?? 0;
    const cont = trailing % 2 === 1;
    const part = cont ? line.slice(0, -1) : line;
    acc = acc === undefined ? part : acc + part;
    if (!cont) {
      out.push(acc);
      acc = undefined;
    }
  }
  if (acc !== undefined) out.push(acc);
  return out;
}

/** A width argument (`7`, `4n`, `0.5i`, `15m`) in character columns, or undefined. */
export function columns(arg: string | undefined): number | undefined {
  const m = /^([+-]?\d*\.?\d+)([a-zA-Z]?)$/.exec(arg?.trim() ?? "");
  if (!m) return undefined;
  const scale: Record<string, number> = { i: 10, c: 4, p: 10 / 72, P: 10 / 6, v: 1, u: 1 / 24 };
  const n = Number(m[1]) * (scale[m[2]!] ?? 1);
  return Math.max(0, Math.min(40, Math.round(n)));
}

/** Greedy fill of words into lines of at most `width` characters. */
export function wrap(words: string[], width: number): string[] {
  const lines: string[] = [];
  let cur = "";
  for (const w of words) {
    if (!cur) cur = w;
    else if (cur.length + 1 + w.length <= width) cur += " " + w;
    else {
      lines.push(cur);
      cur = w;
    }
  }
  if (cur) lines.push(cur);
  return lines;
}

export function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
