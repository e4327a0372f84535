/**
 * Pages in answers, on a real long PDF of the small corpus (R-intro.pdf, about 100 pages):
 * every grep match carries the page `pdftotext -f P -l P` finds its line on; `read` gives
 * each line's page, marks where pages begin and reads a page range; a phrase that wraps a
 * line is found by grep (with the line range it spans) and by a quoted search, and a word
 * hyphenated at a line end of an OCR'd scan by grep.
 */
import { join } from "node:path";
import { callTool } from "../server/dispatch.ts";
import { assert, assertEquals, assertRejects } from "./assert.ts";
import { ToolError } from "../core/types.ts";
import { smallCorpus } from "./corpus.ts";
import { noPdftotext, pdftotextPage } from "./pdftotext.ts";
import { openTestShelf, type TestShelf } from "./shelf_helper.ts";
import { partsOf } from "../shelf/_parts.ts";

/** Text compared across extractors: NFKC, quotes folded, no white space. */
const squash = (s: string) =>
  s.normalize("NFKC").replace(/[‘’`]/g, "'").replace(/[“”]/g, '"').replace(/\s+/g, "");

/**
 * Whether a line is on a page's text: five words of it in a row (the two tools lay out
 * formulas and tables differently, so not always the whole line); a shorter line whole.
 */
function onPage(page: string, line: string): boolean {
  const words = line.trim().split(/\s+/);
  if (words.length < 5) return page.includes(squash(line));
  for (let i = 0; i + 5 <= words.length; i++) {
    if (page.includes(squash(words.slice(i, i + 5).join(" ")))) return true;
  }
  return false;
}

/** A shelf holding only R-intro.pdf, indexed, and the PDF's path and doc id. */
async function rIntro(): Promise<{ t: TestShelf; file: string; id: string }> {
  const corpus = await smallCorpus();
  const file = join(corpus, "pdf-manuals", "r-doc-pdf", "R-intro.pdf");
  const base = await Deno.makeTempDir({ prefix: "shelfmark-pages-" });
  const lib = join(base, "Manuals");
  await Deno.mkdir(lib);
  await Deno.copyFile(file, join(lib, "R-intro.pdf"));
  const t = await openTestShelf({ base, folders: [lib] });
  await t.shelf.index();
  const id = partsOf(t.shelf).catalog.idByPath("Manuals/R-intro.pdf");
  assert(id, "R-intro.pdf indexed");
  return { t, file, id };
}

interface Match {
  line: number;
  end_line?: number;
  page?: number;
  text: string;
}

Deno.test({
  name: "grep: every match of a common word in a long PDF carries the page pdftotext finds it on",
  ignore: noPdftotext,
  sanitizeResources: false,
  async fn() {
    const { t, file, id } = await rIntro();
    await using _ = t;
    const all: Match[] = [];
    for (let offset: number | null = 0; offset !== null;) {
      const g = await callTool(t.shelf, "grep", {
        pattern: "matrix",
        doc_id: id,
        context: 0,
        limit: 100,
        offset,
        output_format: "json",
      });
      all.push(...g.json.matches as Match[]);
      offset = g.json.next_offset as number | null;
    }
    assert(all.length > 30, `${all.length} matches of "matrix"`);
    const pages = new Map<number, string>();
    const wrong: string[] = [];
    for (const m of all) {
      assert(typeof m.page === "number", `line ${m.line} has no page`);
      if (!pages.has(m.page)) pages.set(m.page, squash(await pdftotextPage(file, m.page)));
      if (!onPage(pages.get(m.page)!, m.text)) wrong.push(`p.${m.page} L${m.line}: ${m.text}`);
    }
    assert(pages.size > 5, `matches on ${pages.size} pages`);
    // A line of a table or formula may be laid out otherwise by pdftotext: a few at most.
    assert(
      wrong.length <= all.length / 20,
      `lines not on the page their match names: ${wrong.join("\n")}`,
    );

    // Markdown: the page before the line, and a citation to copy.
    const md = await callTool(t.shelf, "grep", { pattern: "matrix", doc_id: id, limit: 2 });
    const first = all[0]!;
    assert(md.text.includes(`p.${first.page} L${first.line}: `), md.text);
    assert(md.text.includes(`Cite: Manuals/R-intro.pdf p.${first.page} L${first.line}`), md.text);
    // Across documents too.
    const many = await callTool(t.shelf, "grep", { pattern: "matrix", output_format: "json" });
    const docs = many.json.documents as { matches: Match[] }[];
    assertEquals(docs[0]!.matches[0]!.page, first.page);
  },
});

Deno.test({
  name: "read: lines carry their page, page starts are marked, a page range reads those pages",
  ignore: noPdftotext,
  sanitizeResources: false,
  async fn() {
    const { t, file, id } = await rIntro();
    await using _ = t;
    const one = async (page: number) =>
      (await callTool(t.shelf, "read", { doc_id: id, page, output_format: "json" })).json;
    const [p40, p41] = [await one(40), await one(41)];
    const r = await callTool(t.shelf, "read", {
      doc_id: id,
      pages: "40-41",
      output_format: "json",
    });
    const lines = r.json.lines as { n: number; text: string; page: number }[];
    assertEquals(lines[0]!.n, p40.offset, "the range starts where page 40 starts");
    assertEquals(
      lines[lines.length - 1]!.n,
      (p41.next_offset as number) - 1,
      "and ends with page 41",
    );
    assertEquals(lines.length, (p40.lines as unknown[]).length + (p41.lines as unknown[]).length);
    for (const l of lines) {
      assertEquals(l.page, l.n < (p41.offset as number) ? 40 : 41, `line ${l.n}`);
    }
    const text41 = squash(await pdftotextPage(file, 41));
    const on41 = lines.filter((l) => l.page === 41 && squash(l.text).length > 20);
    assert(on41.length > 10);
    assertEquals(on41.filter((l) => !onPage(text41, l.text)).map((l) => l.text), []);

    const md = await callTool(t.shelf, "read", { doc_id: id, pages: "40-41" });
    const marks = md.text.split("\n").filter((l) => l.startsWith("--- p."));
    assertEquals(marks, ["--- p.40 ---", "--- p.41 ---"]);
    const at41 = md.text.indexOf("--- p.41 ---");
    assert(md.text.slice(at41).split("\n")[1]!.trimStart().startsWith(`${p41.offset} | `), md.text);
    assert(md.text.includes(`Cite: Manuals/R-intro.pdf p.40-41 L${p40.offset}-`), md.text);

    // Bounded by the line limit, and it says so.
    const cut = await callTool(t.shelf, "read", {
      doc_id: id,
      pages: "2-60",
      output_format: "json",
    });
    assertEquals([(cut.json.lines as unknown[]).length, cut.json.truncated], [500, true]);
    const bad = await assertRejects(() =>
      callTool(t.shelf, "read", { doc_id: id, pages: "41-40" })
    );
    assert(bad instanceof ToolError && bad.code === "INVALID_ARGUMENT", `${bad}`);
  },
});

Deno.test({
  name:
    "grep and quoted search find a phrase across a line break, and a word hyphenated at a line end",
  ignore: noPdftotext,
  sanitizeResources: false,
  async fn() {
    const { t, id } = await rIntro();
    await using _ = t;
    const lines = partsOf(t.shelf).catalog.text(id)!.split("\n");
    const word = /^[a-z]{4,}$/;
    // A phrase of three plain words: two ending a line, one starting the next, found on no
    // single line.
    let phrase: { text: string; line: number } | undefined;
    for (let i = 0; i + 1 < lines.length && !phrase; i++) {
      const a = lines[i]!.trim().split(/\s+/);
      const b = lines[i + 1]!.trim().split(/\s+/);
      const words = [...a.slice(-2), b[0]!];
      if (a.length < 3 || !words.every((w) => word.test(w))) continue;
      const text = words.join(" ");
      if (lines.some((l) => l.includes(text))) continue;
      phrase = { text, line: i + 1 };
    }
    assert(phrase, "a phrase across a line break");
    const g = await callTool(t.shelf, "grep", {
      pattern: phrase.text,
      doc_id: id,
      output_format: "json",
    });
    const m = (g.json.matches as Match[]).find((m) => m.line === phrase!.line);
    assert(m, `grep "${phrase.text}": ${JSON.stringify(g.json.matches)}`);
    assertEquals(m.end_line, phrase.line + 1);
    const md = await callTool(t.shelf, "grep", { pattern: phrase.text, doc_id: id });
    assert(md.text.includes(`p.${m.page} L${phrase.line}-${phrase.line + 1}: `), md.text);

    const s = await callTool(t.shelf, "search", {
      query: `"${phrase.text}"`,
      output_format: "json",
    });
    const hit = (s.json.results as {
      doc_id: string;
      passages?: { start_line: number; end_line: number }[];
    }[])[0];
    assert(hit?.doc_id === id, `search "${phrase.text}": ${JSON.stringify(hit)}`);
    assert(
      hit.passages?.some((p) => p.start_line <= phrase!.line && phrase!.line + 1 <= p.end_line),
      `a passage holds lines ${phrase.line}-${phrase.line + 1}: ${JSON.stringify(hit.passages)}`,
    );
  },
});

Deno.test({
  name: "grep finds a word hyphenated at a line end whole, on page 1 of an OCR'd scan",
  sanitizeResources: false,
  async fn() {
    const corpus = await smallCorpus();
    const base = await Deno.makeTempDir({ prefix: "shelfmark-pages-" });
    const lib = join(base, "Scans");
    await Deno.mkdir(lib);
    // A page of the R FAQ, scanned: "… HTML versions of the R man-" / "uals (e.g., …".
    await Deno.copyFile(join(corpus, "scans", "R-FAQ-p9.png"), join(lib, "R-FAQ-p9.png"));
    await using t = await openTestShelf({ base, folders: [lib] });
    await t.shelf.index();
    // The scan's text is read by the background OCR after the text pass.
    await t.shelf.ocrDone();
    const id = partsOf(t.shelf).catalog.idByPath("Scans/R-FAQ-p9.png")!;
    const lines = partsOf(t.shelf).catalog.text(id)!.split("\n");
    const at = lines.findIndex((l) => /\bman-$/.test(l.trimEnd()));
    assert(at >= 0 && /^uals\b/.test(lines[at + 1]!.trimStart()), lines.slice(0, 5).join("\n"));
    const g = await callTool(t.shelf, "grep", {
      pattern: "manuals",
      doc_id: id,
      output_format: "json",
    });
    const m = (g.json.matches as Match[]).find((m) => m.line === at + 1);
    assert(m, `grep manuals: ${JSON.stringify(g.json.matches)}`);
    assertEquals([m.end_line, m.page], [at + 2, 1]);
    // A pattern that spells the hyphen keeps it: "man-uals" is found, "manuals" is not by it.
    const h = await callTool(t.shelf, "grep", {
      pattern: "R man-uals",
      doc_id: id,
      output_format: "json",
    });
    assertEquals((h.json.matches as Match[]).map((m) => [m.line, m.end_line]), [[at + 1, at + 2]]);
  },
});
