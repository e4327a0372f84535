/**
 * The measure step (where a document is extracted) and the rank step (the index process)
 * give what the one-step builders give, on real files of the small corpus, with real
 * corpus statistics, after crossing a process boundary as JSON.
 */
import { extname, join, relative } from "node:path";
import { assert, assertEquals } from "../tests/assert.ts";
import { smallCorpus } from "../tests/corpus.ts";
import { builtinExtractors } from "../extractors/mod.ts";
import { ExtractorRegistry } from "./registry.ts";
import { buildCard, distinctTerms, rankCard } from "./card.ts";
import { buildOutline, flattenOutline, rankOutline } from "./outline.ts";
import { measureDoc, storableLines } from "./measure.ts";
import { idfOf, keywordCandidate, topTerms } from "./terms.ts";
import { words } from "./tokenize.ts";
import { textToStore } from "./prepared_text.ts";
import type { TermStats } from "./types.ts";
import type { Extracted } from "./extractor.ts";

/** Libraries of the small corpus read here: text (GNU info has NUL bytes), Markdown, HTML, DOCX. */
const LIBRARIES = ["markdown", "text", "html", "word"];

/** The files under a folder, recursively, sorted. */
async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(dir)) {
    const p = join(dir, e.name);
    if (e.isDirectory) out.push(...await filesUnder(p));
    else if (e.isFile) out.push(p);
  }
  return out.sort();
}

/** One corpus file extracted in process: its path, extractor and result. */
interface Doc {
  path: string;
  extractor: string;
  extracted: Extracted;
}

let extractedCorpus: Promise<Doc[]> | undefined;

/** Every file of those libraries, extracted in process by the built-in extractors (once). */
function corpus(): Promise<Doc[]> {
  return extractedCorpus ??= extractCorpus();
}

async function extractCorpus(): Promise<Doc[]> {
  const root = await smallCorpus();
  const registry = new ExtractorRegistry();
  for (const ex of builtinExtractors()) registry.register(ex);
  const docs: Doc[] = [];
  for (const lib of LIBRARIES) {
    for (const abs of await filesUnder(join(root, lib))) {
      const path = relative(root, abs);
      const bytes = await Deno.readFile(abs);
      const r = await registry.extract({ path, extension: extname(path).toLowerCase(), bytes });
      if (r) docs.push({ path, extractor: r.extractor, extracted: r.extracted });
    }
  }
  return docs;
}

/** Document frequencies of the documents' terms: real corpus statistics. */
function statsOf(docs: Doc[]): TermStats {
  const df = new Map<string, number>();
  for (const d of docs) {
    for (const t of distinctTerms(d.extracted.lines)) df.set(t, (df.get(t) ?? 0) + 1);
  }
  return { docCount: () => docs.length, df: (t) => df.get(t) ?? 0 };
}

/** A value as it arrives after crossing a process boundary (JSON frames). */
function crossed<T>(value: T): T {
  return JSON.parse(JSON.stringify(value));
}

Deno.test("measured where extracted and ranked after crossing as JSON: the outline and card of the one-step builders, on corpus files", async () => {
  const docs = await corpus();
  assert(docs.length >= 60, `${docs.length} corpus files extracted`);
  const stats = statsOf(docs);
  let outlineKeywords = 0;
  let cardKeywords = 0;
  let statsMatter = 0;
  for (const doc of docs) {
    // The one step, in the index process as before.
    const one = structuredClone(doc.extracted);
    const lines = storableLines(one);
    const outline = buildOutline(lines, one.headings ?? [], stats);
    const quality = outline.length ? (one.outlineQuality ?? "high") : "none";
    const facts = {
      doc_id: "d1",
      path: doc.path,
      library: "corpus",
      doc_type: doc.extractor,
      modified_at: "2026-11-27T00:00:00.000Z",
      size: 1234,
    };
    const card = buildCard({
      ...facts,
      lines,
      extracted: one,
      outline,
      outline_quality: quality,
      stats,
    });
    // The split: measured where it was extracted, ranked where the statistics are.
    const two = structuredClone(doc.extracted);
    const m = crossed(measureDoc(doc.path, two, doc.extractor));
    assertEquals(two.lines, lines, doc.path);
    // As stored: the same JSON, keys in the same order.
    assertEquals(JSON.stringify(rankOutline(m.outline, stats)), JSON.stringify(outline), doc.path);
    const split = rankCard(m.card, facts, stats);
    assertEquals(JSON.stringify(split.card), JSON.stringify(card.card), doc.path);
    assertEquals(split.terms, card.terms, doc.path);
    assertEquals(split.distinct, card.distinct, doc.path);
    // The prepared text is what a store makes from the text itself.
    const text = lines.join("\n");
    assertEquals(textToStore(text, doc.extractor, m.text), textToStore(text, doc.extractor));
    if (flattenOutline(outline).some((n) => n.keywords?.length)) outlineKeywords++;
    if (card.card.keywords.length) cardKeywords++;
    const plain = rankCard(
      crossed(measureDoc(doc.path, structuredClone(doc.extracted), "x")).card,
      facts,
    );
    if (plain.card.keywords.join() !== card.card.keywords.join()) statsMatter++;
  }
  // Not vacuous: keywords were ranked, and the statistics changed some of them.
  assert(outlineKeywords >= 20, `${outlineKeywords} outlines with keywords`);
  assert(cardKeywords >= docs.length * 0.8, `${cardKeywords} cards with keywords`);
  assert(statsMatter >= 10, `${statsMatter} cards whose keywords the statistics changed`);
});

Deno.test("outline keywords from the keyword candidates and the word total are those from every word", async () => {
  const docs = await corpus();
  const weight = idfOf(statsOf(docs));
  let compared = 0;
  for (const doc of docs) {
    // Samples of a document's words like a section's: a short one (under 50 words, where
    // words seen once count) and a long one.
    for (const size of [200, 4000]) {
      const sample = words(doc.extracted.lines.join("\n").slice(0, size));
      if (!sample.length) continue;
      const all = new Map<string, number>();
      for (const w of sample) all.set(w, (all.get(w) ?? 0) + 1);
      const candidates = new Map([...all].filter(([w]) => keywordCandidate(w)));
      const title = new Set(sample.slice(0, 2));
      assertEquals(
        topTerms(candidates, weight, title, 3, sample.length),
        topTerms(all, weight, title, 3),
        `${doc.path} (${size} characters)`,
      );
      compared++;
    }
  }
  assert(compared >= 100, `${compared} samples compared`);
});
