// The catalog store contract (`_catalog_contract.ts`) on the SQLite catalog.
import { ok as assert } from "node:assert/strict";
import { join } from "node:path";
import {
  CATALOG_CONTRACT,
  type CatalogBackend,
  corpusDocs,
  startWriter,
} from "./_catalog_contract.ts";
import { SqliteCatalogStore } from "./catalog_sqlite.ts";

/** SQLite catalogs in memory; a killed writer's in a file of a folder listed in `made`. */
function sqlite(made: string[]): CatalogBackend {
  return {
    name: "sqlite",
    open: () => Promise.resolve(SqliteCatalogStore.open(":memory:")),
    async killedWrite(source) {
      const dir = await Deno.makeTempDir({ prefix: "shelfmark-killed-" });
      made.push(dir);
      const file = join(dir, "catalog.db");
      const child = await startWriter("sqlite", file, source);
      // the writer says `held` from inside its transaction, then waits
      const out = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
      let said = "";
      while (!said.includes("held\n")) {
        const { value, done } = await out.read();
        assert(!done, `the writer ended without holding its write: ${said}`);
        said += value;
      }
      child.kill("SIGKILL");
      assert(!(await child.status).success);
      await out.cancel();
      return SqliteCatalogStore.open(file);
    },
  };
}

Deno.test("SqliteCatalogStore passes the catalog store contract", async (t) => {
  const docs = await corpusDocs();
  const made: string[] = [];
  try {
    for (const c of CATALOG_CONTRACT) {
      await t.step(`SqliteCatalogStore ${c.name}`, () => c.fn(sqlite(made), docs));
    }
  } finally {
    for (const dir of made) await Deno.remove(dir, { recursive: true });
  }
});
