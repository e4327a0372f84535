/**
 * grep: merged context (no line twice), the markdown character cap and its note, grep
 * across documents (scope, limits, the keyword-index shortcut and the plain scan agree),
 * a runaway pattern across documents, and OCR and PDF text found by one grep.
 */
import { join } from "node:path";
import type { ToolError } from "../../core/types.ts";
import { assert, assertEquals, assertMatch, assertRejects } from "../../tests/assert.ts";
import { smallCorpus } from "../../tests/corpus.ts";
import { openTestShelf } from "../../tests/shelf_helper.ts";
import { storeAlone, storeCases } from "../../tests/store_cases.ts";
import { callTool } from "../dispatch.ts";
import { patternLiterals } from "../../shelf/grep_pattern.ts";
import type { GrepMatch } from "../../shelf/grep_worker.ts";
import { MAX_MD_CHARS } from "./grep.ts";

const sanitize = { sanitizeResources: false, sanitizeOps: false };

/** A shelf over libraries written by the test: `{ library: { file: text } }`. */
async function shelfOf(libs: Record<string, Record<string, string>>, store?: string) {
  const base = await Deno.makeTempDir({ prefix: "shelfmark-grep-" });
  const folders: string[] = [];
  for (const [lib, files] of Object.entries(libs)) {
    for (const [file, text] of Object.entries(files)) {
      await Deno.mkdir(join(base, lib, file, ".."), { recursive: true });
      await Deno.writeTextFile(join(base, lib, file), text);
    }
    folders.push(join(base, lib));
  }
  const t = await openTestShelf({ base, folders, store });
  await t.shelf.index();
  await storeAlone(t, store);
  return t;
}

type Doc = { doc_id: string; path: string; total_matches: number; matches?: GrepMatch[] };
type Many =
  & { documents: Doc[]; total_matches: number; total_documents: number }
  & Record<
    string,
    unknown
  >;

/** Every line number a JSON answer gives (match lines and context). */
function shownLines(matches: GrepMatch[]): number[] {
  return matches.flatMap((m) => [
    ...m.before.map((_, i) => m.line - m.before.length + i),
    m.line,
    ...m.after.map((_, i) => m.line + 1 + i),
  ]);
}

const numbered = (count: number, hit: (i: number) => boolean, long = "") =>
  Array.from({ length: count }, (_, i) => `${hit(i + 1) ? "needle" : "hay"} ${i + 1}${long}`)
    .join("\n");

const PHRASE = "the quokka harbour lights";
const LIBS = {
  Notes: {
    "a.md": `# Harbour\n\nIntro.\n\nWe saw ${PHRASE} at dusk.\n\nMore ${PHRASE} later.\n`,
    "sub/b.txt":
      `Log\n\nline two\n${PHRASE.toUpperCase()} in capitals\nthe decompressor and ${PHRASE}\n`,
    "c.html":
      `<html><head><title>Page C</title></head><body><h1>Page C</h1><p>Here: ${PHRASE}.</p></body></html>`,
    "d.txt": "Nothing to see here.\n",
  },
  Other: { "e.md": `# Other\n\n${PHRASE} again\n` },
};

