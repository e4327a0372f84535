/**
 * Links through the whole indexer: documents of the small corpus and a Markdown note are
 * indexed into a real catalog, whose `links` table holds each document's links with the
 * lines of their text, while the stored lines of HTML, EPUB and DOCX carry no targets.
 */
import { join } from "node:path";
import { assertLinksApart } from "../extractors/_links_check.ts";
import { assert, assertEquals } from "./assert.ts";
import { smallCorpus } from "./corpus.ts";
import { partsOf } from "../shelf/_parts.ts";
import { openTestShelf } from "./shelf_helper.ts";

const COPIED = {
  "warnings.html": "html/python3.11-doc/library/warnings.html",
  "2to3.docx": "word/from-html/python3.11-doc/library_2to3.docx",
  "policy.epub": "ebooks/shipped/debian-policy.epub",
};

const NOTE = "# Note\n\nSee [the other note](other.md) and [[Wiki Link|alias]].\n" +
  "Code: `[x](y)`.\n";

Deno.test("indexer stores the links of HTML, DOCX, EPUB and Markdown in the catalog", async () => {
  const corpus = await smallCorpus();
  const base = await Deno.makeTempDir({ prefix: "shelfmark-links-" });
  const lib = join(base, "Docs");
  await Deno.mkdir(lib);
  for (const [name, rel] of Object.entries(COPIED)) {
    await Deno.copyFile(join(corpus, rel), join(lib, name));
  }
  await Deno.writeTextFile(join(lib, "note.md"), NOTE);
  await using t = await openTestShelf({ base, folders: [lib] });
  const { catalog } = partsOf(t.shelf);
  await t.shelf.index();
  const id = (name: string) => catalog.idByPath(`Docs/${name}`)!;
  const doc = (name: string) => ({
    lines: catalog.text(id(name))!.split("\n"),
    links: catalog.links(id(name)),
  });

  for (const name of Object.keys(COPIED)) {
    const n = assertLinksApart(doc(name), name);
    assert(n > 20, `${name}: ${n} links`);
  }
  const html = doc("warnings.html");
  assertEquals(html.lines[0], "# warnings — Warning control");
  assertEquals(html.links[0], { target: "#module-warnings", text: "warnings", line: 1 });
  const stderr = html.links.find((l) => l.target === "sys.html#sys.stderr")!;
  assert(html.lines[stderr.line - 1]!.includes("written to sys.stderr, but their"));

  const note = doc("note.md");
  assertEquals(note.lines.join("\n") + "\n", NOTE, "a Markdown file keeps its text");
  assertEquals(note.links, [
    { target: "other.md", text: "the other note", line: 3 },
    { target: "Wiki Link", text: "alias", line: 3 },
  ]);

  // a changed file replaces its links; a deleted one takes them along
  const noteId = id("note.md");
  await Deno.writeTextFile(join(lib, "note.md"), "# Note\n\n<https://deno.com>\n");
  await t.shelf.index();
  assertEquals(catalog.links(noteId), [
    { target: "https://deno.com", text: "https://deno.com", line: 3 },
  ]);
  await Deno.remove(join(lib, "note.md"));
  await t.shelf.index();
  assertEquals(catalog.links(noteId), []);
});
