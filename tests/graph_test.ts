/**
 * The link graph tools (`links`, `connection`, `context`) through a real shelf: a Markdown
 * vault written here (wiki links, aliases, headings, embeds, a broken link, an orphan, a
 * URL, front-matter tags), the real small corpus's HTML manuals, the CLI, and bad input.
 * Each case runs on both catalog stores; on PostgreSQL the data folder's catalog is deleted
 * after indexing (`storeAlone`), so the answers come from PostgreSQL alone, and they are
 * the JSON a shelf on SQLite gives for the same files.
 */
import { join } from "node:path";
import { callTool } from "../server/dispatch.ts";
import type { ToolError } from "../core/types.ts";
import type { Shelf } from "../shelf/shelf.ts";
import { assert, assertEquals, assertMatch, assertRejects } from "./assert.ts";
import { runCli } from "./cli_helper.ts";
import { smallCorpus } from "./corpus.ts";
import { openTestShelf, type TestShelf } from "./shelf_helper.ts";
import { storeAlone, storeCases } from "./store_cases.ts";
import { partsOf } from "../shelf/_parts.ts";

const VAULT: Record<string, string> = {
  "Home.md": [
    "---",
    "tags: [hub, index]",
    "---",
    "# Home",
    "",
    "Start with [[Alpha]] and [[Beta|the second note]].",
    "Details: [[Alpha#Details]]. Embedded: ![[Gamma]] and ![[photo.png]].",
    "See also [a lost page](nowhere.md) and <https://obsidian.md>.",
  ].join("\n"),
  "notes/Alpha.md": "# Alpha\n\n## Details\n\nAlpha leads to [[Gamma]].\n",
  "notes/Beta.md": "# Beta\n\nBack [home](../Home.md).\n",
  "notes/Gamma.md": "---\ntags: leaf\n---\n# Gamma\n\nA leaf note about gamma rays.\n",
  "Orphan.md": "# Orphan\n\nNobody links here, and this links nowhere.\n",
  "old/2020/Alpha.md": "# Old alpha\n\nAn older Alpha, deeper in the vault.\n",
};

/**
 * A shelf on the vault, indexed; with a store, left with the store alone (the data folder's
 * catalog deleted).
 */
async function vault(store?: string) {
  const base = await Deno.makeTempDir({ prefix: "shelfmark-graph-" });
  const lib = join(base, "Vault");
  for (const [path, text] of Object.entries(VAULT)) {
    await Deno.mkdir(join(lib, path, ".."), { recursive: true });
    await Deno.writeTextFile(join(lib, path), text);
  }
  const t = await openTestShelf({ base, store, folders: [lib] });
  await t.shelf.index();
  await storeAlone(t, store);
  return t;
}

/** A stored document's id by its display path (from the shelf's catalog store). */
async function idOf(shelf: Shelf, path: string): Promise<string> {
  const id = await partsOf(shelf).store.idByPath(path);
  assert(id, `${path} is stored`);
  return id;
}

/** Every answer the link tools give about a shelf's documents, as JSON without `_meta`. */
async function linkAnswers(shelf: Shelf, paths: string[]): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  const bare = (tool: "links" | "connection" | "context", json: Record<string, unknown>) => {
    const { _meta: _, ...rest } = json;
    if (tool !== "context") return rest;
    const { backlinks, outlinks } = rest;
    return { backlinks, outlinks };
  };
  const ask = async (tool: "links" | "connection" | "context", args: object) => {
    out[`${tool} ${JSON.stringify(args)}`] = bare(tool, await json(shelf, tool, args));
  };
  for (const doc_id of paths) {
    await ask("links", { doc_id, limit: 200 });
    await ask("context", { doc_id, limit: 50 });
    await ask("connection", { from: paths[0], to: doc_id });
  }
  for (const kind of ["broken", "orphans", "most_linked"]) await ask("links", { kind, limit: 200 });
  return out;
}

/**
 * On PostgreSQL (`store` given): the link tools answer the same JSON as a shelf on SQLite
 * indexing the same library folder.
 */
async function sameAsSqlite(t: TestShelf, store: string | undefined, folder: string) {
  if (!store) return;
  const paths = (await partsOf(t.shelf).store.list()).map((e) => e.path);
  await using sqlite = await openTestShelf({ folders: [folder] });
  await sqlite.shelf.index();
  assertEquals(await linkAnswers(t.shelf, paths), await linkAnswers(sqlite.shelf, paths));
}

