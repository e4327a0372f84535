/**
 * browse, find_documents, recent, list_tags and search filters through `callTool` on real
 * libraries written by the tests (real catalog, real files, real extractors).
 */
import { join } from "node:path";
import { strToU8, unzipSync, zipSync } from "fflate";
import { callTool } from "../server/dispatch.ts";
import type { ToolError } from "../core/types.ts";
import type { Shelf } from "../shelf/shelf.ts";
import { assert, assertEquals, assertMatch, assertRejects } from "./assert.ts";
import { runCli } from "./cli_helper.ts";
import { smallCorpus } from "./corpus.ts";
import { startStandIn } from "./embed_standin.ts";
import { OllamaEmbedder } from "../embedders/remote.ts";
import { openTestShelf, type TestShelf } from "./shelf_helper.ts";
import { partsOf } from "../shelf/_parts.ts";
import { storeCases } from "./store_cases.ts";

type Json = Record<string, unknown>;

async function json(shelf: Shelf, tool: string, args: Json): Promise<Json> {
  // deno-lint-ignore no-explicit-any
  return (await callTool(shelf, tool as any, { ...args, output_format: "json" })).json;
}

async function md(shelf: Shelf, tool: string, args: Json): Promise<string> {
  // deno-lint-ignore no-explicit-any
  return (await callTool(shelf, tool as any, args)).text;
}

async function code(p: Promise<unknown>): Promise<string> {
  const e = await assertRejects(() => p);
  return (e as ToolError).code;
}

/** Files (path -> [text, modified]) written under `root`. */
async function write(root: string, files: Record<string, [string, string]>): Promise<void> {
  for (const [p, [text, when]] of Object.entries(files)) {
    const abs = join(root, p);
    await Deno.mkdir(join(abs, ".."), { recursive: true });
    await Deno.writeTextFile(abs, text);
    await Deno.utime(abs, new Date(when), new Date(when));
  }
}

/**
 * A shelf over libraries written into a fresh folder, with `shelfmark.json` as given, on a
 * catalog store (default: the data folder's SQLite catalog).
 */
async function shelfWith(
  libs: { name: string; files: Record<string, [string, string]>; fields?: string[] }[],
  store?: string,
): Promise<TestShelf> {
  const base = await Deno.makeTempDir({ prefix: "shelfmark-seed-" });
  for (const l of libs) await write(join(base, l.name), l.files);
  await Deno.mkdir(join(base, "data"));
  await Deno.writeTextFile(
    join(base, "data", "shelfmark.json"),
    JSON.stringify({
      libraries: libs.map((l) => ({ name: l.name, path: join(base, l.name), fields: l.fields })),
    }),
  );
  const t = await openTestShelf({ base, store });
  await t.shelf.index();
  return t;
}

const DAY = (d: number) => `2024-01-${String(d).padStart(2, "0")}T12:00:00Z`;

