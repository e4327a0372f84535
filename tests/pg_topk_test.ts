/**
 * The PostgreSQL keyword ranking that reads a common word's postings for the candidates only
 * (`topRankSql`, MaxScore): what it proves and when it cannot, and a search whose best
 * document holds the common word only, written by a second indexer, ranked where FTS5's BM25
 * puts it.
 */
import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
// @ts-types="@types/pg"
import pg from "pg";
import { Catalog } from "../core/catalog.ts";
import { prepareQuery } from "../search/query.ts";
import { Fts5Index } from "../stores/fts5.ts";
import { DEFAULT_WEIGHTS } from "../stores/fts5_rank.ts";
import { PgKeywordIndex } from "../stores/postgres.ts";
import { hitRows, holdsSql, Params, rankSql, topRankSql } from "../stores/postgres_sql.ts";
import { COLUMNS } from "../stores/postgres_tokens.ts";
import { makeDoc, put } from "../stores/_keyword_contract.ts";
import { noPostgres, PgServer } from "./pg_server.ts";

/** 100 documents: `common` in 30 of them, `zephyr` in 3 short ones, `quokka` in 3 long ones. */
function library(): ReturnType<typeof makeDoc>[] {
  const filler = (n: number) => Array.from({ length: n }, (_, i) => `filler line ${i}`).join("\n");
  return Array.from({ length: 100 }, (_, i) => {
    const words = [i % 10 < 3 ? "common" : "plain"];
    if (i < 3) words.push("zephyr");
    if (i >= 3 && i < 6) words.push("quokka");
    return makeDoc({
      id: `d${String(i).padStart(3, "0")}`,
      path: `Lib/doc-${i}.md`,
      title: `doc ${i}`,
      body: `${words.join(" ")}\n${filler(i < 3 ? 2 : i < 6 ? 400 : 20)}`,
      headings: [],
      keywords: [],
    });
  });
}

/** A short document holding `common` in its title and body: the best for `common` alone. */
const HOT = makeDoc({
  id: "hot",
  path: "Lib/hot.md",
  title: "common common",
  body: "common common common",
  headings: [],
  keywords: [],
});

const WEIGHTS = COLUMNS.map((c) => DEFAULT_WEIGHTS[c]);

Deno.test({
  name: "topRankSql ranks as rankSql does, and tells when the common word's bound is not beaten",
  ignore: noPostgres,
  async fn() {
    const server = await PgServer.start();
    const url = await server.database();
    const catalog = new Catalog(":memory:");
    const other = new Catalog(":memory:");
    const index = new PgKeywordIndex(url, catalog, { stats: catalog, commonShare: 1 });
    // a second indexer writing into the same store
    const second = new PgKeywordIndex(url, other, { stats: other, commonShare: 1 });
    const client = new pg.Client({ connectionString: url });
    try {
      const docs = library();
      put(catalog, [...docs, HOT]);
      await index.upsert(docs);
      put(other, [HOT]);
      await second.upsert([HOT]);
      await client.connect();
      const cond = `(${holdsSql(0, 2)} or ${holdsSql(1, 2)})`;
      const run = async (phrases: string[][], limit: number, share: number, floor = 0) => {
        const p = new Params();
        const sql = topRankSql(phrases, [], cond, p, WEIGHTS, [1, 1], limit, { share, floor });
        return (await client.query(sql, p.values)).rows;
      };
      const full = async (phrases: string[][], limit: number) => {
        const p = new Params();
        const sql = rankSql(hitRows(phrases, p), cond, p, WEIGHTS, [1, 1], limit);
        return (await client.query(sql, p.values)).rows.map((r) => [r.doc_id, r.raw]);
      };
      // `zephyr` (3 short documents) outscores anything `common` alone can add: proven
      const rare = [["zephyr"], ["common"]];
      const proven = await run(rare, 2, 0.3);
      assertEquals(proven[0].low, 1);
      assert(proven[1].score > proven[0].bound, `${proven[1].score} > ${proven[0].bound}`);
      assertEquals(proven.map((r) => [r.doc_id, r.raw]), await full(rare, 2));
      // `quokka` (3 long documents) scores below `common`'s bound, and the hot document
      // holding `common` only is the best: not proven from the candidates
      const weak = [["quokka"], ["common"]];
      const first = await run(weak, 2, 0.3);
      assertEquals(first[0].low, 1);
      assert(first[1].score <= first[0].bound, `${first[1].score} <= ${first[0].bound}`);
      assert(!first.some((r) => r.doc_id === "hot"));
      // asked again with the k-th score as the cut: `common` read for every document
      const again = await run(weak, 2, 0, first[1].score);
      assertEquals(again[0].low, 0);
      assertEquals(again.map((r) => [r.doc_id, r.raw]), await full(weak, 2));
      assertEquals(again[0].doc_id, "hot");
      // the search: the same documents as FTS5's BM25 over the same documents
      const fts = new Fts5Index(catalog.db, { stats: catalog, commonShare: 1 });
      await fts.upsert([...docs, HOT]);
      for (const text of ["zephyr common", "quokka common"]) {
        for (const limit of [1, 2, 5, 10]) {
          const q = { ...prepareQuery(text, limit), snippets: 0 };
          const [a, b] = [await fts.search(q), await index.search(q)];
          assertEquals(b.map((h) => h.doc_id), a.map((h) => h.doc_id), `${text} ${limit}`);
          for (const [i, h] of b.entries()) {
            assert(Math.abs(h.raw - a[i]!.raw) < 1e-9 * Math.abs(a[i]!.raw), `${text}: ${h.raw}`);
          }
        }
      }
    } finally {
      await client.end();
      await second.close();
      await index.close();
      other.close();
      catalog.close();
      await server.stop();
    }
  },
});
