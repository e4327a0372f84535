/**
 * The PostgreSQL keyword index's tables and its BM25 query, as SQL text.
 *
 * Tables (all prefixed `kw_`, so the catalog's tables can join them in the same database
 * later):
 * - `kw_docs`: one row per indexed document: its `id` (the postings' key; a replaced
 *   document gets a new one, as an FTS5 row gets a new rowid), `doc_id`, library, and its
 *   tokens per column (`lens`) and in all (`tokens`, BM25's document length).
 * - `kw_postings`: one row per term, document and column: the term's frequency `tf` and
 *   positions `pos` (for phrases). The key carries `tf`, so ranking reads the index only
 *   (never the rows with their positions).
 * - The passage index (FTS5's `passages_fts`, see `fts5_passages.ts`): a document's
 *   passages are its `kw_docs.plens` (tokens of each passage, by sequence number) and its
 *   rows of `kw_ppostings`: one per term and document, with the passages holding the term
 *   (`np`) and every occurrence as one number, {@link passagePosition} (passage, column:
 *   0 its title, 1 its text, offset), so a phrase is found inside one passage by the same
 *   set intersection as in a document, and the whole passage index costs a row per term
 *   and document, not per term and passage.
 * - `kw_terms`: documents per term (`df`) and passages per term (`pdf`), kept up to date in
 *   the writes' transaction.
 * - `kw_totals`: documents and tokens, passages and their tokens, per library, summed for
 *   BM25's row count and average length (one row per library, so indexers of different
 *   libraries do not wait on one row), and `gen`, raised by every write of the library: its
 *   sum over the libraries changes whenever the index does, so statistics a search derived
 *   from the index (the passages holding a phrase, {@link phraseCountSql}) hold while
 *   the sum is the same.
 *
 * @module
 */

/** The tables, created if missing. */
export const SCHEMA = `
CREATE TABLE IF NOT EXISTS kw_docs (
  id bigserial PRIMARY KEY,
  doc_id text NOT NULL UNIQUE,
  library text NOT NULL,
  lens int[] NOT NULL,
  tokens int NOT NULL,
  plens int[] NOT NULL DEFAULT '{}'
);
CREATE TABLE IF NOT EXISTS kw_postings (
  term text NOT NULL,
  doc bigint NOT NULL,
  col smallint NOT NULL,
  tf int NOT NULL,
  pos int[] NOT NULL,
  PRIMARY KEY (term, doc, col) INCLUDE (tf)
);
CREATE INDEX IF NOT EXISTS kw_postings_doc ON kw_postings (doc);
CREATE TABLE IF NOT EXISTS kw_ppostings (
  term text NOT NULL,
  doc bigint NOT NULL,
  np int NOT NULL,
  pos int8[] NOT NULL,
  PRIMARY KEY (term, doc)
);
CREATE INDEX IF NOT EXISTS kw_ppostings_doc ON kw_ppostings (doc);
CREATE TABLE IF NOT EXISTS kw_terms (
  term text PRIMARY KEY,
  df int NOT NULL,
  pdf int NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS kw_totals (
  library text PRIMARY KEY,
  docs bigint NOT NULL,
  tokens bigint NOT NULL,
  passages bigint NOT NULL DEFAULT 0,
  ptokens bigint NOT NULL DEFAULT 0,
  gen bigint NOT NULL DEFAULT 0
);
-- an index made before the passage index: its documents have no passages until rewritten
-- (ALTER only when a column is missing: it would lock the tables at every start)
DO $$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_attribute WHERE attrelid = 'kw_docs'::regclass
                 AND attname = 'plens') THEN
    ALTER TABLE kw_docs ADD COLUMN plens int[] NOT NULL DEFAULT '{}';
    ALTER TABLE kw_terms ADD COLUMN pdf int NOT NULL DEFAULT 0;
    ALTER TABLE kw_totals ADD COLUMN passages bigint NOT NULL DEFAULT 0;
    ALTER TABLE kw_totals ADD COLUMN ptokens bigint NOT NULL DEFAULT 0;
  END IF;
  IF NOT EXISTS (SELECT FROM pg_attribute WHERE attrelid = 'kw_totals'::regclass
                 AND attname = 'gen') THEN
    ALTER TABLE kw_totals ADD COLUMN gen bigint NOT NULL DEFAULT 0;
  END IF;
END $$;
`;

/** Bits of a passage position below its passage's number: the column, then the offset. */
const SEQ_SHIFT = 21;
/** Tokens of a passage column that get a position (beyond, a phrase is not found). */
export const PASSAGE_OFFSETS = 2 ** 20;

