/**
 * What a grep pattern says before it runs: its flags (with `u` when valid that way), and
 * the literal text and whole words every match holds, for choosing documents to grep.
 *
 * @module
 */
import { CJK_UNSPACED_CHARS, HANGUL } from "../core/tokenize.ts";
import { ToolError } from "../core/types.ts";

/**
 * The flags of a pattern: with `u` when the pattern is valid that way, else without.
 *
 * @param pattern a JavaScript regular expression
 * @param caseInsensitive whether case is ignored (`i`)
 * @returns the flags to compile it with
 * @throws {ToolError} `INVALID_PATTERN` when it is not a valid regular expression
 * @example
 * ```ts
 * import { regexFlags } from "./grep_pattern.ts";
 * regexFlags("a+b", true); // "iu"
 * regexFlags("\\-", false); // "" (an identity escape is invalid with `u`)
 * ```
 */
export function regexFlags(pattern: string, caseInsensitive: boolean): string {
  const flags = caseInsensitive ? "i" : "";
  try {
    new RegExp(pattern, flags + "u");
    return flags + "u";
  } catch {
    try {
      new RegExp(pattern, flags);
      return flags;
    } catch (e) {
      throw new ToolError(
        "INVALID_PATTERN",
        `Invalid regular expression ${JSON.stringify(pattern)}: ${(e as Error).message}`,
        "Patterns are JavaScript regular expressions; escape special characters with \\.",
      );
    }
  }
}

/** What a pattern says about the text it can match, for choosing documents before grepping. */
export interface PatternLiterals {
  /** The longest text every matching line contains, if any. */
  literal?: string;
  /**
   * Words every matching line holds as whole words (separated from their neighbours by
   * punctuation or space within the pattern, or by `^`/`$`), for a full-text index: a
   * document without one of them cannot match. Words the pattern may match inside longer
   * words (`compress` in `decompress`) are left out, since a word index would miss those.
   */
  words: string[];
}

/** Characters the keyword index keeps in words; any other separates words. */
const WORD_CHAR = /[\p{L}\p{N}\p{M}\p{Co}]/u;
/** Characters the keyword index segments (CJK): a word holding one is not a sure word. */
const SEGMENTED = new RegExp(`[${CJK_UNSPACED_CHARS}${HANGUL}]`);

/** A run of literal characters at the top level of a pattern. */
interface Run {
  text: string;
  /** Preceded by `^` (the line's start). */
  left: boolean;
  /** Followed by `$` (the line's end). */
  right: boolean;
}

/** Index past the group or class opening at `i` (`(` or `[`), or -1 when it never closes. */
function skipBracket(cs: string[], i: number): number {
  let depth = 0;
  let inClass = false;
  for (let j = i; j < cs.length; j++) {
    const c = cs[j];
    if (c === "\\") j++;
    else if (inClass) inClass = c !== "]";
    else if (c === "[") inClass = true;
    else if (c === "(") depth++;
    else if (c === ")" && --depth === 0) return j + 1;
    if (cs[i] === "[" && !inClass) return j + 1;
  }
  return -1;
}

/** Index past an escape starting at `i` (the backslash), and the literal it stands for. */
function readEscape(cs: string[], i: number): [number, string | undefined] {
  const d = cs[i + 1];
  if (d === undefined) return [i + 1, undefined];
  if (!/[A-Za-z0-9]/.test(d)) return [i + 2, d];
  let j = i + 2;
  const rest = cs.slice(j, j + 12).join("");
  const skip = d === "x"
    ? /^[0-9a-fA-F]{2}/.exec(rest)
    : d === "u"
    ? /^(?:[0-9a-fA-F]{4}|\{[0-9a-fA-F]+\})/.exec(rest)
    : d === "c"
    ? /^[A-Za-z]/.exec(rest)
    : d === "p" || d === "P"
    ? /^\{[^}]*\}/.exec(rest)
    : d === "k"
    ? /^<[^>]*>/.exec(rest)
    : /[0-9]/.test(d)
    ? /^[0-9]*/.exec(rest)
    : null;
  if (skip) j += [...skip[0]].length;
  return [j, undefined];
}

/** The runs of literal characters every match of a pattern contains (none with a top-level `|`). */
function literalRuns(source: string): Run[] {
  const cs = [...source];
  const runs: Run[] = [];
  let cur: string[] = [];
  let left = false;
  const end = (right = false) => {
    if (cur.length) runs.push({ text: cur.join(""), left, right });
    cur = [];
    left = false;
  };
  for (let i = 0; i < cs.length;) {
    const c = cs[i]!;
    if (c === "|") return [];
    if (c === "(" || c === "[") {
      end();
      i = skipBracket(cs, i);
      if (i < 0) return [];
    } else if (c === "\\") {
      const [j, lit] = readEscape(cs, i);
      if (lit === undefined) end();
      else cur.push(lit);
      i = j;
    } else if (c === "*" || c === "?") {
      // The atom before may be absent.
      cur.pop();
      end();
      i++;
    } else if (c === "{") {
      const q = /^\{(\d+)(?:,\d*)?\}/.exec(cs.slice(i, i + 24).join(""));
      if (q && Number(q[1]) === 0) cur.pop();
      end();
      i += q ? q[0].length : 1;
    } else if (c === "^") {
      end();
      left = true;
      i++;
    } else if (c === "$") {
      end(true);
      i++;
    } else if (".+)]}".includes(c)) {
      end();
      i++;
    } else {
      cur.push(c);
      i++;
    }
  }
  end();
  return runs;
}

/** The whole words of a run: those with a separator (or `^`/`$`) on both sides. */
function runWords(run: Run): string[] {
  const cs = [...run.text];
  const out: string[] = [];
  let start = 0;
  for (let i = 0; i <= cs.length; i++) {
    if (i < cs.length && WORD_CHAR.test(cs[i]!)) continue;
    if (i > start && (start > 0 || run.left) && (i < cs.length || run.right)) {
      const w = cs.slice(start, i).join("");
      if (!SEGMENTED.test(w)) out.push(w);
    }
    start = i + 1;
  }
  return out;
}

/**
 * The literal text and whole words that every match of a pattern holds.
 *
 * @param source a JavaScript regular expression (valid)
 * @returns its longest required literal and its sure words (longest first, at most 8)
 * @example
 * ```ts
 * import { patternLiterals } from "./grep_pattern.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(patternLiterals("shared_buffers = \\d+"), { literal: "shared_buffers = ", words: ["buffers"] });
 * assert.deepEqual(patternLiterals("compress(ion)?"), { literal: "compress", words: [] });
 * ```
 */
export function patternLiterals(source: string): PatternLiterals {
  const runs = literalRuns(source);
  const literal = runs.map((r) => r.text).sort((a, b) => b.length - a.length)[0];
  const words = [...new Set(runs.flatMap(runWords))].sort((a, b) => b.length - a.length);
  return { literal, words: words.slice(0, 8) };
}

/**
 * Which line breaks a pattern may match across: with white space in it (a space or `\s`),
 * a break between two lines of a paragraph is a space (`Advertising` / `expenses were`);
 * always, a hyphenated line end (`manu-` / `als`) is the whole word (`manuals`).
 *
 * @param source the pattern
 * @returns the `wrap` of its job
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { wrapOf } from "./grep_pattern.ts";
 *
 * assert.equal(wrapOf("Advertising expenses"), "spaces");
 * assert.equal(wrapOf("manuals"), "hyphens");
 * ```
 */
export function wrapOf(source: string): "spaces" | "hyphens" {
  return /\\s| /.test(source) ? "spaces" : "hyphens";
}
