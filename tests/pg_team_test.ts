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
import { DatabaseSync } from "node:sqlite";
// @ts-types="@types/pg"
import pg from "pg";
import { Catalog } from "../core/catalog.ts";
import { loadConfig, machineName } from "../core/config.ts";
import { prepareQuery } from "../search/query.ts";
import { PgKeywordIndex } from "../stores/postgres.ts";
import type { Machine } from "../stores/postgres_pool.ts";
import { makeDoc, put } from "../stores/_keyword_contract.ts";
import { callTool } from "../server/dispatch.ts";
import { runCli } from "./cli_helper.ts";
import { noPostgres, pgRows, PgServer, replayed } from "./pg_server.ts";
import { openTestShelf } from "./shelf_helper.ts";

const CLI = new URL("../server/cli.ts", import.meta.url).pathname;

/** A database's URL whose connections read a machine's tables (its schema). */
function inSchema(db: string, machine: string): string {
  const u = new URL(db);
  u.searchParams.set("options", `-c search_path=${machine}`);
  return u.href;
}

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
      // the replica has not replayed the primary's tables when the first index run starts
      await pgRows(readDb, "SELECT pg_wal_replay_pause()");
      await using t = await openTestShelf({ base, store: db, storeRead: readDb, folders: [lib] });
      assertEquals((await t.shelf.index()).indexed, 1);
      await pgRows(readDb, "SELECT pg_wal_replay_resume()");
      // the store and the replica are remembered in the data folder's configuration
      assertEquals([loadConfig(t.data).store, loadConfig(t.data).store_read], [db, readDb]);
      // written through the primary, not through the replica (read-only: it would refuse)
      assertEquals(
        (await pgRows(inSchema(db, machineName({ libraries: [] })), "SELECT doc_id FROM kw_docs"))
          .length,
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
        `PostgreSQL at ${p.host}${p.pathname} (machine "${
          machineName({ libraries: [] })
        }"); searches read the replica at ${r.host}${r.pathname}`,
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
      // and so does read: the document's lines from the replica's catalog
      const numbat = await t.shelf.findStoredDocument("Notes/numbat.md");
      assert(numbat, "found through the replica");
      assertEquals((await t.shelf.readLines(numbat, { offset: 1 })).lines.map((l) => l.text), [
        "# Numbats",
        "",
        "The numbat eats termites.",
      ]);
    } finally {
      await replica.stop();
      if (primaryUp) await primary.stop();
    }
  },
});

/**
 * A library of `n` Markdown notes, each with a word of its own (`zorblax0007`) and some
 * shared ones.
 */
async function notes(dir: string, n: number, tag: string): Promise<void> {
  await Deno.mkdir(dir, { recursive: true });
  const shared = "archive backup cache proxy server stream table index query worker".split(" ");
  for (let i = 0; i < n; i++) {
    const words = Array.from({ length: 60 }, (_, k) => shared[(i * 7 + k * 3) % shared.length]);
    await Deno.writeTextFile(
      join(dir, `note-${String(i).padStart(4, "0")}.md`),
      `# Note ${i}\n\n${tag}${String(i).padStart(4, "0")} ${words.join(" ")}\n`,
    );
  }
}

/**
 * What is wrong in a keyword store (empty when nothing): a document without postings or
 * whose postings do not add up to its lengths, postings of no document, a term count or a
 * library total that is not the sum of the rows.
 */
