import { join } from "node:path";
import { assert, assertEquals, assertRejects } from "../tests/assert.ts";
import { toyVector } from "../tests/embed_standin.ts";
import { openTestShelf } from "../tests/shelf_helper.ts";
import type { Card, Embedder, OutlineNode } from "../core/types.ts";
import { embedText } from "./vectors.ts";
import { SEMANTIC_PASSAGES } from "../search/near_passages.ts";
import { callTool } from "../server/dispatch.ts";
import { partsOf } from "./_parts.ts";

const node = (
  id: string,
  title: string,
  level: number,
  children: OutlineNode[] = [],
  summary?: string,
): OutlineNode => ({
  id,
  title,
  level,
  start_line: 1,
  end_line: 2,
  line_count: 2,
  summary,
  children,
});

const card = {
  title: "Atomic Commit In SQLite",
  author: "D. Richard Hipp",
  keywords: ["journal", "rollback", "fsync"],
  abstract: "An important feature of transactional databases like SQLite is atomic commit.",
} as Card;

Deno.test("embedText() puts the card and top-level sections first, deeper headings last", () => {
  const outline = [
    node(
      "1",
      "Introduction",
      1,
      [node("1.1", "Hardware Assumptions", 2)],
      "Why commits must be atomic.",
    ),
    node("2", "Single File Commit", 1),
  ];
  const t = embedText(card, outline, 10_000);
  const at = (s: string) => t.indexOf(s);
  assert(at("Atomic Commit In SQLite") === 0);
  assert(at("by D. Richard Hipp") > 0);
  assert(at("journal, rollback, fsync") > at("by D. Richard Hipp"));
  assert(at("Introduction: Why commits must be atomic.") > at("fsync"));
  assert(at("Single File Commit") > at("Introduction"));
  assert(at("An important feature") > at("Single File Commit"));
  assert(at("Hardware Assumptions") > at("An important feature"));
});

Deno.test("embedText() trims to the model's limit at a word boundary", () => {
  const long = { ...card, abstract: "word ".repeat(2000) };
  const t = embedText(long, [], 300);
  assert(t.length <= 300);
  assertEquals(t.startsWith("Atomic Commit In SQLite"), true);
  assert(!t.endsWith("wor"));
});

/** The toy model of `tests/embed_standin.ts` in process, counting the documents it embeds. */
function countingEmbedder(
  settings: string,
  seen: { documents: number; queries?: number },
): Embedder {
  return {
    model: "toy",
    settings,
    dimensions: 64,
    multilingual: false,
    maxChars: 4000,
    embed: (texts, kind) => {
      if (kind !== "query") seen.documents += texts.length;
      else seen.queries = (seen.queries ?? 0) + 1;
      return Promise.resolve(texts.map((t) => Float32Array.from(toyVector(t))));
    },
  };
}

/** Three notes in a temporary library, opened with the counting embedder. */
async function notesShelf(prefix: string) {
  const base = await Deno.makeTempDir({ prefix });
  const lib = join(base, "notes");
  await Deno.mkdir(lib);
  const note = (name: string, body: string) =>
    Deno.writeTextFile(join(lib, `${name}.md`), `# ${name}\n\n${body}\n`);
  for (const name of ["cats", "dogs", "bread"]) await note(name, `A note about ${name}.`);
  const seen: { documents: number; queries?: number } = { documents: 0 };
  const s = await openTestShelf({
    base,
    folders: [lib],
    embedder: countingEmbedder("mean pooling", seen),
  });
  return { s, seen, note };
}

Deno.test({
  name: "vectors are computed again when the model's settings change, not when they stay",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const { s: shelf, seen } = await notesShelf("shelfmark-vsettings-");
    await using s = shelf;
    const run = async (settings?: string) => {
      seen.documents = 0;
      if (settings) await s.reopen({ embedder: countingEmbedder(settings, seen) });
      await s.shelf.index();
      await partsOf(s.shelf).vectors!.idle();
      return { documents: seen.documents, embedded: partsOf(s.shelf).vectors!.status().embedded };
    };
    assertEquals(await run(), { documents: 3, embedded: 3 });
    // Same settings: the stored vectors are used.
    assertEquals(await run("mean pooling"), { documents: 0, embedded: 3 });
    // Another pooling makes other vectors: every document is embedded again.
    assertEquals(await run("cls pooling"), { documents: 3, embedded: 3 });
  },
});

Deno.test({
  name: "new documents' vectors are added, changed ones replaced: one row per document",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const { s: shelf, seen, note } = await notesShelf("shelfmark-vrows-");
    await using s = shelf;
    const vectors = partsOf(s.shelf).vectors!;
    const rows = async () => {
      await s.shelf.index();
      await vectors.idle();
      const ids = await vectors.index.ids();
      return { rows: ids.length, distinct: new Set(ids).size, count: vectors.index.count() };
    };
    assertEquals(await rows(), { rows: 3, distinct: 3, count: 3 });
    const before = await vectors.index.vectorOf(
      partsOf(s.shelf).catalog.idByPath("notes/dogs.md")!,
    );
    await note("dogs", "Dogs sleep in the kitchen and bake bread on Sundays.");
    await note("chat", "Le chat dort.");
    seen.documents = 0;
    assertEquals(await rows(), { rows: 4, distinct: 4, count: 4 });
    assertEquals(seen.documents, 2);
    const after = await vectors.index.vectorOf(partsOf(s.shelf).catalog.idByPath("notes/dogs.md")!);
    assert(before && after && before.some((x, i) => x !== after[i]), "the changed note's vector");
  },
});

Deno.test({
  name: "semantic snippets: a search embeds its query once and at most SEMANTIC_PASSAGES passages",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const { s: shelf, seen, note } = await notesShelf("shelfmark-vbudget-");
    await using s = shelf;
    // Five long notes about cats; none holds the French query word "chat".
    for (let n = 1; n <= 5; n++) {
      const parts = Array.from(
        { length: 12 },
        (_, i) => `## Part ${i + 1}\n\n${i === 7 ? "Cats sleep all day." : "Bread and dogs."}`,
      );
      await note(`long${n}`, parts.join("\n\n"));
    }
    await s.shelf.index();
    await partsOf(s.shelf).vectors!.idle();
    seen.documents = 0;
    seen.queries = 0;
    const r = await callTool(s.shelf, "search", {
      query: "chat",
      mode: "semantic",
      limit: 5,
      output_format: "json",
    });
    const hits = r.json.results as { path: string; snippet?: string; passages?: unknown[] }[];
    assertEquals(hits.length, 5);
    assertEquals(seen.queries, 1, "the retriever and the snippets share the query's vector");
    assert(seen.documents > 0 && seen.documents <= SEMANTIC_PASSAGES, `${seen.documents}`);
    assert(hits[0]!.passages?.length, "the first hit points into its document");
    assert(hits.every((h) => h.snippet), "hits past the budget keep a snippet");
  },
});

Deno.test({
  name: "Shelf.close() closes its parts: the vector index, the catalog, the embedder",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const { s: shelf } = await notesShelf("shelfmark-vclose-");
    await using s = shelf;
    await s.shelf.index();
    const { vectors, catalog } = partsOf(s.shelf);
    await vectors!.idle();
    assertEquals((await vectors!.index.ids()).length, 3);
    let closed = false;
    vectors!.embedder.close = () => closed = true;
    await s.reopen();
    await assertRejects(() => vectors!.index.ids());
    assert(closed, "the embedder is closed");
    assertEquals(catalog.db.isOpen, false);
    // The new shelf opens the same vectors again.
    assertEquals(await partsOf(s.shelf).vectors!.index.open(), 3);
  },
});
