import { join } from "node:path";
import { assertEquals } from "../tests/assert.ts";
import { openTestShelf } from "../tests/shelf_helper.ts";
import { callTool } from "../server/dispatch.ts";

Deno.test("first calls wait for the first index of a library instead of answering from an empty catalog", async () => {
  const base = await Deno.makeTempDir({ prefix: "shelfmark-first-" });
  const lib = join(base, "Notes");
  await Deno.mkdir(lib);
  for (let i = 0; i < 40; i++) {
    await Deno.writeTextFile(join(lib, `note-${i}.md`), `# Note ${i}\n\nThe quokka number ${i}.\n`);
  }
  await using t = await openTestShelf({ base, folders: [lib], firstIndexWaitMs: 60_000 });
  const run = t.shelf.index();
  // Called while the first run is building: the answer waits for it and sees every note.
  const r = await callTool(t.shelf, "search", {
    query: "quokka",
    limit: 50,
    output_format: "json",
  });
  assertEquals((r.json.results as unknown[]).length, 40);
  assertEquals((r.json._meta as { index: { state: string } }).index.state, "ready");
  await run;
});
