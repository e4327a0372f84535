/**
 * A primary and a streaming replica (`scripts/pg_local.sh replica`, `pg_basebackup -R`) on
 * this machine: a document written through the primary is found by a keyword index
 * reading the replica once the replica has replayed the write.
 */
import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { Catalog } from "../core/catalog.ts";
import { prepareQuery } from "../search/query.ts";
import { PgKeywordIndex } from "../stores/postgres.ts";
import { makeDoc, put } from "../stores/_keyword_contract.ts";
import { noPostgres, PgServer, replayed } from "./pg_server.ts";

Deno.test({
  name: "PgKeywordIndex on a streaming replica finds what the primary wrote",
  ignore: noPostgres,
  async fn() {
    const primary = await PgServer.start();
    const replica = await primary.replica();
    const catalog = new Catalog(":memory:");
    const writer = new PgKeywordIndex(primary.url, catalog);
    const reader = new PgKeywordIndex(replica.url, catalog);
    try {
      const doc = makeDoc({ id: "w", path: "L/wombat.md", body: "The wombat digs a burrow." });
      put(catalog, [doc]);
      await writer.upsert([doc]);
      // wait until the replica has replayed the primary's WAL up to the write
      await replayed(primary.url, replica.url);
      const found = (await reader.search(prepareQuery("wombat", 5))).map((h) => h.doc_id);
      assertEquals(found, ["w"]);
    } finally {
      await reader.close();
      await writer.close();
      catalog.close();
      await replica.stop();
      await primary.stop();
    }
  },
});
