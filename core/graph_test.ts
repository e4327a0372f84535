/**
 * The link graph on a real catalog store (the SQLite catalog file, and a real PostgreSQL) and
 * a real library folder: how targets are read, resolved (relative paths, wiki names, files on
 * disk, broken), counted and walked, and when the graph is rebuilt.
 */
import { join } from "node:path";
import { assert, assertEquals } from "../tests/assert.ts";
import { testCard } from "../tests/card_fixture.ts";
import { Catalog } from "./catalog.ts";
import { LinkGraphs } from "./graph.ts";
import { parseTarget } from "./link_target.ts";
import type { Card } from "./types.ts";
import type { Link } from "./extractor.ts";
import { SqliteCatalogStore } from "../stores/catalog_sqlite.ts";
import { PgCatalogStore } from "../stores/catalog_postgres.ts";
import type { CatalogStore } from "../stores/roles.ts";
import { storeCases } from "../tests/store_cases.ts";

Deno.test("parseTarget() reads URLs, fragments, relative and rooted paths, wiki names", () => {
  const html = (t: string) => parseTarget(t, "Py/library/warnings.html", "html");
  const md = (t: string) => parseTarget(t, "Vault/daily/today.md", "markdown");
  assertEquals(html("https://docs.python.org/3/"), { kind: "external" });
  assertEquals(html("mailto:someone@example.org"), { kind: "external" });
  assertEquals(html("//cdn.example.org/x.js"), { kind: "external" });
  assertEquals(html("#module-warnings"), { kind: "internal" });
  assertEquals(html("?highlight=x"), { kind: "internal" });
  assertEquals(html("sys.html#sys.stderr"), { kind: "local", paths: ["Py/library/sys.html"] });
  assertEquals(html("../using/cmdline.html?x=1#cmdoption-W"), {
    kind: "local",
    paths: ["Py/using/cmdline.html"],
  });
  assertEquals(html("/index.html"), { kind: "local", paths: ["Py/index.html"] });
  assertEquals(html("../"), { kind: "local", paths: ["Py", "Py/index.html"] });
  assertEquals(html("../../../etc/passwd"), { kind: "outside" });
  assertEquals(html("My%20Page.html"), { kind: "local", paths: ["Py/library/My Page.html"] });
  assertEquals(html("bad%zzescape.html"), {
    kind: "local",
    paths: ["Py/library/bad%zzescape.html"],
  });
  assertEquals(parseTarget("./ch2.xhtml#s1", "Books/a.epub", "epub"), { kind: "internal" });
  assertEquals(md("Note#Heading"), {
    kind: "local",
    paths: ["Vault/daily/Note", "Vault/daily/Note.md", "Vault/Note", "Vault/Note.md"],
    name: "Note",
  });
  assertEquals(md("./other.md"), { kind: "local", paths: ["Vault/daily/other.md"] });
  assertEquals(md("projects/Plan"), {
    kind: "local",
    paths: [
      "Vault/daily/projects/Plan",
      "Vault/daily/projects/Plan.md",
      "Vault/projects/Plan",
      "Vault/projects/Plan.md",
    ],
    name: "projects/Plan",
  });
  // a note at the root of the library
  assertEquals(parseTarget("Note", "Vault/index.md", "markdown"), {
    kind: "local",
    paths: ["Vault/Note", "Vault/Note.md"],
    name: "Note",
  });
});

function card(path: string, docType = "markdown"): Card {
  return testCard({ path, doc_type: docType, total_lines: 10 });
}

/** Store a document with links `[target, line]` (each link's text: `to <target>`). */
async function put(
  store: CatalogStore,
  path: string,
  links: [string, number?][],
  docType?: string,
): Promise<string> {
  const c = card(path, docType);
  const ls: Link[] = links.map(([target, line]) => ({
    target,
    text: `to ${target}`,
    line: line ?? 1,
  }));
  await store.put({ card: c, outline: [], terms: {}, hash: path, mtime_ms: 0 }, "text", ls);
  return c.doc_id;
}

