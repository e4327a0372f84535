/**
 * The PostgreSQL store shared by a team (issue 32): searches that read a streaming replica
 * (`store_read`) while writes go to the primary, an indexer killed mid-run, and two
 * indexers of two data folders ("machines") writing into one database at once. Against
 * real PostgreSQL 15 clusters (`scripts/pg_local.sh`), ignored where it is not installed.
 */
import {
  deepStrictEqual as assertEquals,
  ok as assert,
  throws as assertThrows,
} from "node:assert/strict";
import { join } from "node:path";
import { loadConfig } from "../core/config.ts";
import { callTool } from "../server/dispatch.ts";
import { runCli } from "./cli_helper.ts";
import { noPostgres, pgRows, PgServer, replayed } from "./pg_server.ts";
import { openTestShelf } from "./shelf_helper.ts";

/** The same database on another server of the same machine (a replica of it). */
function onServer(db: string, server: PgServer): string {
  const u = new URL(db);
  u.port = new URL(server.url).port;
  return u.href;
}

/** The paths of a search's hits, by the search tool. */
async function found(
  shelf: Parameters<typeof callTool>[0],
  query: string,
): Promise<string[]> {
  const answer = await callTool(shelf, "search", { query, output_format: "json" });
  return (answer.json.results as { path: string }[]).map((h) => h.path).sort();
}

const SECRET = "Zq9-secret-pw";

Deno.test("loadConfig() refuses a store_read URL holding a password, or without store", async () => {
  const dir = await Deno.makeTempDir();
  const save = (config: unknown) =>
    Deno.writeTextFile(join(dir, "shelfmark.json"), JSON.stringify(config));
  try {
    const store = "postgres://ann@db.example:5432/shelf";
    await save({ store, store_read: `postgres://ann:${SECRET}@replica.example/shelf` });
    assertThrows(
      () => loadConfig(dir),
      (e: Error) =>
        e.name === "ConfigError" &&
        /"store_read" must not hold a password: set PGPASSWORD/.test(e.message) &&
        !e.message.includes(SECRET),
    );
    await save({ store_read: "postgres://ann@replica.example/shelf" });
    assertThrows(() => loadConfig(dir), /"store_read" needs "store"/);
    const read = "postgres://ann@replica.example:5433/shelf";
    await save({ store, store_read: read });
    assertEquals(loadConfig(dir).store_read, read);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("shelfmark --store-read with a password, or without a store, exits 1", async () => {
  const data = await Deno.makeTempDir();
  try {
    const bad = await runCli([
      "index",
      "--data",
      data,
      "--store",
      "postgres://ann@127.0.0.1:1/shelf",
      "--store-read",
      `postgres://ann:${SECRET}@127.0.0.1:2/shelf`,
    ]);
    assert(bad.code === 1, `exit ${bad.code}`);
    assert(/--store-read must not hold a password/.test(bad.stderr), bad.stderr);
    assert(!(bad.stdout + bad.stderr).includes(SECRET));
    const alone = await runCli(
      ["index", "--data", data, "--store-read", "postgres://ann@127.0.0.1:2/shelf"],
    );
    assert(alone.code === 1 && /--store-read needs --store/.test(alone.stderr), alone.stderr);
  } finally {
    await Deno.remove(data, { recursive: true });
  }
});

Deno.test({
  name: "store_read: searches read the replica, writes go to the primary",
  ignore: noPostgres,
  async fn() {
    const primary = await PgServer.start();
    const db = await primary.database();
    const replica = await primary.replica();
    const readDb = onServer(db, replica);
    const base = await Deno.makeTempDir({ prefix: "shelfmark-team-" });
    const lib = join(base, "Notes");
    await Deno.mkdir(lib);
    await Deno.writeTextFile(join(lib, "wombat.md"), "# Wombats\n\nThe wombat digs a burrow.\n");
    let primaryUp = true;
    try {
      await using t = await openTestShelf({ base, store: db, storeRead: readDb, folders: [lib] });
      assertEquals((await t.shelf.index()).indexed, 1);
      // the store and the replica are remembered in the data folder's configuration
      assertEquals([loadConfig(t.data).store, loadConfig(t.data).store_read], [db, readDb]);
      // written through the primary, not through the replica (read-only: it would refuse)
      assertEquals(
        (await pgRows(db, "SELECT doc_id FROM kw_docs")).length,
        1,
      );
      await replayed(db, readDb);
      assertEquals(await found(t.shelf, "wombat"), ["Notes/wombat.md"]);

      // status names both, without the user name
      const st = await runCli(["status", "--data", t.data, "--json"]);
      assert(st.code === 0, st.stderr);
      const where = JSON.parse(st.stdout).keyword_index as string;
      const [p, r] = [new URL(db), new URL(readDb)];
      assertEquals(
        where,
        `PostgreSQL at ${p.host}${p.pathname}; searches read the replica at ${r.host}${r.pathname}`,
      );
      assert(!st.stdout.includes(`${p.username}@`), st.stdout);

      // a second document, written after the first search, is found through the replica too
      await Deno.writeTextFile(join(lib, "numbat.md"), "# Numbats\n\nThe numbat eats termites.\n");
      assertEquals((await t.shelf.index()).indexed, 1);
      await replayed(db, readDb);
      assertEquals(await found(t.shelf, "numbat"), ["Notes/numbat.md"]);

      // with the primary stopped, searches still answer: they read the replica only
      await primary.stop();
      primaryUp = false;
      assertEquals(await found(t.shelf, "wombat numbat"), [
        "Notes/numbat.md",
        "Notes/wombat.md",
      ]);
    } finally {
      await replica.stop();
      if (primaryUp) await primary.stop();
    }
  },
});
