/**
 * The catalog store contract (`stores/_catalog_contract.ts`) against PostgreSQL, and what
 * only the PostgreSQL catalog does: the SQLite catalog's text blocks byte for byte, writers
 * of different libraries never waiting on each other, machines apart.
 */
import assert, { deepStrictEqual as assertEquals } from "node:assert/strict";
// @ts-types="@types/pg"
import pg from "pg";
import { Catalog } from "../core/catalog.ts";
import { decodeText } from "../core/text_codec.ts";
import { ToolError } from "../core/types.ts";
import {
  CATALOG_CONTRACT,
  type CatalogBackend,
  corpusDocs,
  type SourceDoc,
  startWriter,
} from "../stores/_catalog_contract.ts";
import { PgCatalogStore } from "../stores/catalog_postgres.ts";
import { SqliteCatalogStore } from "../stores/catalog_sqlite.ts";
import { noPostgres, pgRows, PgServer, replayed } from "./pg_server.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The backend: each store on a new database of the test's cluster. */
function backend(server: PgServer): CatalogBackend {
  return {
    name: "postgres",
    open: async () => new PgCatalogStore(await server.database()),
    async killedWrite(source) {
      const url = await server.database();
      const store = new PgCatalogStore(url);
      await store.count(); // the tables made
      // an uncommitted passage row of the document: the writer's passages wait on it, its
      // document row and text blocks already written inside its transaction
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      try {
        await admin.query("BEGIN");
        await admin.query(
          `INSERT INTO passages (doc_id, seq, start_line, end_line, title)
           VALUES ($1, 0, 1, 1, 'held')`,
          [source.doc.card.doc_id],
        );
        const child = await startWriter("postgres", url, source);
        // (watched from another connection: inside a transaction, pg_stat_activity stays
        // as it was when first read)
        let held: { pid: number } | undefined;
        while (!held) {
          await sleep(50);
          held = (await pgRows<{ pid: number }>(
            url,
            `SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock'
             AND datname = current_database() AND xact_start IS NOT NULL
             AND query LIKE '%INSERT INTO passages%'`,
          ))[0];
        }
        child.kill("SIGKILL");
        assert(!(await child.status).success);
        await child.stdout.cancel();
        await admin.query("ROLLBACK");
        // the killed writer's server process notices the closed connection and rolls back
        while (
          (await admin.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1", [held.pid])).rowCount
        ) {
          await sleep(50);
        }
      } finally {
        await admin.end();
      }
      return store;
    },
  };
}

/** A copy of a document in another library (another id and path). */
function elsewhere(s: SourceDoc, library: string): SourceDoc {
  const doc = structuredClone(s.doc);
  doc.card.library = library;
  doc.card.doc_id = `${library}-${doc.card.doc_id}`;
  doc.card.path = doc.card.path.replace(/^[^/]+/, library);
  return { ...s, doc };
}

Deno.test({
  name: "PgCatalogStore passes the catalog store contract",
  ignore: noPostgres,
  async fn(t) {
    const server = await PgServer.start();
    try {
      const docs = await corpusDocs();
      for (const c of CATALOG_CONTRACT) {
        await t.step(`PgCatalogStore ${c.name}`, () => c.fn(backend(server), docs));
      }

      await t.step(
        "PgCatalogStore stores the SQLite catalog's text blocks, byte for byte",
        async () => {
          const url = await server.database();
          const pgStore = new PgCatalogStore(url);
          const catalog = new Catalog(":memory:");
          const sqlite = new SqliteCatalogStore(catalog);
          try {
            for (const s of docs) {
              await pgStore.put(s.doc, s.text, s.links);
              await sqlite.put(s.doc, s.text, s.links);
            }
            const mine = catalog.db.prepare(
              "SELECT doc_id, first_line, text FROM text_blocks ORDER BY doc_id, first_line",
            ).all().map((r) => [r.doc_id, r.first_line, r.text]);
            const theirs = (await pgRows(
              url,
              `SELECT doc_id, first_line, plain, packed FROM text_blocks
             ORDER BY doc_id COLLATE "C", first_line`,
            )).map((r) => [r.doc_id, r.first_line, r.packed ? new Uint8Array(r.packed) : r.plain]);
            assertEquals(theirs, mine);
            // the long texts are compressed, and one decoder reads both
            assert(theirs.filter((r) => r[2] instanceof Uint8Array).length >= 3);
            for (const [i, r] of theirs.entries()) {
              assertEquals(decodeText(r[2]), decodeText(mine[i]![2]));
            }
          } finally {
            await pgStore.close();
            catalog.close();
          }
        },
      );

      await t.step(
        "PgCatalogStore writers of one library take turns, of two never wait",
        async () => {
          const url = await server.database();
          const store = new PgCatalogStore(url);
          const admin = new pg.Client({ connectionString: url });
          await store.count();
          await admin.connect();
          try {
            // another machine's writer of the library Corpus, inside its transaction
            await admin.query("BEGIN");
            await admin.query("SELECT pg_advisory_xact_lock(7243102, hashtext('public/Corpus'))");
            let corpusDone = false;
            const corpus = store.put(docs[1]!.doc, docs[1]!.text, docs[1]!.links).then(() => {
              corpusDone = true;
            });
            const other = elsewhere(docs[2]!, "Other");
            await store.put(other.doc, other.text, other.links);
            assertEquals(await store.count("Other"), 1);
            // the writer of Corpus waits for the lock, and only for it
            let waiting = 0;
            while (!waiting) {
              await sleep(50);
              waiting = (await admin.query(
                `SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock'
               AND wait_event = 'advisory' AND datname = current_database()`,
              )).rowCount ?? 0;
            }
            assert(!corpusDone);
            assertEquals(await store.count("Corpus"), 0);
            await admin.query("ROLLBACK");
            await corpus;
            assertEquals(await store.count("Corpus"), 1);
          } finally {
            await admin.end();
            await store.close();
          }
        },
      );

      await t.step(
        "PgCatalogStore claims a library for one indexer at a time, never waiting",
        async () => {
          const url = await server.database();
          const [one, two] = [new PgCatalogStore(url), new PgCatalogStore(url)];
          try {
            const claim = await one.claimLibrary("laptop:Papers");
            await assert.rejects(two.claimLibrary("laptop:Papers"), (e) => {
              assert(e instanceof ToolError);
              assertEquals(e.code, "CONFLICT");
              assert(e.message.includes("laptop:Papers"), e.message);
              return true;
            });
            // another library is free
            const other = await two.claimLibrary("nas:Papers");
            await other.release();
            await claim.release();
            await claim.release(); // once
            const again = await two.claimLibrary("laptop:Papers");
            // a claim whose connection ends (a killed indexer) ends with it
            await pgRows(
              url,
              `SELECT pg_terminate_backend(pid) FROM pg_locks
             WHERE locktype = 'advisory' AND classid = 7243103 AND granted`,
            );
            const taken = await one.claimLibrary("laptop:Papers");
            await taken.release();
            await again.release();
          } finally {
            await one.close();
            await two.close();
          }
        },
      );

      await t.step("PgCatalogStore keeps machines apart in one database", async () => {
        const url = await server.database();
        const laptop = new PgCatalogStore(url, { machine: { name: "laptop", owner: "a" } });
        const nas = new PgCatalogStore(url, { machine: { name: "nas", owner: "b" } });
        try {
          const s = docs[3]!;
          await laptop.put(s.doc, s.text, s.links);
          await nas.put(s.doc, s.text, s.links);
          await laptop.remove([s.doc.card.doc_id]);
          assertEquals(await laptop.count(), 0);
          assertEquals(await nas.text(s.doc.card.doc_id), s.text);
          const tables = await pgRows(
            url,
            `SELECT table_schema AS s FROM information_schema.tables
             WHERE table_name = 'text_blocks' ORDER BY 1`,
          );
          assertEquals(tables.map((r) => r.s), ["laptop", "nas"]);
        } finally {
          await laptop.close();
          await nas.close();
        }
      });

      await t.step(
        "PgCatalogStore: a dropped connection is a structured error, the next call answers",
        async () => {
          const url = await server.database();
          const store = new PgCatalogStore(url);
          try {
            const s = docs[3]!;
            await store.put(s.doc, s.text, s.links);
            await pgRows(
              url,
              `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
               WHERE datname = current_database() AND pid <> pg_backend_pid()`,
            );
            // the pool may notice the dropped connection first (then the call just works)
            const first = await store.text(s.doc.card.doc_id).catch((e) => e);
            if (first instanceof Error) {
              assert(first instanceof ToolError, String(first));
              assertEquals(first.code, "INDEX_UNAVAILABLE");
            } else assertEquals(first, s.text);
            assertEquals(await store.text(s.doc.card.doc_id), s.text);
          } finally {
            await store.close();
          }
        },
      );

      await t.step(
        "PgCatalogStore reads a streaming replica; writes go to the primary",
        async () => {
          const url = await server.database();
          const replica = await server.replica();
          const onReplica = Object.assign(new URL(url), { port: new URL(replica.url).port }).href;
          const store = new PgCatalogStore(url, { readUrl: onReplica });
          const server2 = new PgCatalogStore(onReplica); // a server that only reads the replica
          try {
            const s = docs[0]!;
            await store.put(s.doc, s.text, s.links);
            await replayed(url, onReplica);
            assertEquals(await store.text(s.doc.card.doc_id), s.text);
            assertEquals(
              await server2.lines(s.doc.card.doc_id, 1, 3),
              s.text.split("\n").slice(0, 3),
            );
            assertEquals((await server2.list()).map((e) => e.doc_id), [s.doc.card.doc_id]);
            // the replica is read-only: a write through it is refused, as a structured error
            await assert.rejects(server2.remove([s.doc.card.doc_id]), {
              code: "INDEX_UNAVAILABLE",
            });
          } finally {
            await store.close();
            await server2.close();
            await replica.stop();
          }
        },
      );
    } finally {
      await server.stop();
    }
  },
});
