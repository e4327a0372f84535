import { join } from "node:path";
import type { ToolError } from "../core/types.ts";
import { assert, assertEquals } from "../tests/assert.ts";
import { openTestShelf } from "../tests/shelf_helper.ts";
import { storeCases } from "../tests/store_cases.ts";

const NOTE = "# Otters\n\nIntro.\n\n## Food\n\nFish and crabs.\n\n## Dens\n\nHolts by rivers.\n";

/** The error `fn` throws (or its promise rejects with). */
async function thrown(fn: () => unknown): Promise<ToolError> {
  try {
    await fn();
  } catch (e) {
    return e as ToolError;
  }
  throw new Error("no error thrown");
}

async function setup(store?: string) {
  const base = await Deno.makeTempDir({ prefix: "shelfmark-docs-" });
  await Deno.mkdir(join(base, "Zoo", "mammals"), { recursive: true });
  await Deno.writeTextFile(join(base, "Zoo", "mammals", "otters.md"), NOTE);
  await Deno.writeTextFile(join(base, "Zoo", "index.md"), "See [otters](mammals/otters.md).\n");
  const t = await openTestShelf({ base, store, folders: [join(base, "Zoo")] });
  await t.shelf.index();
  return t;
}

storeCases({
  "Shelf.findDocument() takes an id or a library path; an unknown one is undefined": async (
    { store },
  ) => {
    await using t = await setup(store);
    const id = t.shelf.findDocument("Zoo/mammals/otters.md");
    assert(id, "found by its path");
    assertEquals(t.shelf.findDocument(id), id);
    assertEquals(t.shelf.findDocument(` ${id} `), id);
    assertEquals(t.shelf.findDocument("Zoo/mammals/seals.md"), undefined);
    assertEquals(t.shelf.findDocument("0123456789abcdef"), undefined);
    const outside = await thrown(() => t.shelf.findDocument("../etc/passwd"));
    assertEquals(outside.code, "PATH_OUTSIDE_LIBRARY");
    // the same answers through the catalog store
    assertEquals(await t.shelf.findStoredDocument("Zoo/mammals/otters.md"), id);
    assertEquals(await t.shelf.findStoredDocument(` ${id} `), id);
    assertEquals(await t.shelf.findStoredDocument("Zoo/mammals/seals.md"), undefined);
    assertEquals(await t.shelf.findStoredDocument("0123456789abcdef"), undefined);
    const out = await thrown(() => t.shelf.findStoredDocument("../etc/passwd"));
    assertEquals(out.code, "PATH_OUTSIDE_LIBRARY");
  },

  "Shelf.readLines() reads a section, an offset, and refuses an offset past the end": async (
    { store },
  ) => {
    await using t = await setup(store);
    const id = t.shelf.findDocument("Zoo/mammals/otters.md")!;
    const food = await t.shelf.readLines(id, { offset: 1, section: "food" });
    assertEquals(food.lines.map((l) => l.text), ["## Food", "", "Fish and crabs.", ""]);
    assertEquals(food.path, "Zoo/mammals/otters.md");
    assertEquals(food.next_offset, 9);
    const two = await t.shelf.readLines(id, { offset: 11, limit: 2 });
    assertEquals(two.lines, [{ n: 11, text: "Holts by rivers." }]);
    assertEquals(two.next_offset, null);
    const past = await thrown(() => t.shelf.readLines(id, { offset: 99 }));
    assertEquals(past.code, "INVALID_ARGUMENT");
    const page = await thrown(() => t.shelf.readLines(id, { offset: 1, page: 1 }));
    assertEquals(page.message, `Document ${id} has no pages`);
  },

  "Shelf.outline() gives a document's card and outline; an unknown one is undefined": async (
    { store },
  ) => {
    await using t = await setup(store);
    const id = t.shelf.findDocument("Zoo/mammals/otters.md")!;
    const doc = await t.shelf.outline(id);
    assertEquals(doc?.card.path, "Zoo/mammals/otters.md");
    assertEquals(doc?.card.total_lines, NOTE.trimEnd().split("\n").length);
    assertEquals(
      doc?.outline.flatMap((n) => [n, ...n.children]).map((n) => [n.title, n.start_line]),
      [["Otters", 1], ["Food", 5], ["Dens", 9]],
    );
    assertEquals(await t.shelf.outline("0123456789abcdef"), undefined);
  },
});

Deno.test("Shelf.documentFile() gives the file inside its library, and says when it is gone", async () => {
  await using t = await setup();
  const id = t.shelf.findDocument("Zoo/mammals/otters.md")!;
  const found = t.shelf.documentFile(id);
  assert(found.ok);
  assertEquals(found.name, "otters.md");
  assertEquals(await Deno.readTextFile(found.path), NOTE);
  assertEquals(t.shelf.documentFile("0123456789abcdef"), { ok: false, error: "not_found" });
  await Deno.remove(found.path);
  assertEquals(t.shelf.documentFile(id), { ok: false, error: "gone" });
});

Deno.test("Shelf links: a document's links, its backlinks and the chain between two", async () => {
  await using t = await setup();
  const otters = t.shelf.findDocument("Zoo/mammals/otters.md")!;
  const index = t.shelf.findDocument("Zoo/index.md")!;
  const out = await t.shelf.documentLinks(index, { direction: "out", offset: 0, limit: 10 });
  assertEquals(out.outgoing?.items.map((l) => [l.kind, l.doc_id, l.path]), [
    ["document", otters, "Zoo/mammals/otters.md"],
  ]);
  assertEquals(out.incoming, undefined);
  const back = await t.shelf.documentLinks(otters, { direction: "in", offset: 0, limit: 10 });
  assertEquals(back.incoming?.items.map((l) => [l.doc_id, l.line, l.text]), [[index, 1, "otters"]]);
  const chain = await t.shelf.connection(otters, index, 3);
  assertEquals(chain.chain?.map((d) => d.path), ["Zoo/mammals/otters.md", "Zoo/index.md"]);
  assertEquals(chain.links?.[0]?.direction, "in");
});
