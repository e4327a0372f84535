/**
 * Crash safety of the vectors: `shelfmark index` is killed with SIGKILL while it embeds;
 * the restarted shelf finds no vector without its document and no recorded vector missing,
 * embeds only what was not recorded, and ends with exactly one vector per document.
 * Real model, real LanceDB, real process.
 */
import { cp } from "node:fs/promises";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { Shelf } from "../shelf/shelf.ts";
import { assert, assertEquals } from "./assert.ts";
import { smallCorpus } from "./corpus.ts";
import { partsOf } from "../shelf/_parts.ts";

const CLI = new URL("../server/cli.ts", import.meta.url).pathname;

Deno.test({
  name: "vectors: SIGKILL while embedding, restart: consistent, finished work not redone",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const base = await Deno.makeTempDir({ prefix: "shelfmark-vcrash-" });
    const lib = join(base, "html");
    await cp(join(await smallCorpus(), "html"), lib, { recursive: true });
    const data = join(base, "data");
    const proc = new Deno.Command(Deno.execPath(), {
      // --vectors: with the built-in model, index computes vectors only when asked.
      args: ["run", "-A", CLI, "index", lib, "--data", data, "-q", "--vectors"],
      stdout: "null",
      stderr: "null",
    }).spawn();
    let recorded = 0;
    let total = 0;
    try {
      // Kill once some vectors are recorded and others are not.
      // Until some vectors are recorded or the process ends (no deadline: a loaded machine
      // is slower).
      let ended = false;
      proc.status.then(() => (ended = true));
      while (!ended) {
        await new Promise((r) => setTimeout(r, 25));
        try {
          const db = new DatabaseSync(join(data, "catalog.db"), { readOnly: true });
          try {
            total = db.prepare("SELECT count(*) AS n FROM documents").get()?.n as number;
            recorded = db.prepare("SELECT count(*) AS n FROM vectors").get()?.n as number;
          } finally {
            db.close();
          }
        } catch { /* not created yet */ }
        if (recorded > 0) break;
      }
      if (!ended) proc.kill("SIGKILL");
      await proc.status;
    } catch (e) {
      proc.kill("SIGKILL");
      throw e;
    }
    assert(recorded > 0 && recorded < total, `killed at ${recorded} of ${total} vectors`);

    const shelf = await Shelf.open({ data, log: () => {} });
    try {
      const v = partsOf(shelf).vectors!;
      await v.open();
      const docs = new Set(
        partsOf(shelf).catalog.db.prepare("SELECT doc_id FROM documents").all().map((r) =>
          r.doc_id as string
        ),
      );
      const inTable = new Set(await v.index.ids());
      const rec = partsOf(shelf).catalog.db.prepare("SELECT doc_id FROM vectors").all()
        .map((r) => r.doc_id as string);
      assert([...inTable].every((id) => docs.has(id)), "a vector without its document");
      assert(rec.every((id) => inTable.has(id)), "a recorded vector missing from the table");
      const before = v.status();
      v.kick();
      await v.idle();
      // Only what was not recorded is embedded again.
      assertEquals(v.embeddedCount, before.pending);
      assertEquals(before.embedded + before.pending, docs.size);
      const ids = await v.index.ids();
      assertEquals(ids.length, docs.size);
      assertEquals(new Set(ids), docs);
      assertEquals(v.status().state, "ready");
    } finally {
      await shelf.close();
      await Deno.remove(base, { recursive: true });
    }
  },
});
