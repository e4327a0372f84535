/**
 * Crash safety, reduced for CI: three SIGKILLs (two `index`, one `serve`) during a full
 * index of the text-format libraries of the small corpus, then a resumed run.
 */
import { join } from "node:path";
import { smallCorpus } from "../corpus.ts";
import { assert, assertEquals } from "../assert.ts";
import { copyLibraries } from "./_helpers.ts";
import { crashRun } from "./crash.ts";

Deno.test({
  name: "crash safety: SIGKILL at 3 points, restart: consistent, nothing lost or redone",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const corpus = await smallCorpus();
    const work = await Deno.makeTempDir({ prefix: "shelfmark-crash-" });
    try {
      const lib = join(work, "lib");
      await Deno.mkdir(lib);
      await copyLibraries(corpus, ["markdown", "html", "text", "nested", "word"], lib);
      const r = await crashRun({ libs: [lib], work, points: [0.1, 0.4, 0.7] });
      assert(r.reference > 50, `reference index too small: ${r.reference}`);
      for (const p of r.points) assertEquals(p.problems, [], `after kill at ${p.atKill}`);
      assert(r.points.some((p) => p.killed), "no kill point was reached");
      assertEquals(r.final, []);
      assertEquals(r.resumed.indexed + r.resumed.unchanged + r.resumed.skipped, r.reference);
    } finally {
      await Deno.remove(work, { recursive: true }).catch(() => {});
    }
  },
});