/**
 * The number `kw_ppostings.pos` holds for a token of a passage: its passage's sequence
 * number, its column (0 the passage's title, 1 its text) and its offset in the column.
 *
 * @param seq the passage's sequence number
 * @param col its column
 * @param offset the token's offset (below {@link PASSAGE_OFFSETS})
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { passagePosition } from "./postgres_sql.ts";
 * assert.equal(passagePosition(3, 1, 5) - passagePosition(3, 1, 4), 1);
 * assert.ok(passagePosition(3, 0, 9) < passagePosition(3, 1, 0));
 * ```
 */
export function passagePosition(seq: number, col: number, offset: number): number {
  return seq * 2 ** SEQ_SHIFT + col * PASSAGE_OFFSETS + offset;
}

/** A query's parameters, numbered `$1`, `$2`, ... in the order they are added. */
export class Params {
  /** The values. */
  readonly values: unknown[] = [];
  /** Add a value; its placeholder. */
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/** Where a phrase is looked for: some documents only, the body only. */
export interface Scope {
  /** Only these documents (`kw_docs.id`). */
  docs?: string;
  /** Only this column (4: the body). */
  col?: number;
}

/**
 * The rows `(doc, col, tf)` of a phrase: for one term its postings, for several the
 * documents and columns where they follow one another, with how often.
 *
 * @param tokens the phrase's terms
 * @param p the query's parameters
 * @param scope documents and column to look in
 */
export function phraseRows(tokens: string[], p: Params, scope: Scope = {}): string {
  const where = (a: string) =>
    (scope.docs ? ` AND ${a}.doc = ANY(${scope.docs})` : "") +
    (scope.col !== undefined ? ` AND ${a}.col = ${scope.col}` : "");
  if (tokens.length === 1) {
    return `SELECT doc, col, tf FROM kw_postings p0 WHERE p0.term = ${p.add(tokens[0])}${
      where("p0")
    }`;
  }
  // Each term's postings read once (OFFSET 0 keeps them apart, so they are hashed and
  // joined, not looked up once per row of the other), then the start positions where
  // every term follows: a set intersection, never a scan of one list per position of the
  // other (quadratic in a long document).
  const lists = tokens.map((t, i) =>
    `(SELECT doc, col, pos FROM kw_postings WHERE term = ${p.add(t)}${where("kw_postings")} ` +
    `OFFSET 0) p${i}`
  );
  const joins = lists.slice(1).map((l, i) =>
    `JOIN ${l} ON p${i + 1}.doc = p0.doc AND p${i + 1}.col = p0.col`
  );
  const starts = tokens.map((_, i) => `SELECT x - ${i} FROM unnest(p${i}.pos) x`)
    .join(" INTERSECT ");
  return `SELECT p0.doc, p0.col, c.tf FROM ${lists[0]} ${joins.join(" ")}
    CROSS JOIN LATERAL (SELECT count(*)::int AS tf FROM (${starts}) s) c WHERE c.tf > 0`;
}

/**
 * The phrases of one term (read together: one index scan for all of them, and a plan the
 * server makes in a fraction of the time of one subquery per word) and those of several,
 * each with its number `ph` (0-based); empty phrases match nothing.
 */
function byLength(phrases: string[][]): { singles: string[]; ph: number[]; multi: number[] } {
  const out = { singles: [] as string[], ph: [] as number[], multi: [] as number[] };
  phrases.forEach((t, ph) => {
    if (t.length === 1) {
      out.singles.push(t[0]!);
      out.ph.push(ph);
    } else if (t.length) out.multi.push(ph);
  });
  return out;
}

/** A phrase's rows `(doc, col, tf)` ({@link phraseRows}) as columns, in document order. */
export interface PhraseRows {
  /** Documents (`kw_docs.id`s). */
  docs: string[];
  /** Columns. */
  cols: number[];
  /** Occurrences. */
  tfs: number[];
}

/**
 * Every phrase's rows, tagged with its number `ph` (0-based).
 *
 * @param phrases each phrase's terms (an empty phrase has no rows)
 * @param p the query's parameters
 * @param scope documents and column to look in
 * @param known rows of phrases already found in the whole index (by phrase number), sent
 *   rather than found again (without a scope only); `null` or none: found here
 */
export function hitRows(
  phrases: string[][],
  p: Params,
  scope: Scope = {},
  known: (PhraseRows | null | undefined)[] = [],
): string {
  const { singles, ph, multi } = byLength(phrases);
  const parts = multi.map((i) => {
    const k = known[i];
    return k
      ? `SELECT ${i} AS ph, doc, col, tf FROM unnest(${p.add(k.docs)}::bigint[], ${
        p.add(k.cols)
      }::smallint[], ${p.add(k.tfs)}::int[]) AS k${i}(doc, col, tf)`
      : `SELECT ${i} AS ph, doc, col, tf FROM (${phraseRows(phrases[i]!, p, scope)}) r${i}`;
  });
  if (singles.length) {
    parts.unshift(
      // LATERAL ... OFFSET 0: each term's postings looked up by the key, never all of the
      // documents' postings hashed against the terms
      `SELECT u.ph, k.doc, k.col, k.tf
       FROM unnest(${p.add(singles)}::text[], ${p.add(ph)}::int[]) AS u(term, ph)
       CROSS JOIN LATERAL (SELECT doc, col, tf FROM kw_postings k WHERE k.term = u.term` +
        (scope.docs ? ` AND k.doc = ANY(${scope.docs})` : "") +
        (scope.col !== undefined ? ` AND k.col = ${scope.col}` : "") + " OFFSET 0) k",
    );
  }
  return parts.length
    ? parts.join("\nUNION ALL\n")
    : "SELECT 0 AS ph, 0::bigint AS doc, 0::smallint AS col, 0 AS tf LIMIT 0";
}

/** Phrases of a question up to which the ones a row holds are bits of one `int8`. */
const MASK_PHRASES = 63;

/**
 * The aggregate of the phrases a row holds, `s.phs`, over `f.ph`: a bit mask (a small
 * state per row: an `array_agg` per row of thousands made the server spill its hash
 * table to disk) unless the question has more phrases than bits.
 *
 * @param phrases the question's distinct phrases
 */
function heldSql(phrases: number): string {
  return phrases <= MASK_PHRASES ? "bit_or(1::int8 << f.ph)" : "array_agg(f.ph)";
}

/**
 * The condition that a row holds a phrase, over `s.phs` ({@link rankSql},
 * {@link passageRankSql}).
 *
 * @param ph the phrase's number
 * @param phrases the question's distinct phrases
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { holdsSql } from "./postgres_sql.ts";
 * assert.equal(holdsSql(3, 5), "((s.phs >> 3) & 1) = 1");
 * assert.equal(holdsSql(3, 70), "(3 = ANY(s.phs))");
 * ```
 */
export function holdsSql(ph: number, phrases: number): string {
  return phrases <= MASK_PHRASES ? `((s.phs >> ${ph}) & 1) = 1` : `(${ph} = ANY(s.phs))`;
}

/** The store's totals: rows and tokens (at least 1), and its generation, as text. */
function totalsSql(rows: string, tokens: string): string {
  return `SELECT greatest(coalesce(sum(${rows}), 0), 1)::float8 AS rows,
    greatest(coalesce(sum(${tokens}), 0), 1)::float8 AS toks,
    coalesce(sum(gen), 0)::text AS gen FROM kw_totals`;
}

/** FTS5's IDF of each phrase `n.ph` over `n.hit` (rows holding it), times `mult`. */
function idfSql(m: string): string {
  return `SELECT n.ph, (${m}::float8[])[n.ph + 1] *
    greatest(ln(greatest((t.rows - n.hit + 0.5) / (n.hit + 0.5), 1e-300)), 1e-6) AS idf
    FROM n CROSS JOIN t`;
}

/**
 * Documents' BM25 scores and the phrases they hold, `(doc, phs, score)`, from rows
 * `(ph, doc, freq)` of `from`, with IDFs `i`, totals `t` and the documents' lengths
 * `d.tokens` joined by `lengths` (by default `kw_docs`).
 */
function docScoreSql(
  from: string,
  phrases: number,
  lengths = "kw_docs d ON d.id = f.doc",
): string {
  return `SELECT f.doc, ${heldSql(phrases)} AS phs,
      sum(i.idf * f.freq * 2.2 / (f.freq + 1.2 * (0.25 + 0.75 * d.tokens / (t.toks / t.rows)))
        ORDER BY f.ph) AS score
    FROM ${from} f JOIN i ON i.ph = f.ph JOIN ${lengths} CROSS JOIN t
    GROUP BY f.doc`;
}

/**
 * The BM25 ranking of documents, as SQLite FTS5's `bm25()` computes it: per phrase, the
 * frequency weighted by column (`freq`), its IDF `ln((N - n + 0.5) / (n + 0.5))` (at least
 * 1e-6) over the documents holding it anywhere, and the document's length against the
 * average; summed over the phrases (a phrase listed twice counts twice: `mult`).
 *
 * @param hits the rows of {@link hitRows}
 * @param cond the match condition over `s.phs` (the phrases a document holds)
 * @param p the query's parameters (weights, multiplicities and limit are added)
 * @param weights column weights
 * @param mult how many times each phrase appears in the expression
 * @param limit documents wanted
 */
export function rankSql(
  hits: string,
  cond: string,
  p: Params,
  weights: number[],
  mult: number[],
  limit: number,
): string {
  const w = p.add(weights);
  const m = p.add(mult);
  return `WITH hits AS MATERIALIZED (${hits}),
  f AS (SELECT ph, doc, sum((${w}::float8[])[col + 1] * tf) AS freq FROM hits GROUP BY ph, doc),
  n AS (SELECT ph, count(*)::float8 AS hit FROM f GROUP BY ph),
  t AS (${totalsSql("docs", "tokens")}),
  i AS (${idfSql(m)}),
  s AS (${docScoreSql("f", mult.length)})
  SELECT t.gen, r.* FROM t LEFT JOIN (
    SELECT d.doc_id, s.doc, -s.score AS raw, s.score
    FROM (SELECT s.doc, s.score FROM s WHERE ${cond} ORDER BY s.score DESC, s.doc
          LIMIT ${p.add(limit)}) s
    JOIN kw_docs d ON d.id = s.doc) r ON true
  ORDER BY r.score DESC, r.doc`;
}

/** A bounded ranking's cut: phrases whose bounds sum below it are read for candidates only. */
export interface TopCut {
  /** The cut as a share of the sum of every phrase's bound (a first guess). */
  share: number;
  /** The cut as a score (a proven floor of the k-th best score, from an earlier try). */
  floor: number;
}

/**
 * The BM25 ranking of {@link rankSql}, reading fewer postings (MaxScore): a phrase adds at
 * most `idf × 2.2` to a document's score (BM25's `freq × 2.2 / (freq + K)` stays below
 * 2.2), so the phrases of smallest bounds whose bounds sum below the cut ({@link TopCut}:
 * the common words, which have most postings) are read only for the documents holding one of
 * the others (the candidates), and every candidate is scored exactly over all phrases. A
 * document holding none of the others scores at most `bound` (the low phrases' bounds'
 * sum): the candidates' top `limit` are the index's when there are `limit` of them
 * matching and the last scores above `bound`; the caller checks that (`low` and `kth` are
 * returned with each row) and otherwise asks again with the k-th score as the cut, or
 * ranks every document ({@link rankSql}).
 *
 * The IDFs are those of {@link rankSql}: documents holding a phrase of one word are its
 * `kw_terms.df` (summed over machines), those of a phrase of several words are sent.
 *
 * @param phrases each phrase's terms (an empty phrase matches nothing)
 * @param known every phrase of several words' rows in the whole index, by phrase number
 * @param cond the match condition over `s.phs`
 * @param p the query's parameters
 * @param weights column weights
 * @param mult how many times each phrase appears in the expression
 * @param limit documents wanted
 * @param cut where the low phrases stop
 * @returns rows `(gen, bound, low, doc_id, doc, raw, score)` best first; `low` the
 *   number of low phrases (none: every document was ranked)
 */
export function topRankSql(
  phrases: string[][],
  known: (PhraseRows | null | undefined)[],
  cond: string,
  p: Params,
  weights: number[],
  mult: number[],
  limit: number,
  cut: TopCut,
): string {
  const { singles, ph, multi } = byLength(phrases);
  const w = p.add(weights);
  const m = p.add(mult);
  const u = `(SELECT u.term, u.ph, o.low FROM unnest(${p.add(singles)}::text[], ${
    p.add(ph)
  }::int[]) AS u(term, ph) JOIN o ON o.ph = u.ph) u`;
  const rows = (low: boolean) => {
    const within = low ? " AND doc IN (SELECT doc FROM c)" : "";
    const parts = multi.map((i) => {
      const k = known[i]!;
      return `SELECT ${i} AS ph, doc, col, tf FROM unnest(${p.add(k.docs)}::bigint[], ${
        p.add(k.cols)
      }::smallint[], ${p.add(k.tfs)}::int[]) AS k${i}(doc, col, tf)
        WHERE ${low ? "" : "NOT "}(SELECT o.low FROM o WHERE o.ph = ${i})${within}`;
    });
    // the term's postings read or not as a whole (a one-time filter on the outer row); a
    // low term's for the candidates only, inside the lateral: outside it, a nested loop over
    // the candidates read a low term's every posting once per candidate (222 s for one
    // statement at 100,000 documents)
    parts.unshift(`SELECT u.ph, k.doc, k.col, k.tf FROM ${u} CROSS JOIN LATERAL (
        SELECT doc, col, tf FROM kw_postings k WHERE k.term = u.term AND ${
      low ? "" : "NOT "
    }u.low${within} OFFSET 0) k`);
    return parts.join("\nUNION ALL\n");
  };
  const docs = multi.map((i) => new Set(known[i]!.docs).size);
  return `WITH t AS (${totalsSql("docs", "tokens")}),
  n AS (SELECT u.ph, coalesce((SELECT sum(df) FROM kw_terms k WHERE k.term = u.term), 0)::float8
          AS hit FROM unnest(${p.add(singles)}::text[], ${p.add(ph)}::int[]) AS u(term, ph)
        UNION ALL SELECT * FROM unnest(${p.add(multi)}::int[], ${
    p.add(docs)
  }::float8[]) AS k(ph, hit)),
  i AS (${idfSql(m)}),
  b AS (SELECT ph, sum(idf * 2.2) OVER (ORDER BY idf, ph) AS below,
          sum(idf * 2.2) OVER () AS total FROM i),
  o AS MATERIALIZED (SELECT ph, below,
          below < greatest(${p.add(cut.floor)}::float8, ${p.add(cut.share)}::float8 * total) AS low
        FROM b),
  hits AS MATERIALIZED (${rows(false)}),
  c AS MATERIALIZED (SELECT h.doc, d.tokens FROM (SELECT DISTINCT doc FROM hits) h
          CROSS JOIN LATERAL (SELECT tokens FROM kw_docs d WHERE d.id = h.doc OFFSET 0) d),
  f AS (SELECT ph, doc, sum((${w}::float8[])[col + 1] * tf) AS freq FROM (
          SELECT * FROM hits UNION ALL
          ${rows(true)}) h
        GROUP BY ph, doc),
  s AS (${docScoreSql("f", mult.length, "c d ON d.doc = f.doc")})
  SELECT t.gen, (SELECT coalesce(max(below), 0) FROM o WHERE low) AS bound,
    (SELECT count(*)::int FROM o WHERE low) AS low, r.* FROM t LEFT JOIN (
    SELECT d.doc_id, s.doc, -s.score AS raw, s.score
    FROM (SELECT s.doc, s.score FROM s WHERE ${cond} ORDER BY s.score DESC, s.doc
          LIMIT ${p.add(limit)}) s
    JOIN kw_docs d ON d.id = s.doc) r ON true
  ORDER BY r.score DESC, r.doc`;
}

/**
 * The rows of some phrases of several words in the whole index ({@link phraseRows}), as
 * columns ({@link PhraseRows}), with the store's generation `gen` they hold for: rows
 * `(gen, k, n, docs, cols, tfs)`, one per phrase asked (`k`: its place in `phrases`; `n`
 * its rows; no arrays when it has none, or more than `most`).
 *
 * @param phrases the phrases (each of several words)
 * @param p the query's parameters
 * @param most rows of a phrase sent at most
 */
export function phraseRowsSql(phrases: string[][], p: Params, most: number): string {
  const rows = phrases.map((tokens, k) =>
    `SELECT ${k} AS k, doc, col, tf FROM (${phraseRows(tokens, p)}) r${k}`
  );
  const m = p.add(most);
  const cut = (a: string) => `CASE WHEN n <= ${m} THEN ${a} END AS ${a}`;
  return `WITH r AS (${rows.join("\nUNION ALL\n")})
  SELECT (SELECT coalesce(sum(gen), 0)::text FROM kw_totals) AS gen, u.k,
    coalesce(a.n, 0) AS n, a.docs, a.cols, a.tfs
  FROM generate_series(0, ${phrases.length - 1}) u(k) LEFT JOIN (
    SELECT k, n, ${cut("docs")}, ${cut("cols")}, ${cut("tfs")} FROM (
      SELECT k, count(*)::int AS n, array_agg(doc ORDER BY doc, col) AS docs,
        array_agg(col ORDER BY doc, col) AS cols, array_agg(tf ORDER BY doc, col) AS tfs
      FROM r GROUP BY k) a0) a ON a.k = u.k`;
}

/**
 * How many passages hold each of some phrases of several words (their IDFs' counts over
 * the passage index), with the store's generation `gen` they hold for: one row, columns
 * `p0`, `p1`, ... for the phrases asked.
 *
 * @param phrases the phrases (each of several words)
 * @param p the query's parameters
 * @param within the only documents (`kw_docs.id`s) that can hold each phrase in a passage,
 *   by its place in `phrases`; none: all
 */
export function phraseCountSql(
  phrases: string[][],
  p: Params,
  within: (string[] | undefined)[] = [],
): string {
  const counts = phrases.map((tokens, i) => {
    const docs = within[i];
    if (docs && !docs.length) return `0::float8 AS p${i}, `;
    return `(SELECT count(*) FROM (SELECT DISTINCT doc, seq FROM (${
      passagePhraseRows(tokens, p, docs && `${p.add(docs)}::bigint[]`)
    }) c) c)::float8 AS p${i}, `;
  });
  return `SELECT ${counts.join("")}(SELECT coalesce(sum(gen), 0)::text FROM kw_totals) AS gen`;
}

/**
 * The rows `(doc, seq, col, tf)` of a phrase in the passage index: the passages and columns
 * where its terms follow one another, with how often.
 *
 * @param tokens the phrase's terms (at least one)
 * @param p the query's parameters
 * @param docs only these documents (a parameter holding `kw_docs.id`s), else all
 */
export function passagePhraseRows(tokens: string[], p: Params, docs?: string): string {
  const where = docs ? ` AND kw_ppostings.doc = ANY(${docs})` : "";
  const lists = tokens.map((t, i) =>
    `(SELECT doc, pos FROM kw_ppostings WHERE term = ${p.add(t)}${where} OFFSET 0) p${i}`
  );
  const joins = lists.slice(1).map((l, i) => `JOIN ${l} ON p${i + 1}.doc = p0.doc`);
  const starts = tokens.map((_, i) => `SELECT x - ${i} AS x FROM unnest(p${i}.pos) x`)
    .join(" INTERSECT ");
  return `SELECT p0.doc, (s.x >> ${SEQ_SHIFT})::int AS seq,
      ((s.x >> 20) & 1)::int AS col, count(*)::int AS tf
    FROM ${lists[0]} ${joins.join(" ")} CROSS JOIN LATERAL (${starts}) s GROUP BY 1, 2, 3`;
}

/**
 * The BM25 ranking of some documents' passages, as FTS5's `bm25()` over the passage table
 * (`passages_fts`, columns title and text): the same formula as {@link rankSql} with the
 * statistics of all passages of the store (passages holding a phrase, passages, their
 * average length).
 *
 * @param phrases each phrase's terms (an empty phrase matches nothing)
 * @param cond the match condition over `s.phs` (the phrases a passage holds)
 * @param p the query's parameters
 * @param docs the documents (`kw_docs.id`s)
 * @param weights the passage columns' weights (title, text)
 * @param mult how many times each phrase appears in the expression
 * @param hits the passages holding each phrase of several words, by phrase number
 *   ({@link phraseCountSql}; a phrase of one word is counted here)
 * @param perDoc passages wanted per document, at most (the best of each; a manual has
 *   hundreds that match)
 * @returns rows `(doc, seq, raw, gen)`, best first (ties by document, then passage), `gen`
 *   the store's generation
 */
export function passageRankSql(
  phrases: string[][],
  cond: string,
  p: Params,
  docs: string[],
  weights: number[],
  mult: number[],
  hits: (number | undefined)[],
  perDoc: number,
): string {
  const d = `${p.add(docs)}::bigint[]`;
  const { singles, ph, multi } = byLength(phrases);
  if (!singles.length && !multi.length) {
    return "SELECT NULL::bigint AS doc, 0 AS seq, 0::float8 AS raw, '' AS gen LIMIT 0";
  }
  const rows = multi.map((i) =>
    `SELECT ${i} AS ph, doc, seq, col, tf FROM (${passagePhraseRows(phrases[i]!, p, d)}) r${i}`
  );
  const counts = [
    `SELECT * FROM unnest(${p.add(multi)}::int[], ${
      p.add(multi.map((i) => hits[i] ?? 0))
    }::float8[]) AS k(ph, hit)`,
  ];
  if (singles.length) {
    const u = `unnest(${p.add(singles)}::text[], ${p.add(ph)}::int[]) AS u(term, ph)`;
    rows.unshift(
      `SELECT u.ph, k.doc, (x >> ${SEQ_SHIFT})::int AS seq, ((x >> 20) & 1)::int AS col,
         count(*)::int AS tf
       FROM ${u} CROSS JOIN LATERAL (SELECT doc, pos FROM kw_ppostings k
         WHERE k.term = u.term AND k.doc = ANY(${d}) OFFSET 0) k
       CROSS JOIN LATERAL unnest(k.pos) x GROUP BY 1, 2, 3, 4`,
    );
    counts.unshift(
      // a probe of the term's rows (one per machine's schema, {@link acrossMachines})
      `SELECT u.ph, coalesce(k.pdf, 0)::float8 AS hit FROM ${u}
       LEFT JOIN LATERAL (SELECT sum(pdf) AS pdf FROM kw_terms k WHERE k.term = u.term) k
       ON true`,
    );
  }
  const w = p.add(weights);
  const m = p.add(mult);
  return `WITH hits AS MATERIALIZED (${rows.join("\nUNION ALL\n")}),
  f AS (SELECT ph, doc, seq, sum((${w}::float8[])[col + 1] * tf) AS freq FROM hits
        GROUP BY ph, doc, seq),
  n AS MATERIALIZED (${counts.join("\nUNION ALL\n")}),
  t AS (${totalsSql("passages", "ptokens")}),
  i AS (${idfSql(m)}),
  pl AS MATERIALIZED (SELECT d.id AS doc, (o.seq - 1)::int AS seq, o.len
         FROM kw_docs d CROSS JOIN LATERAL unnest(d.plens) WITH ORDINALITY o(len, seq)
         WHERE d.id = ANY(${d})),
  s AS (SELECT f.doc, f.seq, ${heldSql(mult.length)} AS phs,
          sum(i.idf * f.freq * 2.2 /
            (f.freq + 1.2 * (0.25 + 0.75 * pl.len / (t.toks / t.rows)))) AS score
        FROM f JOIN i ON i.ph = f.ph JOIN pl ON pl.doc = f.doc AND pl.seq = f.seq CROSS JOIN t
        GROUP BY f.doc, f.seq)
  SELECT s.doc, s.seq, -s.score AS raw, t.gen FROM (
    SELECT s.*, row_number() OVER (PARTITION BY s.doc ORDER BY s.score DESC, s.seq) AS r
    FROM s WHERE ${cond}) s CROSS JOIN t
  WHERE s.r <= ${p.add(perDoc)}
  ORDER BY s.score DESC, s.doc, s.seq`;
}

/**
 * A machine's keyword tables as a search across machines reads them: its schema, and the
 * number its documents' keys carry ({@link acrossMachines}).
 */
export interface MachineTables {
  /** The machine's name (its schema; lowercase letters, digits, `_`, `-`). */
  name: string;
  /**
   * Its number in the keys (its schema's oid: stable while the schema is); none for the
   * own machine, whose keys are its ids as they are.
   */
  key?: number;
}

/**
 * Bits of another machine's document key below its number: its `kw_docs.id`s (below 2^31:
 * two billion documents written) stay apart from each other machine's, and above the own
 * machine's (a schema's oid is at least 16384).
 */
const MACHINE_SHIFT = 31;

/** A machine's document key as SQL. */
function keyOf(column: string, m: MachineTables): string {
  return m.key === undefined ? column : `(${m.key}::int8 << ${MACHINE_SHIFT}) | ${column}`;
}

/**
 * A machine's id column as {@link acrossMachines} doubles a condition on keys with: as it is
 * for another machine (its branch read by it, the key's condition then a filter); `+ 0` for
 * the own machine, whose keys are its ids already (its branch read by the key's condition:
 * two conditions of a list each on the index would be read as every pair of them).
 */
function localOf(column: string, m: MachineTables): string {
  return m.key === undefined ? `${column} + 0` : column;
}

/** A name in a machine's schema as shown across machines: qualified, but the own's. */
function nameOf(column: string, m: MachineTables): string {
  return m.key === undefined ? column : `'${m.name}:' || ${column}`;
}

/** A machine's table, its schema named (a machine name has no quote). */
function tableOf(table: string, m: MachineTables): string {
  return `"${m.name}".${table}`;
}

/**
 * The index of a machine's `kw_docs` by the key a search across machines gives its
 * documents ({@link acrossMachines}): another machine's server finds a hit's row by it (the
 * key is an expression there), not by reading the table. Made by the machine's own writer
 * (a statement computing the schema's oid: PostgreSQL folds the key to the same expression
 * as a search's).
 *
 * @param machine the machine's name (its schema)
 */
export function keyIndexSql(machine: string): string {
  return `DO $$ BEGIN
  EXECUTE format('CREATE INDEX IF NOT EXISTS kw_docs_key ON %I.kw_docs (((%s::int8 << ${MACHINE_SHIFT}) | id))',
    '${machine}', (SELECT oid FROM pg_namespace WHERE nspname = '${machine}'));
END $$;`;
}

/**
 * A condition of a statement of this module that a row's document is among some (keys as
 * {@link acrossMachines} makes them): `alias.doc` or `alias.id` `= ANY($n::bigint[])`.
 */
const DOCS_AMONG = /\b(\w+)\.(doc|id) = ANY\(\$(\d+)::bigint\[\]\)/g;

/** Bits of a machine's own id in a document key ({@link MACHINE_SHIFT}). */
const LOCAL_ID = (1n << BigInt(MACHINE_SHIFT)) - 1n;

/**
 * A search's statement over every machine's keyword tables as one index: each `kw_*` table
 * the statement names becomes a common table expression (inlined: `NOT MATERIALIZED`) of
 * every machine's table, `UNION ALL`, so a condition on a term is pushed into each
 * machine's branch and read there by its key. Another machine's document keys carry its
 * number above its ids ({@link MachineTables}), and its `doc_id`s and libraries are
 * qualified by its name (`laptop:…`). `kw_terms` has a row per machine and term: a
 * statement sums a term's rows; the totals are summed already.
 *
 * A condition that a document is among some keys ({@link DOCS_AMONG}) would reach another
 * machine's branch as a condition on an expression of its ids, which no index serves:
 * each of a term's rows there read, its positions with it (measured: +25-30 % of the
 * server's CPU against one machine holding the same documents). So it is doubled by one
 * on the ids as they are in each machine's table (`ldoc`, `lid`: the keys' low bits, a
 * parameter added), which another machine's branch reads by its key; the keys' own
 * condition then drops another machine's document that has the same id.
 *
 * @param sql a statement of this module (a `WITH` first or none)
 * @param machines every machine's tables
 * @param values the statement's parameters (a copy is returned, with those added)
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { acrossMachines } from "./postgres_sql.ts";
 * const machines = [{ name: "srv" }, { name: "laptop", key: 16390 }];
 * const { text } = acrossMachines("SELECT doc_id FROM kw_docs", machines);
 * assert.ok(text.startsWith("WITH kw_docs AS NOT MATERIALIZED"));
 * assert.ok(text.includes(`(16390::int8 << 31) | id, 'laptop:' || doc_id`));
 * assert.ok(text.endsWith("SELECT doc_id FROM kw_docs"));
 * const key = String((16390n << 31n) | 7n);
 * const among = acrossMachines("SELECT pos FROM kw_ppostings k WHERE k.doc = ANY($1::bigint[])", machines, [[key, "5"]]);
 * assert.ok(among.text.endsWith("k.doc = ANY($1::bigint[]) AND k.ldoc = ANY($2::bigint[])"));
 * assert.deepEqual(among.values, [[key, "5"], ["7", "5"]]);
 * ```
 */
export function acrossMachines(
  sql: string,
  machines: MachineTables[],
  values: unknown[] = [],
): { text: string; values: unknown[] } {
  const union = (table: string, columns: (m: MachineTables) => string) =>
    `${table} AS NOT MATERIALIZED (${
      machines.map((m) => `SELECT ${columns(m)} FROM ${tableOf(table, m)}`).join(" UNION ALL ")
    })`;
  const tables = [
    union(
      "kw_docs",
      (m) =>
        `${keyOf("id", m)}, ${nameOf("doc_id", m)}, ${nameOf("library", m)}, lens, tokens, plens, ${
          localOf("id", m)
        } AS lid`,
    ),
    union(
      "kw_postings",
      (m) => `term, ${keyOf("doc", m)}, col, tf, pos, ${localOf("doc", m)} AS ldoc`,
    ),
    union("kw_ppostings", (m) => `term, ${keyOf("doc", m)}, np, pos, ${localOf("doc", m)} AS ldoc`),
    union("kw_terms", () => "term, df, pdf"),
    union("kw_totals", (m) => `${nameOf("library", m)}, docs, tokens, passages, ptokens, gen`),
  ].join(",\n");
  const out = [...values];
  const local = new Map<string, number>();
  const body = sql.replace(DOCS_AMONG, (all, alias: string, column: string, n: string) => {
    let at = local.get(n);
    if (at === undefined) {
      const keys = values[Number(n) - 1] as (string | number)[];
      at = out.push(keys.map((k) => String(BigInt(k) & LOCAL_ID)));
      local.set(n, at);
    }
    return `${all} AND ${alias}.l${column} = ANY($${at}::bigint[])`;
  });
  const m = /^\s*WITH\s+/.exec(body);
  const text = m ? `WITH ${tables},\n${body.slice(m[0].length)}` : `WITH ${tables}\n${body}`;
  return { text, values: out };
}

/**
 * The `kw_docs` ids (keyed as {@link acrossMachines} keys them) and `doc_id`s (qualified)
 * of some documents, each looked up by its id in its machine's schema: rows `(id, doc_id)`.
 *
 * @param local each machine's ids in its schema, by place in `machines`
 * @param machines every machine's tables
 * @param p the query's parameters
 */
export function indexedSql(local: string[][], machines: MachineTables[], p: Params): string {
  const parts = local.flatMap((ids, k) => {
    const m = machines[k]!;
    return ids.length
      ? [
        `SELECT ${keyOf("id", m)} AS id, ${nameOf("doc_id", m)} AS doc_id FROM ${
          tableOf("kw_docs", m)
        } WHERE doc_id = ANY(${p.add(ids)})`,
      ]
      : [];
  });
  return parts.length ? parts.join("\nUNION ALL\n") : "SELECT 0::int8 AS id, '' AS doc_id LIMIT 0";
}
