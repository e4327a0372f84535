/**
 * Giving memory back when idle: the timer's rules (once per idle period, never during
 * work or beside an index run, never keeping a process alive) and a shelf that answers the
 * same after its caches and workers are gone, through the code path the timer runs.
 */
import { join } from "node:path";
import { assert, assertEquals } from "../tests/assert.ts";
import { openTestShelf } from "../tests/shelf_helper.ts";
import { partsOf } from "./_parts.ts";
import { IdleRelease, idleReleaseMs } from "./idle.ts";
import { CatalogCache } from "../core/catalog.ts";
import { callTool } from "../server/dispatch.ts";

/** A cache to see when a shelf's catalog caches are dropped. */
const PROBE = new CatalogCache("probe", () => ({}));

/**
 * Wait until `cond` holds. The release timer is unref'd (it keeps no process alive, and so
 * no test either): this loop's own timers keep the test running meanwhile.
 */
async function until(cond: () => boolean): Promise<void> {
  while (!cond()) await new Promise((r) => setTimeout(r, 2));
}

Deno.test("IdleRelease releases once after work, and not again until more work", async () => {
  let calls = 0;
  const idle = new IdleRelease(1, () => {
    calls++;
  });
  assert(!idle.armed, "nothing to release before any work");
  let armedDuring = true;
  await idle.during(() => {
    armedDuring = idle.armed;
    return Promise.resolve();
  });
  assert(!armedDuring, "no release is waiting while work runs");
  assert(idle.armed, "the idle period starts when the work ends");
  await until(() => calls > 0);
  assertEquals([calls, idle.releases, idle.armed], [1, 1, false]);
  idle.touch();
  assert(idle.armed);
  idle.stop();
  assert(!idle.armed, "stop clears the timer");
  idle.touch();
  assert(!idle.armed, "a stopped release never arms again");
});

Deno.test("IdleRelease waits while other work goes on, then releases", async () => {
  let checks = 0;
  const idle = new IdleRelease(1, () => {}, () => ++checks < 3);
  idle.touch();
  await until(() => idle.releases > 0);
  assertEquals([checks, idle.releases], [3, 1]);
  idle.stop();
});

Deno.test("IdleRelease with an idle time of 0 never arms", () => {
  const idle = new IdleRelease(0, () => {
    throw new Error("never");
  });
  idle.touch();
  assert(!idle.armed);
});

Deno.test("idleReleaseMs() reads SHELFMARK_IDLE_S and refuses a bad value", () => {
  assertEquals(idleReleaseMs("90"), 90_000);
  let err: unknown;
  try {
    idleReleaseMs("-1");
  } catch (e) {
    err = e;
  }
  assert(err instanceof Error && err.message.includes('"-1"'), `${err}`);
});

Deno.test({
  name: "shelf.releaseMemory drops caches and stops workers; the next calls answer the same",
  async fn() {
    const base = await Deno.makeTempDir({ prefix: "shelfmark-idle-" });
    const notes = join(base, "Notes");
    await Deno.mkdir(notes);
    const body = Array.from({ length: 40 }, (_, i) => `Line ${i} about lighthouse keepers.`);
    await Deno.writeTextFile(join(notes, "a.md"), `# Lighthouses\n\n${body.join("\n")}\n`);
    await Deno.writeTextFile(join(notes, "b.md"), "# Gardens\n\n[a](a.md) and roses\n");
    // one search worker: the release stops it and the next search starts another
    await using t = await openTestShelf({ base, folders: [notes], searchWorkers: 1 });
    await t.shelf.index();
    const { catalog } = partsOf(t.shelf);
    const id = catalog.idByPath("Notes/a.md")!;
    const ask = async () => ({
      search: (await t.shelf.search({ query: "lighthouse keepers", limit: 5 })).hits
        .map((h) => [h.doc_id, h.score]),
      read: (await t.shelf.readLines(id, { offset: 3, limit: 5 })).lines,
      grep: (await t.shelf.grep(id, { pattern: "Line 3\\d" })).total_matches,
      named:
        (await t.shelf.findDocuments({ query: "gardens", fuzzy: true, doc_types: [], limit: 5 }))
          .matches.map((m) => m.entry.path),
      links: await t.shelf.documentLinks(catalog.idByPath("Notes/b.md")!, {
        direction: "both",
        offset: 0,
        limit: 10,
      }),
    });
    const before = await ask();
    assertEquals(before.grep, 10);
    assert(before.search.length > 0, "the question has an answer to compare");
    assertEquals(before.named, ["Notes/b.md"]);
    const probe = catalog.cache(PROBE);
    const pool = partsOf(t.shelf).searchPool!;
    assertEquals(pool.workers, 1);
    t.shelf.releaseMemory();
    assert(catalog.cache(PROBE) !== probe, "the catalog's caches were dropped");
    assertEquals(pool.workers, 0, "the idle search worker stopped");
    assertEquals(await ask(), before);
    // twice in a row (nothing left to drop) and after more calls
    t.shelf.releaseMemory();
    t.shelf.releaseMemory();
    assertEquals(await ask(), before);
  },
});

Deno.test({
  name: "a tool call arms the shelf's idle release, which drops its caches once idle",
  async fn() {
    const base = await Deno.makeTempDir({ prefix: "shelfmark-idle-" });
    await Deno.writeTextFile(join(base, "a.md"), "# A\n\nText.\n");
    await using t = await openTestShelf({ base, folders: [base], idleReleaseMs: 1 });
    await t.shelf.index();
    const { catalog } = partsOf(t.shelf);
    const r = await callTool(t.shelf, "search", { query: "text", output_format: "json" });
    assertEquals((r.json.results as unknown[]).length, 1);
    const probe = catalog.cache(PROBE);
    await until(() => catalog.cache(PROBE) !== probe);
  },
});
