import {
  deepStrictEqual as assertEquals,
  ok as assert,
  rejects as assertRejects,
} from "node:assert/strict";
import type { DatabaseSync } from "node:sqlite";
import type { Card, IndexedDoc, OutlineNode, SearchFilters } from "../core/types.ts";
import { ToolError } from "../core/types.ts";
import { Catalog } from "../core/catalog.ts";
import { filterSql } from "../core/catalog_sql.ts";
import { bm25Score, Fts5Index } from "./fts5.ts";
import { normalizeTime, parseQuery, prepareQuery } from "../search/query.ts";

interface DocSpec {
  id: string;
  path: string;
  title?: string;
  body?: string;
  headings?: string[];
  keywords?: string[];
  doc_type?: string;
  modified_at?: string;
}

function node(title: string, i: number): OutlineNode {
  return {
    id: `${i + 1}`,
    title,
    level: 1,
    start_line: 1,
    end_line: 1,
    line_count: 1,
    children: [],
  };
}

function makeDoc(s: DocSpec): IndexedDoc {
  const card: Card = {
    doc_id: s.id,
    path: s.path,
    library: s.path.split("/")[0]!,
    doc_type: s.doc_type ?? "markdown",
    title: s.title ?? s.path.split("/").pop()!,
    language: "en",
    word_count: 10,
    total_lines: 1,
    abstract: "",
    keywords: s.keywords ?? [],
    brief: true,
    outline_quality: "high",
    has_outline: true,
    modified_at: s.modified_at ?? "2026-01-01T00:00:00.000Z",
    size: 10,
  };
  return { card, outline: (s.headings ?? []).map(node), lines: (s.body ?? "").split("\n") };
}

/** Store documents in the catalog (the rows the search filters join). */
function put(catalog: Catalog, docs: IndexedDoc[]): void {
  for (const { card, outline, lines } of docs) {
    catalog.put({ card, outline, terms: {}, hash: card.doc_id, mtime_ms: 0 }, lines.join("\n"));
  }
}

/** A catalog with its own schema (in memory), the documents in it and in the index. */
async function setup(specs: DocSpec[]): Promise<{ db: DatabaseSync; fts: Fts5Index }> {
  const catalog = new Catalog(":memory:");
  const fts = new Fts5Index(catalog.db);
  const docs = specs.map(makeDoc);
  put(catalog, docs);
  await fts.upsert(docs);
  return { db: catalog.db, fts };
}

async function sortedIds(
  fts: Fts5Index,
  text: string,
  filters: SearchFilters,
): Promise<string[]> {
  return (await ids(fts, text, filters)).sort();
}

async function ids(
  fts: Fts5Index,
  text: string,
  filters: SearchFilters = {},
): Promise<string[]> {
  return (await fts.search(prepareQuery(text, 20, filters))).map((h) => h.doc_id);
}

const CORPUS: DocSpec[] = [
  {
    id: "a",
    path: "Docs/guides/docker-setup.md",
    title: "Docker setup",
    body: "How to install the engine.\nRun containers with compose.",
    headings: ["Installing", "Compose files"],
    keywords: ["docker", "compose"],
    doc_type: "markdown",
    modified_at: "2026-01-05T10:00:00.000Z",
  },
  {
    id: "b",
    path: "Docs/notes/misc.txt",
    title: "Miscellaneous notes",
    body: "Some words about many things.\nOnce I tried docker on a laptop and it was slow.",
    doc_type: "text",
    modified_at: "2026-02-10T08:30:00.000Z",
  },
  {
    id: "c",
    path: "Manuals/postgresql-doc-15/sql-droptsdictionary.html",
    title: "DROP TEXT SEARCH DICTIONARY",
    body: "DROP TEXT SEARCH DICTIONARY removes a text search dictionary.",
    doc_type: "html",
    modified_at: "2025-12-31T23:59:59.000Z",
  },
  {
    id: "zh",
    path: "Docs/zh/guide.md",
    title: "指南",
    body: "本文介绍如何配置数据库连接和全文检索。",
  },
  {
    id: "ja",
    path: "Docs/ja/guide.md",
    title: "ガイド",
    body: "このガイドでは全文検索エンジンの使い方を説明します。",
  },
];

