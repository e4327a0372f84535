/**
 * The man(7) renderer behind the man-page extractor (`man.ts`): a small groff interpreter
 * (requests, macros, strings, registers, conditionals, tbl, a little mdoc) that lays a page
 * out as `man` shows it on a terminal. One state machine over the page's lines, kept in one
 * module on purpose: its requests share the fill state, fonts and indentation.
 *
 * @module
 */
import type { Heading } from "../core/types.ts";
import {
  braceDelta,
  BUILTIN,
  columns,
  escapeRe,
  glyph,
  INDENT,
  JOIN,
  joinContinuations,
  MANUALS,
  MAX_DEPTH,
  MDOC_INLINE,
  NBSP,
  PREDEFINED_STRINGS,
  splitArgs,
  SS_INDENT,
  stripBraces,
  stripComment,
  WIDTH,
  wrap,
} from "./_man_lex.ts";

/** Renders one page. */
class Renderer {
  readonly lines: string[] = [];
  readonly headings: Heading[] = [];
  title?: { name: string; section: string; extra: string[] };
  /** The NAME section's text, for the title. */
  nameLine = "";
  #inName = false;

  #strings = new Map<string, string>(PREDEFINED_STRINGS);
  #registers = new Map<string, number>([[".g", 1], [".x", 1], [".y", 23], ["HY", 0]]);
  #macros = new Map<string, string[]>();
  #translate = new Map<string, string>();
  #depth = 0;
  #mdoc = false;
  #mdocName = "";

  // layout
  #fill = true;
  #base = INDENT;
  #par = 0;
  #lastPar = INDENT;
  #rs: { base: number; par: number }[] = [];
  #words: string[] = [];
  #join = false;
  #tag?: string;
  /** Where the next piece of text goes instead of the paragraph: a heading or a tag. */
  #capture?: "SH" | "SS" | "TP";
  #captured = "";
  #url?: string;
  #lastCond: boolean[] = [];

  constructor(readonly src: string[]) {}

  // ---------------------------------------------------------------- escapes

