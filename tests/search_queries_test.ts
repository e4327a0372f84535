/** `search` with `queries`: several queries in one call, keyed by query; a bad one fails alone. */
import { join } from "node:path";
import { assert, assertEquals } from "./assert.ts";
import { openTestShelf } from "./shelf_helper.ts";
import { callTool } from "../server/dispatch.ts";

Deno.test("search queries: results keyed by query, one bad query among good ones", async () => {
  const base = await Deno.makeTempDir();
  const lib = join(base, "notes");
  await Deno.mkdir(lib);
  await Deno.writeTextFile(join(lib, "a.md"), "# Alpha\n\nThe aardvark sleeps.\n");
  await Deno.writeTextFile(join(lib, "b.md"), "# Beta\n\nThe badger digs.\n");
  await using t = await openTestShelf({ base, folders: [lib] });
  await t.shelf.index();
  const r = await callTool(t.shelf, "search", {
    queries: ["aardvark", "-badger", "badger digs"],
    output_format: "json",
  });
  const q = r.json.queries as Record<
    string,
    { results?: { path: string }[]; error?: { code: string } }
  >;
  assertEquals(Object.keys(q), ["aardvark", "-badger", "badger digs"]);
  assertEquals(q["aardvark"]!.results!.map((h) => h.path), ["notes/a.md"]);
  assertEquals(q["badger digs"]!.results!.map((h) => h.path), ["notes/b.md"]);
  assertEquals(q["-badger"]!.error!.code, "INVALID_ARGUMENT");
  const md = await callTool(t.shelf, "search", { queries: ["aardvark", "-badger"] });
  assert(/## "aardvark"\n1 document for/.test(md.text), md.text);
  assert(/## "-badger"\nerror INVALID_ARGUMENT/.test(md.text), md.text);
});

Deno.test("search: query and queries together, or neither, is a structured error", async () => {
  await using t = await openTestShelf({});
  for (const args of [{}, { query: "a", queries: ["b"] }]) {
    let code = "";
    try {
      await callTool(t.shelf, "search", args);
    } catch (e) {
      code = (e as { code: string }).code;
    }
    assertEquals(code, "INVALID_ARGUMENT", JSON.stringify(args));
  }
});

Deno.test("similar without vectors: documents like it by its keywords, and it says so", async () => {
  const base = await Deno.makeTempDir();
  const lib = join(base, "notes");
  await Deno.mkdir(lib);
  const write = (n: string, t: string) => Deno.writeTextFile(join(lib, n), t);
  await write("a.md", "# Otters\n\nRiver otters hunt fish; otters dive in cold rivers.\n");
  await write("b.md", "# Otter habitats\n\nOtters build dens by rivers and hunt fish.\n");
  await write("c.md", "# Compilers\n\nA compiler parses source code into a syntax tree.\n");
  await using t = await openTestShelf({ base, folders: [lib] }); // no embedder: no vectors
  await t.shelf.index();
  const r = await callTool(t.shelf, "similar", { doc_id: "notes/a.md", output_format: "json" });
  assertEquals(r.json.similar_by, "keywords");
  assertEquals((r.json.results as { path: string }[]).map((h) => h.path)[0], "notes/b.md");
  const md = await callTool(t.shelf, "similar", { doc_id: "notes/a.md" });
  assert(/similar to \d+ \(by keywords\)/.test(md.text), md.text);
});

Deno.test("shelf: close twice is harmless", async () => {
  const base = await Deno.makeTempDir();
  const lib = join(base, "notes");
  await Deno.mkdir(lib);
  await Deno.writeTextFile(join(lib, "a.md"), "# Alpha\n\nThe aardvark sleeps.\n");
  const t = await openTestShelf({ base, folders: [lib] });
  await t.shelf.index();
  await t.shelf.close();
  await t.shelf.close();
  await t[Symbol.asyncDispose]();
});

Deno.test("search: a one-line document says 1 line", async () => {
  const base = await Deno.makeTempDir();
  const lib = join(base, "notes");
  await Deno.mkdir(lib);
  await Deno.writeTextFile(join(lib, "b.md"), "beta words\n");
  await using t = await openTestShelf({ base, folders: [lib] });
  await t.shelf.index();
  const md = await callTool(t.shelf, "search", { query: "beta" });
  assert(!/\b1 lines\b/.test(md.text), md.text);
  const id = /\[(\w+)\] notes\/b\.md/.exec(md.text)?.[1];
  assert(id, md.text);
  const outline = await callTool(t.shelf, "outline", { doc_ids: [id] });
  assert(/\b1 line\b/.test(outline.text) && !/\b1 lines\b/.test(outline.text), outline.text);
});