Deno.test("Fts5Index.search() finds documents and tags them", async () => {
  const { db, fts } = await setup(CORPUS);
  const hits = await fts.search(prepareQuery("containers", 10));
  assertEquals(hits.map((h) => h.doc_id), ["a"]);
  assertEquals(hits[0]!.retriever, "fts5");
  assert(hits[0]!.raw < 0);
  assert(hits[0]!.score > 0 && hits[0]!.score < 1);
  db.close();
});

Deno.test("Fts5Index.search() ranks a title match above a body match", async () => {
  const { db, fts } = await setup(CORPUS);
  const hits = await fts.search(prepareQuery("docker", 10));
  assertEquals(hits.map((h) => h.doc_id), ["a", "b"]);
  assert(hits[0]!.score > hits[1]!.score);
  db.close();
});

Deno.test("Fts5Index.search() stems English words", async () => {
  const { db, fts } = await setup(CORPUS);
  assertEquals(await ids(fts, "installing containers"), ["a"]);
  assertEquals(await ids(fts, "dictionaries"), ["c"]);
  db.close();
});

Deno.test("Fts5Index.search() matches words of the path", async () => {
  const { db, fts } = await setup(CORPUS);
  assertEquals(await ids(fts, "droptsdictionary"), ["c"]);
  assertEquals(await ids(fts, "postgresql"), ["c"]);
  db.close();
});

Deno.test("Fts5Index.search() applies phrase, required and excluded terms", async () => {
  const { db, fts } = await setup(CORPUS);
  assertEquals(await ids(fts, '"text search dictionary"'), ["c"]);
  assertEquals(await ids(fts, '"search text dictionary"'), []);
  assertEquals(await ids(fts, "docker -laptop"), ["a"]);
  assertEquals(await ids(fts, "+laptop docker"), ["b"]);
  assertEquals(await ids(fts, "compose|laptop"), ["a", "b"]);
  db.close();
});

Deno.test("Fts5Index.search() rejects a query with nothing to search", async () => {
  const { db, fts } = await setup(CORPUS);
  await assertRejects(
    () => fts.search(prepareQuery("-docker", 5)),
    (e: unknown) => e instanceof ToolError && e.code === "INVALID_ARGUMENT",
  );
  db.close();
});

Deno.test("Fts5Index.search() survives FTS5 syntax in the query", async () => {
  const { db, fts } = await setup(CORPUS);
  for (const q of ['NEAR(docker "', "docker*", "^docker", "docker AND OR NOT", "a\0b"]) {
    await fts.search(prepareQuery(q, 5));
  }
  await assertRejects(
    () => fts.search(prepareQuery("((( *", 5)),
    (e: unknown) => e instanceof ToolError && e.code === "INVALID_ARGUMENT",
  );
  assertEquals(await ids(fts, "title:docker"), []);
  assertEquals(await ids(fts, "docker*"), ["a", "b"]);
  db.close();
});

Deno.test("Fts5Index.search() finds Chinese and Japanese text", async () => {
  const { db, fts } = await setup(CORPUS);
  assertEquals(await ids(fts, "数据库"), ["zh"]);
  assertEquals(await ids(fts, "配置数据库连接"), ["zh"]);
  assertEquals((await ids(fts, "全文検索"))[0], "ja");
  assertEquals(await ids(fts, '"全文検索"'), ["ja"]);
  assertEquals(await ids(fts, '"検索エンジン"'), ["ja"]);
  const [hit] = await fts.search(prepareQuery("検索エンジン", 1));
  assertEquals(hit?.snippet, "このガイドでは全文**検索エンジン**の使い方を説明します。");
  db.close();
});