storeCases({
  "browse: roots, folders with spaces and Unicode names, counts, pages, sort": async (
    { store },
  ) => {
    await using t = await shelfWith([{
      name: "Lab",
      files: {
        "top.md": ["# Top note\n\nhello\n", DAY(1)],
        "my notes/a.md": ["# Alpha\n\none\n", DAY(2)],
        "my notes/b.txt": ["bravo\n", DAY(9)],
        "my notes/deep/c.md": ["# C\n", DAY(3)],
        "my notes/deep/er/d.md": ["# D\n", DAY(4)],
        "Ünïcode 文件/é.md": ["# Accent\n", DAY(5)],
        "Ünïcode 文件/子/f.md": ["# Sub\n", DAY(6)],
      },
    }, { name: "Other", files: { "x.md": ["# X\n", DAY(7)] } }], store);
    const shelf = t.shelf;

    const roots = await json(shelf, "browse", {});
    assertEquals(roots.path, null);
    assertEquals(
      (roots.folders as Json[]).map((f) => [f.name, f.documents, f.folders]),
      [["Lab", 7, 2], ["Other", 1, 0]],
    );

    const lab = await json(shelf, "browse", { path: "Lab" });
    assertEquals(
      (lab.folders as Json[]).map((f) => [f.name, f.path, f.documents, f.folders]),
      [["my notes", "Lab/my notes", 4, 1], ["Ünïcode 文件", "Lab/Ünïcode 文件", 2, 1]],
    );
    const top = (lab.documents as Json[])[0]!;
    assertEquals(top.name, "top.md");
    assertEquals(top.title, "Top note");
    assertEquals(top.doc_type, "markdown");
    assertEquals(top.total_lines, 3);
    assertEquals(top.size, 18);
    assertEquals(top.modified_at, "2024-01-01T12:00:00.000Z");

    // A folder name with a space, and a trailing slash, work as given.
    const notes = await json(shelf, "browse", { path: "Lab/my notes/" });
    assertEquals(notes.path, "Lab/my notes");
    assertEquals((notes.folders as Json[]).map((f) => [f.name, f.documents, f.folders]), [[
      "deep",
      2,
      1,
    ]]);
    assertEquals((notes.documents as Json[]).map((d) => d.name), ["a.md", "b.txt"]);
    const uni = await json(shelf, "browse", { path: "Lab/Ünïcode 文件" });
    assertEquals((uni.folders as Json[]).map((f) => f.name), ["子"]);
    assertEquals((uni.documents as Json[]).map((d) => d.title), ["Accent"]);
    assertEquals(
      ((await json(shelf, "browse", { path: "Lab/Ünïcode 文件/子" })).documents as Json[])
        .map((d) => d.path),
      ["Lab/Ünïcode 文件/子/f.md"],
    );

    // Newest first: the folder holding the newest document (b.txt, day 9) leads.
    const newest = await json(shelf, "browse", { path: "Lab", sort: "newest" });
    assertEquals((newest.folders as Json[]).map((f) => f.name), ["my notes", "Ünïcode 文件"]);
    const notesNewest = await json(shelf, "browse", { path: "Lab/my notes", sort: "newest" });
    assertEquals((notesNewest.documents as Json[]).map((d) => d.name), ["b.txt", "a.md"]);

    // Pages run over folders then documents.
    const p1 = await json(shelf, "browse", { path: "Lab/my notes", limit: 2 });
    assertEquals((p1.folders as Json[]).length + (p1.documents as Json[]).length, 2);
    assertEquals(p1.next_offset, 2);
    const p2 = await json(shelf, "browse", { path: "Lab/my notes", limit: 2, offset: 2 });
    assertEquals((p2.documents as Json[]).map((d) => d.name), ["b.txt"]);
    assertEquals(p2.next_offset, undefined);
    assertEquals([p2.total_folders, p2.total_documents], [1, 2]);

    const text = await md(shelf, "browse", { path: "Lab/my notes", limit: 2 });
    assertMatch(text, /^Lab\/my notes: 1 folder, 2 documents/);
    assertMatch(text, /- deep\/ \(2 docs, 1 folder\)/);
    assertMatch(text, /\] a\.md · Alpha · 3 lines · /);
    assertMatch(text, /next: offset=2/);
    assertMatch(await md(shelf, "browse", {}), /- Lab\/ \(7 docs, 2 folders\)/);
  },

  "browse: folders whose UTF-8 and UTF-16 orders differ (astral characters) are found": async (
    { store },
  ) => {
    await using t = await shelfWith([{
      name: "Lab",
      files: {
        "📁 box/g.md": ["# G\n", DAY(1)],
        "！bang/h.md": ["# H\n", DAY(2)],
        "！bang/📁/i.md": ["# I\n", DAY(3)],
        "z.md": ["# Z\n", DAY(4)],
      },
    }], store);
    const shelf = t.shelf;
    const lab = await json(shelf, "browse", { path: "Lab" });
    assertEquals((lab.folders as Json[]).map((f) => [f.name, f.documents]).sort(), [
      ["📁 box", 1],
      ["！bang", 2],
    ]);
    const cases: [string, string[]][] = [
      ["Lab/📁 box", ["g.md"]],
      ["Lab/！bang", ["h.md"]],
      ["Lab/！bang/📁", ["i.md"]],
    ];
    for (const [path, docs] of cases) {
      const r = await json(shelf, "browse", { path });
      assertEquals((r.documents as Json[]).map((d) => d.name), docs, path);
    }
  },

  "browse: paths outside the libraries, documents and missing folders are refused": async (
    { store },
  ) => {
    await using t = await shelfWith([{
      name: "Lab",
      files: { "a/b.md": ["# B\n", DAY(1)] },
    }], store);
    const shelf = t.shelf;
    const outside = await Deno.makeTempDir({ prefix: "shelfmark-outside-" });
    try {
      await Deno.writeTextFile(join(outside, "secret.md"), "# Secret\n");
      await Deno.symlink(outside, join(t.base, "Lab", "escape"));
      for (
        const path of ["Lab/../..", "../etc", "/etc", "Lab/a/%2e%2e/%2e%2e", outside, "Lab/escape"]
      ) {
        assertEquals(await code(json(shelf, "browse", { path })), "PATH_OUTSIDE_LIBRARY", path);
      }
      assertEquals(await code(json(shelf, "browse", { path: "Nope/a" })), "LIBRARY_NOT_FOUND");
      assertEquals(await code(json(shelf, "browse", { path: "Lab/a/b.md" })), "INVALID_ARGUMENT");
      assertEquals(await code(json(shelf, "browse", { path: "Lab/zzz" })), "INVALID_ARGUMENT");
      assertEquals(
        await code(json(shelf, "browse", { path: "Lab", limit: 0 })),
        "INVALID_ARGUMENT",
      );
      // An absolute path inside the root is the same folder.
      const abs = await json(shelf, "browse", { path: join(t.base, "Lab", "a") });
      assertEquals(abs.path, "Lab/a");
      // An existing folder with nothing indexed is empty, not an error.
      await Deno.mkdir(join(t.base, "Lab", "empty"));
      const empty = await json(shelf, "browse", { path: "Lab/empty" });
      assertEquals([empty.total_folders, empty.total_documents], [0, 0]);
    } finally {
      await Deno.remove(outside, { recursive: true });
    }
  },

  "find_documents: exact > prefix > contains, titles, filters, fuzzy with a typo": async (
    { store },
  ) => {
    await using t = await shelfWith([{
      name: "Lib",
      files: {
        "x/report.md": ["plain\n", DAY(1)],
        "report-2023-final.md": ["plain\n", DAY(2)],
        "annual_report.txt": ["plain\n", DAY(3)],
        "notes.md": ["# Quarterly Report\n\ntext\n", DAY(4)],
        "reporting.html": ["<title>Reporting</title><p>x</p>", DAY(5)],
        "Résumé.md": ["# CV\n", DAY(6)],
        "other.md": ["# Unrelated\n", DAY(7)],
      },
    }], store);
    const shelf = t.shelf;
    const r = await json(shelf, "find_documents", { query: "Report" });
    const got = (r.results as Json[]).map((d) => [d.path, d.match, d.matched_on]);
    assertEquals(got, [
      ["Lib/x/report.md", "exact", "name"],
      ["Lib/report-2023-final.md", "prefix", "name"],
      ["Lib/reporting.html", "prefix", "name"],
      ["Lib/annual_report.txt", "contains", "name"],
      ["Lib/notes.md", "contains", "title"],
    ]);
    assertEquals(r.total, 5);
    // Separators and case are ignored; the extension may be given.
    assertEquals(
      ((await json(shelf, "find_documents", { query: "REPORT 2023" })).results as Json[])[0]!.path,
      "Lib/report-2023-final.md",
    );
    assertEquals(
      ((await json(shelf, "find_documents", { query: "report.md" })).results as Json[])[0]!.match,
      "exact",
    );
    // Accents are ignored.
    assertEquals(
      ((await json(shelf, "find_documents", { query: "resume" })).results as Json[])[0]!.path,
      "Lib/Résumé.md",
    );
    // doc_types and limit.
    assertEquals(
      ((await json(shelf, "find_documents", { query: "report", doc_types: ["html"] }))
        .results as Json[]).map((d) => d.path),
      ["Lib/reporting.html"],
    );
    assertEquals(
      ((await json(shelf, "find_documents", { query: "report", limit: 2 })).results as Json[])
        .length,
      2,
    );
    // A typo: nothing without fuzzy, the right documents with it.
    assertEquals((await json(shelf, "find_documents", { query: "quartrely" })).total, 0);
    assertMatch(await md(shelf, "find_documents", { query: "quartrely" }), /fuzzy=true/);
    const fz = await json(shelf, "find_documents", { query: "quartrely", fuzzy: true });
    assertEquals((fz.results as Json[]).map((d) => [d.path, d.match, d.edits]), [[
      "Lib/notes.md",
      "fuzzy",
      1,
    ]]);
    const fz2 = await json(shelf, "find_documents", { query: "anual reprot", fuzzy: true });
    assertEquals((fz2.results as Json[])[0]!.path, "Lib/annual_report.txt");
    // Exact matches still come before fuzzy ones.
    const mixed = await json(shelf, "find_documents", { query: "report", fuzzy: true });
    assertEquals((mixed.results as Json[])[0]!.match, "exact");
    assertEquals(await code(json(shelf, "find_documents", { query: "--" })), "INVALID_ARGUMENT");
    assertEquals(
      await code(json(shelf, "find_documents", { query: "x", library: "Nope" })),
      "LIBRARY_NOT_FOUND",
    );
  },
});