  /** Text with its escapes resolved (fonts dropped, glyphs, strings, registers). */
  text(s: string, depth = 0): string {
    let out = "";
    for (let i = 0; i < s.length; i++) {
      const c = s[i]!;
      if (c !== "\\") {
        out += c;
        continue;
      }
      const n = s[++i];
      if (n === undefined) break;
      switch (n) {
        case "f":
        case "F":
        case "k":
        case "m":
        case "M":
        case "Y":
        case "V":
        case "g":
        case "O":
          i = this.#name(s, i + 1).end;
          break;
        case "(":
          out += glyph(s.slice(i + 1, i + 3));
          i += 2;
          break;
        case "[": {
          const end = s.indexOf("]", i + 1);
          if (end < 0) return out;
          out += s.slice(i + 1, end).split(" ").map(glyph).join("");
          i = end;
          break;
        }
        case "C": {
          const d = this.#delimited(s, i + 1);
          out += glyph(d.body);
          i = d.end;
          break;
        }
        case "N": {
          const d = this.#delimited(s, i + 1);
          const code = Number(d.body);
          if (Number.isInteger(code) && code > 0 && code < 0x110000) {
            out += String.fromCodePoint(code);
          }
          i = d.end;
          break;
        }
        case "*": {
          const { name, end } = this.#name(s, i + 1);
          i = end;
          if (depth < MAX_DEPTH) out += this.text(this.#strings.get(name) ?? "", depth + 1);
          break;
        }
        case "n": {
          let j = i + 1;
          if (s[j] === "+" || s[j] === "-") j++;
          const { name, end } = this.#name(s, j);
          i = end;
          out += String(this.#registers.get(name) ?? 0);
          break;
        }
        case "s": {
          let j = i + 1;
          if (s[j] === "+" || s[j] === "-") j++;
          if (s[j] === "(") j += 2;
          else if (s[j] === "[" || s[j] === "'") {
            const close = s.indexOf(s[j] === "[" ? "]" : "'", j + 1);
            j = close < 0 ? s.length : close;
          } else if (/[0-3]/.test(s[j] ?? "") && /[0-9]/.test(s[j + 1] ?? "") && s[j] !== "0") {
            j++;
          }
          i = j;
          break;
        }
        case "Z":
        case "o": {
          const d = this.#delimited(s, i + 1);
          const inner = this.text(d.body, depth + 1);
          out += n === "o" ? [...inner][0] ?? "" : inner;
          i = d.end;
          break;
        }
        case "w":
        case "h":
        case "v":
        case "D":
        case "l":
        case "L":
        case "x":
        case "X":
        case "R":
        case "S":
        case "H":
        case "b":
        case "A":
        case "B":
          i = this.#delimited(s, i + 1).end;
          break;
        case "z":
        case "&":
        case "|":
        case "^":
        case "%":
        case ":":
        case ")":
        case ",":
        case "/":
        case "a":
        case "p":
        case "{":
        case "}":
        case "u":
        case "d":
        case "r":
        case "$":
          break;
        case "c":
          out += JOIN;
          break;
        case " ":
        case "~":
        case "0":
          out += NBSP;
          break;
        case "t":
          out += "\t";
          break;
        case "e":
        case "E":
        case "\\":
          out += "\\";
          break;
        case "-":
          out += "-";
          break;
        case "'":
          out += "'";
          break;
        case '"':
        case "#":
        case "!":
          return this.#translated(out);
        default:
          out += n;
      }
    }
    return this.#translated(out);
  }

  #translated(s: string): string {
    if (!this.#translate.size) return s;
    let out = "";
    for (const ch of s) out += this.#translate.get(ch) ?? ch;
    return out;
  }

  /** An escape's name at `at`: `(xx`, `[name]` or one character. */
  #name(s: string, at: number): { name: string; end: number } {
    if (s[at] === "(") return { name: s.slice(at + 1, at + 3), end: at + 2 };
    if (s[at] === "[") {
      const close = s.indexOf("]", at + 1);
      if (close < 0) return { name: s.slice(at + 1), end: s.length };
      return { name: s.slice(at + 1, close), end: close };
    }
    return { name: s[at] ?? "", end: at };
  }

  /** A delimited escape argument at `at` (`'...'`, or any delimiter). */
  #delimited(s: string, at: number): { body: string; end: number } {
    const d = s[at];
    if (d === undefined) return { body: "", end: s.length };
    let j = at + 1;
    for (; j < s.length && s[j] !== d; j++) if (s[j] === "\\") j++;
    return { body: s.slice(at + 1, j), end: Math.min(j, s.length) };
  }

  // ---------------------------------------------------------------- conditions

  /** Evaluate a condition at the start of `s`; returns its value and the rest of the line. */
  #condition(s: string): { value: boolean; rest: string } {
    s = s.replace(/^[ \t]+/, "");
    let neg = false;
    while (s[0] === "!") {
      neg = !neg;
      s = s.slice(1);
    }
    let value: boolean;
    let rest: string;
    const simple = /^([ntoev])(?=[\s\\]|$)/.exec(s);
    const named = /^([drcmFS])[ \t]*([^\s\\]+)/.exec(s);
    if (simple) {
      value = simple[1] === "n";
      rest = s.slice(1);
    } else if (named) {
      const [, kind, name] = named;
      value = kind === "d"
        ? this.#strings.has(name!) || this.#macros.has(name!) || BUILTIN.has(name!)
        : kind === "r"
        ? this.#registers.has(name!)
        : kind === "c";
      rest = s.slice(named[0].length);
    } else if (/^[^\w\s\\(+\-.]/.test(s)) {
      // 'a'b': string comparison, with any delimiter that cannot start a number
      const a = this.#delimited(s, 0);
      const b = this.#delimited(s, a.end);
      value = this.text(a.body) === this.text(b.body);
      rest = s.slice(b.end + 1);
    } else {
      const { expr, end } = this.#exprToken(s);
      value = this.#evaluate(expr) > 0;
      rest = s.slice(end);
    }
    return { value: neg ? !value : value, rest: rest.replace(/^[ \t]+/, "") };
  }