async function inconsistencies(url: string): Promise<string[]> {
  const problems = await pgRows<{ problem: string }>(
    url,
    `SELECT 'document ' || d.doc_id || ' has postings ' || coalesce(p.lens::text, 'none') ||
            ' for lengths ' || d.lens::text AS problem
     FROM kw_docs d LEFT JOIN LATERAL (
       SELECT array_agg(s ORDER BY c) AS lens FROM (
         SELECT c, coalesce((SELECT sum(tf) FROM kw_postings WHERE doc = d.id AND col = c), 0)::int AS s
         FROM generate_series(0, cardinality(d.lens) - 1) c) x) p ON true
     WHERE p.lens IS DISTINCT FROM d.lens
        OR d.tokens <> (SELECT sum(l) FROM unnest(d.lens) l)
     UNION ALL
     SELECT 'postings of no document: ' || count(*) FROM kw_postings p
     WHERE NOT EXISTS (SELECT 1 FROM kw_docs d WHERE d.id = p.doc) HAVING count(*) > 0
     UNION ALL
     SELECT 'term ' || coalesce(t.term, g.term) || ' counted ' || coalesce(t.df, 0) ||
            ' for ' || coalesce(g.n, 0) || ' documents'
     FROM kw_terms t FULL JOIN (
       SELECT term, count(DISTINCT doc) AS n FROM kw_postings GROUP BY term) g
       ON g.term = t.term
     WHERE coalesce(t.df, 0) <> coalesce(g.n, 0)
     UNION ALL
     SELECT 'term ' || coalesce(t.term, g.term) || ' counted in ' || coalesce(t.pdf, 0) ||
            ' passages for ' || coalesce(g.n, 0)
     FROM kw_terms t FULL JOIN (
       SELECT term, sum(np) AS n FROM kw_ppostings GROUP BY term) g
       ON g.term = t.term
     WHERE coalesce(t.pdf, 0) <> coalesce(g.n, 0)
     UNION ALL
     SELECT 'library ' || coalesce(t.library, g.library) || ' totals ' ||
            coalesce(t.docs, 0) || '/' || coalesce(t.tokens, 0) || ' for ' ||
            coalesce(g.docs, 0) || '/' || coalesce(g.tokens, 0)
     FROM kw_totals t FULL JOIN (
       SELECT library, count(*) AS docs, sum(tokens) AS tokens FROM kw_docs GROUP BY library) g
       ON g.library = t.library
     WHERE (coalesce(t.docs, 0), coalesce(t.tokens, 0)) <> (coalesce(g.docs, 0), coalesce(g.tokens, 0))`,
  );
  return problems.map((r) => r.problem);
}

/** `shelfmark index` in a child process, started (its output drained). */
function startIndex(args: string[], stderr: "null" | "piped" = "null"): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", CLI, "index", "--no-vectors", "--no-ocr", "--quiet", ...args],
    env: { SHELFMARK_EMBEDDER: "none" },
    stdin: "null",
    stdout: "null",
    stderr,
  }).spawn();
}

/** The `doc_id`s of a data folder's catalog. */
function catalogIds(data: string): string[] {
  const db = new DatabaseSync(join(data, "catalog.db"), { readOnly: true });
  try {
    return (db.prepare("SELECT doc_id FROM documents ORDER BY doc_id").all() as {
      doc_id: string;
    }[]).map((r) => r.doc_id);
  } finally {
    db.close();
  }
}