Deno.test("Fts5Index.search() returns a one-line snippet around the match", async () => {
  const body = Array.from({ length: 200 }, (_, i) => `filler line ${i} of text`).join("\n") +
    "\nthe quick brown fox jumps over the lazy dog\n" + "more filler ".repeat(300);
  const { db, fts } = await setup([{ id: "x", path: "L/x.md", title: "Animals", body }]);
  const [hit] = await fts.search(prepareQuery("fox", 1));
  const snippet = hit?.snippet ?? "";
  assert(snippet.includes("**fox**"), snippet);
  assert(!snippet.includes("\n"));
  assert(snippet.length <= 200);
  const [titleHit] = await fts.search(prepareQuery("animals", 1));
  assertEquals(titleHit?.snippet, "**Animals**");
  db.close();
});

Deno.test("Fts5Index.search() applies each filter", async () => {
  const { db, fts } = await setup(CORPUS);
  assertEquals(await sortedIds(fts, "docker", { doc_types: ["text"] }), ["b"]);
  assertEquals(await sortedIds(fts, "docker", { doc_types: ["text", "markdown"] }), ["a", "b"]);
  assertEquals(await sortedIds(fts, "docker|dictionary", { library: "Manuals" }), ["c"]);
  assertEquals(await sortedIds(fts, "docker", { path_glob: "Docs/notes/*" }), ["b"]);
  assertEquals(await sortedIds(fts, "docker", { path_glob: "docs/*" }), []);
  assertEquals(await sortedIds(fts, "docker|dictionary", { modified_after: "2026-01-05" }), [
    "a",
    "b",
  ]);
  assertEquals(await sortedIds(fts, "docker|dictionary", { modified_before: "2026-01-05" }), [
    "a",
    "c",
  ]);
  assertEquals(
    await sortedIds(fts, "docker|dictionary", { modified_before: "2026-01-05T09:00:00Z" }),
    ["c"],
  );
  assertEquals(
    await sortedIds(fts, "docker|dictionary", {
      modified_after: "2026-01-05T12:00:00+02:00",
      modified_before: "2026-02-10T08:30:00Z",
    }),
    ["a", "b"],
  );
  await assertRejects(
    async () => await fts.search(prepareQuery("docker", 5, { modified_after: "yesterday" })),
    (e: unknown) => e instanceof ToolError && e.code === "INVALID_ARGUMENT",
  );
  db.close();
});

Deno.test("Fts5Index.search() respects the limit", async () => {
  const { db, fts } = await setup(CORPUS);
  assertEquals(
    await fts.search(prepareQuery("docker", 1)).then((h) => h.length),
    1,
  );
  db.close();
});

Deno.test("Fts5Index.upsert() replaces a document and remove() deletes it", async () => {
  const { db, fts } = await setup(CORPUS);
  assertEquals(fts.ready(), { state: "ready", documents: 5 });
  await fts.upsert([
    makeDoc({ id: "a", path: "Docs/guides/docker-setup.md", title: "Kubernetes" }),
  ]);
  assertEquals(fts.count(), 5);
  assertEquals(await ids(fts, "containers"), []);
  assertEquals(await ids(fts, "kubernetes"), ["a"]);
  await fts.remove(["a", "b", "unknown"]);
  assertEquals(await ids(fts, "kubernetes|docker"), []);
  assertEquals(fts.count(), 3);
  fts.optimize();
  assertEquals(await ids(fts, "dictionary"), ["c"]);
  db.close();
});

Deno.test("Fts5Index.ready() says empty when nothing is indexed", () => {
  const catalog = new Catalog(":memory:");
  assertEquals(new Fts5Index(catalog.db).ready(), { state: "empty", documents: 0 });
  catalog.close();
});

Deno.test("Fts5Index.upsert() joins the caller's transaction", async () => {
  const { db, fts } = await setup([]);
  db.exec("BEGIN IMMEDIATE");
  await fts.upsert([makeDoc({ id: "t", path: "L/t.md", title: "temporary" })]);
  db.exec("ROLLBACK");
  assertEquals(fts.count(), 0);
  db.close();
});

