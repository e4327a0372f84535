import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { buildCard, CANDIDATE_TERMS, type CardInput, distinctTerms, rankKeywords } from "./card.ts";
import { detectLanguage, normalizeLanguage } from "./language.ts";
import { buildOutline } from "./outline.ts";
import type { TermStats } from "./types.ts";
import type { Extracted } from "./extractor.ts";
import { smallCorpus } from "../tests/corpus.ts";

function input(lines: string[], extra: Partial<CardInput> = {}, ex: Partial<Extracted> = {}) {
  const extracted: Extracted = { lines, ...ex };
  const outline = buildOutline(lines, extracted.headings ?? []);
  return {
    doc_id: "d1",
    path: "notes/guides/setup.guide.md",
    library: "notes",
    doc_type: "markdown",
    lines,
    extracted,
    outline,
    outline_quality: outline.length ? "high" : "none",
    modified_at: "2026-01-02T03:04:05Z",
    size: 1234,
    ...extra,
  } satisfies CardInput;
}

/**
 * Visible text of an Apache manual page of the small corpus (built on first use, see
 * `tests/corpus.ts`): scripts and tags dropped, common entities decoded.
 */
async function htmlText(rel: string): Promise<string> {
  const html = await Deno.readTextFile(join(await smallCorpus(), "html", "apache2-doc", rel));
  const ents: Record<string, string> = {
    auml: "ä",
    ouml: "ö",
    uuml: "ü",
    Auml: "Ä",
    Ouml: "Ö",
    Uuml: "Ü",
    szlig: "ß",
    eacute: "é",
    egrave: "è",
    agrave: "à",
    ecirc: "ê",
    ccedil: "ç",
    nbsp: " ",
    amp: "&",
    lt: "<",
    gt: ">",
    quot: '"',
    rsquo: "’",
    laquo: "«",
    raquo: "»",
  };
  return html
    .replace(/<(script|style|head)[\s\S]*?<\/\1>/gi, " ")
    .replace(/<[^>]+>/g, " ")
    .replace(/&#(\d+);/g, (_, d) => String.fromCodePoint(Number(d)))
    .replace(/&(\w+);/g, (m, e) => ents[e] ?? m)
    .replace(/\s+/g, " ");
}

Deno.test("buildCard() takes the title from metadata, then the first heading, then the file name", () => {
  const lines = ["# Heading title", "Some text."];
  const headings = [{ level: 1, title: "Heading title", line: 1 }];
  const meta = { title: " Meta  title " };
  assertEquals(buildCard(input(lines, {}, { headings, meta })).card.title, "Meta title");
  assertEquals(buildCard(input(lines, {}, { headings })).card.title, "Heading title");
  assertEquals(buildCard(input(lines)).card.title, "setup.guide");
  const untrusted = input(lines, { outline_quality: "none" }, { headings });
  assertEquals(buildCard(untrusted).card.title, "setup.guide");
});

Deno.test("buildCard() counts runs of letters or digits and CJK words, the same each time", () => {
  // `utf-8` is two runs, `x2` one; the Japanese line is three words (全文 検索 エンジン)
  const lines = ["Hello, world: utf-8 x2 ...", "全文検索エンジン", "", "  --  "];
  assertEquals(buildCard(input(lines)).card.word_count, 8);
  assertEquals(buildCard(input(lines)).card.word_count, 8);
  assertEquals(buildCard(input(["", "—"])).card.word_count, 0);
});

Deno.test("buildCard() fills counts, pages, author and brief", () => {
  const lines = ["Alpha beta gamma.", "", "Delta epsilon."];
  const { card } = buildCard(
    input(lines, {}, { pages: [1, 3], meta: { author: "Ada Lovelace", language: "en-US" } }),
  );
  assertEquals(card.word_count, 5);
  assertEquals(card.total_lines, 3);
  assertEquals(card.page_count, 2);
  assertEquals(card.author, "Ada Lovelace");
  assertEquals(card.language, "en");
  assertEquals(card.brief, true);
  assertEquals(card.has_outline, false);
  assertEquals([card.doc_id, card.library, card.size], ["d1", "notes", 1234]);
});

Deno.test("buildCard() abstract skips front matter, headings and code, and is cut near 200 words", () => {
  const body = Array.from({ length: 60 }, (_, i) => `Sentence number ${i} explains the idea.`);
  const lines = ["---", "title: X", "---", "# Heading", "```", "code_here()", "```", ...body];
  const headings = [{ level: 1, title: "Heading", line: 4 }];
  const { card } = buildCard(input(lines, {}, { headings }));
  assert(card.abstract.startsWith("Sentence number 0 explains"), card.abstract);
  assert(!card.abstract.includes("code_here") && !card.abstract.includes("title:"));
  assert(card.abstract.endsWith("…"));
  assertEquals(card.abstract.split(" ").length, 200);
});

Deno.test("normalizeLanguage() maps declared tags and ISO 639-3 codes to ISO 639-1", () => {
  assertEquals(normalizeLanguage("en-US"), "en");
  assertEquals(normalizeLanguage("pt_BR"), "pt");
  assertEquals(normalizeLanguage("deu"), "de");
  assertEquals(normalizeLanguage("haw"), "haw");
  assertEquals(normalizeLanguage(""), "und");
  assertEquals(normalizeLanguage("und"), "und");
});

Deno.test("detectLanguage() recognises real English, German, French and Japanese pages", async () => {
  assertEquals(detectLanguage(await htmlText("en/mpm.html")), "en");
  assertEquals(detectLanguage(await htmlText("de/bind.html")), "de");
  assertEquals(detectLanguage(await htmlText("fr/bind.html")), "fr");
  assertEquals(detectLanguage(await htmlText("ja/bind.html")), "ja");
});

Deno.test("detectLanguage() uses the script for Chinese and Korean and says und for no prose", () => {
  assertEquals(detectLanguage("这是一个中文测试。我们检查语言检测是否正常工作。"), "zh");
  assertEquals(
    detectLanguage("이것은 한국어 문장입니다. 언어 감지가 잘 작동하는지 확인합니다."),
    "ko",
  );
  assertEquals(detectLanguage("123 456 !!!"), "und");
  assertEquals(detectLanguage("ok"), "und");
});

Deno.test("buildCard() detects the language when none is declared", async () => {
  const text = await htmlText("de/bind.html");
  const lines = text.match(/.{1,80}(\s|$)/g)!;
  assertEquals(buildCard(input(lines)).card.language, "de");
});

const PROSE = [
  "The indexer walks every library and the indexer hands files to the extractor.",
  "The extractor reads bytes; the extractor returns lines and headings to the indexer.",
  "Zstandard compression keeps the catalog small, and zstandard is fast.",
  "Files are files, and the catalog stores files with the catalog schema.",
];

Deno.test("buildCard() keywords exclude stop words and need two occurrences in a long document", () => {
  const lines = [
    ...PROSE,
    ...Array.from({ length: 120 }, (_, i) => `Filler${i} unique${i} words${i} once${i}.`),
  ];
  const { card } = buildCard(input(lines));
  assertEquals(card.brief, false);
  assert(card.keywords.length >= 4, card.keywords.join());
  for (const k of card.keywords) assert(!["the", "and", "every", "are"].includes(k), k);
  assert(!card.keywords.some((k) => k.startsWith("unique")), card.keywords.join());
  assert(card.keywords.includes("indexer") && card.keywords.includes("extractor"));
  assert(!(card.keywords.includes("file") && card.keywords.includes("files")));
});

Deno.test("buildCard() keywords prefer words rare in the corpus and put declared tags first", () => {
  const stats: TermStats = {
    docCount: () => 10_000,
    df: (t) =>
      ({ indexer: 5000, extractor: 5000, catalog: 4000, files: 9000 } as Record<string, number>)[
        t
      ] ?? 3,
  };
  const { card } = buildCard(input(PROSE, { stats }, { meta: { tags: ["Search", "search"] } }));
  assertEquals(card.keywords[0], "search");
  assertEquals(card.keywords[1], "zstandard");
  assertEquals(card.keywords.filter((k) => k === "search").length, 1);
});

Deno.test("rankKeywords() re-ranks stored terms against new statistics", () => {
  const terms = { alpha: 9, beta: 3 };
  assertEquals(rankKeywords(terms, undefined), ["alpha", "beta"]);
  const stats: TermStats = { docCount: () => 100, df: (t) => (t === "alpha" ? 100 : 1) };
  assertEquals(rankKeywords(terms, stats), ["beta", "alpha"]);
});

Deno.test("buildCard() returns every term once in counts and at most 64 candidate terms", () => {
  const lines = Array.from(
    { length: 300 },
    (_, i) => `term${i % 150}a shared text lorem${i % 97}b.`,
  );
  const { terms, distinct } = buildCard(input(lines));
  assert(Object.keys(terms).length <= CANDIDATE_TERMS);
  assertEquals(terms.shared, 300);
  assertEquals(distinct.length, new Set(distinct).size);
  assertEquals(new Set(distinctTerms(lines)), new Set(distinct));
  // Each candidate's count is how often it occurs in the prose.
  const text = lines.join("\n");
  for (const [t, c] of Object.entries(terms)) {
    assertEquals(text.match(new RegExp(`\\b${t}\\b`, "g"))?.length, c);
  }
});

Deno.test("distinctTerms() matches buildCard() counts for a document with headings and code", () => {
  const lines = [
    "---",
    "tags: [x]",
    "---",
    "# Catalog design",
    "```",
    "secret_code()",
    "```",
    "<!--",
    "hidden",
    "-->",
    "Body text here.",
  ];
  const headings = [{ level: 1, title: "Catalog design", line: 4 }];
  const { distinct } = buildCard(input(lines, {}, { headings }));
  assertEquals(new Set(distinctTerms(lines)), new Set(distinct));
  assertEquals(new Set(distinct), new Set(["catalog", "design", "body", "text"]));
});

Deno.test("buildCard() handles a 5 MB document", () => {
  const para = "Deno servers index local documents so agents can search outlines and read lines. ";
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < 5_000_000; i++) {
    const l = `${para}Line ${i} mentions term${i % 5000} and more words here.`;
    lines.push(l);
    size += l.length + 1;
  }
  const { card } = buildCard(input(lines));
  assert(card.word_count > 700_000);
  assertEquals(card.language, "en");
});

