/**
 * Heavy tool calls run a few at a time: with every slot of `Shelf.heavyCalls` taken, a
 * search waits in the queue and answers once a slot frees; a light call does not wait.
 */
import { join } from "node:path";
import { assertEquals } from "../assert.ts";
import { openTestShelf } from "../shelf_helper.ts";
import { callTool } from "../../server/dispatch.ts";

Deno.test("callTool() queues heavy calls behind Shelf.heavyCalls, not light ones", async () => {
  const base = await Deno.makeTempDir({ prefix: "shelfmark-heavy-" });
  const lib = join(base, "lib");
  await Deno.mkdir(lib);
  await Deno.writeTextFile(join(lib, "a.md"), "# A\n\nThe quarry holds granite.\n");
  await using t = await openTestShelf({ base, folders: [lib] });
  await t.shelf.index();
  const limit = t.shelf.heavyCalls;
  const block = Promise.withResolvers<void>();
  const held = Array.from({ length: limit.concurrency }, () => limit(() => block.promise));
  let answered = false;
  const search = callTool(t.shelf, "search", { query: "granite", output_format: "json" })
    .then((r) => {
      answered = true;
      return r;
    });
  // A light call answers while every heavy slot is taken.
  const libs = await callTool(t.shelf, "list_libraries", { output_format: "json" });
  assertEquals(JSON.stringify(libs.json).includes('"lib"'), true);
  for (let i = 0; i < 1000 && limit.pendingCount === 0; i++) {
    await new Promise((r) => setTimeout(r, 0));
  }
  assertEquals([limit.pendingCount, answered], [1, false]);
  block.resolve();
  await Promise.all(held);
  const r = await search;
  assertEquals(JSON.stringify(r.json).includes("a.md"), true);
});