Deno.test("recent: newest first, library, path_glob, doc_types, limit", async () => {
  await using t = await shelfWith([
    {
      name: "A",
      files: {
        "old.md": ["# Old\n", DAY(1)],
        "2024/mid.md": ["# Mid\n", DAY(5)],
        "2024/new.txt": ["new\n", DAY(9)],
      },
    },
    { name: "B", files: { "b.md": ["# B\n", DAY(7)] } },
  ]);
  const shelf = t.shelf;
  const paths = async (args: Json) =>
    ((await json(shelf, "recent", args)).documents as Json[]).map((d) => d.path);
  assertEquals(await paths({}), ["A/2024/new.txt", "B/b.md", "A/2024/mid.md", "A/old.md"]);
  assertEquals(await paths({ library: "A", limit: 2 }), ["A/2024/new.txt", "A/2024/mid.md"]);
  assertEquals(await paths({ path_glob: "A/2024/*" }), ["A/2024/new.txt", "A/2024/mid.md"]);
  assertEquals(await paths({ doc_types: ["Markdown"] }), ["B/b.md", "A/2024/mid.md", "A/old.md"]);
  assertEquals(await paths({ path_glob: "a/*" }), [], "GLOB is case-sensitive, as in search");
  const text = await md(shelf, "recent", { limit: 1 });
  assertMatch(
    text,
    /^1 most recently modified:\n1\. \[\d+\] A\/2024\/new\.txt · 1 line · 4 B · 2024-01-09/,
  );
  assertEquals(await code(json(shelf, "recent", { library: "Nope" })), "LIBRARY_NOT_FOUND");
});

