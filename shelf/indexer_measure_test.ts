/**
 * Where a document is measured (`core/measure.ts`) changes nothing the catalog stores: a
 * library indexed with extraction in a child process and in process gives the same rows.
 */
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { Catalog } from "../core/catalog.ts";
import { ExtractorRegistry } from "../core/registry.ts";
import type { ExtractFn, Library } from "../core/types.ts";
import { builtinExtractors } from "../extractors/mod.ts";
import { ExtractPool, inProcess } from "../extraction/pool.ts";
import { Fts5Index } from "../stores/fts5.ts";
import { assert, assertEquals } from "../tests/assert.ts";
import { smallCorpus } from "../tests/corpus.ts";
import { Indexer } from "./indexer.ts";

/** Index `libraries` one file at a time (the same order each time) into a fresh catalog. */
async function indexInto(dir: string, extract: ExtractFn, libraries: Library[]): Promise<number> {
  const catalog = new Catalog(join(dir, "catalog.db"));
  try {
    const keyword = new Fts5Index(catalog.db, { stats: catalog });
    const indexer = new Indexer(catalog, extract, { keyword }, { concurrency: 1 });
    const p = await indexer.run(libraries);
    assertEquals(p.skipped, 0);
    return p.indexed;
  } finally {
    catalog.close();
  }
}

/** The rows a catalog stores for its documents, as text (not the time they were indexed). */
function storedRows(dir: string) {
  const db = new DatabaseSync(join(dir, "catalog.db"), { readOnly: true });
  try {
    const rows = (sql: string) => db.prepare(sql).all().map((r) => JSON.stringify(r));
    return {
      documents: rows(
        `SELECT doc_id, library, path, doc_type, modified_at, size, mtime_ms, hash, word_count,
           card, outline, pages, terms, text_key, hex(minhash) AS minhash
         FROM documents ORDER BY doc_id`,
      ),
      text: rows(
        "SELECT doc_id, first_line, typeof(text) AS t, hex(text) AS x FROM text_blocks ORDER BY doc_id, first_line",
      ),
      passages: rows("SELECT * FROM passages ORDER BY doc_id, seq"),
      links: rows("SELECT * FROM links ORDER BY doc_id, line, target"),
      df: rows("SELECT * FROM df ORDER BY term"),
      fts: rows("SELECT doc_id, passages FROM fts_map ORDER BY doc_id"),
    };
  } finally {
    db.close();
  }
}

Deno.test("a library extracted and measured in a child process stores the rows it stores extracted in process", async () => {
  const corpus = await smallCorpus();
  // GNU info files (text) carry NUL bytes; DOCX files go through another extractor.
  const libraries = ["markdown", "text", "word"].map((name) => ({
    name,
    root: join(corpus, name),
  }));
  const base = await Deno.makeTempDir({ prefix: "shelfmark-measure-" });
  const pool = new ExtractPool({ workers: 1, isolation: "process" });
  try {
    let measuredInChild = 0;
    const child: ExtractFn = async (input) => {
      const r = await pool.extract(input);
      if (r?.measured) measuredInChild++;
      return r;
    };
    const registry = new ExtractorRegistry();
    for (const ex of builtinExtractors()) registry.register(ex);
    await Deno.mkdir(join(base, "child"));
    await Deno.mkdir(join(base, "local"));
    const indexed = await indexInto(join(base, "child"), child, libraries);
    assertEquals(await indexInto(join(base, "local"), inProcess(registry), libraries), indexed);
    assert(indexed >= 50, `${indexed} documents indexed`);
    // Every document crossed measured: the index process did not measure it again.
    assertEquals(measuredInChild, indexed);
    const a = storedRows(join(base, "child"));
    const b = storedRows(join(base, "local"));
    assertEquals(a.documents.length, indexed);
    for (const table of Object.keys(a) as (keyof typeof a)[]) {
      assertEquals(a[table], b[table], table);
    }
    // Not vacuous: cards and outlines with keywords, compressed blocks, fingerprints.
    assert(a.documents.some((r) => /\\"keywords\\":\[\\"/.test(r)), "keywords");
    assert(a.text.some((r) => r.includes('"t":"blob"')), "compressed blocks");
    assert(a.documents.some((r) => /"minhash":"[0-9A-F]{512}"/.test(r)), "fingerprints");
  } finally {
    pool.close();
    await Deno.remove(base, { recursive: true });
  }
});
