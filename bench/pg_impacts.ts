/**
 * Would stored per-posting BM25 weights ("impacts") make the PostgreSQL store's bounded
 * ranking (`topRankSql`) read fewer postings? Asks the dev questions of a data folder whose
 * keyword index is in PostgreSQL, keeps each search's first bounded statement (captured as
 * the store sends it), and for each question measures, without changing the store:
 *
 * - `kth`: the 10th best score (every document ranked: the statement with no low phrase);
 * - `idf`: the bound the store uses, `idf × 2.2` summed over the question's phrases, and
 *   `max`: the same with each word's exact largest impact (`idf × max over its postings of
 *   freq × 2.2 / (freq + K)`, what a stored per-term maximum would give; a phrase of several
 *   words keeps 2.2);
 * - `statements`: bounded statements a search sends (first cut, then the k-th score as cut,
 *   then every document) with the store's bounds and with the exact maxima (the store's
 *   statement replayed with its bounds replaced), and whether both give the same top scores;
 * - `read`: the share of each word's best postings (by impact, the same share for every word)
 *   a threshold pass must read before the words' thresholds sum below `kth` (best case: the
 *   k-th score known in advance), and the postings that is.
 *
 * `SHELFMARK_SHARED=/work/shared deno run -A bench/pg_impacts.ts DATA_DIR [--limit N]`
 *
 * @module
 */
import { benchArgs, type Sent, sentStatements, storePool, WANT } from "./pg_statements.ts";

/** Shares of a word's best postings tried, smallest first. */
const SHARES = [0, 0.005, 0.01, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1];
/** The bounds' part of `topRankSql` (replaced to replay it with the exact maxima). */
const BOUNDS = "b AS (SELECT ph, sum(idf * 2.2) OVER (ORDER BY idf, ph) AS below,\n" +
  "          sum(idf * 2.2) OVER () AS total FROM i)";
const CUT = /greatest\(\$(\d+)::float8, \$(\d+)::float8 \* total\)/;
const PHRASES = new RegExp(
  String.raw`unnest\(\$(\d+)::text\[\], \$(\d+)::int\[\]\) AS u\(term, ph\)\s+` +
    String.raw`UNION ALL SELECT \* FROM unnest\(\$(\d+)::int\[\], \$(\d+)::float8\[\]\)`,
);

const { data, questions } = await benchArgs("pg_impacts.ts");
// each search's first bounded statement
const firsts = (await sentStatements(data, questions)).flatMap((sent) => {
  const s = sent.find((x) => CUT.test(x.text));
  return s ? [s] : [];
});
const db = await storePool(data);
const idfOf = (n: number, hit: number) =>
  Math.max(Math.log(Math.max((n - hit + 0.5) / (hit + 0.5), 1e-300)), 1e-6);

/** Rows of a statement with its cut set. */
async function ranked(s: Sent, text: string, floor: number, share: number, extra: unknown[] = []) {
  const [, f, sh] = CUT.exec(s.text)!;
  const v = [...s.values, ...extra];
  v[Number(f) - 1] = floor;
  v[Number(sh) - 1] = share;
  return (await db.query(text, v)).rows as {
    doc_id: string | null;
    score: number;
    bound: number;
    low: number;
  }[];
}

/** The store's loop (`#topRank`): statements sent, and the top scores found. */
async function loop(s: Sent, text: string, extra: unknown[]) {
  const share = s.values[Number(CUT.exec(s.text)![2]) - 1] as number;
  let cut = { floor: 0, share };
  for (let n = 1;; n++) {
    const rows = await ranked(s, text, cut.floor, cut.share, extra);
    const hits = rows.filter((r) => r.doc_id !== null);
    const kth = hits[WANT - 1]?.score;
    if (!rows[0]!.low || (kth !== undefined && kth > rows[0]!.bound * (1 + 1e-9))) {
      return { n, scores: hits.map((h) => h.score) };
    }
    if (kth === undefined || cut.floor) {
      // every document ranked (no low phrase)
      const all = await ranked(s, s.text, 0, 0);
      return { n: n + 1, scores: all.filter((r) => r.doc_id !== null).map((h) => h.score) };
    }
    cut = { floor: kth, share: 0 };
  }
}