Deno.test("Fts5Index honours custom column weights", async () => {
  const catalog = new Catalog(":memory:");
  const fts = new Fts5Index(catalog.db, { weights: { title: 1, body: 50 } });
  const docs = [
    makeDoc({ id: "t", path: "L/t.md", title: "zebra", body: "nothing" }),
    makeDoc({ id: "b", path: "L/b.md", title: "nothing", body: "zebra" }),
  ];
  put(catalog, docs);
  await fts.upsert(docs);
  assertEquals(await ids(fts, "zebra"), ["b", "t"]);
  catalog.close();
});

Deno.test("normalizeTime() and filterSql() bind normalised bounds", () => {
  assertEquals(normalizeTime("2026-01-05"), "2026-01-05T00:00:00.000Z");
  assertEquals(normalizeTime("2026-01-05", true), "2026-01-05T23:59:59.999Z");
  assertEquals(normalizeTime("2026-01-05T10:00:00+02:00"), "2026-01-05T08:00:00.000Z");
  assertEquals(normalizeTime("2026-01-05T10:00"), "2026-01-05T10:00:00.000Z");
  assertEquals(filterSql({}), { where: "1", params: [] });
  assertEquals(filterSql({ doc_types: ["pdf", "docx"], library: "P" }), {
    where: "d.doc_type IN (?, ?) AND d.library = ?",
    params: ["pdf", "docx", "P"],
  });
});

Deno.test("bm25Score() maps BM25 monotonically into 0..1", () => {
  assertEquals(bm25Score(0), 0);
  assertEquals(bm25Score(-5), 0.5);
  assert(bm25Score(-40) > bm25Score(-20));
  assert(bm25Score(-1e9) <= 1);
});

Deno.test("Fts5Index.search() gives every hit the snippet of its own document", async () => {
  const { fts } = await setup([
    { id: "a", path: "lib/a.md", body: "The first text mentions alpaca wool once." },
    { id: "b", path: "lib/b.md", body: "Another text: alpaca alpaca farming in the Andes." },
    { id: "c", path: "lib/c.md", body: "A third text where an alpaca appears near llamas." },
  ]);
  const hits = await fts.search(prepareQuery("alpaca", 10));
  assertEquals(hits.length, 3);
  const own: Record<string, string> = { a: "wool", b: "Andes", c: "llamas" };
  for (const h of hits) assert(h.snippet?.includes(own[h.doc_id]!), `${h.doc_id}: ${h.snippet}`);
});

Deno.test("Fts5Index snippets find a match far into a long body", async () => {
  const filler = "Plain filler words without the special term. ".repeat(2000); // ~90,000 chars
  const { fts } = await setup([
    { id: "long", path: "lib/long.md", body: `${filler}At the very end the quokka smiles.` },
  ]);
  const [hit] = await fts.search(prepareQuery("quokka", 1));
  assert(hit?.snippet?.includes("**quokka** smiles"), hit?.snippet);
  assertEquals((await fts.snippets(["long"], parseQuery("quokka"))).get("long"), hit?.snippet);
});

Deno.test("Fts5Index leaves common words out of the match, punctuation around them or not", async () => {
  const { db } = await setup([
    { id: "a", path: "lib/a.md", body: "A widget on its own." },
    { id: "b", path: "lib/b.md", body: "A widget next to a zebra and a giraffe." },
  ]);
  const stats = { docCount: () => 100, df: (t: string) => (t === "widget" ? 80 : 1) };
  const fts = new Fts5Index(db, { stats, readOnly: true });
  for (const text of ["widget zebra giraffe", "widget? zebra giraffe", "zebra (widget), giraffe"]) {
    const hits = await fts.search(prepareQuery(text, 10));
    assertEquals(hits.map((h) => h.doc_id), ["b"], text);
  }
  // Numbers and single letters are counted by FTS5 itself (the catalog does not count them).
  const { db: db2 } = await setup(
    Array.from({ length: 4 }, (_, i) => ({
      id: `d${i}`,
      path: `lib/d${i}.md`,
      body: i === 0 ? "Version 2 of the zebra giraffe." : "Version 2 only.",
    })),
  );
  const fts2 = new Fts5Index(db2, {
    stats: { docCount: () => 100, df: () => 1 },
    commonShare: 0.02,
    readOnly: true,
  });
  const v2 = await fts2.search(prepareQuery("2 zebra giraffe", 10));
  assertEquals(v2.map((h) => h.doc_id), ["d0"]);
  // A common word alone is still searched.
  assertEquals((await fts.search(prepareQuery("widget?", 10))).length, 2);
});

