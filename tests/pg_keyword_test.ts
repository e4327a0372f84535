/**
 * The keyword index contract (`stores/_keyword_contract.ts`) against PostgreSQL, and what
 * only the PostgreSQL store does: the same ranking as FTS5 on the same documents, a
 * dropped connection, credentials kept out of errors.
 */
import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
// @ts-types="@types/pg"
import pg from "pg";
import { Catalog } from "../core/catalog.ts";
import { ToolError } from "../core/types.ts";
import { prepareQuery } from "../search/query.ts";
import { PgCatalogStore } from "../stores/catalog_postgres.ts";
import { Fts5Index } from "../stores/fts5.ts";
import { PgKeywordIndex } from "../stores/postgres.ts";
import {
  KEYWORD_CONTRACT,
  type KeywordBackend,
  makeDoc,
  put,
} from "../stores/_keyword_contract.ts";
import { noPostgres, PgServer } from "./pg_server.ts";

function backend(server: PgServer): KeywordBackend {
  return {
    name: "postgres",
    open: async (catalog, options) => new PgKeywordIndex(await server.database(), catalog, options),
  };
}

Deno.test({
  name: "PgKeywordIndex passes the keyword index contract",
  ignore: noPostgres,
  async fn(t) {
    const server = await PgServer.start();
    try {
      for (const c of KEYWORD_CONTRACT) {
        await t.step(`PgKeywordIndex ${c.name}`, () => c.fn(backend(server)));
      }
    } finally {
      await server.stop();
    }
  },
});

/** A deterministic corpus of 120 documents: common and rare words, a CJK one, copies. */
function corpus(): ReturnType<typeof makeDoc>[] {
  const vocab = (
    "cache proxy server module request header file path config virtual host log error " +
    "compress archive stream buffer index query table column row page backup restore " +
    "replica primary socket port thread worker memory disk latency queue"
  ).split(" ");
  let seed = 7;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const pick = (skew: number) => vocab[Math.floor(vocab.length * rand() ** skew)]!;
  return Array.from({ length: 120 }, (_, i) => {
    const lines = Array.from(
      { length: 3 + Math.floor(rand() * 30) },
      () => Array.from({ length: 4 + Math.floor(rand() * 10) }, () => pick(2)).join(" "),
    );
    if (i % 17 === 0) lines.push("全文検索エンジンの使い方");
    return makeDoc({
      id: `d${String(i).padStart(3, "0")}`,
      path: `${i % 3 ? "Lib" : "Other"}/${pick(1)}/${pick(3)}-${i}.md`,
      title: `${pick(1)} ${pick(3)}`,
      body: lines.join("\n"),
      headings: [pick(1), `${pick(2)} ${pick(2)}`],
      keywords: [pick(3), pick(3)],
    });
  });
}