const VAULT = {
  "pacing.md": [
    "---\ntitle: On pacing\ntags: [Pacing, plot]\naliases: [Tempo]\nstatus: draft\n---\n# On pacing\n\nStory speed notes.\n",
    DAY(1),
  ],
  "plot.md": [
    "---\ntags: 'plot, character'\nstatus: done\n---\n# Plot\n\nStory structure notes.\n",
    DAY(2),
  ],
  "chars.md": [
    "---\ntags: character\nalias: People\nstatus: draft\n---\n# Characters\n\nStory people notes.\n",
    DAY(3),
  ],
  "loose.md": ["# Loose\n\nStory without front matter.\n", DAY(4)],
} as Record<string, [string, string]>;

Deno.test("front matter: list_tags counts and search filters (list element, AND, unknown field)", async () => {
  await using t = await shelfWith([
    { name: "Vault", files: VAULT },
    {
      name: "Topics",
      files: { "t.md": ["---\ntopic: Space\nstatus: x\n---\n# Story t\n", DAY(5)] },
      fields: ["Topic"],
    },
  ]);
  const shelf = t.shelf;
  const tags = await json(shelf, "list_tags", { library: "Vault" });
  assertEquals(tags.values, [
    { value: "character", documents: 2 },
    { value: "plot", documents: 2 },
    { value: "Pacing", documents: 1 },
  ]);
  assertEquals(tags.total, 3);
  assertEquals(
    (await json(shelf, "list_tags", { field: "status" })).values,
    [{ value: "draft", documents: 2 }, { value: "done", documents: 1 }],
  );
  assertEquals(
    (await json(shelf, "list_tags", { field: "aliases" })).values,
    [{ value: "People", documents: 1 }, { value: "Tempo", documents: 1 }],
  );
  assertEquals((await json(shelf, "list_tags", { limit: 1 })).total, 3);
  assertMatch(
    await md(shelf, "list_tags", { library: "Vault" }),
    /3 values of tags in Vault, documents each:\ncharacter \(2\) · plot \(2\) · Pacing \(1\)/,
  );
  // A field configured for one library only.
  assertEquals((await json(shelf, "list_tags", { field: "topic" })).values, [{
    value: "Space",
    documents: 1,
  }]);

  const hits = async (filters: Json, library?: string) =>
    ((await json(shelf, "search", { query: "story notes", filters, library })).results as Json[])
      .map((h) => h.path).sort();
  assertEquals(await hits({ tags: "plot" }), ["Vault/pacing.md", "Vault/plot.md"]);
  assertEquals(await hits({ tags: "pacing" }), ["Vault/pacing.md"], "case-insensitive");
  assertEquals(await hits({ tags: "#Pacing" }), ["Vault/pacing.md"], "a tag's # is dropped");
  assertEquals(await hits({ tags: "pac" }), [], "whole values only");
  assertEquals(await hits({ tags: ["pacing", "character"] }), [
    "Vault/chars.md",
    "Vault/pacing.md",
    "Vault/plot.md",
  ]);
  assertEquals(await hits({ tags: ["pacing", "nothing"] }), ["Vault/pacing.md"]);
  assertEquals(await hits({ tags: "character", status: "draft" }), ["Vault/chars.md"], "AND");
  assertEquals(await hits({ tags: "plot", status: ["done", "draft"] }), [
    "Vault/pacing.md",
    "Vault/plot.md",
  ]);
  assertEquals(await hits({ aliases: "tempo" }), ["Vault/pacing.md"]);
  assertEquals(await hits({ topic: "space" }), ["Topics/t.md"]);
  // Filters hold under a path glob, and in every one of several queries.
  assertEquals(await hits({ tags: "plot" }, "Vault"), ["Vault/pacing.md", "Vault/plot.md"]);
  const many = await json(shelf, "search", {
    queries: ["story", "notes"],
    filters: { status: "done" },
  });
  for (const q of Object.values(many.queries as Record<string, Json>)) {
    assertEquals((q.results as Json[]).map((h) => h.path), ["Vault/plot.md"]);
  }

  // A field the library does not index: refused, the indexed ones in the hint.
  const e = await assertRejects(() =>
    callTool(shelf, "search", { query: "story", filters: { mood: "x" } })
  ) as ToolError;
  assertEquals(e.code, "INVALID_ARGUMENT");
  assertMatch(e.hint!, /tags, aliases, type, status, author, topic/);
  const e2 = await assertRejects(() =>
    callTool(shelf, "search", { query: "story", library: "Topics", filters: { status: "x" } })
  ) as ToolError;
  assertEquals(e2.code, "INVALID_ARGUMENT");
  assertMatch(e2.message, /not indexed in library "Topics"/);
  assertMatch(e2.hint!, /Indexed fields: topic\./);
  assertEquals(await code(json(shelf, "list_tags", { field: "mood" })), "INVALID_ARGUMENT");
  assertEquals(
    await code(json(shelf, "search", { query: "story", filters: { tags: [] } })),
    "INVALID_ARGUMENT",
  );
});