Deno.test("Fts5Index keeps no copy of the text: contentless table, snippets from the catalog", async () => {
  const body = Array.from({ length: 400 }, (_, i) => `line ${i} about storage`).join("\n") +
    "\nthe wombat digs here";
  const { db, fts } = await setup([
    { id: "w", path: "lib/w.md", title: "Burrows", body, headings: ["Digging"] },
  ]);
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE name LIKE 'docs_fts%'").all()
    .map((r) => r.name as string).sort();
  assertEquals(tables, [
    "docs_fts",
    "docs_fts_config",
    "docs_fts_data",
    "docs_fts_docsize",
    "docs_fts_idx",
  ]);
  const sql = db.prepare("SELECT sql FROM sqlite_master WHERE name = 'docs_fts'").get()!.sql;
  assert(/content = ''/.test(sql as string) && /contentless_delete = 1/.test(sql as string));
  // The index holds no column value; the body is stored once, in `text_blocks`, compressed.
  assertEquals({ ...db.prepare("SELECT body, title FROM docs_fts").get() }, {
    body: null,
    title: null,
  });
  assertEquals({ ...db.prepare("SELECT body, title FROM passages_fts").get() }, {
    body: null,
    title: null,
  });
  const stored = db.prepare("SELECT text FROM text_blocks WHERE doc_id = 'w'").all()
    .map((r) => r.text);
  // (one block of lines: the body is shorter than a block)
  assertEquals(stored.length, 1);
  assert(stored[0] instanceof Uint8Array, "compressed");
  assert(stored[0].length < body.length / 4, `${stored[0].length} bytes of ${body.length}`);
  // Snippets still come from the body, the headings and the title.
  const [hit] = await fts.search(prepareQuery("wombat", 1));
  assert(hit?.snippet?.endsWith("**wombat** digs here"), hit?.snippet);
  assertEquals((await fts.snippets(["w"], parseQuery("digging"))).get("w"), "**Digging**");
  assertEquals((await fts.snippets(["w"], parseQuery("burrows"))).get("w"), "**Burrows**");
  // Rows are replaced and deleted (contentless_delete) and the index stays sound.
  await fts.upsert([makeDoc({ id: "w", path: "lib/w.md", title: "Burrows", body: "moved" })]);
  assertEquals(await ids(fts, "wombat"), []);
  await fts.remove(["w"]);
  assertEquals(fts.count(), 0);
  db.exec("INSERT INTO docs_fts(docs_fts, rank) VALUES('integrity-check', 1)");
  db.close();
});

Deno.test("Fts5Index.constrain() keeps, in order, the given documents that meet + and -", async () => {
  const { fts } = await setup([
    { id: "a", path: "L/a.md", body: "zebra and lion" },
    { id: "b", path: "L/b.md", body: "zebra alone" },
    { id: "c", path: "L/c.md", body: "lion alone" },
    { id: "d", path: "L/d.md", body: "zebra, lion and tiger" },
  ]);
  const ids = ["d", "c", "b", "a", "not-indexed"];
  assertEquals(await fts.constrain(ids, parseQuery("+zebra")), ["d", "b", "a"]);
  assertEquals(await fts.constrain(ids, parseQuery("+zebra -tiger")), ["b", "a"]);
  assertEquals(await fts.constrain(ids, parseQuery('"zebra and lion"')), ["a"]);
  assertEquals(await fts.constrain(ids, parseQuery("-lion")), ["b", "not-indexed"]);
  assertEquals(await fts.constrain(["c"], parseQuery("+zebra")), []);
  assertEquals(await fts.constrain(ids, parseQuery("zebra")), ids);
});