storeCases({
  "grep: windows that overlap or touch merge into one group, no line is given twice": async (
    { store },
  ) => {
    // Matches at 10 and 12 (context 3: one group 7-15), then 30 (its own group).
    const hits = new Set([10, 12, 30]);
    await using t = await shelfOf({ Lab: { "hay.txt": numbered(60, (i) => hits.has(i)) } }, store);
    const args = { pattern: "needle", doc_id: "Lab/hay.txt", context: 3 };
    const r = await callTool(t.shelf, "grep", { ...args, output_format: "json" });
    const matches = r.json.matches as GrepMatch[];
    assertEquals(matches.map((m) => m.line), [10, 12, 30]);
    const lines = shownLines(matches);
    assertEquals(lines, [...new Set(lines)], "a line given twice");
    assertEquals(lines, [7, 8, 9, 10, 11, 12, 13, 14, 15, 27, 28, 29, 30, 31, 32, 33]);
    // Line 11 follows match 10; match 12 does not give it again. Context stops before
    // the next matching line, which comes as a match.
    assertEquals(matches[0]!.after, ["hay 11"]);
    assertEquals(matches[1]!.before, []);

    const md = (await callTool(t.shelf, "grep", args)).text;
    const body = md.split("\n").filter((l) => /^\d+[:-] /.test(l));
    const nums = body.map((l) => parseInt(l));
    assertEquals(nums, [...new Set(nums)]);
    assertEquals(md.split("\n").filter((l) => l === "--").length, 1, md);
    assert(md.includes("10: needle 10\n11- hay 11\n12: needle 12\n"), md);
    assert(md.includes("15- hay 15\n--\n27- hay 27\n"), md);

    // Touching windows (10 and 17 with context 3: 7-13 and 14-20) are one group too.
    const touch = await callTool(t.shelf, "grep", {
      pattern: "needle (10|17)$",
      doc_id: "Lab/hay.txt",
    });
    assert(!touch.text.includes("--"), touch.text);
  },
  "grep: the markdown answer stops near the character cap and says how to see more": async (
    { store },
  ) => {
    // 100 matching lines of ~300 characters, every other line: far past the cap.
    const long = " " + "word ".repeat(60);
    await using t = await shelfOf(
      {
        Lab: { "long.txt": numbered(200, (i) => i % 2 === 0, long) },
        Wide: { "w.txt": `${"x".repeat(3000)} needle ${"y".repeat(3000)}` },
      },
      store,
    );
    const args = { pattern: "needle", doc_id: "Lab/long.txt", limit: 100 };
    const json = await callTool(t.shelf, "grep", { ...args, output_format: "json" });
    assertEquals((json.json.matches as GrepMatch[]).length, 100, "JSON keeps the limit");
    assertEquals(json.json.next_offset, null);
    const md = (await callTool(t.shelf, "grep", args)).text;
    const shown = md.split("\n").filter((l) => /^\d+: needle/.test(l)).length;
    assert(shown >= 5 && shown < 100, `${shown} matches shown`);
    assert(md.length < MAX_MD_CHARS + 500, `${md.length} characters`);
    assertMatch(
      md,
      new RegExp(
        `Showing matches 1-${shown} of 100 \\(answer cut at ~6,000 characters.*Next: offset=${shown}\\.`,
      ),
    );
    // The next page starts where the note says.
    const next = await callTool(t.shelf, "grep", {
      ...args,
      offset: shown,
      output_format: "json",
    });
    assertEquals((next.json.matches as GrepMatch[])[0]!.line, 2 * (shown + 1));
    // A long matching line is cut around the match, so the match stays visible.
    const w = await callTool(t.shelf, "grep", {
      pattern: "needle",
      doc_id: "Wide/w.txt",
      output_format: "json",
    });
    const text = (w.json.matches as GrepMatch[])[0]!.text;
    assert(text.includes("needle") && text.length < 600, text.length.toString());
  },
  "grep across documents: grouped by document, scope and limits, index shortcut = full scan":
    async ({ store }) => {
      await using t = await shelfOf(LIBS, store);
      const many = async (args: Record<string, unknown>) =>
        (await callTool(t.shelf, "grep", { ...args, output_format: "json" })).json as Many;
      const paths = (r: Many) => r.documents.map((d) => d.path).sort();
      // "quokka" and "harbour" are sure words: the keyword index picks the candidates.
      assertEquals(patternLiterals(PHRASE).words.sort(), ["harbour", "quokka"]);
      const all = await many({ pattern: PHRASE });
      assertEquals(paths(all), ["Notes/a.md", "Notes/c.html", "Notes/sub/b.txt", "Other/e.md"]);
      assertEquals(all.total_matches, 5);
      assertEquals(all.documents[0]!.path, "Notes/a.md", "most matches first");
      assertEquals(all.documents[0]!.matches!.map((m) => m.line), [5, 7]);
      assertEquals(all.documents_grepped, 4, "only the documents holding the words");
      assertEquals(all.documents_in_scope, 5);
      // The same documents by a full scan (no sure word: "harbour light" may sit inside words).
      assertEquals(patternLiterals("harbour light").words, []);
      const scan = await many({ pattern: "harbour light" });
      assertEquals(paths(scan), paths(all));
      assertEquals(scan.documents_grepped, 5);
      // Case-insensitive finds the line in capitals; inside a longer word is found too.
      const ci = await many({ pattern: PHRASE, case_insensitive: true });
      assertEquals(ci.total_matches, 6);
      assertEquals(paths(await many({ pattern: "compress" })), ["Notes/sub/b.txt"]);

      // Scope: library, path_glob, doc_types.
      assertEquals(paths(await many({ pattern: PHRASE, library: "Other" })), ["Other/e.md"]);
      assertEquals(paths(await many({ pattern: PHRASE, path_glob: "Notes/sub/*" })), [
        "Notes/sub/b.txt",
      ]);
      assertEquals(paths(await many({ pattern: "harbour", doc_types: ["HTML", "text"] })), [
        "Notes/c.html",
        "Notes/sub/b.txt",
      ]);

      // Limits: documents per page, matches per document, and where to go next.
      const page = await many({ pattern: PHRASE, limit_documents: 2, limit: 1 });
      assertEquals(page.documents.length, 2);
      assertEquals(page.total_documents, 4);
      assertEquals(page.next_offset_documents, 2);
      assertEquals(page.documents[0]!.matches!.length, 1);
      assertEquals((page.documents[0] as Record<string, unknown>).next_offset, 1);
      const rest = await many({ pattern: PHRASE, limit_documents: 2, offset_documents: 2 });
      assertEquals(rest.next_offset_documents, null);
      assertEquals([...paths(page), ...paths(rest)].sort(), paths(all));
      const md =
        (await callTool(t.shelf, "grep", { pattern: PHRASE, limit_documents: 2, limit: 1 }))
          .text;
      assertMatch(
        md,
        /^5 matches in 4 documents for \/the quokka harbour lights\/ \(all libraries, 5 documents\)/,
      );
      assertMatch(md, /\[\w+\] Notes\/a\.md — Harbour: 2 matches\n(\d+- .*\n)*5: We saw/);
      assertMatch(md, /\(1 more: doc_id=\w+ offset=1\)/);
      assertMatch(md, /More documents: offset_documents=2\./);

      // Count mode: one line per document.
      const count = await callTool(t.shelf, "grep", { pattern: PHRASE, output_mode: "count" });
      assertEquals(count.text.split("\n").filter((l) => /^\[\d+\] /.test(l)).length, 4);
      assert(!count.text.includes(": We saw"), count.text);

      // Single-document arguments do not mix with the scope.
      const both = await assertRejects(() =>
        callTool(t.shelf, "grep", { pattern: "x", doc_id: "Notes/a.md", library: "Notes" })
      ) as ToolError;
      assertEquals(both.code, "INVALID_ARGUMENT");
      const noLib = await assertRejects(() =>
        callTool(t.shelf, "grep", { pattern: "x", library: "Nope" })
      ) as ToolError;
      assertEquals(noLib.code, "LIBRARY_NOT_FOUND");
    },
  "grep across documents: copies with the same text and matches are one entry": async (
    { store },
  ) => {
    const text = `# Other\n\n${PHRASE} again\n`;
    await using t = await shelfOf({
      A: { "e.md": text },
      B: { "copy.md": text, "f.md": `${text}\nmore ${PHRASE}\n` },
    }, store);
    const r = (await callTool(t.shelf, "grep", { pattern: PHRASE, output_format: "json" }))
      .json as Many;
    assertEquals(r.total_documents, 3, "the totals count every copy");
    assertEquals(r.documents.map((d) => d.path), ["B/f.md", "A/e.md"]);
    assertEquals(
      (r.documents[1] as { copies?: { path: string }[] }).copies?.map((c) => c.path),
      ["B/copy.md"],
    );
    const md = (await callTool(t.shelf, "grep", { pattern: PHRASE })).text;
    assertMatch(md, /A\/e\.md — Other: 1 match \(same in 1 copy: \[\w+\] B\/copy\.md\)/);
  },
  "grep across documents: a runaway pattern ends in PATTERN_TIMEOUT, the next grep answers": async (
    { store },
  ) => {
    await using t = await shelfOf({
      ...LIBS,
      Evil: { "evil.txt": `Evil\n\n${"a".repeat(40)}!\n`, "fine.txt": "aaa\n" },
    }, store);
    const e = await assertRejects(() =>
      callTool(t.shelf, "grep", { pattern: "(a+)+$", library: "Evil" })
    ) as ToolError;
    assertEquals(e.code, "PATTERN_TIMEOUT");
    const again = await callTool(t.shelf, "grep", { pattern: PHRASE, output_format: "json" });
    assertEquals(again.json.total_documents, 4);
  },
  "grep list: each matching document once, with its count and best line, one line each": async (
    { store },
  ) => {
    const corpus = await smallCorpus();
    await using t = await openTestShelf({ folders: [join(corpus, "text", "licenses")], store });
    await t.shelf.index();
    await storeAlone(t, store);
    const pattern = "warranty|merchantability";
    const args = { pattern, case_insensitive: true };
    const list = (await callTool(t.shelf, "grep", { ...args, list: true, output_format: "json" }))
      .json as Many;
    const counted =
      (await callTool(t.shelf, "grep", { ...args, count: true, output_format: "json" }))
        .json as Many;
    const ids = list.documents.map((d) => d.doc_id);
    assert(ids.length >= 2, `${ids.length} documents`);
    assertEquals(new Set(ids).size, ids.length, "each document once");
    assertEquals(
      Object.fromEntries(list.documents.map((d) => [d.doc_id, d.total_matches])),
      Object.fromEntries(counted.documents.map((d) => [d.doc_id, d.total_matches])),
      "the counts of count mode",
    );
    for (const d of list.documents as (Doc & { best?: GrepMatch })[]) {
      assertEquals(d.matches, undefined, "no match list");
      assertMatch(d.best!.text, /warranty|merchantability/i);
      // The best line holds both words when one of the document's lines does.
      const lines = (await Deno.readTextFile(join(corpus, "text", d.path))).split("\n");
      const both = lines.some((l) => /warranty/i.test(l) && /merchantability/i.test(l));
      if (both) assertMatch(d.best!.text, /(warranty.*merchantability|merchantability.*warranty)/i);
    }
    const md = (await callTool(t.shelf, "grep", { ...args, list: true })).text;
    const heads = md.split("\n").filter((l) => /^\[\d+\] /.test(l));
    assertEquals(heads.length, ids.length, md);
    for (const h of heads) assertMatch(h, /: \d+ match(es)? · L\d+: .*(warranty|merchantab)/i);
  },
}, sanitize);

