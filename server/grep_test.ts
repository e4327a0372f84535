/**
 * The grep runner: a runaway pattern is stopped with PATTERN_TIMEOUT and the next job
 * runs; a worker that fails to load, or never starts, fails the job instead of blocking
 * every later grep.
 */
import { join } from "node:path";
import { pathToFileURL as toFileUrl } from "node:url";
import { assert, assertEquals } from "../tests/assert.ts";
import { ToolError } from "../core/types.ts";
import fc from "fast-check";
import { GrepRunner, patternLiterals } from "./grep.ts";

const job = (source: string, text: string) => ({
  source,
  flags: "u",
  texts: [text],
  before: 0,
  after: 0,
  offset: 0,
  limit: 10,
  countOnly: false,
});

async function code(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return "ok";
  } catch (e) {
    assert(e instanceof ToolError, `not a ToolError: ${e}`);
    return e.code;
  }
}

Deno.test("grep runner: a runaway pattern times out, the next job still runs", async () => {
  const g = new GrepRunner(300);
  try {
    const evil = g.run(job("(a+)+$", `${"a".repeat(40)}!`));
    const next = g.run(job("b", "a\nb\nc"));
    assertEquals(await code(evil), "PATTERN_TIMEOUT");
    assertEquals((await next)[0]!.matches.map((m) => m.line), [2]);
  } finally {
    g.close();
  }
});

Deno.test("grep runner: a job over many texts answers per text; a literal skips texts without it", async () => {
  const g = new GrepRunner(300);
  try {
    const r = await g.run({ ...job("b+c", ""), texts: ["abc\nx", "", "bbc\nbc"], literal: "c" });
    assertEquals(r.map((x) => x.total), [1, 0, 2]);
    assertEquals(r[2]!.matches.map((m) => m.line), [1, 2]);
  } finally {
    g.close();
  }
});

Deno.test("grep runner: a worker that fails to load or never starts fails the job, no hang", async () => {
  const dir = await Deno.makeTempDir({ prefix: "shelfmark-grep-" });
  const broken = join(dir, "broken.ts");
  const silent = join(dir, "silent.ts");
  await Deno.writeTextFile(broken, 'throw new Error("cannot load");\n');
  await Deno.writeTextFile(silent, "// never says it is ready\n");
  try {
    for (const file of [broken, silent]) {
      const g = new GrepRunner(300, 500, toFileUrl(file).href);
      try {
        assertEquals(await code(g.run(job("a", "a"))), "INTERNAL");
        assertEquals(await code(g.run(job("a", "a"))), "INTERNAL");
      } finally {
        g.close();
      }
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

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
