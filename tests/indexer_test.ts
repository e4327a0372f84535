/** Incremental indexing on a real temporary library with the real extractors and catalog. */
import { join } from "node:path";
import type { Shelf } from "../shelf/shelf.ts";
import { callTool } from "../server/dispatch.ts";
import { assert, assertEquals } from "./assert.ts";
import { openTestShelf } from "./shelf_helper.ts";
import { partsOf } from "../shelf/_parts.ts";

const PNG = new Uint8Array([
  0x89,
  0x50,
  0x4e,
  0x47,
  0x0d,
  0x0a,
  0x1a,
  0x0a,
  0,
  0,
  0,
  13,
  0x49,
  0x48,
]);

async function setup() {
  const base = await Deno.makeTempDir({ prefix: "shelfmark-idx-" });
  const lib = join(base, "Notes");
  await Deno.mkdir(join(lib, "deep", "er"), { recursive: true });
  await Deno.writeTextFile(
    join(lib, "alpha.md"),
    "---\ntitle: Alpha Notes\nauthor: Ada\n---\n# Zebra crossing\n\nZebras cross roads carefully.\n",
  );
  await Deno.writeTextFile(join(lib, "deep", "beta.txt"), "BETA\n\nQuokka habitats are small.\n");
  await Deno.writeTextFile(
    join(lib, "deep", "er", "gamma.html"),
    "<html><head><title>Gamma</title></head><body><h1>Narwhal</h1><p>Narwhal tusks.</p></body></html>",
  );
  await Deno.writeFile(join(lib, "fake.txt"), PNG);
  await Deno.writeTextFile(join(lib, "README"), "Plain file without extension about axolotls.\n");
  // Keyword search only: no test here needs vectors.
  const t = await openTestShelf({ base, folders: [lib] });
  return { t, lib, shelf: t.shelf };
}

async function paths(shelf: Shelf, query: string): Promise<string[]> {
  const r = await callTool(shelf, "search", { query, output_format: "json" });
  return (r.json.results as { path: string }[]).map((h) => h.path);
}

Deno.test("indexer: indexes text formats, skips a binary .txt with a reason", async () => {
  const { t, shelf } = await setup();
  try {
    const p = await shelf.index();
    assertEquals(p.indexed, 4);
    assertEquals(p.skipped, 1);
    assertEquals(partsOf(shelf).catalog.skipped().map((s) => [s.path, s.reason]), [[
      "Notes/fake.txt",
      "binary",
    ]]);
    assertEquals(await paths(shelf, "axolotls"), ["Notes/README"]);
    const alpha = partsOf(shelf).catalog.get(partsOf(shelf).catalog.idByPath("Notes/alpha.md")!)!;
    assertEquals(alpha.card.title, "Alpha Notes");
    assertEquals(alpha.card.author, "Ada");
    assertEquals(alpha.card.doc_type, "markdown");
  } finally {
    await t.close();
  }
});

Deno.test("indexer: unchanged files are not re-extracted; changes and deletions are picked up", async () => {
  const { t, lib, shelf } = await setup();
  try {
    await shelf.index();
    const betaId = partsOf(shelf).catalog.idByPath("Notes/deep/beta.txt")!;
    const again = await shelf.index();
    assertEquals([again.indexed, again.unchanged, again.removed], [0, 4, 0]);

    // Same content, new mtime: not re-extracted, but modified_at follows the file.
    const when = new Date("2030-01-02T03:04:05Z");
    await Deno.utime(join(lib, "alpha.md"), when, when);
    const touched = await shelf.index();
    assertEquals(touched.indexed, 0);
    const alpha = partsOf(shelf).catalog.get(partsOf(shelf).catalog.idByPath("Notes/alpha.md")!)!;
    assertEquals(alpha.card.modified_at, "2030-01-02T03:04:05.000Z");

    // Changed content: re-extracted, same doc_id, new words searchable, old ones gone.
    await Deno.writeTextFile(join(lib, "deep", "beta.txt"), "BETA\n\nWombat burrows are deep.\n");
    const changed = await shelf.index();
    assertEquals(changed.indexed, 1);
    assertEquals(partsOf(shelf).catalog.idByPath("Notes/deep/beta.txt"), betaId);
    assertEquals(await paths(shelf, "wombat"), ["Notes/deep/beta.txt"]);
    assertEquals(await paths(shelf, "quokka"), []);

    // Deleted file: leaves the catalog and the full-text index.
    await Deno.remove(join(lib, "deep", "er", "gamma.html"));
    const removed = await shelf.index();
    assertEquals(removed.removed, 1);
    assertEquals(await paths(shelf, "narwhal"), []);
    assertEquals(partsOf(shelf).catalog.count(), 3);
    assert(!partsOf(shelf).catalog.idByPath("Notes/deep/er/gamma.html"));
  } finally {
    await t.close();
  }
});

Deno.test("indexer: a reopened shelf keeps its index and doc_ids", async () => {
  const { t, shelf } = await setup();
  try {
    await shelf.index();
    const id = partsOf(shelf).catalog.idByPath("Notes/alpha.md");
    const again = await t.reopen();
    assertEquals(again.libraries.map((l) => l.name), ["Notes"]);
    assertEquals(partsOf(again).catalog.idByPath("Notes/alpha.md"), id);
    const p = await again.index();
    assertEquals(p.indexed, 0);
    assertEquals(await paths(again, "zebras"), ["Notes/alpha.md"]);
  } finally {
    await t.close();
  }
});

Deno.test("status lists skipped files a page at a time", async () => {
  const { t, lib, shelf } = await setup();
  try {
    for (let i = 0; i < 24; i++) await Deno.writeFile(join(lib, `fake${i}.txt`), PNG);
    await shelf.index();
    const page = async (args: Record<string, unknown>) =>
      (await callTool(shelf, "status", { ...args, output_format: "json" })).json as {
        skipped_count: number;
        skipped: { path: string }[];
      };
    const all = await page({ skipped_limit: 1000 });
    assertEquals(all.skipped_count, 25);
    assertEquals(all.skipped.length, 25);
    const second = await page({ skipped_offset: 10, skipped_limit: 10 });
    assertEquals(second.skipped.map((s) => s.path), all.skipped.slice(10, 20).map((s) => s.path));
    const md = (await callTool(shelf, "status", {})).text;
    assert(md.includes("… 5 more (offset_skipped=20"), md);
  } finally {
    await t.close();
  }
});