async function json(shelf: Shelf, tool: "links" | "connection" | "context", args: object) {
  // deno-lint-ignore no-explicit-any
  return (await callTool(shelf, tool, { ...args, output_format: "json" })).json as any;
}

async function code(shelf: Shelf, tool: "links" | "connection" | "context", args: object) {
  return ((await assertRejects(() => callTool(shelf, tool, args))) as ToolError).code;
}

storeCases({
  "links: wiki links, aliases, headings, embeds, broken links and URLs of a vault": async (
    { store },
  ) => {
    await using t = await vault(store);
    const { shelf } = t;
    const ids = new Map<string, string>();
    for (const p of Object.keys(VAULT)) ids.set(p, await idOf(shelf, `Vault/${p}`));
    const id = (p: string) => ids.get(p)!;
    const home = await json(shelf, "links", { doc_id: "Vault/Home.md" });
    assertEquals(home.doc_id, id("Home.md"));
    const out = home.outgoing.items.map((
      l: Record<string, unknown>,
    ) => [l.target, l.kind, l.doc_id, l.path, l.exists, l.text, l.line, l.count]);
    assertEquals(out, [
      ["Alpha", "document", id("notes/Alpha.md"), "Vault/notes/Alpha.md", true, "Alpha", 6, 2],
      [
        "Beta",
        "document",
        id("notes/Beta.md"),
        "Vault/notes/Beta.md",
        true,
        "the second note",
        6,
        1,
      ],
      ["Gamma", "document", id("notes/Gamma.md"), "Vault/notes/Gamma.md", true, "Gamma", 7, 1],
      ["photo.png", "broken", null, "Vault/photo.png", false, "photo.png", 7, 1],
      ["nowhere.md", "broken", null, "Vault/nowhere.md", false, "a lost page", 8, 1],
      ["https://obsidian.md", "external", null, null, null, "https://obsidian.md", 8, 1],
    ]);
    assertEquals(home.outgoing.by_kind, { document: 3, broken: 2, external: 1 });
    assertEquals(
      home.incoming.items.map((l: { path: string; line: number; text: string }) => [
        l.path,
        l.line,
        l.text,
      ]),
      [["Vault/notes/Beta.md", 3, "home"]],
    );

    const md = (await callTool(shelf, "links", { doc_id: id("Home.md"), limit: 2 })).text;
    assertMatch(md, /^Out: 3 documents, 2 broken, 1 URL$/m);
    assertMatch(md, /^- L6 "Alpha" → Vault\/notes\/Alpha\.md \(\d{15}\) ×2$/m);
    assertMatch(md, /^\(more: offset=2\)$/m);
    assertMatch(md, /^- Vault\/notes\/Beta\.md \(\d{15}\) L3 "home"$/m);

    const onlyIn = await json(shelf, "links", { doc_id: id("notes/Gamma.md"), direction: "in" });
    assertEquals(onlyIn.outgoing, undefined);
    assertEquals(onlyIn.incoming.items.map((l: { path: string }) => l.path), [
      "Vault/Home.md",
      "Vault/notes/Alpha.md",
    ]);

    const broken = await json(shelf, "links", { kind: "broken", library: "Vault" });
    assertEquals(broken.items.map((b: { path: string; target: string }) => [b.path, b.target]), [
      ["Vault/Home.md", "photo.png"],
      ["Vault/Home.md", "nowhere.md"],
    ]);
    const orphans = await json(shelf, "links", { kind: "orphans", library: "Vault" });
    assertEquals(orphans.items.map((d: { path: string }) => d.path), [
      "Vault/Orphan.md",
      "Vault/old/2020/Alpha.md",
    ]);
    const most = await json(shelf, "links", { kind: "most_linked", limit: 1 });
    assertEquals(most.total, 4);
    assertEquals(most.next_offset, 1);
    assertEquals(most.items.map((d: { path: string; sources: number }) => [d.path, d.sources]), [
      ["Vault/notes/Gamma.md", 2],
    ]);
    assertMatch(
      (await callTool(shelf, "links", { kind: "most_linked", library: "Vault", limit: 1 })).text,
      /^- Vault\/notes\/Gamma\.md \(\d{15}\) Gamma ← 2 documents, 2 links$/m,
    );
    await sameAsSqlite(t, store, join(t.base, "Vault"));
  },

  "connection and context on a vault": async ({ store }) => {
    await using t = await vault(store);
    const { shelf } = t;
    const c = await json(shelf, "connection", {
      from: "Vault/notes/Beta.md",
      to: "Vault/notes/Gamma.md",
    });
    assertEquals(c.found, true);
    assertEquals(c.chain.map((d: { path: string }) => d.path), [
      "Vault/notes/Beta.md",
      "Vault/Home.md",
      "Vault/notes/Gamma.md",
    ]);
    assertEquals(
      c.links.map((l: { direction: string; line: number; text: string }) => [
        l.direction,
        l.line,
        l.text,
      ]),
      [["out", 3, "home"], ["out", 7, "Gamma"]],
    );
    const back = await json(shelf, "connection", {
      from: "Vault/notes/Gamma.md",
      to: "Vault/notes/Beta.md",
    });
    assertEquals(back.links.map((l: { direction: string }) => l.direction), ["in", "out"]);
    const none = await callTool(shelf, "connection", {
      from: "Vault/Orphan.md",
      to: "Vault/Home.md",
    });
    assertMatch(none.text, /^No connection between Vault\/Orphan\.md .* within 10 hops\.$/m);
    const near = await json(shelf, "connection", {
      from: "Vault/notes/Beta.md",
      to: "Vault/notes/Gamma.md",
      max_depth: 1,
    });
    assertEquals([near.found, near.max_depth], [false, 1]);

    const ctx = await json(shelf, "context", { doc_id: "Vault/Home.md" });
    assertEquals(ctx.card.title, "Home");
    assertEquals(ctx.card.doc_type, "markdown");
    assertEquals(ctx.card.total_lines, 8);
    assertEquals(ctx.tags, ["hub", "index"]);
    assertEquals(ctx.backlinks.items.map((l: { path: string }) => l.path), ["Vault/notes/Beta.md"]);
    assertEquals(ctx.outlinks.total, 6);
    assertEquals(ctx.outlinks.items.length, 5, "limit 5 by default");
    assertEquals(ctx.folder.path, "Vault");
    assertEquals(ctx.folder.items.map((d: { path: string }) => d.path), ["Vault/Orphan.md"]);
    assertEquals(ctx.similar_by, "keywords");
    assert(!ctx.similar.some((d: { path: string }) => d.path === "Vault/Home.md"));
    const gamma = await callTool(shelf, "context", { doc_id: "Vault/notes/Gamma.md", limit: 1 });
    assertMatch(gamma.text, /^# Gamma$/m);
    assertMatch(gamma.text, /^Tags: leaf$/m);
    assertMatch(gamma.text, /^Backlinks: 2 documents$/m);
    assertMatch(gamma.text, /^- … 1 more$/m);
    assertMatch(gamma.text, /^Folder Vault\/notes\/: 2 other documents$/m);
  },

  "links, connection, context: unknown documents, paths outside the libraries, bad arguments":
    async ({ store }) => {
      await using t = await vault(store);
      const { shelf } = t;
      for (const tool of ["links", "context"] as const) {
        assertEquals(await code(shelf, tool, { doc_id: "123456789012345" }), "DOCUMENT_NOT_FOUND");
        assertEquals(
          await code(shelf, tool, { doc_id: "Vault/../../etc/passwd" }),
          "PATH_OUTSIDE_LIBRARY",
        );
        assertEquals(await code(shelf, tool, { doc_id: "/etc/passwd" }), "PATH_OUTSIDE_LIBRARY");
        assertEquals(await code(shelf, tool, { doc_id: "Nope/a.md" }), "LIBRARY_NOT_FOUND");
      }
      const home = "Vault/Home.md";
      assertEquals(
        await code(shelf, "connection", { from: home, to: "../x.md" }),
        "PATH_OUTSIDE_LIBRARY",
      );
      assertEquals(
        await code(shelf, "connection", { from: "Vault/none.md", to: home }),
        "DOCUMENT_NOT_FOUND",
      );
      assertEquals(
        await code(shelf, "connection", { from: home, to: home, max_depth: 11 }),
        "INVALID_ARGUMENT",
      );
      assertEquals(await code(shelf, "links", {}), "INVALID_ARGUMENT");
      assertEquals(
        await code(shelf, "links", { doc_id: home, kind: "broken" }),
        "INVALID_ARGUMENT",
      );
      assertEquals(
        await code(shelf, "links", { kind: "orphans", library: "Nope" }),
        "LIBRARY_NOT_FOUND",
      );
      assertEquals(await code(shelf, "links", { kind: "everything" }), "INVALID_ARGUMENT");
      assertEquals(await code(shelf, "links", { doc_id: home, limit: 0 }), "INVALID_ARGUMENT");
      assertEquals(await code(shelf, "context", { doc_id: home, limit: 51 }), "INVALID_ARGUMENT");
    },
});

storeCases({
  "the HTML manuals of the small corpus: backlinks, broken links, the shortest chain": async (
    { store },
  ) => {
    const corpus = await smallCorpus();
    await using t = await openTestShelf({ store, folders: [join(corpus, "html")] });
    await t.shelf.index();
    await storeAlone(t, store);
    const { shelf } = t;
    const ids = new Map<string, string>();
    for (
      const p of [
        "apache2-doc/de/mod/mpm_common.html",
        "apache2-doc/de/mpm.html",
        "apache2-doc/fr/bind.html",
      ]
    ) {
      ids.set(p, await idOf(shelf, `html/${p}`));
    }
    const id = (p: string) => ids.get(p)!;

    const common = await json(shelf, "links", { doc_id: id("apache2-doc/de/mod/mpm_common.html") });
    assertEquals(
      common.incoming.items.map((l: { path: string; text: string }) => [l.path, l.text]),
      [
        ["html/apache2-doc/de/bind.html", "Listen"],
        ["html/apache2-doc/de/invoking.html", "Listen"],
      ],
    );
    assertEquals(common.outgoing.items[0].path, "html/apache2-doc/de/bind.html");
    assert(common.outgoing.internal > 0, "links to its own sections are counted apart");

    // The Python page links to sys.html, which the small corpus does not hold.
    const warnings = await json(shelf, "links", {
      doc_id: "html/python3.11-doc/library/warnings.html",
      direction: "out",
      limit: 200,
    });
    const sys = warnings.outgoing.items.find((l: { target: string }) =>
      l.target === "sys.html#sys.stderr"
    );
    assertEquals([sys.kind, sys.exists, sys.path, sys.line], [
      "broken",
      false,
      "html/python3.11-doc/library/sys.html",
      11,
    ]);
    const github = warnings.outgoing.items.find((l: { kind: string }) => l.kind === "external");
    assertEquals([github.exists, github.doc_id], [null, null]);
    const broken = await json(shelf, "links", { kind: "broken", library: "html", limit: 200 });
    assert(broken.total > 100, `${broken.total} broken`);
    assert(
      broken.items.some((b: { path: string; target: string }) =>
        b.path === "html/apache2-doc/de/bind.html" && b.target === "dns-caveats.html"
      ),
    );

    // mpm.html <- invoking.html -> mod/mpm_common.html -> bind.html
    const chain = await json(shelf, "connection", {
      from: id("apache2-doc/de/mpm.html"),
      to: "html/apache2-doc/de/bind.html",
    });
    assertEquals(chain.hops, 3);
    assertEquals(chain.chain.map((d: { path: string }) => d.path), [
      "html/apache2-doc/de/mpm.html",
      "html/apache2-doc/de/invoking.html",
      "html/apache2-doc/de/mod/mpm_common.html",
      "html/apache2-doc/de/bind.html",
    ]);
    assertEquals(
      chain.links.map((l: { direction: string; target: string }) => [l.direction, l.target]),
      [["in", "mpm.html"], ["out", "./mod/mpm_common.html#listen"], ["out", "../bind.html"]],
    );
    const other = await json(shelf, "connection", {
      from: id("apache2-doc/de/mpm.html"),
      to: id("apache2-doc/fr/bind.html"),
    });
    assertEquals(other.found, false, "the German and French manuals do not link to each other");
  },
});

Deno.test("cli: links, connection and context", async () => {
  await using t = await vault();
  const data = ["--data", t.data];
  const links = await runCli(["links", "Vault/notes/Gamma.md", "--direction", "in", ...data]);
  assertEquals(links.code, 0, links.stderr);
  assertMatch(links.stdout, /^In: 2 documents$/m);
  const kind = await runCli([
    "links",
    "--kind",
    "orphans",
    "--library",
    "Vault",
    "--json",
    ...data,
  ]);
  assertEquals(JSON.parse(kind.stdout).total, 2);
  const conn = await runCli(["connection", "Vault/notes/Beta.md", "Vault/notes/Gamma.md", ...data]);
  assertMatch(conn.stdout, /^2 hops from Vault\/notes\/Beta\.md/m);
  const ctx = await runCli(["context", "Vault/Home.md", "-n", "1", ...data]);
  assertMatch(ctx.stdout, /^Tags: hub, index$/m);
  assertEquals((await runCli(["connection", "Vault/Home.md", ...data])).code, 2);
  assertEquals((await runCli(["links", ...data])).code, 2);
  const outside = await runCli(["context", "../../etc/passwd", ...data]);
  assertEquals(outside.code, 1);
  assertMatch(outside.stderr, /outside every library root/);
});
