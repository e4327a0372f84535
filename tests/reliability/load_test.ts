/**
 * Load, reduced for CI: 8 HTTP clients against `serve --http` on loopback while files of
 * the library change and it re-indexes: zero failed requests, zero wrong answers (every
 * read returns exactly the lines it claims, grep matches are real lines, outline ranges lie
 * inside the document). The load lasts until it has made enough requests and changes and
 * an index run has finished during it, however long that takes on a busy machine: counts,
 * not time, end it.
 */
import { join } from "node:path";
import { smallCorpus } from "../corpus.ts";
import { assert, assertEquals } from "../assert.ts";
import { copyLibraries } from "./_helpers.ts";
import { loadRun } from "./load.ts";

Deno.test({
  name: "load: 8 clients over HTTP during changes and index runs: no failures, no wrong answers",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const work = await Deno.makeTempDir({ prefix: "shelfmark-load-" });
    try {
      const lib = join(work, "lib");
      await Deno.mkdir(lib);
      await copyLibraries(await smallCorpus(), ["markdown", "text"], lib);
      await Deno.writeTextFile(
        join(lib, "top.md"),
        "# Top\n\nA file at the top, touched during the load.\n",
      );
      const r = await loadRun({
        lib,
        data: join(work, "data"),
        clients: 8,
        seconds: 0,
        atLeast: { requests: 51, changes: 4, reindexes: 1 },
      });
      assertEquals(r.problems, []);
      assertEquals(r.failed, 0);
      assertEquals(r.wrong, 0);
      assert(r.requests > 50, `only ${r.requests} requests`);
      assert(r.changes > 3, "files did not change during the load");
      assert(r.reindexes > 0, "no index run finished during the load");
      for (const t of ["search", "outline", "read", "grep"]) {
        assert((r.byTool[t] ?? 0) > 0, `no ${t}`);
      }
    } finally {
      await Deno.remove(work, { recursive: true }).catch(() => {});
    }
  },
});
