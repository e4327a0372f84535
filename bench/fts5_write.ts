/**
 * The keyword index's write cost alone: the documents of an index already built, written
 * again into a fresh keyword index (`Fts5Index.upsert`, the commits, the closing merge) with
 * FTS5 settings of one's choice, the CPU of each part counted.
 *
 * ```
 * deno run -A bench/fts5_write.ts DATA [--libraries a,b] [--batch-docs 100] [--batch-mb 0]
 *   [--automerge N] [--crisismerge N] [--hashsize BYTES] [--pgsz BYTES] [--runs 1]
 * ```
 *
 * DATA is a data folder (its `catalog.db` is only read). Its documents are written in the
 * order they were stored (rowid of `documents`), a commit after `--batch-docs` documents or
 * `--batch-mb` MB of text (the indexer commits every 100 files or 1.5 s: on the full corpus
 * about 24 documents a commit, a large PDF often alone). The text's decoding from the
 * catalog is not counted. Not a test: numbers, not assertions.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { join } from "node:path";
import type { DatabaseSync } from "node:sqlite";
import { Catalog } from "../core/catalog.ts";
import type { IndexedDoc } from "../core/types.ts";
import { Fts5Index } from "../stores/fts5.ts";

/** CPU seconds of this process so far. */
function ownCpu(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

/** FTS5 settings written to both keyword tables before the first document. */
export interface Fts5Settings {
  automerge?: number;
  crisismerge?: number;
  hashsize?: number;
  pgsz?: number;
}

/** What one replay cost, CPU seconds by part. */
export interface WriteCost {
  upsert: number;
  commit: number;
  optimize: number;
  docs: number;
  textMb: number;
  commits: number;
  /** Segments per table before the closing merge. */
  segments: Record<string, number>;
}

/** Segments of an FTS5 table: distinct segment ids of its leaves (rowid >> 37). */
function segments(db: DatabaseSync, table: string): number {
  return db.prepare(
    `SELECT count(DISTINCT id >> 37) AS n FROM ${table}_data WHERE id >= (1 << 37)`,
  ).get()?.n as number;
}

/**
 * Write the documents of `source` into a fresh keyword index in `data`.
 *
 * @param source a data folder's catalog (read only)
 * @param data a fresh folder
 * @param opts batches, settings, libraries
 */
export async function replay(
  source: string,
  data: string,
  opts: { batchDocs: number; batchMb: number; settings: Fts5Settings; libraries?: string[] },
): Promise<WriteCost> {
  const from = new Catalog(join(source, "catalog.db"));
  await Deno.mkdir(data, { recursive: true });
  const to = new Catalog(join(data, "catalog.db"));
  const fts = new Fts5Index(to.db);
  for (const t of ["docs_fts", "passages_fts"]) {
    for (const [k, v] of Object.entries(opts.settings)) {
      if (v !== undefined) {
        to.db.prepare(`INSERT INTO ${t}(${t}, rank) VALUES (?, ?)`).run(k, BigInt(v));
      }
    }
  }
  const libs = opts.libraries;
  const ids = from.db.prepare(
    `SELECT doc_id, library FROM documents ORDER BY rowid`,
  ).all().filter((r) => !libs || libs.includes(r.library as string)).map((r) => r.doc_id as string);
  const cost: WriteCost = {
    upsert: 0,
    commit: 0,
    optimize: 0,
    docs: 0,
    textMb: 0,
    commits: 0,
    segments: {},
  };
  let inBatch = 0;
  let batchBytes = 0;
  const commit = () => {
    const c0 = ownCpu();
    to.commit();
    cost.commit += ownCpu() - c0;
    cost.commits++;
    to.begin();
    inBatch = 0;
    batchBytes = 0;
  };
  to.begin();
  try {
    for (const id of ids) {
      const doc = from.get(id);
      const text = from.text(id);
      if (!doc || text === undefined) continue;
      const indexed: IndexedDoc = {
        card: doc.card,
        outline: doc.outline,
        pages: doc.pages,
        lines: text.split("\n"),
      };
      const c0 = ownCpu();
      await fts.upsert([indexed]);
      cost.upsert += ownCpu() - c0;
      cost.docs++;
      cost.textMb += text.length / 1e6;
      inBatch++;
      batchBytes += text.length;
      if (
        inBatch >= opts.batchDocs || (opts.batchMb > 0 && batchBytes >= opts.batchMb * 1e6)
      ) commit();
    }
    commit();
  } finally {
    to.commit();
  }
  for (const t of ["docs_fts", "passages_fts"]) cost.segments[t] = segments(to.db, t);
  const c0 = ownCpu();
  fts.optimize();
  cost.optimize = ownCpu() - c0;
  from.close();
  to.close();
  return cost;
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    args: Deno.args,
    allowPositionals: true,
    options: {
      libraries: { type: "string" },
      "batch-docs": { type: "string", default: "100" },
      "batch-mb": { type: "string", default: "0" },
      automerge: { type: "string" },
      crisismerge: { type: "string" },
      hashsize: { type: "string" },
      pgsz: { type: "string" },
      runs: { type: "string", default: "1" },
    },
  });
  const source = positionals[0];
  if (!source) {
    console.error("usage: deno run -A bench/fts5_write.ts DATA [options]");
    Deno.exit(2);
  }
  const num = (s?: string) => s === undefined ? undefined : Number(s);
  const settings: Fts5Settings = {
    automerge: num(values.automerge),
    crisismerge: num(values.crisismerge),
    hashsize: num(values.hashsize),
    pgsz: num(values.pgsz),
  };
  for (let run = 0; run < Number(values.runs); run++) {
    const data = await Deno.makeTempDir({ prefix: "shelfmark-fts5-write-" });
    try {
      const c = await replay(source, data, {
        batchDocs: Number(values["batch-docs"]),
        batchMb: Number(values["batch-mb"]),
        settings,
        libraries: values.libraries?.split(","),
      });
      const total = c.upsert + c.commit + c.optimize;
      console.log(
        `${JSON.stringify(settings)} batch ${values["batch-docs"]} docs / ${
          values["batch-mb"]
        } MB: ${c.docs} docs, ${c.textMb.toFixed(1)} MB text, ${c.commits} commits; ` +
          `CPU s upsert ${c.upsert.toFixed(2)}, commits ${c.commit.toFixed(2)}, ` +
          `optimize ${c.optimize.toFixed(2)}, all ${total.toFixed(2)} ` +
          `(${((1000 * total) / c.textMb).toFixed(0)} ms/MB); segments ${
            JSON.stringify(c.segments)
          }`,
      );
    } finally {
      await Deno.remove(data, { recursive: true }).catch(() => {});
    }
  }
}

if (import.meta.main) await main();
