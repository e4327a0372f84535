/**
 * search: the answering sentence of the first hits (the sentence of the hit's best passages
 * that answers the query, with its line and page), in JSON and markdown.
 */
import { join } from "node:path";
import { assert, assertEquals, assertMatch } from "../../tests/assert.ts";
import { smallCorpus } from "../../tests/corpus.ts";
import { openTestShelf } from "../../tests/shelf_helper.ts";
import { callTool } from "../dispatch.ts";
import { storeCases } from "../../tests/store_cases.ts";

const PLANTED = "The quokka harbour lights are switched on by the night ferry captain.";

/**
 * 10,000 lines of a real license text (the small corpus's LGPL and GFDL, repeated), with a
 * paragraph planted in the middle: sentences sharing the query's words around the one that
 * answers it.
 */
async function bigText(corpus: string): Promise<{ text: string; line: number }> {
  const src = ["LGPL-2.txt", "GFDL-1.2.txt"].map((f) => join(corpus, "text", "licenses", f));
  const real = (await Promise.all(src.map((f) => Deno.readTextFile(f)))).join("\n").split("\n");
  const lines: string[] = [];
  while (lines.length < 10_000) lines.push(...real);
  lines.length = 10_000;
  const at = 5_000;
  lines.splice(
    at,
    0,
    "",
    "Harbour rules. The harbour office keeps a list of the lights.",
    "A quokka may visit the ferry at night.",
    PLANTED,
    "Captains report to the harbour office at dawn.",
    "",
  );
  return { text: lines.join("\n"), line: at + 4 };
}

storeCases({
  "search: a hit's answering sentence is the one holding the planted phrase, with its line": async (
    { store },
  ) => {
    const corpus = await smallCorpus();
    const base = await Deno.makeTempDir({ prefix: "shelfmark-answer-" });
    const { text, line } = await bigText(corpus);
    await Deno.mkdir(join(base, "Lib"));
    await Deno.writeTextFile(join(base, "Lib", "big.txt"), text);
    await Deno.copyFile(
      join(corpus, "text", "licenses", "Apache-2.0.txt"),
      join(base, "Lib", "apache.txt"),
    );
    await using t = await openTestShelf({ base, store, folders: [join(base, "Lib")] });
    await t.shelf.index();
    const query = "who switches on the quokka harbour lights";
    const js = await callTool(t.shelf, "search", { query, output_format: "json" });
    const hits = js.json.results as {
      path: string;
      answer?: { text: string; line: number; start_line: number; end_line: number };
      passages?: { start_line: number; end_line: number }[];
    }[];
    assertEquals(hits[0]!.path, "Lib/big.txt");
    // The planted sentence, maybe with the next one (a sentence or two).
    assert(hits[0]!.answer?.text.startsWith(PLANTED), hits[0]!.answer?.text);
    assertEquals(hits[0]!.answer?.line, line);
    const p = hits[0]!.passages![0]!;
    assert(p.start_line <= line && line <= p.end_line, "the passage shown holds the answer");
    // The lines to read: from the planted sentence's paragraph on, a few lines, not the
    // whole passage.
    const a = hits[0]!.answer!;
    assertEquals(a.start_line, line - 2);
    assert(line < a.end_line && a.end_line - a.start_line < 15, `${a.start_line}-${a.end_line}`);
    assert(a.end_line - a.start_line < p.end_line - p.start_line, "fewer lines than the passage");
    const md = (await callTool(t.shelf, "search", { query })).text;
    assertMatch(
      md,
      new RegExp(`\\n   L${line - 2}-${a.end_line}( §\\S+)?: ${PLANTED.replace(/\./g, "\\.")}`),
    );
    // Without passages the answer still names its lines.
    const bare = await callTool(t.shelf, "search", { query, limit_passages: 0 });
    assertMatch(bare.text, new RegExp(`\\n   L${line - 2}-\\d+: The quokka`));
  },
});
