/**
 * The `store` setting: a URL holding a password is refused (in `shelfmark.json` and with
 * `--store`), credentials never appear in answers or errors, and `index --store` then
 * `search` go through PostgreSQL.
 */
import { equal as assertEquals, ok as assert, throws as assertThrows } from "node:assert/strict";
import { join } from "node:path";
import { loadConfig, machineName } from "../core/config.ts";
import { runCli } from "./cli_helper.ts";
import { openTestShelf } from "./shelf_helper.ts";
import { noPostgres, PgServer } from "./pg_server.ts";

const SECRET = "Zq9-secret-pw";

Deno.test("loadConfig() refuses a store URL holding a password, without quoting it", async () => {
  const dir = await Deno.makeTempDir();
  try {
    for (
      const store of [
        `postgres://ann:${SECRET}@db.example:5432/shelf`,
        `postgres://ann@db.example/shelf?password=${SECRET}`,
      ]
    ) {
      await Deno.writeTextFile(join(dir, "shelfmark.json"), JSON.stringify({ store }));
      assertThrows(
        () => loadConfig(dir),
        (e: Error) =>
          e.name === "ConfigError" &&
          /"store" must not hold a password: set PGPASSWORD/.test(e.message) &&
          !e.message.includes(SECRET),
      );
    }
    await Deno.writeTextFile(join(dir, "shelfmark.json"), JSON.stringify({ store: "mysql://x/y" }));
    assertThrows(() => loadConfig(dir), /"store" must be a postgres:\/\/ URL/);
    const store = "postgres://ann@db.example:5432/shelf";
    await Deno.writeTextFile(join(dir, "shelfmark.json"), JSON.stringify({ store }));
    assert(loadConfig(dir).store === store);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("shelfmark --store with a password in the URL exits 1 without showing it", async () => {
  const data = await Deno.makeTempDir();
  try {
    const r = await runCli([
      "index",
      "--data",
      data,
      "--store",
      `postgres://ann:${SECRET}@127.0.0.1:1/shelf`,
    ]);
    assert(r.code === 1, `exit ${r.code}`);
    assert(/--store must not hold a password/.test(r.stderr), r.stderr);
    assert(!(r.stdout + r.stderr).includes(SECRET));
  } finally {
    await Deno.remove(data, { recursive: true });
  }
});

Deno.test("an unreachable store answers INDEX_UNAVAILABLE, PGPASSWORD kept out", async () => {
  const lib = await Deno.makeTempDir();
  await Deno.writeTextFile(join(lib, "a.md"), "# Alpacas\n\nAlpaca wool is warm.\n");
  Deno.env.set("PGPASSWORD", SECRET);
  try {
    // port 1: nothing listens; the index run and the search both fail with a clear error
    await using t = await openTestShelf({
      store: "postgres://ann@127.0.0.1:1/shelf",
      folders: [lib],
    });
    const search = await runCli(
      ["search", "alpaca", "--data", t.data, "--json"],
      { PGPASSWORD: SECRET },
    );
    const status = await runCli(["status", "--data", t.data, "--json"], { PGPASSWORD: SECRET });
    // an index run stops with the cause (its files are retried next run): the store's
    // catalog, where the run first claims its library
    const index = await runCli(["index", "--data", t.data], { PGPASSWORD: SECRET });
    assert(index.code !== 0 && /catalog in PostgreSQL failed/.test(index.stderr), index.stderr);
    assert(search.code !== 0, search.stdout);
    assert(/INDEX_UNAVAILABLE/.test(search.stdout + search.stderr), search.stdout + search.stderr);
    for (const out of [search, status, index]) {
      assert(!(out.stdout + out.stderr).includes(SECRET), out.stdout + out.stderr);
    }
  } finally {
    Deno.env.delete("PGPASSWORD");
    await Deno.remove(lib, { recursive: true });
  }
});

Deno.test({
  name: "shelfmark index --store then search answers from PostgreSQL",
  ignore: noPostgres,
  async fn() {
    const server = await PgServer.start();
    const base = await Deno.makeTempDir();
    try {
      const lib = join(base, "notes");
      await Deno.mkdir(lib);
      await Deno.writeTextFile(join(lib, "alpaca.md"), "# Alpacas\n\nAlpaca wool is warm.\n");
      await Deno.writeTextFile(join(lib, "llama.md"), "# Llamas\n\nLlamas carry loads.\n");
      const data = join(base, "data");
      const store = await server.database();
      const idx = await runCli(["index", "--data", data, "--store", store, lib]);
      assert(idx.code === 0, idx.stderr);
      // the store is remembered in the data folder's configuration
      assert(loadConfig(data).store === store);
      const s = await runCli(["search", "wool", "--data", data, "--json"]);
      assert(s.code === 0, s.stderr);
      const hits = JSON.parse(s.stdout).results as { path: string }[];
      assert(hits.length === 1 && hits[0]!.path.endsWith("alpaca.md"), s.stdout);
      // the documents are in PostgreSQL, not in the data folder's FTS5 table
      const rows = await runCli(["search", "llamas", "--data", data, "--json"]);
      assert(JSON.parse(rows.stdout).results.length === 1, rows.stdout);
      // status says where the keyword index is: host, port and database, and the machine
      // (schema) this data folder writes (by default the host name), no user name
      const st = await runCli(["status", "--data", data, "--json"]);
      const url = new URL(store);
      assertEquals(
        JSON.parse(st.stdout).keyword_index,
        `PostgreSQL at ${url.host}${url.pathname} (machine "${machineName({ libraries: [] })}")`,
      );
      assert(url.username && !st.stdout.includes(url.username + "@"), st.stdout);
    } finally {
      await Deno.remove(base, { recursive: true });
      await server.stop();
    }
  },
});