  /** A numeric expression at the start of `s` (up to a space outside parentheses). */
  #exprToken(s: string): { expr: string; end: number } {
    let depth = 0;
    let i = 0;
    for (; i < s.length; i++) {
      const c = s[i]!;
      if (c === "\\") {
        const n = s[i + 1];
        if (n === "{" && depth === 0) break;
        if (n === "w" || n === "h" || n === "v") i = this.#delimited(s, i + 2).end;
        else if (n === "n" || n === "*") {
          let j = i + 2;
          if (s[j] === "+" || s[j] === "-") j++;
          i = this.#name(s, j).end;
        } else i++;
        continue;
      }
      if (c === "(") depth++;
      else if (c === ")") depth--;
      else if ((c === " " || c === "\t") && depth <= 0) break;
    }
    return { expr: s.slice(0, i), end: i };
  }

  /** groff arithmetic, left to right: numbers, registers, `\w`, parentheses, comparisons. */
  #evaluate(expr: string): number {
    // \w'...' is the width of its text, in basic units (24 per character on a terminal)
    let e = expr.replace(/\\w(.)(.*?)\1/g, (_m, _d, body) => String(this.text(body).length * 24));
    e = e.replace(/\\n[+-]?(\([^\s]{2}|\[[^\]]*\]|.)/g, (_m, name: string) => {
      const n = name.startsWith("(")
        ? name.slice(1)
        : name.startsWith("[")
        ? name.slice(1, -1)
        : name;
      return String(this.#registers.get(n) ?? 0);
    });
    let pos = 0;
    const term = (): number => {
      while (e[pos] === " ") pos++;
      if (e[pos] === "(") {
        pos++;
        const v = expression();
        if (e[pos] === ")") pos++;
        return v;
      }
      let sign = 1;
      while (e[pos] === "-" || e[pos] === "+") sign *= e[pos++] === "-" ? -1 : 1;
      if (e[pos] === "(") return sign * term();
      const m = /^\d*\.?\d+/.exec(e.slice(pos));
      if (!m) {
        pos = e.length;
        return 0;
      }
      pos += m[0].length;
      const unit = e[pos];
      let v = Number(m[0]);
      if (unit && /[icpPmnvMu]/.test(unit)) {
        pos++;
        v *= { i: 240, c: 94, p: 10 / 3, P: 40, m: 24, n: 24, v: 40, M: 0.24, u: 1 }[unit]!;
      }
      return sign * v;
    };
    const expression = (): number => {
      let v = term();
      for (;;) {
        const op = /^(<=|>=|==|<\?|>\?|[+\-*/%<>=&:])/.exec(e.slice(pos))?.[0];
        if (!op) return v;
        pos += op.length;
        const r = term();
        switch (op) {
          case "+":
            v += r;
            break;
          case "-":
            v -= r;
            break;
          case "*":
            v *= r;
            break;
          case "/":
            v = r ? Math.trunc(v / r) : 0;
            break;
          case "%":
            v = r ? v % r : 0;
            break;
          case "<":
            v = Number(v < r);
            break;
          case ">":
            v = Number(v > r);
            break;
          case "<=":
            v = Number(v <= r);
            break;
          case ">=":
            v = Number(v >= r);
            break;
          case "=":
          case "==":
            v = Number(v === r);
            break;
          case "&":
            v = Number(v > 0 && r > 0);
            break;
          case ":":
            v = Number(v > 0 || r > 0);
            break;
          case "<?":
            v = Math.min(v, r);
            break;
          case ">?":
            v = Math.max(v, r);
            break;
        }
      }
    };
    try {
      return expression();
    } catch {
      return 0;
    }
  }

  // ---------------------------------------------------------------- layout

  /** A blank line, unless there is one already or the last line is a heading. */
  #blank(): void {
    const n = this.lines.length;
    if (!n || this.lines[n - 1] === "" || this.headings.at(-1)?.line === n) return;
    this.lines.push("");
  }

  #emit(line: string): void {
    this.lines.push(line.replaceAll(NBSP, " ").replaceAll(JOIN, "").trimEnd());
  }

  /** Lay out the words gathered so far (a break). */
  flush(): void {
    if (!this.#words.length && this.#tag === undefined) return;
    const indent = this.#base + this.#par;
    const body = wrap(this.#words, Math.max(20, WIDTH - indent));
    const pad = " ".repeat(indent);
    let i = 0;
    if (this.#tag !== undefined) {
      const lead = " ".repeat(this.#base) + this.#tag;
      if (body.length && this.#tag.length < this.#par) {
        this.#emit(lead.padEnd(indent) + body[0]);
        i = 1;
      } else this.#emit(lead);
      this.#tag = undefined;
    }
    for (; i < body.length; i++) this.#emit(pad + body[i]);
    this.#words = [];
    this.#join = false;
  }

  /** Add text to the current paragraph (or to the heading or tag waiting for it). */
  #add(text: string): void {
    if (this.#capture) {
      // a tag or heading continued with `\c` takes the next text too
      this.#captured += text.replaceAll(JOIN, "");
      if (text.endsWith(JOIN)) return;
      const t = this.#captured.replace(/[\s\u00a0]+/g, " ").trim();
      this.#captured = "";
      if (!t) return;
      const kind = this.#capture;
      this.#capture = undefined;
      if (kind === "TP") this.#tag = t;
      else this.#heading(kind, t);
      return;
    }
    if (this.#inName) this.nameLine += " " + text.replaceAll(JOIN, "");
    if (!this.#fill) {
      this.flush();
      const line = text.replaceAll(JOIN, "");
      this.#emit(line.trim() ? " ".repeat(this.#base + this.#par) + line : "");
      return;
    }
    const join = text.endsWith(JOIN);
    const words = text.replaceAll(JOIN, "").split(/[ \t\n]+/).filter((w) => w);
    if (words.length) {
      if (this.#join && this.#words.length) {
        this.#words[this.#words.length - 1] += words.shift()!;
      }
      this.#words.push(...words);
    }
    this.#join = join;
  }

  #heading(kind: "SH" | "SS", title: string): void {
    this.flush();
    this.#blank();
    const clean = title.replaceAll(NBSP, " ").replace(/\s+/g, " ").trim();
    this.#emit((kind === "SS" ? " ".repeat(SS_INDENT) : "") + clean);
    this.headings.push({ level: kind === "SH" ? 1 : 2, title: clean, line: this.lines.length });
    this.#inName = kind === "SH" && /^(NAME|NOM|NOMBRE|NAMN|NOME|BEZEICHNUNG)$/i.test(clean);
  }

  /** A new paragraph: break, a blank line, indentation back to the base. */
  #paragraph(): void {
    this.flush();
    this.#capture = undefined;
    this.#blank();
    this.#par = 0;
  }

  // ---------------------------------------------------------------- lines

  /** Render the whole page. */
  render(): void {
    this.#run(this.src, 0);
    this.flush();
    while (this.lines.length && this.lines[this.lines.length - 1] === "") this.lines.pop();
    // the footer `man` shows: the source and the date of the page
    const [date, source, given] = this.title?.extra ?? [];
    const manual = given || MANUALS[this.title?.section[0] ?? ""];
    const footer = [manual, source, date].filter((x) => x).join("  ");
    if (footer) this.lines.push("", footer);
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
      if (this.#fill) {
        this.flush();
        this.#blank();
      } else this.#add("");
      return i;
    }
    if (this.#fill && /^[ \t]/.test(text)) this.flush();
    this.#add(this.text(text));
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
          const c = this.#condition(rawRest);
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
          this.#macros.set(
            key,
            name === "am" ? [...(this.#macros.get(key) ?? []), ...macro] : macro,
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
        this.flush();
        return this.#table(lines, i);
      case "do":
      case "nop": {
        if (!rest) return i;
        lines[i] = name === "do" ? "." + rest : rest;
        return this.#line(lines, i, depth);
      }
    }
    const userMacro = this.#macros.get(name);
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
    this.#request(name, rest);
    return i;
  }

  /** A request or man macro that does not read further lines. */
  #request(name: string, rest: string): void {
    const args = () => splitArgs(rest);
    const joined = (sep: string) => args().map((a) => this.text(a)).join(sep);
    switch (name) {
      case "TH": {
        const a = args().map((x) => this.text(x).trim());
        this.title = { name: a[0] ?? "", section: a[1] ?? "", extra: a.slice(2) };
        return;
      }
      case "Dt":
        this.#mdoc = true;
        this.title = {
          name: this.text(args()[0] ?? ""),
          section: this.text(args()[1] ?? ""),
          extra: [],
        };
        return;
      case "Dd":
      case "Os":
        this.#mdoc = true;
        return;
      case "SH":
      case "Sh":
      case "SS":
      case "Ss": {
        const kind = name === "SH" || name === "Sh" ? "SH" : "SS";
        this.#par = 0;
        this.#rs = [];
        this.#base = INDENT;
        const t = joined(" ").trim();
        if (t) {
          this.#capture = undefined;
          this.#heading(kind, t);
        } else {
          this.flush();
          this.#capture = kind;
        }
        return;
      }
      case "PP":
      case "LP":
      case "P":
      case "Pp":
      case "HP":
        this.#paragraph();
        return;
      case "TP":
      case "TQ":
        if (name === "TP") this.#paragraph();
        else this.flush();
        this.#par = columns(args()[0]) ?? this.#lastPar;
        this.#lastPar = this.#par;
        this.#capture = "TP";
        return;
      case "IP": {
        this.#paragraph();
        const a = args();
        this.#par = columns(a[1]) ?? this.#lastPar;
        this.#lastPar = this.#par;
        const tag = this.text(a[0] ?? "").replaceAll(JOIN, "").trim();
        if (tag) this.#tag = tag;
        return;
      }
      case "RS": {
        this.flush();
        this.#rs.push({ base: this.#base, par: this.#par });
        this.#base += columns(args()[0]) ?? (this.#par || INDENT);
        this.#par = 0;
        return;
      }
      case "RE": {
        this.flush();
        const prev = this.#rs.pop();
        if (prev) {
          this.#base = prev.base;
          this.#par = prev.par;
        }
        return;
      }
      case "B":
      case "I":
      case "SM":
      case "SB":
      case "R":
        if (rest) this.#add(joined(" "));
        return;
      case "BR":
      case "BI":
      case "IB":
      case "IR":
      case "RB":
      case "RI":
        if (rest) this.#add(joined(""));
        return;
      case "MR": {
        const [page, sec, trail] = args().map((x) => this.text(x));
        this.#add(`${page ?? ""}(${sec ?? ""})${trail ?? ""}`);
        return;
      }
      case "UR":
      case "MT":
        this.#url = this.text(args()[0] ?? "");
        return;
      case "UE":
      case "ME": {
        const url = this.#url;
        this.#url = undefined;
        if (url) this.#add(`<${url}>${joined("")}`);
        return;
      }
      case "SY": {
        this.#paragraph();
        const cmd = joined(" ");
        this.#tag = cmd;
        this.#par = cmd.length + 1;
        return;
      }
      case "OP": {
        const a = args().map((x) => this.text(x));
        if (a.length) this.#add(`[${a.join(" ")}]`);
        return;
      }
      case "YS":
        this.flush();
        this.#par = 0;
        return;
      case "br":
      case "ce":
        this.flush();
        return;
      case "sp":
      case "Sp":
      case "bp":
        this.flush();
        this.#blank();
        return;
      case "nf":
      case "EX":
      case "Vb":
        this.flush();
        this.#fill = false;
        return;
      case "fi":
      case "EE":
      case "Ve":
        this.flush();
        this.#fill = true;
        return;
      case "ds":
      case "ds1":
      case "as": {
        const m = /^(\S+)[ \t]?(.*)$/.exec(rest);
        if (!m) return;
        const value = m[2]!.replace(/^"/, "");
        this.#strings.set(m[1]!, name === "as" ? (this.#strings.get(m[1]!) ?? "") + value : value);
        return;
      }
      case "nr": {
        const [reg, val] = args();
        if (!reg) return;
        // `+1` and `-1` change the register; a plain value sets it
        const v = this.#evaluate(val ?? "0");
        this.#registers.set(reg, /^[+-]/.test(val ?? "") ? (this.#registers.get(reg) ?? 0) + v : v);
        return;
      }
      case "rr":
      case "rm":
        this.#registers.delete(rest.trim());
        this.#strings.delete(rest.trim());
        this.#macros.delete(rest.trim());
        return;
      case "tr": {
        const chars = [...this.text(rest.split(/\s/)[0] ?? "")];
        for (let k = 0; k + 1 < chars.length; k += 2) this.#translate.set(chars[k]!, chars[k + 1]!);
        return;
      }
      case "so":
        this.#add(`See ${rest.trim()}.`);
        return;
      case "Nm":
      case "Nd":
      case "It":
      case "D1":
      case "Dl":
        if (this.#mdoc) return this.#mdocLine(name, rest);
        return;
      case "Bd":
        this.#paragraph();
        if (/-(literal|unfilled)/.test(rest)) this.#fill = false;
        return;
      case "Ed":
        this.flush();
        this.#fill = true;
        return;
      case "Bl":
      case "El":
        this.#paragraph();
        return;
    }
    if (this.#mdoc && MDOC_INLINE.has(name)) this.#mdocLine(name, rest);
    // everything else (.ft .ad .na .nh .hy .ne .in .ti .ta .PD .DT .IX .ll .ps ...) does not
    // change the text
  }

  // ---------------------------------------------------------------- mdoc

  /** An mdoc line: block macros and the inline macros called on it. */
  #mdocLine(name: string, rest: string): void {
    const a = splitArgs(rest);
    switch (name) {
      case "Nm":
        if (!this.#mdocName && a[0]) this.#mdocName = this.text(a[0]);
        break;
      case "Nd":
        this.#add("- " + this.#mdocInline(a));
        return;
      case "It":
        this.#paragraph();
        this.#par = INDENT;
        this.#tag = this.#mdocInline(a).trim();
        if (!this.#tag) this.#tag = undefined;
        return;
      case "D1":
      case "Dl":
        this.flush();
        this.#add(this.#mdocInline(a));
        this.flush();
        return;
    }
    this.#add(this.#mdocInline([name, ...a]));
  }

  /** Inline mdoc: macro names dropped or rendered (`Fl x` -> `-x`, `Xr ls 1` -> `ls(1)`). */
  #mdocInline(tokens: string[]): string {
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
          if (tokens[k + 1] === undefined || MDOC_INLINE.has(tokens[k + 1]!)) word = this.#mdocName;
          break;
        case "Op":
        case "Oo":
          out += space + "[";
          space = "";
          if (t === "Op") close.push("]");
          continue;
        case "Oc":
          out += "]";
          continue;
        case "Dq":
        case "Qq":
          out += space + "\u201c";
          space = "";
          close.push("\u201d");
          continue;
        case "Sq":
        case "Ql":
          out += space + "\u2018";
          space = "";
          close.push("\u2019");
          continue;
        case "Pq":
          out += space + "(";
          space = "";
          close.push(")");
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

  // ---------------------------------------------------------------- tbl

  /** A tbl table from `.TS` at `i` to `.TE`: rows of cells padded into columns. */
  #table(lines: string[], i: number): number {
    let j = i + 1;
    let tab = "\t";
    const opts = lines[j] ?? "";
    if (/;\s*$/.test(opts)) {
      const t = /tab\s*\((.)\)/.exec(opts);
      if (t) tab = t[1]!;
      j++;
    }
    const end = (l: string) => /^[.'][ \t]*TE\b/.test(l);
    const skipFormat = () => {
      while (j < lines.length && !end(lines[j]!) && !/\.\s*$/.test(stripComment(lines[j]!))) j++;
      if (j < lines.length && !end(lines[j]!)) j++;
    };
    skipFormat();
    const rows: string[][] = [];
    for (; j < lines.length; j++) {
      const l = lines[j]!;
      if (end(l)) break;
      if (/^[.'][ \t]*T&/.test(l)) {
        j++;
        skipFormat();
        j--;
        continue;
      }
      if (/^[.'][ \t]*\\"/.test(l) || /^[_=]$/.test(l.trim()) || /^[.']/.test(l)) continue;
      const cells: string[] = [];
      const parts = l.split(tab);
      for (let k = 0; k < parts.length; k++) {
        let cell = parts[k]!;
        if (cell.trim() === "T{") {
          const block: string[] = [];
          let rest = "";
          for (j++; j < lines.length; j++) {
            const b = lines[j]!;
            if (b.startsWith("T}")) {
              rest = b.slice(2);
              break;
            }
            if (!/^[.']/.test(b)) block.push(this.text(stripComment(b)));
          }
          cell = block.join(" ");
          cells.push(cell.replace(/\s+/g, " ").trim());
          if (rest) parts.push(...rest.split(tab).slice(1));
          continue;
        }
        cell = /^[_=]$/.test(cell.trim()) || cell.trim() === "\\^"
          ? ""
          : this.text(stripComment(cell));
        cells.push(cell.replaceAll(NBSP, " ").trim());
      }
      rows.push(cells);
    }
    const widths: number[] = [];
    for (const r of rows) {
      r.forEach((c, k) => (widths[k] = Math.max(widths[k] ?? 0, Math.min(c.length, 30))));
    }
    this.#blank();
    const pad = " ".repeat(this.#base + this.#par);
    for (const r of rows) {
      const line = r.map((c, k) => (k < r.length - 1 ? c.padEnd(widths[k]!) : c)).join("  ");
      this.#emit(pad + line);
    }
    this.#blank();
    return j;
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
 * const page = renderMan('.TH LS 1\n.SH NAME\nls \\- list directory contents\n');
 * page.title; // "ls(1) - list directory contents"
 * ```
 */
export function renderMan(source: string): ManPage {
  const r = new Renderer(joinContinuations(source.replace(/\r\n?/g, "\n")));
  r.render();
  let title: string | undefined;
  if (r.title?.name) {
    const desc = r.nameLine.replaceAll(NBSP, " ").replace(/\s+/g, " ").trim();
    const m = /^(.*?)\s+[-\u2013\u2014]+\s+(.*)$/.exec(desc);
    const names = (m?.[1] ?? "").split(/,\s*/).filter((n) => n);
    const name = names.find((n) => n.toLowerCase() === r.title!.name.toLowerCase()) ?? names[0] ??
      r.title.name.toLowerCase();
    const section = r.title.section ? `(${r.title.section})` : "";
    title = `${name}${section}${m ? ` - ${m[2]}` : ""}`;
    if (title.length > 160) title = title.slice(0, 159) + "\u2026";
  }
  return { lines: r.lines, headings: r.headings, title };
}
