/**
 * Heading F1 of PDFs without bookmarks, on their own: every PDF of a corpus's `pdf-plain/`
 * extracted by the PDF extractor, its heuristic headings compared with the bookmarks of the
 * original (the ground truth), every heading counted. Numbers, not assertions.
 *
 * ```sh
 * deno run -A bench/pdf_headings.ts [CORPUS_DIR] [--small] [--files]
 * ```
 *
 * The corpus is CORPUS_DIR, else `$SHELFMARK_CORPUS_FULL`, else
 * `~/.cache/shelfmark/corpus-full`; `--small` takes the small corpus (built when missing).
 * `--files` adds one line per PDF, lowest F1 first.
 *
 * The main figure compares titles without section numbers (`unnumbered`, as `deno task
 * bench` does for its "heading F1, pdf-plain" row: the bookmarks of TeXinfo manuals leave
 * the numbers out); "strict" compares them as printed. Both are means over documents of
 * {@linkcode titleF1}; precision and recall pool all headings.
 *
 * @module
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { pdf } from "../extractors/pdf.ts";
import { groundTruth, normTitle, smallCorpus, titleF1 } from "../tests/corpus.ts";

/** A title without its section number ("2.1 Overview", "Appendix A Notes" → the rest). */
export const unnumbered = (t: string): string =>
  t.replace(/^\s*(?:(?:chapter|section|appendix|part)\s+)?(?:\d+|[A-Z])(?:\.\d+)*\.?\s+/i, "");

/** The measure over one corpus. */
export interface PdfHeadingScore {
  /** PDFs measured. */
  files: number;
  /** Mean heading F1, section numbers stripped on both sides. */
  f1: number;
  /** Mean heading F1 of the titles as printed. */
  strict: number;
  /** Headings found that match one of the truth (numbers stripped), over all found. */
  precision: number;
  /** Truth headings matched, over all truth headings. */
  recall: number;
  /** Per PDF: path, F1 (numbers stripped), headings found, truth headings. */
  rows: { path: string; f1: number; found: number; truth: number }[];
}

/** Matches between two title lists as multisets (numbers stripped, titles normalised). */
function matches(found: string[], truth: string[]): number {
  const pool = new Map<string, number>();
  for (const t of truth) {
    pool.set(normTitle(unnumbered(t)), (pool.get(normTitle(unnumbered(t))) ?? 0) + 1);
  }
  let hit = 0;
  for (const f of found) {
    const k = normTitle(unnumbered(f));
    const n = pool.get(k) ?? 0;
    if (n > 0) {
      hit++;
      pool.set(k, n - 1);
    }
  }
  return hit;
}

/**
 * Heading F1 of the heuristic outlines of `corpus`'s `pdf-plain/` PDFs.
 *
 * @param corpus a corpus folder (holding `GROUND_TRUTH.jsonl`)
 */
export async function pdfHeadingScore(corpus: string): Promise<PdfHeadingScore> {
  const ex = pdf();
  const rows: PdfHeadingScore["rows"] = [];
  let f1 = 0;
  let strict = 0;
  let hit = 0;
  let found = 0;
  let truth = 0;
  for (const row of (await groundTruth(corpus)).values()) {
    if (!row.path.startsWith("pdf-plain/") || !row.path.endsWith(".pdf") || !row.headings) {
      continue;
    }
    const bytes = await Deno.readFile(join(corpus, row.path));
    const doc = await ex.extract({ path: row.path, extension: ".pdf", bytes });
    const got = (doc.headings ?? []).map((h) => h.title);
    const want = row.headings.map((h) => h.title);
    const f = titleF1(got.map(unnumbered), want.map(unnumbered));
    f1 += f;
    strict += titleF1(got, want);
    hit += matches(got, want);
    found += got.length;
    truth += want.length;
    rows.push({ path: row.path, f1: f, found: got.length, truth: want.length });
  }
  const n = Math.max(1, rows.length);
  return {
    files: rows.length,
    f1: f1 / n,
    strict: strict / n,
    precision: hit / Math.max(1, found),
    recall: hit / Math.max(1, truth),
    rows,
  };
}

if (import.meta.main) {
  const { values, positionals } = parseArgs({
    args: Deno.args,
    options: { small: { type: "boolean" }, files: { type: "boolean" } },
    allowPositionals: true,
  });
  const corpus = values.small ? await smallCorpus() : positionals[0] ??
    Deno.env.get("SHELFMARK_CORPUS_FULL") ??
    join(Deno.env.get("HOME") ?? "/tmp", ".cache", "shelfmark", "corpus-full");
  const s = await pdfHeadingScore(corpus);
  if (values.files) {
    for (const r of [...s.rows].sort((a, b) => a.f1 - b.f1)) {
      console.log(`${r.f1.toFixed(3)}  found ${r.found}, truth ${r.truth}  ${r.path}`);
    }
  }
  console.log(
    `pdf-plain heading F1 ${s.f1.toFixed(3)} (section numbers stripped), ` +
      `${s.strict.toFixed(3)} strict; ${s.files} PDFs of ${corpus}; ` +
      `all headings pooled: precision ${s.precision.toFixed(3)}, recall ${s.recall.toFixed(3)}`,
  );
}