storeCases({
  "LinkGraph resolves links, counts backlinks, finds orphans, broken links and chains": async (
    { store: url },
  ) => {
    const base = await Deno.makeTempDir({ prefix: "shelfmark-graph-" });
    const catalog = new Catalog(join(base, "catalog.db"));
    const store: CatalogStore = url ? new PgCatalogStore(url) : new SqliteCatalogStore(catalog);
    try {
      const root = join(base, "Vault");
      await Deno.mkdir(join(root, "img"), { recursive: true });
      await Deno.writeTextFile(join(root, "img", "logo.png"), "not indexed");
      const libraries = [{ name: "Vault", root }];
      const home = await put(store, "Vault/Home.md", [
        ["Alpha", 3], // wiki name, unique
        ["Plan#Goals", 4], // two Plan.md: the shortest path wins
        ["img/logo.png", 5], // a file on disk, not indexed
        ["Missing note", 6], // broken
        ["https://example.org", 7],
        ["#top", 8],
        ["Home", 9], // itself
      ]);
      const alpha = await put(store, "Vault/notes/Alpha.md", [["../projects/deep/Plan.md", 2]]);
      const plan = await put(store, "Vault/Plan.md", []);
      const deep = await put(store, "Vault/projects/deep/Plan.md", [["beta", 1]]); // any case
      const beta = await put(store, "Vault/notes/Beta.md", []);
      const lonely = await put(store, "Vault/lonely.md", []);
      const page = await put(
        store,
        "Vault/site/a.html",
        [["../notes/Alpha.md", 1], ["b.html", 2]],
        "html",
      );
      // skipped files are the data folder's (its catalog), whatever the store
      catalog.skip("Vault", { path: "Vault/site/b.html", reason: "too_large", message: "" }, 1, 0);

      const graphs = new LinkGraphs(store);
      const inputs = { catalog, libraries };
      const g = await graphs.graph(inputs);
      assertEquals(g.size, 7);
      const out = (await g.outgoing(home)).map((l) => [l.line, l.kind, l.doc_id, l.path, l.exists]);
      assertEquals(out, [
        [3, "document", alpha, "Vault/notes/Alpha.md", true],
        [4, "document", plan, "Vault/Plan.md", true],
        [5, "file", null, "Vault/img/logo.png", true],
        [6, "broken", null, "Vault/Missing note", false],
        [7, "external", null, null, null],
        [8, "internal", null, null, null],
        [9, "internal", null, null, null],
      ]);
      assertEquals((await g.outgoing(page))[1]!.kind, "file", "a skipped file is on disk");
      assertEquals((await g.outgoing(deep))[0]!.doc_id, beta);

      assertEquals(g.incoming(alpha).map((s) => [s.path, s.links]), [
        ["Vault/Home.md", 1],
        ["Vault/site/a.html", 1],
      ]);
      assertEquals(g.orphans("Vault").map((d) => d.path), [
        "Vault/Home.md",
        "Vault/lonely.md",
        "Vault/site/a.html",
      ]);
      assertEquals(g.mostLinked().map((d) => [d.path, d.sources]), [
        ["Vault/notes/Alpha.md", 2],
        ["Vault/Plan.md", 1],
        ["Vault/notes/Beta.md", 1],
        ["Vault/projects/deep/Plan.md", 1],
      ]);
      assertEquals(g.broken("Vault").map((b) => [b.source.path, b.target]), [
        ["Vault/Home.md", "Missing note"],
      ]);
      assertEquals(g.broken("Other"), []);
      const [b] = g.broken();
      assertEquals([b!.count, await g.linkRows([b!.row, -1])], [1, [{
        line: 6,
        text: "to Missing note",
        target: "Missing note",
      }, { line: 0, text: "", target: "" }]]);
      assertEquals(await g.firstLinks([[home, alpha], [alpha, home], [home, "nope"]]), [
        { line: 3, text: "to Alpha", target: "Alpha" },
        undefined,
        undefined,
      ]);

      // Home -> Alpha -> deep/Plan -> Beta, links followed forward; back again through backlinks
      const c = (await g.chain(home, beta, 10))!;
      assertEquals(c.docs.map((d) => d.doc_id), [home, alpha, deep, beta]);
      assertEquals(c.hops.map((h) => [h.from, h.to, h.line]), [
        [home, alpha, 3],
        [alpha, deep, 2],
        [deep, beta, 1],
      ]);
      assertEquals((await g.chain(beta, page, 10))!.docs.map((d) => d.doc_id), [
        beta,
        deep,
        alpha,
        page,
      ]);
      assertEquals(
        (await g.chain(beta, page, 10))!.hops.map((h) => [h.from, h.to, h.text]),
        [[deep, beta, "to beta"], [alpha, deep, "to ../projects/deep/Plan.md"], [
          page,
          alpha,
          "to ../notes/Alpha.md",
        ]],
        "steps taken against a link's direction",
      );
      assertEquals(await g.chain(home, beta, 2), undefined, "too far");
      assertEquals(await g.chain(home, lonely, 10), undefined, "not linked at all");
      assertEquals((await g.chain(home, home, 10))!.hops, []);

      // Unchanged store: the same graph. A new note: rebuilt, the broken link resolves.
      assert(await graphs.graph(inputs) === g);
      catalog.setMeta("unrelated", "x");
      assert(await graphs.graph(inputs) === g, "a write elsewhere keeps the graph");
      const missing = await put(store, "Vault/Missing note.md", []);
      const g2 = await graphs.graph(inputs);
      assert(g2 !== g);
      assertEquals((await g2.outgoing(home))[3]!.doc_id, missing);
      assertEquals(g2.broken(), []);
      await store.remove([missing]);
      assertEquals((await (await graphs.graph(inputs)).outgoing(home))[3]!.kind, "broken");
      // Stored again with the same content, a document's links get new rows: rebuilt.
      await new Promise((r) => setTimeout(r, 5));
      await put(store, "Vault/notes/Alpha.md", [["../projects/deep/Plan.md", 7]]);
      const g3 = await graphs.graph(inputs);
      assertEquals((await g3.firstLinks([[alpha, deep]]))[0]?.line, 7);
      // A file skipped no more (the data folder's catalog): rebuilt, its link is broken.
      catalog.unskip(["Vault/site/b.html"]);
      const g4 = await graphs.graph(inputs);
      assert(g4 !== g3);
      assertEquals(g4.broken("Vault").map((b) => b.target), ["Missing note", "b.html"]);
      // Calls while a graph is built share the build; released, the next call builds again.
      graphs.release();
      const [x, y] = await Promise.all([graphs.graph(inputs), graphs.graph(inputs)]);
      assert(x === y && x !== g4);
    } finally {
      await store.close();
      catalog.close();
      await Deno.remove(base, { recursive: true });
    }
  },
});

Deno.test("the store reads links a page of documents at a time, in row order", async () => {
  const catalog = new Catalog(":memory:");
  const store = new SqliteCatalogStore(catalog);
  const ids: string[] = [];
  for (let i = 0; i < 2500; i++) {
    ids.push(await put(store, `V/n${i}.md`, [[`n${i + 1}`, 1], ["#x", 2], [`n${i + 2}`, 3]]));
  }
  await put(store, "V/none.md", []);
  const pages: number[] = [];
  const seen: string[] = [];
  for await (const page of store.linkTargets()) {
    pages.push(page.length);
    for (const r of page) {
      seen.push(r.doc_id);
      assertEquals(r.targets.length, 2, "the fragment left out");
      assert(r.rows[0]! < r.rows[1]!, "rows in document order");
    }
  }
  assertEquals(pages, [1000, 1000, 500]);
  assertEquals(seen, [...ids].sort());
  catalog.close();
});