Deno.test({
  name:
    "an indexer killed (SIGKILL) in a document's write leaves nothing half-written; the rerun completes it",
  ignore: noPostgres,
  async fn() {
    const server = await PgServer.start();
    const db = await server.database();
    const base = await Deno.makeTempDir({ prefix: "shelfmark-kill-" });
    const lib = join(base, "Notes");
    const data = join(base, "data");
    const FILES = 120;
    await notes(lib, FILES, "zorblax");
    await Deno.mkdir(data);
    await Deno.writeTextFile(join(data, "shelfmark.json"), JSON.stringify({ machine: "box" }));
    const tables = inSchema(db, "box");
    const admin = new pg.Client({ connectionString: tables });
    try {
      const child = startIndex(["--data", data, "--store", db, lib]);
      await admin.connect();
      // once 20 documents are in, the next write is held inside its transaction (its
      // library total waits on a lock), then the indexer is killed while it waits
      const count = async () =>
        Number(
          (await admin.query("SELECT count(*) AS n FROM kw_docs").catch(() => undefined))
            ?.rows[0].n ?? 0, // until the indexer made the tables
        );
      while (await count() < 20) await new Promise((r) => setTimeout(r, 50));
      await admin.query("BEGIN; LOCK TABLE kw_totals IN EXCLUSIVE MODE");
      // watched from other connections: inside the transaction above, pg_stat_activity stays
      // as first read (only its wait events are read live). The waiter is found in pg_locks,
      // as one statement's snapshot of pg_stat_activity can still pair a wait that has just
      // begun with the idle moment before it.
      let waiter: { pid: number } | undefined;
      while (!waiter) {
        await new Promise((r) => setTimeout(r, 50));
        [waiter] = await pgRows<{ pid: number }>(
          tables,
          `SELECT l.pid FROM pg_locks l JOIN pg_stat_activity a USING (pid)
           WHERE l.relation = 'kw_totals'::regclass AND NOT l.granted
             AND a.backend_type = 'client backend'`,
        );
      }
      // it waits until the ROLLBACK below: a later snapshot sees it inside its transaction
      const [held] = await pgRows<{ pid: number; xact: boolean }>(
        tables,
        "SELECT pid, xact_start IS NOT NULL AS xact FROM pg_stat_activity WHERE pid = $1",
        [waiter.pid],
      );
      assert(held?.xact, "the held write is inside its transaction");
      child.kill("SIGKILL");
      assert(!(await child.status).success);
      await admin.query("ROLLBACK");
      // the killed indexer's server process notices the closed connection and rolls back
      while (
        (await admin.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1", [held.pid])).rowCount
      ) {
        await new Promise((r) => setTimeout(r, 50));
      }
      const before = await count();
      assert(before >= 20 && before < FILES, `${before} documents when killed`);
      assertEquals(await inconsistencies(tables), []);

      // the rerun (the store is remembered) indexes the rest; nothing lost, nothing twice
      const rerun = await startIndex(["--data", data], "piped").output();
      assert(rerun.success, `rerun exit ${rerun.code}: ${new TextDecoder().decode(rerun.stderr)}`);
      assertEquals(await inconsistencies(tables), []);
      const stored = (await pgRows<{ doc_id: string }>(
        tables,
        "SELECT doc_id FROM kw_docs ORDER BY doc_id",
      )).map((r) => r.doc_id);
      assertEquals(stored.length, FILES);
      assertEquals(stored, catalogIds(data));
      await using t = await openTestShelf({ base, data });
      for (const i of [0, 19, 20, 21, FILES - 1]) {
        const word = `zorblax${String(i).padStart(4, "0")}`;
        assertEquals(await found(t.shelf, word), [`Notes/note-${word.slice(7)}.md`]);
      }
      // the check finds a posting gone and a total off (so its silence above means something)
      await admin.query("DELETE FROM kw_postings WHERE ctid = (SELECT min(ctid) FROM kw_postings)");
      await admin.query("UPDATE kw_totals SET docs = docs + 1");
      const seen = await inconsistencies(tables);
      assert(seen.some((p) => p.startsWith("document ")), seen.join("\n"));
      assert(seen.some((p) => p.startsWith("library ")), seen.join("\n"));
    } finally {
      await admin.end();
      await Deno.remove(base, { recursive: true }).catch(() => {});
      await server.stop();
    }
  },
});

Deno.test({
  name: "two indexers of two machines write one store at once; a machine name is one data folder's",
  ignore: noPostgres,
  async fn() {
    const server = await PgServer.start();
    const db = await server.database();
    const base = await Deno.makeTempDir({ prefix: "shelfmark-team-" });
    const FILES = 60;
    // two "machines", each with a library named Papers holding files of the same names
    const machines = ["laptop", "desktop"].map((name) => ({
      name,
      lib: join(base, name, "Papers"),
      data: join(base, name, "data"),
    }));
    try {
      for (const m of machines) {
        await notes(m.lib, FILES, `${m.name}word`);
        await Deno.mkdir(m.data);
        await Deno.writeTextFile(
          join(m.data, "shelfmark.json"),
          JSON.stringify({ machine: m.name }),
        );
      }
      const runs = machines.map((m) => startIndex(["--data", m.data, "--store", db, m.lib]));
      for (const run of runs) assert((await run.status).success);
      // a third data folder calling itself laptop is refused: it would replace laptop's rows
      const again = join(base, "again");
      await Deno.mkdir(again);
      await Deno.writeTextFile(
        join(again, "shelfmark.json"),
        JSON.stringify({ machine: "laptop" }),
      );
      const refused = await runCli(["index", "--data", again, "--store", db, machines[0]!.lib]);
      assert(refused.code !== 0, refused.stdout);
      assert(
        /another data folder already writes as machine "laptop"/.test(refused.stderr),
        refused.stderr,
      );
      assertEquals(
        (await pgRows(inSchema(db, "laptop"), "SELECT count(*)::int AS n FROM kw_docs"))[0]!.n,
        FILES,
      );
      for (const m of machines) {
        const tables = inSchema(db, m.name);
        assertEquals(await inconsistencies(tables), []);
        const stored = await pgRows<{ doc_id: string; library: string }>(
          tables,
          "SELECT doc_id, library FROM kw_docs ORDER BY doc_id",
        );
        assertEquals(stored.map((r) => r.doc_id), catalogIds(m.data));
        assertEquals(stored.length, FILES);
        assert(stored.every((r) => r.library === "Papers"));
        const other = machines.find((o) => o !== m)!.name;
        // (the test shelf removes the machine's folder when done)
        await using t = await openTestShelf({ base: join(base, m.name), data: m.data });
        assertEquals(await found(t.shelf, `${m.name}word0007`), ["Papers/note-0007.md"]);
        // the other machine's, under its name (searches rank every machine's documents)
        assertEquals(await found(t.shelf, `${other}word0007`), [`${other}:Papers/note-0007.md`]);
      }
    } finally {
      await Deno.remove(base, { recursive: true });
      await server.stop();
    }
  },
});

Deno.test({
  name: "PgKeywordIndex: the first machine of a store made before machines takes over its tables",
  ignore: noPostgres,
  async fn() {
    const server = await PgServer.start();
    const db = await server.database();
    const catalog = new Catalog(":memory:");
    const doc = makeDoc({ id: "w", path: "L/wombat.md", body: "The wombat digs a burrow." });
    put(catalog, [doc]);
    const search = async (machine?: Machine) => {
      const index = new PgKeywordIndex(db, catalog, { machine });
      try {
        return (await index.search(prepareQuery("wombat", 5))).map((h) => h.doc_id);
      } finally {
        await index.close();
      }
    };
    try {
      const before = new PgKeywordIndex(db, catalog);
      await before.upsert([doc]);
      await before.close();
      assertEquals(await search({ name: "laptop", owner: "a" }), ["w"]);
      assertEquals(
        (await pgRows(db, "SELECT to_regclass('public.kw_docs') IS NULL AS moved"))[0]!.moved,
        true,
      );
      // the next machine starts with tables of its own
      assertEquals(await search({ name: "nas", owner: "b" }), []);
      assertEquals(await search({ name: "laptop", owner: "a" }), ["w"]);
    } finally {
      catalog.close();
      await server.stop();
    }
  },
});

Deno.test({
  name: "writers re-indexing documents that share words at once never fail; counts stay right",
  ignore: noPostgres,
  async fn() {
    const server = await PgServer.start();
    const db = await server.database();
    const catalog = new Catalog(":memory:");
    // documents of eight blocks of words; each writer replaces two documents of two blocks
    // in one transaction, its neighbour two of the same blocks in the other order, so writers
    // that took the words of their first document in turn wait for each other's second
    const block = (b: number, round: number) =>
      Array.from({ length: 60 }, (_, i) => `w${b}x${((i * 7 + round) % 60).toString(36)}`);
    const doc = (w: number, k: number, round: number) => {
      const b = (w - w % 2 + (w % 2 === k ? 0 : 1)) % 8;
      return makeDoc({
        id: `d${w}-${k}`,
        path: `${["Papers", "Notes"][w % 2]}/doc${w}-${k}.md`,
        body: block(b, round).join(" "),
      });
    };
    const round = (r: number) => Array.from({ length: 8 }, (_, w) => [doc(w, 0, r), doc(w, 1, r)]);
    put(catalog, round(0).flat());
    const index = new PgKeywordIndex(db, catalog, { machine: { name: "box", owner: "t" } });
    try {
      await index.upsert(round(0).flat());
      for (let r = 1; r <= 8; r++) {
        await Promise.all(round(r).map((docs) => index.upsert(docs)));
      }
      await index.remove(["d0-0", "d5-1"]);
      assertEquals(await inconsistencies(inSchema(db, "box")), []);
      assertEquals(index.ready(), { state: "ready", documents: 14 });
    } finally {
      await index.close();
      catalog.close();
      await server.stop();
    }
  },
});