Deno.test("front matter: a changed field list re-extracts the library; DOCX keywords are tags", async () => {
  const dir = await smallCorpus();
  const zip = unzipSync(
    await Deno.readFile(join(dir, "word/from-html/python3.11-doc/library_2to3.docx")),
  );
  const core = new TextDecoder().decode(zip["docProps/core.xml"]!);
  zip["docProps/core.xml"] = strToU8(
    core.replace("<cp:keywords></cp:keywords>", "<cp:keywords>python; Migration</cp:keywords>"),
  );
  await using t = await shelfWith([{ name: "Vault", files: VAULT, fields: ["status"] }]);
  await Deno.writeFile(join(t.base, "Vault", "2to3.docx"), zipSync(zip));
  await t.shelf.index();
  assertEquals(await code(json(t.shelf, "list_tags", {})), "INVALID_ARGUMENT");
  const config = join(t.data, "shelfmark.json");
  const c = JSON.parse(await Deno.readTextFile(config));
  c.libraries[0].fields = ["tags", "status"];
  await Deno.writeTextFile(config, JSON.stringify(c));
  const shelf = await t.reopen();
  await shelf.index();
  assertEquals((await json(shelf, "list_tags", {})).values, [
    { value: "character", documents: 2 },
    { value: "plot", documents: 2 },
    { value: "Migration", documents: 1 },
    { value: "Pacing", documents: 1 },
    { value: "python", documents: 1 },
  ]);
  const hits = await json(shelf, "search", { query: "2to3", filters: { tags: "migration" } });
  assertEquals((hits.results as Json[]).map((h) => h.path), ["Vault/2to3.docx"]);
  assert((await json(shelf, "list_tags", { field: "status" })).total === 2);
});

