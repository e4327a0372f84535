/** Watching a real folder: a new, a changed and a deleted file reach search (polled until they do). */
import { join } from "node:path";
import { watchLibraries } from "../shelf/watch.ts";
import { callTool } from "../server/dispatch.ts";
import { assert } from "./assert.ts";
import { openTestShelf } from "./shelf_helper.ts";

/**
 * Poll `fn` until it holds. No deadline: a loaded machine is slower, and tests carry no
 * wall-clock limits (a change that is never indexed hangs the test, named by `what`).
 */
async function until(what: string, fn: () => Promise<boolean>): Promise<void> {
  let polls = 0;
  while (!(await fn())) {
    if (++polls % 600 === 0) console.error(`still waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

Deno.test("watchLibraries() indexes created, changed and deleted files", async () => {
  const base = await Deno.makeTempDir({ prefix: "shelfmark-watch-" });
  const lib = join(base, "Notes");
  await Deno.mkdir(lib);
  await Deno.writeTextFile(join(lib, "a.md"), "# A\n\nFirst note.\n");
  const t = await openTestShelf({ base, folders: [lib] });
  const shelf = t.shelf;
  await shelf.index();
  const stop = new AbortController();
  const watching = watchLibraries(shelf, { debounceMs: 200, signal: stop.signal });
  const found = async (q: string) => {
    const r = await callTool(shelf, "search", { query: q, mode: "keyword", output_format: "json" });
    return (r.json.results as { path: string }[]).map((h) => h.path);
  };
  try {
    await Deno.writeTextFile(join(lib, "b.md"), "# B\n\nPangolin scales.\n");
    await until("the new file", async () => (await found("pangolin")).includes("Notes/b.md"));
    await Deno.writeTextFile(join(lib, "b.md"), "# B\n\nOkapi stripes.\n");
    await until("the change", async () => (await found("okapi")).includes("Notes/b.md"));
    assert(!(await found("pangolin")).includes("Notes/b.md"));
    await Deno.rename(join(lib, "b.md"), join(lib, "c.md"));
    await until("the rename", async () => (await found("okapi")).includes("Notes/c.md"));
    await Deno.remove(join(lib, "c.md"));
    await until("the deletion", async () => (await found("okapi")).length === 0);
  } finally {
    stop.abort();
    await watching;
    await t.close();
  }
});

Deno.test("watchLibraries() indexes a file that keeps changing (runs at most maxWaitMs after the first change)", async () => {
  const base = await Deno.makeTempDir({ prefix: "shelfmark-watch-" });
  const lib = join(base, "Logs");
  await Deno.mkdir(lib);
  const log = join(lib, "app.log.txt");
  await Deno.writeTextFile(log, "Log\n\nstarted\n");
  const t = await openTestShelf({ base, folders: [lib] });
  const shelf = t.shelf;
  await shelf.index();
  const stop = new AbortController();
  const watching = watchLibraries(shelf, {
    debounceMs: 1000,
    maxWaitMs: 1500,
    signal: stop.signal,
  });
  // Append every 200 ms: a debounce alone would never fire.
  let writing = true;
  const writer = (async () => {
    for (let i = 0; writing; i++) {
      await Deno.writeTextFile(log, `line ${i} wombat\n`, { append: true });
      await new Promise((r) => setTimeout(r, 200));
    }
  })();
  try {
    await until("a run while the file keeps changing", async () => {
      const r = await callTool(shelf, "search", {
        query: "wombat",
        mode: "keyword",
        output_format: "json",
      });
      return (r.json.results as unknown[]).length > 0;
    });
  } finally {
    writing = false;
    await writer;
    stop.abort();
    await watching;
    await t.close();
  }
});
