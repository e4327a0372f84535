/**
 * A server whose data folder has no catalog rows (the SQLite catalog deleted after
 * indexing, the library's files gone) answers `read`, `outline`, `context`, `browse` and
 * `find_documents` from the PostgreSQL store's catalog: the same lines, page numbers,
 * outline and listings as before, a write by another machine's store seen at once; and
 * neither its answers, its errors nor `status` show credentials.
 */
import { join } from "node:path";
import { callTool } from "../server/dispatch.ts";
import { partsOf } from "../shelf/_parts.ts";
import { machineName } from "../core/config.ts";
import { PgCatalogStore } from "../stores/catalog_postgres.ts";
import { dataFolderId } from "../stores/postgres_pool.ts";
import type { ToolError } from "../core/types.ts";
import { assert, assertEquals, assertRejects } from "./assert.ts";
import { smallCorpus } from "./corpus.ts";
import { noPostgres, PgServer } from "./pg_server.ts";
import { storeAlone } from "./store_cases.ts";
import { openTestShelf } from "./shelf_helper.ts";

const SECRET = "Zq9-secret-pw";

/** The reads asked of each document, before and after the catalog is gone. */
const READS: Record<string, Record<string, unknown>[]> = {
  "Docs/R-FAQ.pdf": [{ page: 2 }, { pages: "3-4" }, { offset: 120, limit: 40 }, {
    section: "1",
  }],
  "Docs/README.md": [{ offset: 1 }, { offset: 5, limit: 3 }],
};

Deno.test({
  name:
    "read, outline, context and listings answer from PostgreSQL when the data folder's catalog is gone",
  ignore: noPostgres,
  async fn() {
    const corpus = await smallCorpus();
    const server = await PgServer.start();
    const base = await Deno.makeTempDir({ prefix: "shelfmark-pgread-" });
    Deno.env.set("PGPASSWORD", SECRET);
    try {
      const lib = join(base, "Docs");
      await Deno.mkdir(lib);
      await Deno.copyFile(join(corpus, "pdf-plain/r-doc-pdf/R-FAQ.pdf"), join(lib, "R-FAQ.pdf"));
      await Deno.copyFile(join(corpus, "markdown/zstd/zstd/README.md"), join(lib, "README.md"));
      const store = await server.database();
      await using t = await openTestShelf({ base, store, folders: [lib] });
      assertEquals((await t.shelf.index()).indexed, 2);
      /** An answer without its `_meta` (the time of the call, the index's state). */
      const bare = (json: Record<string, unknown>) => {
        const { _meta: _, ...rest } = json;
        return rest;
      };
      /** Every answer the tools give about the two documents. */
      const answers = async () => {
        const out: Record<string, unknown> = {};
        for (const [doc, reads] of Object.entries(READS)) {
          for (const r of reads) {
            const a = await callTool(t.shelf, "read", { doc_id: doc, ...r, output_format: "json" });
            out[`read ${doc} ${JSON.stringify(r)}`] = bare(a.json);
          }
          const o = await callTool(t.shelf, "outline", {
            doc_ids: [doc],
            max_tokens: 50000,
            output_format: "json",
          });
          out[`outline ${doc}`] = bare(o.json);
          const c = await callTool(t.shelf, "context", { doc_id: doc, output_format: "json" });
          const { card, tags, fields, folder } = c.json;
          out[`context ${doc}`] = { card, tags, fields, folder };
        }
        for (const path of [undefined, "Docs"]) {
          const b = await callTool(t.shelf, "browse", { path, output_format: "json" });
          out[`browse ${path}`] = bare(b.json);
        }
        for (const query of ["readme", "faq"]) {
          const f = await callTool(t.shelf, "find_documents", { query, output_format: "json" });
          out[`find_documents ${query}`] = bare(f.json);
        }
        return out;
      };
      const before = await answers();
      const pageTwo = before[`read Docs/R-FAQ.pdf {"page":2}`] as {
        lines: { page?: number }[];
      };
      assert(pageTwo.lines.length > 0 && pageTwo.lines.every((l) => l.page === 2), "page 2");

      // the local catalog and the files go; the shelf opens on an empty catalog
      await storeAlone(t, store, [lib]);
      assertEquals(await answers(), before);
      const listed = before["browse Docs"] as { documents: { doc_id: string }[] };
      assertEquals(listed.documents.length, 2, "both documents listed");

      // another process of this data folder (an index run beside the server) removes a
      // document through a store of its own: the server's listing is read again
      const other = new PgCatalogStore(store, {
        machine: { name: machineName(t.shelf.config), owner: dataFolderId(t.data) },
      });
      try {
        await other.remove([listed.documents[0]!.doc_id]);
      } finally {
        await other.close();
      }
      const after = await callTool(t.shelf, "browse", { path: "Docs", output_format: "json" });
      assertEquals(
        (after.json.documents as { doc_id: string }[]).map((d) => d.doc_id),
        [listed.documents[1]!.doc_id],
      );

      const status = await callTool(t.shelf, "status", { output_format: "json" });
      // the counts are the store's (the data folder's catalog holds none)
      assertEquals(status.json.documents_indexed, 1);
      assertEquals(status.json.libraries, [{ name: "Docs", documents: 1 }]);
      const libs = await callTool(t.shelf, "list_libraries", { output_format: "json" });
      assertEquals((libs.json.libraries as { document_count: number }[])[0]?.document_count, 1);
      assert(!JSON.stringify(status).includes(SECRET), "no password in status");
      assert(!JSON.stringify(status).includes("shelfmark@"), "no user name in status");

      // the store gone: a structured error, without credentials
      await server.stop();
      const e = await assertRejects(() =>
        callTool(t.shelf, "read", { doc_id: "Docs/README.md", output_format: "json" })
      ) as ToolError;
      assertEquals(e.code, "INDEX_UNAVAILABLE");
      assert(!`${e.message} ${e.hint}`.includes(SECRET), e.message);
      assert(!`${e.message} ${e.hint}`.includes("shelfmark@"), e.message);
    } finally {
      Deno.env.delete("PGPASSWORD");
      await server.stop().catch(() => {});
      await Deno.remove(base, { recursive: true }).catch(() => {});
    }
  },
});