Deno.test({
  name: "PgKeywordIndex ranks documents as Fts5Index does, scores, passages and snippets alike",
  ignore: noPostgres,
  async fn() {
    const server = await PgServer.start();
    const catalog = new Catalog(":memory:");
    const url = await server.database();
    const pgIndex = new PgKeywordIndex(url, catalog, { stats: catalog });
    try {
      const docs = corpus();
      put(catalog, docs);
      const fts = new Fts5Index(catalog.db, { stats: catalog });
      await fts.upsert(docs);
      // in batches (no document replaced: FTS5 keeps a replaced row's tokens in its average
      // length, PostgreSQL does not, so scores would then differ a little)
      for (let i = 0; i < docs.length; i += 25) await pgIndex.upsert(docs.slice(i, i + 25));
      catalog.countTerms(["cache", "proxy", "server", "module", "request"]);
      const queries = [
        "cache proxy",
        "how does the proxy cache compress a stream",
        '"virtual host" config',
        "+replica -primary socket",
        "latency|memory disk",
        "全文検索",
        "backup restore table",
        "server",
      ];
      let compared = 0, withPassages = 0;
      for (const text of queries) {
        for (const filters of [{}, { library: "Other" }]) {
          // with snippets (documents re-ranked by best passage) and without (BM25 alone)
          for (const snippets of [undefined, 0]) {
            const q = { ...prepareQuery(text, 10, filters), snippets, passages: 3 };
            const [a, b] = [await fts.search(q), await pgIndex.search(q)];
            assertEquals(b.map((h) => h.doc_id), a.map((h) => h.doc_id), text);
            for (const [i, h] of b.entries()) {
              assert(
                Math.abs(h.raw - a[i]!.raw) < 1e-9 * Math.abs(a[i]!.raw) + 1e-12,
                `${text}: ${h.raw} ${a[i]!.raw}`,
              );
              assertEquals(h.snippet, a[i]!.snippet, `${text}: ${h.doc_id}`);
              assertEquals(h.passages, a[i]!.passages, `${text}: ${h.doc_id}`);
            }
            compared += a.length;
            withPassages += a.filter((h) => h.passages?.length).length;
          }
        }
      }
      assert(compared > 120, `${compared} hits compared`);
      assert(withPassages > 60, `${withPassages} hits with passages compared`);
      // replaced then removed: the passage index's counts and totals come back to nothing
      await pgIndex.upsert(docs.slice(0, 30));
      await pgIndex.remove(docs.map((d) => d.card.doc_id));
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      try {
        const left = await admin.query(`SELECT
          (SELECT count(*) FROM kw_ppostings)::int AS postings,
          (SELECT coalesce(sum(abs(pdf)), 0) + coalesce(sum(abs(df)), 0) FROM kw_terms)::int AS df,
          (SELECT sum(abs(passages)) + sum(abs(ptokens)) FROM kw_totals)::int AS totals`);
        assertEquals(left.rows[0], { postings: 0, df: 0, totals: 0 });
      } finally {
        await admin.end();
      }
    } finally {
      await pgIndex.close();
      catalog.close();
      await server.stop();
    }
  },
});

Deno.test({
  name: "PgKeywordIndex ranks as Fts5Index does after the index changed between searches",
  ignore: noPostgres,
  async fn(t) {
    const server = await PgServer.start();
    try {
      // phrase rows kept and sent with the searches, and found by each search (too many)
      for (const phraseRowsSent of [undefined, 0]) {
        await t.step(
          `phrase rows sent at most: ${phraseRowsSent ?? "default"}`,
          async () => changedBetweenSearches(await server.database(), phraseRowsSent),
        );
      }
    } finally {
      await server.stop();
    }
  },
});

async function changedBetweenSearches(url: string, phraseRowsSent?: number): Promise<void> {
  const catalog = new Catalog(":memory:");
  const pgIndex = new PgKeywordIndex(url, catalog, { phraseRowsSent, stats: catalog });
  try {
    const docs = corpus();
    put(catalog, docs);
    const fts = new Fts5Index(catalog.db, { stats: catalog });
    // phrases of several words: their rows and the passages holding them are found once,
    // then kept until a write changes the index
    const queries = ['"disk latency" memory', '"virtual host" config', '"memory disk" queue'];
    let compared = 0;
    const same = async () => {
      for (const text of queries) {
        const q = { ...prepareQuery(text, 10), passages: 3 };
        const [a, b] = [await fts.search(q), await pgIndex.search(q)];
        assertEquals(b.map((h) => h.doc_id), a.map((h) => h.doc_id), text);
        for (const [i, h] of b.entries()) {
          assert(Math.abs(h.raw - a[i]!.raw) < 1e-9 * Math.abs(a[i]!.raw), `${text}: ${h.raw}`);
          assertEquals(h.passages, a[i]!.passages, `${text}: ${h.doc_id}`);
        }
        compared += a.filter((h) => h.passages?.length).length;
      }
    };
    // then documents holding the phrase in every passage: its IDFs fall
    const flood = Array.from({ length: 150 }, (_, i) =>
      makeDoc({
        id: `f${String(i).padStart(3, "0")}`,
        path: `Lib/flood-${i}.md`,
        title: `flood ${i}`,
        body: Array.from({ length: 200 }, () => "disk latency").join("\n"),
        headings: ["disk latency"],
        keywords: [],
      }));
    put(catalog, flood);
    for (const part of [docs.slice(0, 60), docs.slice(60), flood]) {
      await fts.upsert(part);
      await pgIndex.upsert(part);
      await same();
      await same();
    }
    assert(compared > 60, `${compared} hits with passages compared`);
  } finally {
    await pgIndex.close();
    catalog.close();
  }
}

