/**
 * Whether two index runs stored the same documents: compares two data folders' catalogs
 * document by document (type, word count, card, outline, pages, passages, links, the
 * compressed text blocks, the text fingerprint) and the skipped files.
 *
 * ```
 * deno run -A bench/catalog_diff.ts DATA_BEFORE DATA_AFTER [--show 5] [--keywords] [--index]
 * ```
 *
 * `--index` also compares what the documents are searched by: the term statistics (`df`)
 * and the keyword index's tables as FTS5 reads them (each term's rows and occurrences per
 * column, each row's column sizes, the BM25 totals, the document rows' ids), not their
 * segments, which depend on when FTS5 wrote its pending terms to disk.
 *
 * Keywords (of the card and of outline nodes) and candidate terms are left out unless
 * `--keywords` is given: they are TF-IDF over the documents indexed before each one, so
 * they depend on the order files finish in, which differs between any two runs of the same
 * code. Runs that index one file at a time in walk order (`bench/profile_index.ts`) finish
 * them in the same order: compare those with `--keywords`. A large PDF cut short by
 * the time limit on a busy machine also differs (its word count and pages tell); give both
 * runs `"limits": { "file_timeout_s": 3600 }` in `shelfmark.json` to compare them whole.
 * Not a test: a count of differences, and the fields that differ.
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { createHash } from "node:crypto";
import { parseArgs } from "node:util";

type Node = { keywords?: unknown; children?: Node[] };

/** Outline nodes without their keywords. */
function withoutKeywords(nodes: Node[]): Node[] {
  return nodes.map(({ keywords: _k, children, ...n }) => ({
    ...n,
    children: withoutKeywords(children ?? []),
  }));
}

/**
 * Each document of a data folder's catalog as comparable fields, by path.
 *
 * @param data the data folder
 * @param keywords keep the keywords of cards and outline nodes and the candidate terms
 */
export function catalogDocs(
  data: string,
  keywords = false,
): Map<string, Record<string, unknown>> {
  const db = new DatabaseSync(`${data}/catalog.db`, { readOnly: true });
  try {
    const out = new Map<string, Record<string, unknown>>();
    const passages = db.prepare(
      "SELECT seq, start_line, end_line, page, node_id, title FROM passages WHERE doc_id = ? ORDER BY seq",
    );
    const blocks = db.prepare(
      "SELECT first_line, hex(text) AS t FROM text_blocks WHERE doc_id = ? ORDER BY first_line",
    );
    const links = db.prepare(
      "SELECT line, target, text FROM links WHERE doc_id = ? ORDER BY line, target",
    );
    const docs = db.prepare(
      "SELECT doc_id, path, doc_type, word_count, card, outline, pages, terms, text_key, hex(minhash) AS minhash FROM documents",
    ).all();
    for (const r of docs) {
      const id = r.doc_id as string;
      const { indexed_at: _i, keywords: k, ...card } = JSON.parse(r.card as string);
      const text = JSON.stringify(blocks.all(id));
      const outline = JSON.parse(r.outline as string);
      out.set(r.path as string, {
        type: r.doc_type,
        words: r.word_count,
        card,
        ...(keywords ? { keywords: k, terms: r.terms } : {}),
        outline: keywords ? outline : withoutKeywords(outline),
        fingerprint: [r.text_key, r.minhash],
        pages: r.pages,
        passages: passages.all(id),
        links: links.all(id),
        text: createHash("sha256").update(text).digest("hex"),
      });
    }
    const skipped = db.prepare("SELECT path, reason FROM skipped ORDER BY path").all();
    out.set("<skipped files>", { skipped });
    return out;
  } finally {
    db.close();
  }
}

/**
 * What a data folder's documents are searched by, each part as a hash: the term statistics
 * and, for each FTS5 table of the keyword index, its vocabulary by column (`fts5vocab`),
 * its rows' column sizes and its BM25 totals; and the document rows' ids (`fts_map`).
 *
 * @param data the data folder
 */
export function indexDigest(data: string): Record<string, string> {
  const db = new DatabaseSync(`${data}/catalog.db`, { readOnly: true });
  try {
    const hash = (sql: string) => {
      const h = createHash("sha256");
      for (const r of db.prepare(sql).iterate()) h.update(JSON.stringify(Object.values(r)));
      return h.digest("hex");
    };
    const out: Record<string, string> = {
      "term statistics": hash("SELECT term, n FROM df ORDER BY term"),
      "document rows": hash("SELECT doc_id, rowid, passages FROM fts_map ORDER BY doc_id"),
    };
    for (const t of ["docs_fts", "passages_fts"]) {
      db.exec(`CREATE VIRTUAL TABLE temp.${t}_vocab USING fts5vocab(main, ${t}, col)`);
      out[`${t} terms`] = hash(`SELECT term, col, doc, cnt FROM temp.${t}_vocab`);
      out[`${t} row sizes`] = hash(`SELECT id, hex(sz) FROM ${t}_docsize ORDER BY id`);
      out[`${t} totals`] = hash(`SELECT hex(block) FROM ${t}_data WHERE id = 1`);
    }
    return out;
  } finally {
    db.close();
  }
}

if (import.meta.main) {
  const { values, positionals } = parseArgs({
    args: Deno.args,
    options: {
      show: { type: "string", default: "5" },
      keywords: { type: "boolean" },
      index: { type: "boolean" },
    },
    allowPositionals: true,
  });
  if (positionals.length !== 2) {
    console.error(
      "usage: deno run -A bench/catalog_diff.ts DATA_BEFORE DATA_AFTER [--show 5] [--keywords] [--index]",
    );
    Deno.exit(2);
  }
  const [a, b] = positionals.map((p) => catalogDocs(p, values.keywords));
  let same = 0;
  let shown = 0;
  const different: string[] = [];
  for (const path of new Set([...a!.keys(), ...b!.keys()])) {
    const x = a!.get(path);
    const y = b!.get(path);
    if (JSON.stringify(x) === JSON.stringify(y)) {
      same++;
      continue;
    }
    different.push(path);
    if (shown++ >= Number(values.show)) continue;
    const fields = x && y
      ? Object.keys(x).filter((f) => JSON.stringify(x[f]) !== JSON.stringify(y[f]))
      : [x ? "missing after" : "missing before"];
    console.log(`${path}: ${fields.join(", ")}`);
  }
  console.log(`${same} identical, ${different.length} different (documents and the skipped list)`);
  if (values.index) {
    const [x, y] = positionals.map(indexDigest);
    for (const part of Object.keys(x!)) {
      console.log(`${part}: ${x![part] === y![part] ? "the same" : "DIFFERENT"}`);
    }
  }
}
