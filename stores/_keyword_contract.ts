/**
 * What every keyword index (`roles.ts`, `KeywordIndex`) does, as test cases run against
 * each backend: `fts5_test.ts` runs them on SQLite FTS5, `tests/pg_keyword_test.ts` on
 * PostgreSQL. A backend opens an empty index over a catalog (where the documents' rows,
 * texts and filters are).
 *
 * @module
 */
import {
  deepStrictEqual as assertEquals,
  ok as assert,
  rejects as assertRejects,
} from "node:assert/strict";
import type { Card, IndexedDoc, OutlineNode, SearchFilters, TermStats } from "../core/types.ts";
import { ToolError } from "../core/types.ts";
import { Catalog } from "../core/catalog.ts";
import { parseQuery, prepareQuery } from "../search/query.ts";
import type { Fts5Weights } from "./fts5_rank.ts";
import type { KeywordIndex } from "./roles.ts";

/** Options every backend takes. */
export interface BackendOptions {
  /** Column weights. */
  weights?: Partial<Fts5Weights>;
  /** Term statistics (for leaving common words out). */
  stats?: TermStats;
  /** Share of documents above which a word is common. */
  commonShare?: number;
}

/** A keyword index backend under test. */
export interface KeywordBackend {
  /** Its name, as hits are tagged. */
  name: string;
  /** An empty index over a catalog. */
  open(catalog: Catalog, options?: BackendOptions): Promise<KeywordIndex>;
}