Deno.test({
  name: "grep across the small corpus: a phrase only a scan (OCR) and a PDF hold",
  ...sanitize,
  async fn() {
    const corpus = await smallCorpus();
    // The page's scan and its PDF (copied: OCR and PDF extraction are slow), and whole
    // libraries of other formats that must not match.
    const base = await Deno.makeTempDir({ prefix: "shelfmark-grep-" });
    for (const file of ["scans/R-FAQ-p9.png", "pdf-manuals/r-doc-pdf/R-FAQ.pdf"]) {
      await Deno.mkdir(join(base, file, ".."), { recursive: true });
      await Deno.copyFile(join(corpus, file), join(base, file));
    }
    const folders = [join(base, "scans"), join(base, "pdf-manuals")];
    for (const lib of ["markdown", "text", "html"]) folders.push(join(corpus, lib));
    await using t = await openTestShelf({ base, folders });
    await t.shelf.index();
    // The scan's text is read by the background OCR after the text pass.
    await t.shelf.ocrDone();
    // From page 9 of the R FAQ: in the PDF, and in its scan through OCR.
    for (const pattern of ["an R object reference index", "fullrefman\\.pdf"]) {
      const r = (await callTool(t.shelf, "grep", { pattern, output_format: "json" }))
        .json as Many;
      assertEquals(
        r.documents.map((d) => d.path).sort(),
        ["pdf-manuals/r-doc-pdf/R-FAQ.pdf", "scans/R-FAQ-p9.png"],
        pattern,
      );
    }
    const scans = (await callTool(t.shelf, "grep", {
      pattern: "fullrefman",
      doc_types: ["image"],
      output_format: "json",
    })).json as Many;
    assertEquals(scans.documents.map((d) => d.path), ["scans/R-FAQ-p9.png"]);
  },
});
