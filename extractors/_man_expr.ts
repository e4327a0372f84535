/**
 * Conditions and numeric expressions of the man(7) renderer (`_man_render.ts`): what `.if`,
 * `.ie` and `.nr` read (`n`, `t`, `d name`, `r reg`, `'a'b'`, groff arithmetic with units).
 *
 * @module
 */
import { type Definitions, delimited, escapeName, resolve } from "./_man_escape.ts";
import { BUILTIN } from "./_man_lex.ts";

/** Evaluate a condition at the start of `s`; returns its value and the rest of the line. */
export function condition(defs: Definitions, s: string): { value: boolean; rest: string } {
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
      ? defs.strings.has(name!) || defs.macros.has(name!) || BUILTIN.has(name!)
      : kind === "r"
      ? defs.registers.has(name!)
      : kind === "c";
    rest = s.slice(named[0].length);
  } else if (/^[^\w\s\\(+\-.]/.test(s)) {
    // 'a'b': string comparison, with any delimiter that cannot start a number
    const a = delimited(s, 0);
    const b = delimited(s, a.end);
    value = resolve(defs, a.body) === resolve(defs, b.body);
    rest = s.slice(b.end + 1);
  } else {
    const { expr, end } = exprToken(s);
    value = evaluate(defs, expr) > 0;
    rest = s.slice(end);
  }
  return { value: neg ? !value : value, rest: rest.replace(/^[ \t]+/, "") };
}

/** A numeric expression at the start of `s` (up to a space outside parentheses). */
function exprToken(s: string): { expr: string; end: number } {
  let depth = 0;
  let i = 0;
  for (; i < s.length; i++) {
    const c = s[i]!;
    if (c === "\\") {
      const n = s[i + 1];
      if (n === "{" && depth === 0) break;
      if (n === "w" || n === "h" || n === "v") i = delimited(s, i + 2).end;
      else if (n === "n" || n === "*") {
        let j = i + 2;
        if (s[j] === "+" || s[j] === "-") j++;
        i = escapeName(s, j).end;
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
export function evaluate(defs: Definitions, expr: string): number {
  // \w'...' is the width of its text, in basic units (24 per character on a terminal)
  let e = expr.replace(/\\w(.)(.*?)\1/g, (_m, _d, body) => String(resolve(defs, body).length * 24));
  e = e.replace(/\\n[+-]?(\([^\s]{2}|\[[^\]]*\]|.)/g, (_m, name: string) => {
    const n = name.startsWith("(")
      ? name.slice(1)
      : name.startsWith("[")
      ? name.slice(1, -1)
      : name;
    return String(defs.registers.get(n) ?? 0);
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