/** A document of a test corpus. */
export interface DocSpec {
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

/** An indexed document from its spec. */
export function makeDoc(s: DocSpec): IndexedDoc {
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
export function put(catalog: Catalog, docs: IndexedDoc[]): void {
  for (const { card, outline, lines } of docs) {
    catalog.put({ card, outline, terms: {}, hash: card.doc_id, mtime_ms: 0 }, lines.join("\n"));
  }
}

/** An index of a backend over a new in-memory catalog, the documents in both. */
export async function setup(
  b: KeywordBackend,
  specs: DocSpec[],
  options?: BackendOptions,
): Promise<{ catalog: Catalog; fts: KeywordIndex; close: () => Promise<void> }> {
  const catalog = new Catalog(":memory:");
  const fts = await b.open(catalog, options);
  const docs = specs.map(makeDoc);
  put(catalog, docs);
  await fts.upsert(docs);
  const close = async () => {
    await fts.close?.();
    catalog.close();
  };
  return { catalog, fts, close };
}

async function sortedIds(
  fts: KeywordIndex,
  text: string,
  filters: SearchFilters,
): Promise<string[]> {
  return (await ids(fts, text, filters)).sort();
}

/** The ids of a search's hits, in order. */
export async function ids(
  fts: KeywordIndex,
  text: string,
  filters: SearchFilters = {},
): Promise<string[]> {
  return (await fts.search(prepareQuery(text, 20, filters))).map((h) => h.doc_id);
}

/** A small corpus: English, a path with words, Chinese and Japanese. */
export const CORPUS: DocSpec[] = [
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

/** One case of the contract. */
export interface ContractCase {
  /** What it shows (`search() finds ...`). */
  name: string;
  /** The case, against a backend. */
  fn(b: KeywordBackend): Promise<void>;
}

/** The cases every keyword index passes. */
export const KEYWORD_CONTRACT: ContractCase[] = [
  {
    name: "search() finds documents and tags them",
    async fn(b) {
      const { fts, close } = await setup(b, CORPUS);
      const hits = await fts.search(prepareQuery("containers", 10));
      assertEquals(hits.map((h) => h.doc_id), ["a"]);
      assertEquals(hits[0]!.retriever, b.name);
      assert(hits[0]!.raw < 0);
      assert(hits[0]!.score > 0 && hits[0]!.score < 1);
      await close();
    },
  },
  {
    name: "search() ranks a title match above a body match",
    async fn(b) {
      const { fts, close } = await setup(b, CORPUS);
      const hits = await fts.search(prepareQuery("docker", 10));
      assertEquals(hits.map((h) => h.doc_id), ["a", "b"]);
      assert(hits[0]!.score > hits[1]!.score);
      await close();
    },
  },
  {
    name: "search() stems English words",
    async fn(b) {
      const { fts, close } = await setup(b, CORPUS);
      assertEquals(await ids(fts, "installing containers"), ["a"]);
      assertEquals(await ids(fts, "dictionaries"), ["c"]);
      await close();
    },
  },
  {
    name: "search() matches words of the path",
    async fn(b) {
      const { fts, close } = await setup(b, CORPUS);
      assertEquals(await ids(fts, "droptsdictionary"), ["c"]);
      assertEquals(await ids(fts, "postgresql"), ["c"]);
      await close();
    },
  },
  {
    name: "search() applies phrase, required and excluded terms",
    async fn(b) {
      const { fts, close } = await setup(b, CORPUS);
      assertEquals(await ids(fts, '"text search dictionary"'), ["c"]);
      assertEquals(await ids(fts, '"search text dictionary"'), []);
      assertEquals(await ids(fts, "docker -laptop"), ["a"]);
      assertEquals(await ids(fts, "+laptop docker"), ["b"]);
      assertEquals(await ids(fts, "compose|laptop"), ["a", "b"]);
      await close();
    },
  },
  {
    name: "search() rejects a query with nothing to search",
    async fn(b) {
      const { fts, close } = await setup(b, CORPUS);
      await assertRejects(
        () => fts.search(prepareQuery("-docker", 5)),
        (e: unknown) => e instanceof ToolError && e.code === "INVALID_ARGUMENT",
      );
      await close();
    },
  },
  {
    name: "search() survives FTS5 syntax in the query",
    async fn(b) {
      const { fts, close } = await setup(b, CORPUS);
      for (const q of ['NEAR(docker "', "docker*", "^docker", "docker AND OR NOT", "a\0b"]) {
        await fts.search(prepareQuery(q, 5));
      }
      await assertRejects(
        () => fts.search(prepareQuery("((( *", 5)),
        (e: unknown) => e instanceof ToolError && e.code === "INVALID_ARGUMENT",
      );
      assertEquals(await ids(fts, "title:docker"), []);
      assertEquals(await ids(fts, "docker*"), ["a", "b"]);
      await close();
    },
  },
  {
    name: "search() finds Chinese and Japanese text",
    async fn(b) {
      const { fts, close } = await setup(b, CORPUS);
      assertEquals(await ids(fts, "数据库"), ["zh"]);
      assertEquals(await ids(fts, "配置数据库连接"), ["zh"]);
      assertEquals((await ids(fts, "全文検索"))[0], "ja");
      assertEquals(await ids(fts, '"全文検索"'), ["ja"]);
      assertEquals(await ids(fts, '"検索エンジン"'), ["ja"]);
      const [hit] = await fts.search(prepareQuery("検索エンジン", 1));
      assertEquals(hit?.snippet, "このガイドでは全文**検索エンジン**の使い方を説明します。");
      await close();
    },
  },
  {
    name: "search() returns a one-line snippet around the match",
    async fn(b) {
      const body = Array.from({ length: 200 }, (_, i) => `filler line ${i} of text`).join("\n") +
        "\nthe quick brown fox jumps over the lazy dog\n" + "more filler ".repeat(300);
      const { fts, close } = await setup(b, [{ id: "x", path: "L/x.md", title: "Animals", body }]);
      const [hit] = await fts.search(prepareQuery("fox", 1));
      const snippet = hit?.snippet ?? "";
      assert(snippet.includes("**fox**"), snippet);
      assert(!snippet.includes("\n"));
      assert(snippet.length <= 200);
      const [titleHit] = await fts.search(prepareQuery("animals", 1));
      assertEquals(titleHit?.snippet, "**Animals**");
      await close();
    },
  },
  {
    name: "search() applies each filter",
    async fn(b) {
      const { fts, close } = await setup(b, CORPUS);
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
      await close();
    },
  },
  {
    name: "search() respects the limit",
    async fn(b) {
      const { fts, close } = await setup(b, CORPUS);
      assertEquals(
        await fts.search(prepareQuery("docker", 1)).then((h) => h.length),
        1,
      );
      await close();
    },
  },
  {
    name: "upsert() replaces a document and remove() deletes it",
    async fn(b) {
      const { fts, close } = await setup(b, CORPUS);
      assertEquals(fts.ready(), { state: "ready", documents: 5 });
      await fts.upsert([
        makeDoc({ id: "a", path: "Docs/guides/docker-setup.md", title: "Kubernetes" }),
      ]);
      assertEquals(fts.ready().documents, 5);
      assertEquals(await ids(fts, "containers"), []);
      assertEquals(await ids(fts, "kubernetes"), ["a"]);
      await fts.remove(["a", "b", "unknown"]);
      assertEquals(await ids(fts, "kubernetes|docker"), []);
      assertEquals(fts.ready().documents, 3);
      assertEquals(await ids(fts, "dictionary"), ["c"]);
      assertEquals(
        [...await fts.indexed(["a", "b", "c", "unknown", "zh"])].sort(),
        ["c", "zh"],
        "indexed() names the held documents among those asked",
      );
      await close();
    },
  },
  {
    name: "ready() says empty when nothing is indexed",
    async fn(b) {
      const { fts, close } = await setup(b, []);
      assertEquals(fts.ready(), { state: "empty", documents: 0 });
      await close();
    },
  },
  {
    name: "honours custom column weights",
    async fn(b) {
      const { fts, close } = await setup(b, [
        { id: "t", path: "L/t.md", title: "zebra", body: "nothing" },
        { id: "b", path: "L/b.md", title: "nothing", body: "zebra" },
      ], { weights: { title: 1, body: 50 } });
      assertEquals(await ids(fts, "zebra"), ["b", "t"]);
      await close();
    },
  },
  {
    name: "search() gives every hit the snippet of its own document",
    async fn(b) {
      const { fts, close } = await setup(b, [
        { id: "a", path: "lib/a.md", body: "The first text mentions alpaca wool once." },
        { id: "b", path: "lib/b.md", body: "Another text: alpaca alpaca farming in the Andes." },
        { id: "c", path: "lib/c.md", body: "A third text where an alpaca appears near llamas." },
      ]);
      const hits = await fts.search(prepareQuery("alpaca", 10));
      assertEquals(hits.length, 3);
      const own: Record<string, string> = { a: "wool", b: "Andes", c: "llamas" };
      for (const h of hits) {
        assert(h.snippet?.includes(own[h.doc_id]!), `${h.doc_id}: ${h.snippet}`);
      }
      await close();
    },
  },
  {
    name: "snippets find a match far into a long body",
    async fn(b) {
      const filler = "Plain filler words without the special term. ".repeat(2000); // ~90,000 chars
      const { fts, close } = await setup(b, [
        { id: "long", path: "lib/long.md", body: `${filler}At the very end the quokka smiles.` },
      ]);
      const [hit] = await fts.search(prepareQuery("quokka", 1));
      assert(hit?.snippet?.includes("**quokka** smiles"), hit?.snippet);
      assertEquals((await fts.snippets(["long"], parseQuery("quokka"))).get("long"), hit?.snippet);
      await close();
    },
  },
  {
    name: "search() ranks by best passage and shows it; replaced and removed passages are gone",
    async fn(b) {
      // two documents alike for the document's BM25 (the same words, as often, as long):
      // in one the words meet in one 40-line window, in the other they are 60 lines apart
      const lines = (at: Record<number, string>) =>
        Array.from({ length: 90 }, (_, i) => at[i + 1] ?? `filler line number ${i + 1}`)
          .join("\n");
      const spread = lines({ 5: "the quokka sleeps", 70: "the wombat digs" });
      const together = lines({ 50: "the quokka sleeps", 51: "the wombat digs" });
      const { catalog, fts, close } = await setup(b, [
        { id: "spread", path: "lib/spread.md", title: "Notes", body: spread },
        { id: "together", path: "lib/together.md", title: "Notes", body: together },
      ]);
      const q = { ...prepareQuery("quokka wombat", 10), passages: 2 };
      const bare = await fts.search({ ...q, snippets: 0 });
      assertEquals(bare.map((h) => h.doc_id), ["spread", "together"]);
      assertEquals(bare[0]!.raw, bare[1]!.raw);
      const hits = await fts.search(q);
      assertEquals(hits.map((h) => h.doc_id), ["together", "spread"]);
      const [first] = hits[0]!.passages ?? [];
      assert(first && first.start_line <= 50 && first.end_line >= 51, JSON.stringify(first));
      assert(hits[0]!.snippet?.includes("**quokka**"), hits[0]!.snippet);
      assertEquals(hits[1]!.passages?.length, 2);
      // the passages go with their document
      const moved = makeDoc({ id: "together", path: "lib/together.md", body: lines({}) });
      put(catalog, [moved]);
      await fts.upsert([moved]);
      assertEquals(await ids(fts, "quokka"), ["spread"]);
      await fts.remove(["spread"]);
      assertEquals(await ids(fts, "quokka wombat"), []);
      assertEquals((await fts.search(prepareQuery("filler", 10))).length, 1);
      await close();
    },
  },
  {
    name: "readPassages() reads the candidates of unread hits as search() would",
    async fn(b) {
      const { fts, close } = await setup(b, [
        { id: "t", path: "L/t.md", title: "Zebra handbook", body: "Nothing about the animal." },
        { id: "z", path: "L/z.md", title: "Plains", body: "Grass.\nThe zebra runs fast." },
        { id: "s", path: "L/s.md", title: "Stripes", body: "Stripes.\nA zebra foal stays close." },
      ]);
      if (!fts.readPassages) return await close();
      const q = prepareQuery("zebra", 5, {}, 5);
      const read = new Map((await fts.search(q)).map((h) => [h.doc_id, h]));
      const unread = await fts.search({ ...q, unread: true });
      // nothing read, the same order; a title match alone has no candidate
      assertEquals(unread.map((h) => h.doc_id), [...read.keys()]);
      assert(unread.every((h) => h.passages === undefined && h.candidates), JSON.stringify(unread));
      assertEquals(unread.find((h) => h.doc_id === "t")?.candidates, []);
      // read for two of them only: those get what search() gives, the other has no passages
      const shown = unread.filter((h) => h.doc_id !== "s");
      await fts.readPassages(shown, q.parsed, 1);
      for (const h of shown) {
        assertEquals(h.passages, read.get(h.doc_id)?.passages);
        assertEquals(h.snippet, read.get(h.doc_id)?.snippet);
      }
      assertEquals(
        shown.find((h) => h.doc_id === "z")?.passages?.[0]?.snippet,
        "The **zebra** runs fast.",
      );
      assertEquals(shown.find((h) => h.doc_id === "t")?.snippet, "**Zebra** handbook");
      const s = unread.find((h) => h.doc_id === "s");
      assert(s?.candidates?.length && s.passages === undefined);
      await close();
    },
  },
  {
    name: "leaves common words out of the match, punctuation around them or not",
    async fn(b) {
      const stats = { docCount: () => 100, df: (t: string) => (t === "widget" ? 80 : 1) };
      const { fts, close } = await setup(b, [
        { id: "a", path: "lib/a.md", body: "A widget on its own." },
        { id: "b", path: "lib/b.md", body: "A widget next to a zebra and a giraffe." },
      ], { stats });
      for (
        const text of ["widget zebra giraffe", "widget? zebra giraffe", "zebra (widget), giraffe"]
      ) {
        const hits = await fts.search(prepareQuery(text, 10));
        assertEquals(hits.map((h) => h.doc_id), ["b"], text);
      }
      // Numbers and single letters are counted by FTS5 itself (the catalog does not count them).
      const { fts: fts2, close: close2 } = await setup(
        b,
        Array.from({ length: 4 }, (_, i) => ({
          id: `d${i}`,
          path: `lib/d${i}.md`,
          body: i === 0 ? "Version 2 of the zebra giraffe." : "Version 2 only.",
        })),
        { stats: { docCount: () => 100, df: () => 1 }, commonShare: 0.02 },
      );
      const v2 = await fts2.search(prepareQuery("2 zebra giraffe", 10));
      assertEquals(v2.map((h) => h.doc_id), ["d0"]);
      // A common word alone is still searched.
      assertEquals((await fts.search(prepareQuery("widget?", 10))).length, 2);
      await close();
      await close2();
    },
  },
  {
    name: "constrain() keeps, in order, the given documents that meet + and -",
    async fn(b) {
      const { fts, close } = await setup(b, [
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
      await close();
    },
  },
  {
    name: "candidates() keeps the filtered documents whose body holds every word",
    async fn(b) {
      const { fts, close } = await setup(b, [
        { id: "a", path: "A/a.md", body: "Compressing files with zstd" },
        { id: "b", path: "A/b.md", title: "compression", body: "a file" },
        { id: "c", path: "B/c.md", body: "file compression, again" },
        { id: "d", path: "A/d.md", body: "the files" },
      ]);
      assertEquals((await fts.candidates(["file", "compression"], {})).sort(), ["a", "c"]);
      assertEquals(await fts.candidates(["file", "compression"], { library: "A" }), ["a"]);
      assertEquals(await fts.candidates(["zebra"], {}), []);
      await close();
    },
  },
];
