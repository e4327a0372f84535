/**
 * The memory goal of indexing (`limits.index_memory_mb`, `--memory`) reaches admission: a
 * low goal makes files take turns, a high one lets them run at once, and every file is
 * indexed either way. Real extraction processes (Linux, where the tree's memory is read).
 */
import { join } from "node:path";
import { assert, assertEquals } from "../tests/assert.ts";
import { openTestShelf } from "../tests/shelf_helper.ts";
import { callTool } from "../server/dispatch.ts";
import { MIN_INDEX_MEMORY_MB } from "../core/config.ts";
import type { Shelf } from "./shelf.ts";

const FILES = 10;

/**
 * A library of `.turn` files and a plugin that reads each in 600 ms (sleeping: the
 * extraction processes may not write, so each file's text is its start and end time).
 */
async function library(base: string): Promise<{ lib: string; plugin: string }> {
  const lib = join(base, "Turns");
  await Deno.mkdir(lib);
  for (let i = 0; i < FILES; i++) await Deno.writeTextFile(join(lib, `f${i}.turn`), `${i}`);
  const plugin = join(base, "turns.ts");
  await Deno.writeTextFile(
    plugin,
    `export default { name: "turns", extensions: [".turn"], async extract() {
      const start = Date.now();
      await new Promise((r) => setTimeout(r, 600));
      return { lines: ["ran " + start + " " + Date.now()] };
    } };`,
  );
  return { lib, plugin };
}

/** The most files whose extractions overlapped in time, from their texts. */
async function mostAtOnce(shelf: Shelf): Promise<number> {
  const spans: [number, number][] = [];
  for (let i = 0; i < FILES; i++) {
    const id = shelf.findDocument(`Turns/f${i}.turn`);
    assert(id, `f${i}.turn is indexed`);
    const text = (await callTool(shelf, "read", { doc_id: id })).text;
    const m = /ran (\d+) (\d+)/.exec(text);
    assert(m, text);
    spans.push([Number(m[1]), Number(m[2])]);
  }
  return Math.max(...spans.map(([s]) => spans.filter(([a, b]) => a <= s && s < b).length));
}

Deno.test({
  name: "a low indexing memory goal makes files take turns, a high one runs them at once",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    // The test process holds 300 MiB, so the tree is over the lowest goal's admission line
    // (260 MiB) from the start, and far under a goal of 100 GiB.
    const ballast = new Uint8Array(300 * 2 ** 20).fill(1);
    for (const [goal, fromConfig] of [[MIN_INDEX_MEMORY_MB, true], [100_000, false]] as const) {
      const base = await Deno.makeTempDir({ prefix: "shelfmark-memory-" });
      const { lib, plugin } = await library(base);
      const data = join(base, "data");
      await Deno.mkdir(data);
      if (fromConfig) {
        await Deno.writeTextFile(
          join(data, "shelfmark.json"),
          JSON.stringify({ libraries: [], limits: { index_memory_mb: goal } }),
        );
      }
      await using t = await openTestShelf({
        base,
        data,
        folders: [lib],
        extractors: [plugin],
        workers: 2,
        indexMemoryMb: fromConfig ? undefined : goal,
      });
      const run = await t.shelf.index();
      assertEquals([run.indexed, run.skipped], [FILES, 0], `goal ${goal}: every file indexed`);
      const most = await mostAtOnce(t.shelf);
      if (goal === MIN_INDEX_MEMORY_MB) assertEquals(most, 1, "over the line: one at a time");
      else assert(most >= 2, `under the line, files ran beside each other (at most ${most})`);
    }
    assert(ballast[ballast.length - 1] === 1);
  },
});
