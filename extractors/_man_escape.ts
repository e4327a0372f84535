/**
 * Escapes of the man(7) renderer (`_man_render.ts`): a page's definitions (strings, number
 * registers, macros, `.tr` translations) and text with its escapes resolved as a terminal
 * shows it (fonts dropped, glyphs, strings and registers interpolated, motions dropped).
 *
 * @module
 */
import { glyph, JOIN, MAX_DEPTH, NBSP, PREDEFINED_STRINGS } from "./_man_lex.ts";

/** What a page defines as it goes: strings, number registers, macros and translations. */
export class Definitions {
  /** `.ds` strings, read by `\*`. */
  readonly strings: Map<string, string> = new Map(PREDEFINED_STRINGS);
  /** `.nr` number registers, read by `\n`. */
  readonly registers: Map<string, number> = new Map([[".g", 1], [".x", 1], [".y", 23], ["HY", 0]]);
  /** `.de` macros: their body lines. */
  readonly macros: Map<string, string[]> = new Map();
  /** `.tr` character translations. */
  readonly translate: Map<string, string> = new Map();
}

/** Text with its escapes resolved (fonts dropped, glyphs, strings, registers). */
export function resolve(defs: Definitions, s: string, depth = 0): string {
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
        i = escapeName(s, i + 1).end;
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
        const d = delimited(s, i + 1);
        out += glyph(d.body);
        i = d.end;
        break;
      }
      case "N": {
        const d = delimited(s, i + 1);
        const code = Number(d.body);
        if (Number.isInteger(code) && code > 0 && code < 0x110000) {
          out += String.fromCodePoint(code);
        }
        i = d.end;
        break;
      }
      case "*": {
        const { name, end } = escapeName(s, i + 1);
        i = end;
        if (depth < MAX_DEPTH) out += resolve(defs, defs.strings.get(name) ?? "", depth + 1);
        break;
      }
      case "n": {
        let j = i + 1;
        if (s[j] === "+" || s[j] === "-") j++;
        const { name, end } = escapeName(s, j);
        i = end;
        out += String(defs.registers.get(name) ?? 0);
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
        const d = delimited(s, i + 1);
        const inner = resolve(defs, d.body, depth + 1);
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
        i = delimited(s, i + 1).end;
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
        return translated(defs, out);
      default:
        out += n;
    }
  }
  return translated(defs, out);
}

function translated(defs: Definitions, s: string): string {
  if (!defs.translate.size) return s;
  let out = "";
  for (const ch of s) out += defs.translate.get(ch) ?? ch;
  return out;
}

/** An escape's name at `at`: `(xx`, `[name]` or one character. */
export function escapeName(s: string, at: number): { name: string; end: number } {
  if (s[at] === "(") return { name: s.slice(at + 1, at + 3), end: at + 2 };
  if (s[at] === "[") {
    const close = s.indexOf("]", at + 1);
    if (close < 0) return { name: s.slice(at + 1), end: s.length };
    return { name: s.slice(at + 1, close), end: close };
  }
  return { name: s[at] ?? "", end: at };
}

/** A delimited escape argument at `at` (`'...'`, or any delimiter). */
export function delimited(s: string, at: number): { body: string; end: number } {
  const d = s[at];
  if (d === undefined) return { body: "", end: s.length };
  let j = at + 1;
  for (; j < s.length && s[j] !== d; j++) if (s[j] === "\\") j++;
  return { body: s.slice(at + 1, j), end: Math.min(j, s.length) };
}