Deno.test(
  "front matter: filters hold in semantic and hybrid search (vectors through the catalog)",
  { sanitizeResources: false, sanitizeOps: false },
  async () => {
    const s = startStandIn();
    try {
      await using t = await openTestShelf({
        embedder: new OllamaEmbedder({ model: "toy-multilingual", url: s.url }),
      });
      const lib = join(t.base, "Pets");
      await write(lib, {
        "cats.md": ["---\ntags: [pets]\n---\n# Cats\n\nCats sleep all day.\n", DAY(1)],
        "dogs.md": ["---\ntags: [pets, loud]\n---\n# Dogs\n\nDogs sleep at night.\n", DAY(2)],
      });
      const shelf = await t.reopen({ folders: [lib] });
      await shelf.index();
      await partsOf(shelf).vectors!.idle();
      for (const mode of ["semantic", "hybrid", "keyword"]) {
        const all = await json(shelf, "search", { query: "sleeping", mode });
        assertEquals(all.mode_used, mode);
        assertEquals((all.results as Json[]).length, 2, mode);
        const loud = await json(shelf, "search", {
          query: "sleeping",
          mode,
          filters: { tags: "loud" },
        });
        assertEquals((loud.results as Json[]).map((h) => h.path), ["Pets/dogs.md"], mode);
      }
    } finally {
      await s.close();
    }
  },
);

Deno.test("CLI: browse, find-documents, recent, list-tags and search --filter, same defaults", async () => {
  await using t = await shelfWith([{ name: "Vault", files: VAULT }]);
  const data = ["--data", t.data];
  const b = await runCli(["browse", "Vault", ...data]);
  assertEquals(b.code, 0, b.stderr);
  assertMatch(b.stdout, /^Vault: 0 folders, 4 documents\n/);
  assertMatch(b.stdout, /\] pacing\.md · On pacing · 9 lines · /);
  const f = await runCli(["find-documents", "pacnig", "--fuzzy", "--json", ...data]);
  assertEquals(JSON.parse(f.stdout).results[0].path, "Vault/pacing.md");
  const none = await runCli(["find-documents", "pacnig", ...data]);
  assertMatch(none.stdout, /Try --fuzzy/);
  const r = await runCli(["recent", "-n", "1", ...data]);
  assertMatch(r.stdout, /^1 most recently modified:\n1\. \[\d+\] Vault\/loose\.md/);
  const tags = await runCli(["list-tags", "status", ...data]);
  assertMatch(tags.stdout, /^2 values of status, documents each:\ndraft \(2\) · done \(1\)/);
  const s = await runCli([
    "search",
    "story",
    "--filter",
    "tags=character",
    "--filter",
    "status=done",
    "--json",
    ...data,
  ]);
  assertEquals(JSON.parse(s.stdout).results.map((h: Json) => h.path), ["Vault/plot.md"]);
  const any = await runCli([
    "search",
    "story",
    "--filter",
    "tags=pacing",
    "--filter",
    "tags=plot",
    "--json",
    ...data,
  ]);
  assertEquals(JSON.parse(any.stdout).results.length, 2);
  const bad = await runCli(["search", "story", "--filter", "nofield", ...data]);
  assertEquals(bad.code, 2);
  assertMatch(bad.stderr, /--filter must be FIELD=VALUE/);
  const unknown = await runCli(["search", "story", "--filter", "mood=x", ...data]);
  assert(unknown.code !== 0);
  assertMatch(unknown.stdout + unknown.stderr, /INVALID_ARGUMENT|not indexed/);
});