Deno.test("buildCard: a page title loses the site name its first heading leaves out", () => {
  const { card } = buildCard({
    doc_id: "u1",
    path: "docs/library/uuid.html",
    library: "docs",
    doc_type: "html",
    lines: ["# uuid — UUID objects according to RFC 4122", "", "Text."],
    extracted: {
      lines: [],
      meta: { title: "uuid — UUID objects according to RFC 4122 — Python 3.11.2 documentation" },
    },
    outline: [{
      id: "1",
      level: 1,
      title: "uuid — UUID objects according to RFC 4122",
      start_line: 1,
      end_line: 3,
      line_count: 3,
      children: [],
    }],
    outline_quality: "high",
    modified_at: "2026-01-01T00:00:00Z",
    size: 60,
  });
  assertEquals(card.title, "uuid — UUID objects according to RFC 4122");
});

Deno.test("buildCard() titles a change log by its name, not by its latest entry", () => {
  const lines = ["2022-08-19  Release Manager", "", "\t* GCC 12.2.0 released.", ""];
  const headings = [{ level: 1, title: "2022-08-19 Release Manager", line: 1 }];
  const path = "doc/gcc-12-base/changelog.gz";
  assertEquals(
    buildCard(input(lines, { path }, { headings })).card.title,
    "gcc-12-base — changelog",
  );
  const bash = ["1. Changes to Bash (bash-5.2-release)", "", "a. Fixed."];
  const titled = input(bash, { path: "doc/bash/CHANGES.gz" }, {
    headings: [{ level: 1, title: bash[0]!, line: 1 }],
  });
  assertEquals(buildCard(titled).card.title, "bash — CHANGES");
  const named = input(["# Changelog", "", "## 1.2.0"], { path: "lib/proj/CHANGELOG.md" }, {
    headings: [{ level: 1, title: "Changelog", line: 1 }, { level: 2, title: "1.2.0", line: 3 }],
  });
  assertEquals(buildCard(named).card.title, "Changelog");
  const debian = input(["Notes for Debian."], { path: "doc/libc6/README.Debian.gz" });
  assertEquals(buildCard(debian).card.title, "libc6 — README.Debian");
});
