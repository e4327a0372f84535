/**
 * The PostgreSQL store's word counts (`stores/postgres_words.ts`) are the SQLite catalog's
 * term statistics: after an index run, a re-index of a changed file, a removal, and when
 * made anew for a store written before them; and a PostgreSQL server tells a query's
 * common words as a SQLite server on the same documents does.
 */
import { join } from "node:path";
import { callTool } from "../server/dispatch.ts";
import { partsOf } from "../shelf/_parts.ts";
import { Tokenizer } from "../stores/postgres_tokens.ts";
import { assert, assertEquals } from "./assert.ts";
import { smallCorpus } from "./corpus.ts";
import { noPostgres, pgRows, PgServer } from "./pg_server.ts";
import { openTestShelf, type TestShelf } from "./shelf_helper.ts";

/** Folders of the small corpus indexed: 65 documents (common words need 50). */
const FOLDERS = ["html", "markdown"];

/** A word count table as sorted `[term, n]` pairs. */
type Counts = [string, number][];

function sorted(rows: Record<string, unknown>[]): Counts {
  return rows.map((r) => [r.term as string, Number(r.n)] as [string, number])
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

/** The SQLite catalog's term statistics of a shelf's data folder. */
function sqliteCounts(t: TestShelf): Counts {
  return sorted(partsOf(t.shelf).catalog.db.prepare("SELECT term, n FROM df").all());
}

/** The schema of the store's only machine (the shelf's). */
async function machine(url: string): Promise<string> {
  const rows = await pgRows<{ name: string }>(url, "SELECT name FROM public.shelfmark_machines");
  assertEquals(rows.length, 1);
  return rows[0]!.name;
}

/** The word counts in the store. */
async function pgCounts(url: string): Promise<Counts> {
  return sorted(await pgRows(url, `SELECT term, n FROM "${await machine(url)}".df`));
}

/** The paths a keyword search finds, in order. */
async function found(t: TestShelf, query: string): Promise<string[]> {
  const a = await callTool(t.shelf, "search", {
    query,
    mode: "keyword",
    limit: 10,
    output_format: "json",
  });
  return (a.json as { results: { path: string }[] }).results.map((r) => r.path);
}

Deno.test({
  name: "PostgreSQL counts words as the SQLite catalog does and tells common words alike",
  ignore: noPostgres,
  async fn() {
    const corpus = await smallCorpus();
    const server = await PgServer.start();
    const base = await Deno.makeTempDir({ prefix: "shelfmark-pgwords-" });
    try {
      const lib = join(base, "Docs");
      await Deno.mkdir(lib);
      for (const f of FOLDERS) {
        const cp = await new Deno.Command("cp", { args: ["-r", join(corpus, f), join(lib, f)] })
          .output();
        assert(cp.success, `copied ${f}`);
      }
      const store = await server.database();
      await using pgShelf = await openTestShelf({ base: join(base, "pg"), store, folders: [lib] });
      await using sqlShelf = await openTestShelf({ base: join(base, "sqlite"), folders: [lib] });
      const indexed = (await pgShelf.shelf.index()).indexed;
      assert(indexed >= 60, `${indexed} documents`);
      assertEquals((await sqlShelf.shelf.index()).indexed, indexed);
      const counts = sqliteCounts(pgShelf);
      assert(counts.length > 5000, `${counts.length} words`);
      assertEquals(await pgCounts(store), counts, "after the index run");
      assertEquals(sqliteCounts(sqlShelf), counts);

      // Words whose common-ness the catalog's counts (body words) and the keyword index's
      // own (stemmed terms over every column: what PostgreSQL went by before) tell apart.
      const limit = indexed * 0.25;
      const tokens = new Tokenizer();
      const near = counts.filter(([, n]) => n > limit / 3 && n < limit * 3);
      const stems = near.map(([w]) => tokens.phrase(w)[0] ?? "");
      tokens.close();
      const name = await machine(store);
      const termDocs = new Map(
        (await pgRows(store, `SELECT term, df FROM "${name}".kw_terms WHERE term = ANY($1)`, [
          stems,
        ])).map((r) => [r.term as string, r.df as number]),
      );
      const apart = near.filter(([, n], i) =>
        (n > limit) !== ((termDocs.get(stems[i]!) ?? 0) > limit)
      )
        .map(([w]) => w);
      // (mostly common by the index's counts only: they count more)
      assert(apart.length >= 4, `told apart: ${apart}`);
      // beside two rarer words, a common word is left out of the match
      const rare = counts.filter(([, n]) => n >= 3 && n <= 6).map(([w]) => w);
      let compared = 0;
      for (const [i, w] of [...apart.slice(0, 3), ...apart.slice(-3)].entries()) {
        const query = `${w} ${rare[2 * i]} ${rare[2 * i + 1]}`;
        const want = await found(sqlShelf, query);
        assertEquals(await found(pgShelf, query), want, query);
        compared += want.length;
      }
      assert(compared > 30, `${compared} hits compared`);

      // a file changed (words gone, words new), then one removed
      const changed = join(lib, "markdown/from-html/postgresql-doc-15/acronyms.md");
      const text = await Deno.readTextFile(changed);
      await Deno.writeTextFile(
        changed,
        `${text.slice(0, Math.floor(text.length / 3))}\n\nQuuxly frobnicated wibbles.\n`,
      );
      assertEquals((await pgShelf.shelf.index()).indexed, 1);
      const afterChange = sqliteCounts(pgShelf);
      assertEquals(afterChange.find(([t]) => t === "frobnicated"), ["frobnicated", 1]);
      assert(JSON.stringify(afterChange) !== JSON.stringify(counts));
      assertEquals(await pgCounts(store), afterChange, "after a re-index of a changed file");
      await Deno.remove(changed);
      await pgShelf.shelf.index();
      const afterRemoval = sqliteCounts(pgShelf);
      assertEquals(afterRemoval.find(([t]) => t === "frobnicated"), undefined);
      assertEquals(await pgCounts(store), afterRemoval, "after a removal");

      // a store written before the counts were kept: they are made from its stored texts
      await pgRows(store, `DROP TABLE "${name}".df`);
      await pgShelf.reopen();
      await found(pgShelf, "apache module");
      assertEquals(await pgCounts(store), afterRemoval, "made anew from the stored texts");
    } finally {
      await server.stop().catch(() => {});
      await Deno.remove(base, { recursive: true }).catch(() => {});
    }
  },
});