Deno.test({
  name: "an index run claims its library and writes, touches, removes and restores in the store",
  ignore: noPostgres,
  async fn() {
    const server = await PgServer.start();
    const base = await Deno.makeTempDir({ prefix: "shelfmark-pgindex-" });
    try {
      const lib = join(base, "Docs");
      await Deno.mkdir(lib);
      await Deno.writeTextFile(join(lib, "a.md"), "# Alpacas\n\nAlpaca wool is warm.\n");
      await Deno.writeTextFile(join(lib, "b.md"), "# Bison\n\nBison roam.\n");
      const url = await server.database();
      await using t = await openTestShelf({ base, store: url, folders: [lib] });
      const store = () => partsOf(t.shelf).store;
      assertEquals(store().name, "postgres");
      await t.shelf.index();
      const ids = [...(await store().fileStates("Docs")).values()].map((s) => s.doc_id).sort();
      assertEquals(ids, partsOf(t.shelf).catalog.ids().sort());
      // a touched file: its new mtime in the store too
      const when = new Date("2024-05-01T00:00:00Z");
      await Deno.utime(join(lib, "a.md"), when, when);
      assertEquals((await t.shelf.index()).unchanged, 2);
      const a = (await store().fileStates("Docs")).get("Docs/a.md")!;
      assertEquals(a.mtime_ms, when.getTime());
      assertEquals(
        (await store().cards([a.doc_id])).get(a.doc_id)?.modified_at,
        when.toISOString(),
      );
      // a deleted file leaves the store
      await Deno.remove(join(lib, "b.md"));
      assertEquals((await t.shelf.index()).removed, 1);
      assertEquals([...(await store().fileStates("Docs")).keys()], ["Docs/a.md"]);
      // a document the store lacks is written again from the local catalog
      await store().remove([a.doc_id]);
      await t.shelf.index();
      assertEquals(await store().lines(a.doc_id, 1, 3), ["# Alpacas", "", "Alpaca wool is warm."]);
      // a library another indexer holds: the run fails with CONFLICT, and runs once it is free
      const claim = await store().claimLibrary!("Docs");
      await Deno.writeTextFile(join(lib, "c.md"), "# Camels\n");
      await t.shelf.index().catch(() => {});
      const status = await callTool(t.shelf, "status", { output_format: "json" });
      assert(
        /being indexed by another indexer/.test(String(status.json.last_error)),
        String(status.json.last_error),
      );
      await claim.release();
      assertEquals((await t.shelf.index()).indexed, 1);
      assertEquals(await store().count(), 2);
      // claims hold connections of their own: a store of one connection still reads
      const narrow = new PgCatalogStore(url, { connections: 1 });
      try {
        const held = [await narrow.claimLibrary("A"), await narrow.claimLibrary("B")];
        assertEquals(await narrow.count(), 0);
        for (const c of held) await c.release();
      } finally {
        await narrow.close();
      }
    } finally {
      await server.stop();
      await Deno.remove(base, { recursive: true }).catch(() => {});
    }
  },
});
