/**
 * What every catalog store (`roles.ts`, `CatalogStore`) does, as test cases run against
 * each backend: `catalog_sqlite_test.ts` runs them on the SQLite catalog,
 * `tests/pg_catalog_test.ts` on PostgreSQL. The documents are real: a few files of the
 * small shared corpus (a PDF manual, HTML, Markdown, text, DOCX, EPUB) indexed by a real
 * shelf, each read back from its catalog as the indexer stored it ({@link corpusDocs}).
 *
 * @module
 */
import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { copyFile, mkdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { textTerms } from "../core/card.ts";
import type { StoredDoc } from "../core/catalog_docs.ts";
import { docFields } from "../core/fields.ts";
import type { Link } from "../core/extractor.ts";
import type { SearchFilters } from "../core/types.ts";
import { partsOf } from "../shelf/_parts.ts";
import { docPassages } from "../search/passages.ts";
import { smallCorpus } from "../tests/corpus.ts";
import { openTestShelf } from "../tests/shelf_helper.ts";
import type { DocTable } from "../core/listing.ts";
import type { CatalogStore } from "./roles.ts";

/** A document as the indexer stores it: its row (fields included), text and links. */
export interface SourceDoc {
  doc: StoredDoc;
  text: string;
  links: Link[];
}

/** A catalog store backend under test. */
export interface CatalogBackend {
  /** Its name (`CatalogStore.name`). */
  name: string;
  /** An empty store. */
  open(): Promise<CatalogStore>;
  /**
   * Write a document through the store in another process and kill it (SIGKILL) while the
   * write is inside its transaction, some of its rows written; then a store on the data
   * the killed process wrote to.
   */
  killedWrite(source: SourceDoc): Promise<CatalogStore>;
}

/** One case of the contract. */
export interface CatalogCase {
  name: string;
  fn(backend: CatalogBackend, docs: SourceDoc[]): Promise<void>;
}

/** Files of the small corpus, one of each kind, read back as the indexer stored them. */
const FILES = [
  "pdf-manuals/r-doc-pdf/R-FAQ.pdf",
  "html/apache2-doc/de/bind.html",
  "markdown/from-html/postgresql-doc-15/acronyms.md",
  "text/asciidoc/git-doc/git-add.txt",
  "word/edge-cases/tables-postgresql-datatype-numeric.docx",
  "ebooks/from-markdown/nodejs-addons.epub",
];

/**
 * A few real documents: files of the small corpus indexed by a test shelf (keyword search
 * only) and read back from its SQLite catalog, each with its fields, text and links.
 */
export async function corpusDocs(): Promise<SourceDoc[]> {
  const root = await smallCorpus();
  const base = await Deno.makeTempDir({ prefix: "shelfmark-catalog-" });
  const lib = join(base, "Corpus");
  for (const f of FILES) {
    await mkdir(dirname(join(lib, f)), { recursive: true });
    await copyFile(join(root, f), join(lib, f));
  }
  await using t = await openTestShelf({ base, folders: [lib] });
  await t.shelf.index();
  const { catalog } = partsOf(t.shelf);
  const out: SourceDoc[] = [];
  for (const f of FILES) {
    const id = catalog.idByPath(`Corpus/${f}`);
    assert(id, `Corpus/${f} was indexed`);
    const doc = catalog.get(id)!;
    const fields = docFields(catalog.db, id);
    if (Object.keys(fields).length) doc.fields = fields;
    out.push({ doc, text: catalog.text(id)!, links: catalog.links(id) });
  }
  return out;
}

/** A value as JSON gives it back (no `undefined` members, plain prototypes). */
function plain<T>(v: T): T {
  return v === undefined ? v : JSON.parse(JSON.stringify(v));
}

/** The document's row as `get` gives it (its fields are read with `fields`). */
function row(s: SourceDoc): StoredDoc {
  const { fields: _, ...rest } = s.doc;
  return plain(rest);
}

/** Line ranges to read: whole, first, last, past the end, across every block's start. */
function ranges(lines: number): [number, number][] {
  const out: [number, number][] = [[1, lines], [1, 1], [lines, lines + 5], [lines + 1, lines + 9]];
  for (let at = 1; at < lines; at += 997) out.push([at, Math.min(lines, at + 1500)]);
  return out;
}

/** The passages of a document a store gives for `seqs`, as JSON gives them back. */
function passagesOf(s: SourceDoc, seqs: number[]): unknown {
  const lines = s.text === "" ? [] : s.text.split("\n");
  const all = docPassages(s.doc.card, s.doc.outline, s.doc.pages, lines.length);
  return plain({
    passages: seqs.flatMap((seq) => {
      const p = all[seq];
      return p ? [{ seq, ...p, lines: lines.slice(p.start_line - 1, p.end_line) }] : [];
    }),
    pages: s.doc.pages,
    docType: s.doc.card.doc_type,
  });
}

/** Assert that a store gives back everything of a document as it was written. */
async function assertStored(store: CatalogStore, s: SourceDoc): Promise<void> {
  const id = s.doc.card.doc_id;
  const what = `${store.name}: ${s.doc.card.path}`;
  assertEquals(plain(await store.get(id)), row(s), what);
  assertEquals(
    plain(await store.head(id)),
    plain({ card: s.doc.card, pages: s.doc.pages, hash: s.doc.hash }),
  );
  assertEquals(
    plain(await store.sections(id)),
    plain({
      outline: s.doc.outline,
      quality: s.doc.card.outline_quality,
      docType: s.doc.card.doc_type,
      pages: s.doc.pages,
      hash: s.doc.hash,
    }),
  );
  assertEquals(await store.text(id), s.text, what);
  const lines = s.text === "" ? [] : s.text.split("\n");
  for (const [from, to] of ranges(lines.length)) {
    assertEquals(
      await store.lines(id, from, to),
      lines.slice(from - 1, to),
      `${what} ${from}-${to}`,
    );
  }
  const count = docPassages(s.doc.card, s.doc.outline, s.doc.pages, lines.length).length;
  // every passage (in reverse order) and one that does not exist
  const seqs = [...Array(count).keys()].reverse().concat([count + 3]);
  assertEquals(plain(await store.passages(id, seqs)), passagesOf(s, seqs), what);
  assertEquals(plain(await store.links(id)), plain(s.links), what);
  assertEquals(plain(await store.fields(id)), plain(s.doc.fields ?? {}), what);
  assertEquals(await store.idByPath(s.doc.card.path), id);
  const states = await store.fileStates(s.doc.card.library);
  assertEquals(plain(states.get(s.doc.card.path)), {
    doc_id: id,
    path: s.doc.card.path,
    size: s.doc.card.size,
    mtime_ms: s.doc.mtime_ms,
    hash: s.doc.hash,
  });
}

/** Assert that a store holds nothing of a document. */
async function assertGone(store: CatalogStore, s: SourceDoc): Promise<void> {
  const id = s.doc.card.doc_id;
  assertEquals(await store.get(id), undefined);
  assertEquals(await store.head(id), undefined);
  assertEquals(await store.sections(id), undefined);
  assertEquals(await store.text(id), undefined);
  assertEquals(await store.lines(id, 1, 10), undefined);
  assertEquals(await store.passages(id, [0, 1]), undefined);
  assertEquals(await store.links(id), []);
  assertEquals(await store.fields(id), {});
  assertEquals(await store.idByPath(s.doc.card.path), undefined);
  assertEquals((await store.cards([id])).size, 0);
  assert(!(await store.fileStates(s.doc.card.library)).has(s.doc.card.path));
  assert(!(await store.list()).some((e) => e.doc_id === id));
}

/** A store with the documents written, closed by the caller. */
async function written(b: CatalogBackend, docs: SourceDoc[]): Promise<CatalogStore> {
  const store = await b.open();
  for (const s of docs) await store.put(s.doc, s.text, s.links);
  return store;
}

/** The contract's cases. */
export const CATALOG_CONTRACT: CatalogCase[] = [
  {
    name: "put() keeps a real document whole: row, card, outline, passages, every line",
    async fn(b, docs) {
      const store = await written(b, docs);
      try {
        for (const s of docs) await assertStored(store, s);
        const ids = docs.map((s) => s.doc.card.doc_id);
        // cards in the order asked, unknown ids left out
        const asked = ["missing", ...[...ids].reverse()];
        const cards = await store.cards(asked);
        assertEquals([...cards.keys()], [...ids].reverse());
        assertEquals(plain(cards.get(ids[0]!)), plain(docs[0]!.doc.card));
        // many documents at once, as each alone
        const wanted = new Map(docs.map((s, i) => [s.doc.card.doc_id, [i + 1, 0, 999, i]]));
        wanted.set("missing", [0]);
        const many = await store.passagesOf(wanted);
        assertEquals([...many.keys()], ids);
        for (const s of docs) {
          const id = s.doc.card.doc_id;
          assertEquals(plain(many.get(id)), passagesOf(s, wanted.get(id)!), id);
        }
        const texts = await store.texts(["missing", ...ids]);
        assertEquals([...texts.keys()], ids);
        for (const s of docs) assertEquals(texts.get(s.doc.card.doc_id), s.text);
        assertEquals(await store.lines(ids[0]!, 9, 3), []);
        assertEquals(await store.count(), docs.length);
        assertEquals(await store.count("Corpus"), docs.length);
        assertEquals(await store.count("Elsewhere"), 0);
        const list = await store.list("Corpus");
        assertEquals(list.map((e) => e.path), docs.map((s) => s.doc.card.path).sort());
        const entry = list.find((e) => e.doc_id === ids[0])!;
        const card = docs[0]!.doc.card;
        assertEquals(plain(entry), {
          doc_id: card.doc_id,
          library: card.library,
          path: card.path,
          doc_type: card.doc_type,
          title: card.title,
          total_lines: card.total_lines,
          size: card.size,
          modified_at: card.modified_at,
        });
        assertEquals(await store.list("Elsewhere"), []);
        assertEquals((await store.fileStates("Corpus")).size, docs.length);
      } finally {
        await store.close();
      }
    },
  },
  {
    name: "idsMatching(), fingerprints() and sameText(): search filters and copies",
    async fn(b, docs) {
      const store = await written(b, docs);
      try {
        const ids = (keep: (s: SourceDoc) => boolean) =>
          docs.filter(keep).map((s) => s.doc.card.doc_id).sort();
        const matching = async (f: SearchFilters) => (await store.idsMatching(f))?.sort();
        assertEquals(await store.idsMatching({}), undefined, "no filter: all");
        assertEquals(await matching({ library: "Corpus" }), ids(() => true));
        assertEquals(await matching({ library: "Elsewhere" }), []);
        const types = ["pdf", "html"];
        assertEquals(
          await matching({ doc_types: types }),
          ids((s) => types.includes(s.doc.card.doc_type)),
        );
        // GLOB: case-sensitive, `*` across folders, `?` one character, sets
        assertEquals(
          await matching({ path_glob: "Corpus/*/[gr]*" }),
          ids((s) => /^Corpus\/.*\/[gr]/.test(s.doc.card.path)),
        );
        assertEquals(await matching({ path_glob: "corpus/*" }), []);
        assertEquals(await matching({ path_glob: "Corpus/html/apache2-doc/d?/bind.html" }), [
          ...ids((s) => s.doc.card.path.endsWith("bind.html")),
        ]);
        const when = docs.map((s) => s.doc.card.modified_at).sort()[2]!;
        assertEquals(
          await matching({ modified_after: when, doc_types: ["pdf", "html", "markdown", "text"] }),
          ids((s) =>
            s.doc.card.modified_at >= when && s.doc.card.doc_type !== "docx" &&
            s.doc.card.doc_type !== "epub"
          ),
        );
        assertEquals(
          await matching({ modified_before: when }),
          ids((s) => s.doc.card.modified_at <= when),
        );
        // every document's fingerprint, unknown ids left out; each text its own key
        const all = ids(() => true);
        const fps = await store.fingerprints(["missing", ...all]);
        assertEquals([...fps.keys()], all);
        assertEquals(new Set([...fps.values()].map((f) => f.key)).size, all.length);
        const first = docs[0]!.doc.card;
        const key = fps.get(first.doc_id)!.key;
        assertEquals(plain(Object.fromEntries(await store.sameText([key, "no such key"], {}))), {
          [key]: [{ doc_id: first.doc_id, path: first.path }],
        });
        assertEquals((await store.sameText([key], { library: "Elsewhere" })).size, 0);
      } finally {
        await store.close();
      }
    },
  },
  {
    name: "put() of a stored document replaces all of it",
    async fn(b, docs) {
      const store = await written(b, docs);
      try {
        const [first, second] = docs as [SourceDoc, SourceDoc];
        const lines = first.text.split("\n");
        const text = [...lines.slice(0, Math.ceil(lines.length / 3)), "a changed last line"]
          .join("\n");
        const changed: SourceDoc = {
          doc: {
            ...structuredClone(first.doc),
            hash: "changed",
            mtime_ms: first.doc.mtime_ms + 1000,
            outline: [],
            pages: undefined,
            fields: { tags: ["Changed", "#second"] },
          },
          text,
          links: [{ target: "other.html#x", text: "other", line: 2 }],
        };
        changed.doc.card = {
          ...changed.doc.card,
          title: "A changed title",
          total_lines: text.split("\n").length,
        };
        await store.put(changed.doc, changed.text, changed.links);
        await assertStored(store, changed);
        const old = lines.length;
        assertEquals(await store.lines(first.doc.card.doc_id, old - 2, old), []);
        assertEquals(await store.count(), docs.length);
        // its neighbour is untouched
        await assertStored(store, second);
      } finally {
        await store.close();
      }
    },
  },
  {
    name: "df() counts each word's documents as the catalog does, after put, re-put, remove",
    async fn(b, docs) {
      const store = await written(b, docs);
      try {
        // the expected counts: each stored text's distinct words, as the SQLite catalog's
        // term statistics count a document
        const texts = new Map(docs.map((s) => [s.doc.card.doc_id, s.text]));
        const expect = async (what: string) => {
          const counts = new Map<string, number>();
          for (const text of texts.values()) {
            for (const w of textTerms(text)) counts.set(w, (counts.get(w) ?? 0) + 1);
          }
          const terms = [...counts.keys(), "zzyzxnever"];
          const got = await store.df(terms);
          assertEquals(got, new Map(terms.map((t) => [t, counts.get(t) ?? 0])), what);
          return counts;
        };
        const counts = await expect("written");
        // words in several documents, so the changes below are told from all-or-nothing
        assert([...counts.values()].filter((n) => n > 1).length > 100);
        const [first, second] = docs as [SourceDoc, SourceDoc];
        const text = `${first.text.split("\n").slice(0, 40).join("\n")}\nquuxly frobnicated`;
        await store.put(first.doc, text, first.links);
        texts.set(first.doc.card.doc_id, text);
        const after = await expect("re-put with another text");
        assertEquals(after.get("frobnicated"), 1);
        // the same text again changes nothing
        await store.put(first.doc, text, first.links);
        await expect("re-put unchanged");
        await store.remove([second.doc.card.doc_id, "never-stored"]);
        texts.delete(second.doc.card.doc_id);
        await expect("removed");
        await store.remove([...texts.keys()]);
        texts.clear();
        assertEquals([...(await store.df([...counts.keys()])).values()].filter((n) => n), []);
      } finally {
        await store.close();
      }
    },
  },
  {
    name: "touch() records a new mtime and modification time, nothing else",
    async fn(b, docs) {
      const store = await written(b, docs);
      try {
        const s = structuredClone(docs[1]!);
        s.doc.mtime_ms += 60_000;
        s.doc.card.modified_at = "2031-02-03T04:05:06.000Z";
        await store.touch(s.doc.card.doc_id, s.doc.mtime_ms, s.doc.card.modified_at);
        await assertStored(store, s);
        const entry = (await store.list()).find((e) => e.doc_id === s.doc.card.doc_id);
        assertEquals(entry?.modified_at, s.doc.card.modified_at);
        await store.touch("never-stored", 1, s.doc.card.modified_at);
        assertEquals(await store.count(), docs.length);
        await assertStored(store, docs[2]!);
      } finally {
        await store.close();
      }
    },
  },
  {
    name: "remove() leaves nothing of a document and keeps the others",
    async fn(b, docs) {
      const store = await written(b, docs);
      try {
        const [gone, ...kept] = docs as [SourceDoc, ...SourceDoc[]];
        await store.remove([gone.doc.card.doc_id, "never-stored"]);
        await assertGone(store, gone);
        for (const s of kept) await assertStored(store, s);
        assertEquals(await store.count(), kept.length);
        await store.remove([]);
        assertEquals(await store.count(), kept.length);
      } finally {
        await store.close();
      }
    },
  },
  {
    name: "graphDocs(), linkTargets() and linkRows(): what the link graph reads",
    async fn(b, docs) {
      const store = await written(b, docs);
      try {
        const byPath = [...docs].sort((x, y) => x.doc.card.path < y.doc.card.path ? -1 : 1);
        const rows = await store.graphDocs();
        assertEquals(
          rows.map(({ doc_id, path, library, doc_type }) => ({ doc_id, path, library, doc_type })),
          byPath.map(({ doc: { card: c } }) => ({
            doc_id: c.doc_id,
            path: c.path,
            library: c.library,
            doc_type: c.doc_type,
          })),
        );
        assert(rows.every((r) => typeof r.indexed_at === "string" && r.indexed_at), "indexed_at");
        // every document's links but fragments, in order, by id; each row reads its link back
        const read = new Map<string, { targets: string[]; rows: number[] }>();
        for await (const page of store.linkTargets()) {
          for (const r of page) read.set(r.doc_id, r);
        }
        const linked = docs.filter((s) => s.links.some((l) => !l.target.startsWith("#")));
        assert(linked.length >= 3, "documents with links to read");
        assertEquals([...read.keys()], linked.map((s) => s.doc.card.doc_id).sort());
        for (const s of linked) {
          const r = read.get(s.doc.card.doc_id)!;
          const want = s.links.filter((l) => !l.target.startsWith("#"));
          assertEquals(r.targets, want.map((l) => l.target));
          const got = await store.linkRows([...r.rows, -5]);
          assertEquals(got.size, r.rows.length, "an unknown row left out");
          assertEquals(plain(r.rows.map((k) => got.get(k))), plain(want));
        }
        await store.remove([linked[0]!.doc.card.doc_id]);
        const after: string[] = [];
        for await (const page of store.linkTargets()) after.push(...page.map((r) => r.doc_id));
        assert(!after.includes(linked[0]!.doc.card.doc_id), "a removed document's links go");
        assertEquals((await store.linkRows(read.get(linked[0]!.doc.card.doc_id)!.rows)).size, 0);
      } finally {
        await store.close();
      }
    },
  },
  {
    name: "table() lists every document by path, read again after each kind of write only",
    async fn(b, docs) {
      const store = await written(b, docs);
      try {
        const paths = (t: DocTable) => t.entries.map((e) => e.path);
        const first = await store.table();
        const byPath = docs.map((s) => s.doc.card.path).sort();
        assertEquals(paths(first), byPath);
        assertEquals(first.entries, await store.list());
        for (const s of docs) {
          const e = first.byId.get(s.doc.card.doc_id);
          assertEquals([e?.title, e?.total_lines], [s.doc.card.title, s.doc.card.total_lines]);
        }
        // nothing written: the same table, not read again
        const token = await store.changeToken();
        assertEquals(await store.changeToken(), token);
        assert(await store.table() === first, "the table is kept while nothing changes");
        const [gone, touched] = docs as [SourceDoc, SourceDoc];
        const writes: [string, () => Promise<void>, string[]][] = [
          [
            "remove",
            () => store.remove([gone.doc.card.doc_id]),
            byPath.filter((p) => p !== gone.doc.card.path),
          ],
          ["put", () => store.put(gone.doc, gone.text, gone.links), byPath],
          [
            "touch",
            () => store.touch(touched.doc.card.doc_id, 1, "2031-01-01T00:00:00.000Z"),
            byPath,
          ],
        ];
        let [before, last] = [first, token];
        for (const [what, write, want] of writes) {
          await write();
          const now = await store.changeToken();
          assert(now !== last, `a new change token after ${what}`);
          last = now;
          const after = await store.table();
          assert(after !== before, `read again after ${what}`);
          assertEquals(paths(after), want, what);
          before = after;
        }
        assertEquals(
          before.byId.get(touched.doc.card.doc_id)?.modified_at,
          "2031-01-01T00:00:00.000Z",
        );
        // a card holding NUL (PDF metadata read as UTF-16, as in the full corpus) is listed
        const nul = structuredClone(gone.doc);
        nul.card.author = "A\u0000u\u0000t\u0000h";
        nul.card.title = "A title beside a NUL";
        await store.put(nul, gone.text, gone.links);
        const listed = (await store.table()).byId.get(nul.card.doc_id);
        assertEquals(listed?.title, "A title beside a NUL");
        assertEquals(listed?.total_lines, nul.card.total_lines);
      } finally {
        await store.close();
      }
    },
  },
  {
    name: "a writer killed inside its transaction leaves nothing; the next write keeps it",
    async fn(b, docs) {
      const s = docs[0]!;
      const store = await b.killedWrite(s);
      try {
        await assertGone(store, s);
        assertEquals(await store.count(), 0);
        await store.put(s.doc, s.text, s.links);
        await assertStored(store, s);
      } finally {
        await store.close();
      }
    },
  },
];

/**
 * Start `tests/catalog_writer.ts`: another process writing a document through a store of
 * `backend` at `target` (see there how its write is held inside its transaction).
 *
 * @param backend `"sqlite"` or `"postgres"`
 * @param target the catalog file, or the database's URL
 * @param source the document
 * @returns the process, its output piped
 */
export async function startWriter(
  backend: string,
  target: string,
  source: SourceDoc,
): Promise<Deno.ChildProcess> {
  const file = await Deno.makeTempFile({ prefix: "shelfmark-doc-", suffix: ".json" });
  await Deno.writeTextFile(file, JSON.stringify(source));
  const script = new URL("../tests/catalog_writer.ts", import.meta.url).pathname;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", script, backend, target, file],
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  // the document's file goes once the writer has ended
  child.status.finally(() => Deno.remove(file).catch(() => {}));
  return child;
}