Deno.test({
  name: "PgKeywordIndex: a connection dropped during a search is a ToolError; the next call works",
  ignore: noPostgres,
  async fn(t) {
    const server = await PgServer.start();
    try {
      // searches on the store's one pool, then on a pool of their own (`store_read`): here a
      // second URL of the same database, told apart by its application name
      for (const reader of [undefined, "shelfmark-read"]) {
        await t.step(reader ? "read URL" : "store URL", () => droppedDuringSearch(server, reader));
      }
    } finally {
      await server.stop();
    }
  },
});

async function droppedDuringSearch(server: PgServer, reader?: string): Promise<void> {
  const catalog = new Catalog(":memory:");
  const url = await server.database();
  const readUrl = reader && `${url}?application_name=${reader}`;
  const index = new PgKeywordIndex(url, catalog, { readUrl });
  const admin = new pg.Client({ connectionString: url });
  try {
    const docs = corpus().slice(0, 10);
    put(catalog, docs);
    await index.upsert(docs);
    await admin.connect();
    // the search waits on a lock; its connection is then terminated
    await admin.query("BEGIN; LOCK TABLE kw_docs IN ACCESS EXCLUSIVE MODE");
    // the outcome is taken at once: the search may fail while the loop below still polls
    const search = index.search(prepareQuery("cache proxy", 5)).then(
      () => undefined,
      (e: unknown) => e,
    );
    let waiting = 0;
    while (!waiting) {
      await new Promise((r) => setTimeout(r, 50));
      waiting = (await admin.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
         WHERE wait_event_type = 'Lock' AND datname = current_database()
           AND ($1::text IS NULL OR application_name = $1)`,
        [reader ?? null],
      )).rowCount ?? 0;
    }
    const e = await search;
    assert(
      e instanceof ToolError && e.code === "INDEX_UNAVAILABLE" && /terminat/.test(e.message),
      `the search gave ${e}`,
    );
    await admin.query("ROLLBACK");
    assert((await index.search(prepareQuery("cache proxy", 5))).length > 0);
  } finally {
    await admin.end();
    await index.close();
    catalog.close();
  }
}

Deno.test({
  name: "PgKeywordIndex tells common words by the store's word counts, without the local catalog",
  ignore: noPostgres,
  async fn() {
    const server = await PgServer.start();
    const url = await server.database();
    // the local catalog holds no rows and no term counts: a server that did not index
    const empty = new Catalog(":memory:");
    const store = new PgCatalogStore(url);
    const index = new PgKeywordIndex(url, empty, { store });
    try {
      // "widgets" in 55 of 60 documents, "zebra" and "giraffe" in two; "2" (a number: the
      // catalog does not count it, the index's terms do) in 55 too
      const docs = Array.from({ length: 60 }, (_, i) =>
        makeDoc({
          id: `d${i}`,
          path: `lib/d${i}.md`,
          body: [
            i < 55 ? "Widgets here, 2 of them." : "Nothing much.",
            i % 30 === 0 ? "A zebra and a giraffe." : "",
          ]
            .join("\n"),
        }));
      await index.upsert(docs);
      for (const { card, outline, lines } of docs) {
        await store.put({ card, outline, terms: {}, hash: "h", mtime_ms: 0 }, lines.join("\n"));
      }
      const ids = async (text: string) =>
        (await index.search(prepareQuery(text, 100))).map((h) => h.doc_id).sort();
      // the common word is left out of the match: only the zebra documents are found
      assertEquals(await ids("widgets zebra giraffe"), ["d0", "d30"]);
      assertEquals(await ids("2 zebra giraffe"), ["d0", "d30"]);
      // counted as the catalog counts words (not stemmed): "widget" is another word, rare
      assertEquals((await ids("widget zebra giraffe")).length, 55);
      // alone it is still searched
      assertEquals((await ids("widgets")).length, 55);
      // below 50 documents nothing is common
      const gone = docs.slice(10).map((d) => d.card.doc_id);
      await index.remove(gone);
      await store.remove(gone);
      assertEquals(
        await ids("widgets zebra giraffe"),
        Array.from({ length: 10 }, (_, i) => `d${i}`).sort(),
      );
    } finally {
      await index.close();
      await store.close();
      empty.close();
      await server.stop();
    }
  },
});
