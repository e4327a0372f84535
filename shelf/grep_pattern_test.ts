/** Pattern literals: what every match of a grep pattern holds. */
import { assert, assertEquals } from "../tests/assert.ts";
import fc from "fast-check";
import { patternLiterals } from "./grep_pattern.ts";

Deno.test("pattern literals: every line a pattern matches holds its literal", () => {
  const pattern = fc.array(
    fc.constantFrom(
      "a",
      "b",
      "c",
      " ",
      "-",
      ".",
      "*",
      "+",
      "?",
      "|",
      "(",
      ")",
      "[",
      "]",
      "^",
      "$",
      "\\",
      "{",
      "}",
      "0",
      "1",
      ",",
      "\\b",
      "\\d",
      "\\.",
      "(?:",
      "(?=",
      "[^",
    ),
    { maxLength: 12 },
  ).map((xs) => xs.join(""));
  const line = fc.array(fc.constantFrom("a", "b", "c", " ", "-", ".", "1", "A", "B"), {
    maxLength: 16,
  }).map((xs) => xs.join(""));
  fc.assert(
    fc.property(
      pattern,
      fc.array(line, { minLength: 1, maxLength: 8 }),
      fc.boolean(),
      (p, lines, i) => {
        let re: RegExp;
        try {
          re = new RegExp(p, i ? "i" : "");
        } catch {
          return;
        }
        const { literal } = patternLiterals(p);
        if (!literal) return;
        const has = new RegExp(literal.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&"), i ? "i" : "");
        for (const l of lines) {
          if (re.test(l)) {
            assert(has.test(l), `${p} matched ${l} without ${literal}`);
          }
        }
      },
    ),
    { numRuns: 3000 },
  );
});

Deno.test("pattern literals: sure words only where the pattern separates them", () => {
  const cases: [string, string | undefined, string[]][] = [
    ["shared_buffers", "shared_buffers", []],
    ["shared_buffers = \\d+", "shared_buffers = ", ["buffers"]],
    ["compress(ion)?", "compress", []],
    ["^Chapter 2: R", "Chapter 2: R", ["Chapter", "2"]],
    ["wal level$", "wal level", ["level"]],
    ["the quick brown fox", "the quick brown fox", ["quick", "brown"]],
    ["ab*cd", "cd", []],
    ["ab+cd", "ab", []],
    ["x{0,2}yz", "yz", []],
    ["foo|bar", undefined, []],
    ["(a+)+$", undefined, []],
    ["\\x41bc", "bc", []],
    ["\\.conf files", ".conf files", ["conf"]],
    ["全文 検索 engine", "全文 検索 engine", []],
  ];
  for (const [p, literal, words] of cases) {
    const r = patternLiterals(p);
    assertEquals(r.literal, literal, p);
    assertEquals(r.words.sort(), words.sort(), p);
  }
});