const sum = {
  idf: 0,
  max: 0,
  statements: 0,
  statementsMax: 0,
  postings: 0,
  read: 0,
  same: 0,
  never: 0,
};
const documents = Number((await db.query("SELECT sum(docs) AS n FROM kw_totals")).rows[0].n);
for (const [k, s] of firsts.entries()) {
  const m = PHRASES.exec(s.text);
  if (!m || !s.text.includes(BOUNDS)) throw new Error("topRankSql changed: update this bench");
  const [weights, mult] = s.values as [number[], number[]];
  const at = (i: string) => s.values[Number(i) - 1];
  const terms = at(m[1]!) as string[], ph = at(m[2]!) as number[];
  const mph = at(m[3]!) as number[], mhit = at(m[4]!) as number[];
  const words = (await db.query(
    `WITH a AS (SELECT sum(tokens)::float8 / sum(docs) AS a FROM kw_totals),
     g AS (SELECT term, doc, sum(($2::float8[])[col + 1] * tf) AS f FROM kw_postings
           WHERE term = ANY($1) GROUP BY 1, 2)
     SELECT g.term, count(*)::int AS n, (SELECT sum(df) FROM kw_terms k WHERE k.term = g.term)
       AS df, percentile_disc($3::float8[]) WITHIN GROUP
       (ORDER BY 2.2 * f / (f + 1.2 * (0.25 + 0.75 * d.tokens / a.a)) DESC) AS q
     FROM g JOIN kw_docs d ON d.id = g.doc CROSS JOIN a GROUP BY g.term`,
    [terms, weights, SHARES],
  )).rows as { term: string; n: number; df: string; q: number[] }[];
  const byTerm = new Map(words.map((w) => [w.term, w]));
  const idfs = terms.map((t, i) =>
    mult[ph[i]!]! * idfOf(documents, Number(byTerm.get(t)?.df ?? 0))
  );
  const multiIdf = mph.map((p, i) => mult[p]! * idfOf(documents, mhit[i]!));
  const full = (await ranked(s, s.text, 0, 0)).filter((r) => r.doc_id !== null);
  const kth = full[WANT - 1]?.score;
  const multiBound = multiIdf.reduce((a, b) => a + b * 2.2, 0);
  const idfBound = idfs.reduce((a, b) => a + b * 2.2, 0) + multiBound;
  const maxBound = terms.reduce((a, t, i) => a + idfs[i]! * (byTerm.get(t)?.q[0] ?? 0), 0) +
    multiBound;
  // the store's statement with each word's bound its largest impact (a word without postings: 0)
  const extra = [terms, terms.map((t) => (byTerm.get(t)?.q[0] ?? 0) * (1 + 1e-9))];
  const n = s.values.length;
  const maxText = s.text.replace(
    BOUNDS,
    `b AS (SELECT ph, sum(idf * mx) OVER (ORDER BY idf * mx, ph) AS below,
       sum(idf * mx) OVER () AS total FROM (SELECT i.*, coalesce(x.mx, 2.2) AS mx FROM i
       LEFT JOIN (SELECT u.ph, x.mx FROM unnest($${m[1]}::text[], $${m[2]}::int[]) u(term, ph)
         JOIN unnest($${n + 1}::text[], $${n + 2}::float8[]) x(term, mx) ON x.term = u.term) x
       ON x.ph = i.ph) i)`,
  );
  const before = await loop(s, s.text, []);
  const after = await loop(s, maxText, extra);
  const same = JSON.stringify(before.scores?.map((x) => x.toFixed(9))) ===
    JSON.stringify(after.scores?.map((x) => x.toFixed(9)));
  const postings = words.reduce((a, w) => a + w.n, 0);
  let share: number | undefined;
  if (kth !== undefined) {
    const j = SHARES.findIndex((_, j) =>
      terms.reduce((a, t, i) => a + idfs[i]! * (byTerm.get(t)?.q[j] ?? 0), 0) < kth
    );
    share = j < 0 ? undefined : SHARES[j];
  }
  const read = share === undefined
    ? postings
    : words.reduce((a, w) => a + Math.ceil(w.n * share!), 0);
  sum.idf += idfBound;
  sum.max += maxBound;
  sum.statements += before.n;
  sum.statementsMax += after.n;
  sum.postings += postings;
  sum.read += read;
  sum.same += same ? 1 : 0;
  sum.never += share === undefined ? 1 : 0;
  console.log(
    `${k + 1}\tkth ${kth?.toFixed(2) ?? "-"}\tidf ${idfBound.toFixed(1)}\tmax ${
      maxBound.toFixed(1)
    }\tstatements ${before.n} -> ${after.n}${same ? "" : " (top scores differ)"}\tread ${
      share ?? "all"
    } (${read} of ${postings} postings)`,
  );
}
await db.end();
console.log(JSON.stringify({ questions: firsts.length, ...sum }));
