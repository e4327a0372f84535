/**
 * PDFs through the tools: a phrase that `pdftotext` finds on page 40 of a real manual is
 * found by search, read with `page` starts at that page, outline nodes carry pages, and
 * grep finds the phrase inside the page's line range.
 */
import { join } from "node:path";
import { callTool } from "../server/dispatch.ts";
import { assert, assertEquals } from "./assert.ts";
import { smallCorpus } from "./corpus.ts";
import { noPdftotext, pdftotextPage } from "./pdftotext.ts";
import { openTestShelf } from "./shelf_helper.ts";

Deno.test({
  name: "pdf: search, outline with pages, read by page and grep on a real manual",
  ignore: noPdftotext,
  sanitizeResources: false,
  fn: async () => {
    const corpus = await smallCorpus();
    const file = join(corpus, "pdf-manuals", "bash-doc", "bashref.pdf");
    const pageText = await pdftotextPage(file, 40);
    const phrase = pageText.split("\n").map((l) => l.trim())
      .filter((l) => /^[A-Za-z][A-Za-z ,]+$/.test(l) && l.split(/\s+/).length >= 6)
      .map((l) => l.split(/\s+/).slice(0, 6).join(" "))[0];
    assert(phrase, "no plain phrase on page 40");
    // Keyword search only: the phrase is found by its words, no vectors needed.
    const t = await openTestShelf({ folders: [join(corpus, "pdf-manuals")] });
    const shelf = t.shelf;
    try {
      await shelf.index();
      const s = await callTool(shelf, "search", { query: `"${phrase}"`, output_format: "json" });
      const hit = (s.json.results as { doc_id: string; path: string }[])[0];
      assertEquals(hit?.path, "pdf-manuals/bash-doc/bashref.pdf", `search for "${phrase}"`);
      const id = hit!.doc_id;

      const ol = await callTool(shelf, "outline", { doc_ids: [id], output_format: "json" });
      const nodes = (ol.json.documents as { nodes: { page?: number }[] }[])[0]!.nodes;
      assert(nodes.every((n) => typeof n.page === "number"), "outline nodes carry pages");

      const r40 = await callTool(shelf, "read", {
        doc_id: id,
        page: 40,
        limit: 500,
        output_format: "json",
      });
      const r41 = await callTool(shelf, "read", {
        doc_id: id,
        page: 41,
        limit: 1,
        output_format: "json",
      });
      const first = r40.json.offset as number;
      const next = r41.json.offset as number;
      assert(next > first);

      const g = await callTool(shelf, "grep", {
        pattern: phrase.split(" ").join("\\s+"),
        doc_id: id,
        output_format: "json",
      });
      const lines = (g.json.matches as { line: number }[]).map((m) => m.line);
      assert(
        lines.some((l) => l >= first && l < next),
        `matches ${lines} outside page 40 [${first}, ${next})`,
      );
    } finally {
      await t.close();
    }
  },
});

Deno.test({
  name: "pdf: a question answered deep in a long manual gets a passage on the right page",
  ignore: noPdftotext,
  sanitizeResources: false,
  fn: async () => {
    const corpus = await smallCorpus();
    const file = join(corpus, "pdf-manuals", "bash-doc", "bashref.pdf");
    const page = 120;
    const pageText = await pdftotextPage(file, page);
    const sentence = pageText.split("\n").map((l) => l.trim())
      .filter((l) => /^[A-Za-z][A-Za-z ,]+$/.test(l) && l.split(/\s+/).length >= 7)[0];
    assert(sentence, `no plain sentence on page ${page}`);
    await using t = await openTestShelf({ folders: [join(corpus, "pdf-manuals")] });
    await t.shelf.index();
    // The words of the sentence, unquoted, as an agent would ask.
    const s = await callTool(t.shelf, "search", {
      query: sentence,
      limit: 5,
      output_format: "json",
    });
    const hit = (s.json.results as {
      path: string;
      passages?: { page?: number; start_line: number; end_line: number }[];
    }[]).find((r) => r.path === "pdf-manuals/bash-doc/bashref.pdf");
    assert(hit, `bashref.pdf not found for "${sentence}"`);
    const best = hit.passages?.[0];
    assert(best, "the hit carries its best passage");
    assertEquals(best.page, page, `passage ${JSON.stringify(best)} for "${sentence}"`);
    const md = await callTool(t.shelf, "search", { query: sentence, limit: 5 });
    assert(md.text.includes(`p.${page}`), md.text);
  },
});
