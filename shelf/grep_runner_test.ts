/**
 * The grep runner: a runaway pattern is stopped with PATTERN_TIMEOUT and the next job
 * runs; a worker that fails to load, or never starts, fails the job instead of blocking
 * every later grep.
 */
import { join } from "node:path";
import { pathToFileURL as toFileUrl } from "node:url";
import { assert, assertEquals } from "../tests/assert.ts";
import { ToolError } from "../core/types.ts";
import { GrepRunner } from "./grep_runner.ts";
import { BEST_LINE, MAX_LINE, runGrep } from "./grep_worker.ts";

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

Deno.test("grep worker: a long line is cut around its match, not at its end", () => {
  const line = `${"lorem ipsum ".repeat(30)}the needle is here ${"dolor sit ".repeat(200)}`;
  const [r] = runGrep(job("needle", line));
  const text = r!.matches[0]!.text;
  assert(text.length <= MAX_LINE + 2, `${text.length} characters`);
  assert(text.startsWith("…") && text.endsWith("…"), text);
  const at = text.indexOf("needle");
  assert(at > 0 && at < MAX_LINE / 2, `the match at ${at}`);
  // A best line (lists) is shorter, and cut around the match too.
  const [b] = runGrep({ ...job("needle", line), best: true });
  assert(b!.matches[0]!.text.includes("needle") && b!.matches[0]!.text.length <= BEST_LINE + 2);
});
