/**
 * What a server of a shared store answers of another machine's library (issue 32, Team),
 * beyond listings, reads and keyword search (tests/pg_machines_test.ts,
 * tests/pg_across_test.ts): `search` filters on its front-matter fields, its link graph
 * (`links`, `connection`, `context`'s backlinks) and the files its index runs skipped or
 * extracted in part in `status`. Two machines
 * (`laptop`, its library `Notes` indexing the fields `tags` and `topic`; `nas`, its library
 * `Docs` with the default fields) index into one PostgreSQL database; a server `srv` with
 * no library of its own answers for both as each machine's own server does, under
 * qualified names (`laptop:Notes/a.md`). Against a real PostgreSQL 15 (ignored where it is
 * not installed).
 */
import { join } from "node:path";
import { callTool } from "../server/dispatch.ts";
import type { ToolName } from "../server/tools/mod.ts";
import type { ToolError } from "../core/types.ts";
import { assert, assertEquals, assertMatch, assertRejects } from "./assert.ts";
import { OllamaEmbedder } from "../embedders/remote.ts";
import { partsOf } from "../shelf/_parts.ts";
import { startStandIn } from "./embed_standin.ts";
import { Catalog } from "../core/catalog.ts";
import { PgCatalogStore } from "../stores/catalog_postgres.ts";
import { partialData } from "./partial_docs.ts";
import { noPostgres, PgServer } from "./pg_server.ts";
import { openTestShelf, type TestShelf } from "./shelf_helper.ts";

/** The laptop's library `Notes`: front matter, links of every kind. */
const NOTES: Record<string, string> = {
  "a.md": "---\ntags: [alpha, shared]\ntopic: rust\n---\n# A\n\nA note: see [B](b.md) and " +
    "[[c]].\nA [missing one](missing.md), [the web](https://example.org), [top](#a).\n",
  "b.md": "---\ntags: [beta, shared]\n---\n# B\n\nA note. Back to [A](a.md), " +
    "[A again](./a.md), [the data](blob.bin).\n",
  "c.md": "---\ntopic: go\nstatus: draft\n---\n# C\n\nA note linking [[b]] and [D](sub/d.md).\n",
  "sub/d.md": "# D\n\nA note: up to [C](../c.md), the root's [A](/a.md), [[nowhere]].\n",
  "e.md": "# E\n\nA note no other links to.\n",
};

/** The NAS's library `Docs`. */
const DOCS: Record<string, string> = {
  "n.md": "---\ntags: [shared]\nstatus: done\n---\n# N\n\nA note of the NAS, [to x](x.md).\n",
};

/**
 * A tool's JSON answer without its `_meta` (its `now` differs between two servers' answers
 * a second apart); an error fails the test.
 */
async function json(t: TestShelf, tool: ToolName, args: Record<string, unknown> = {}) {
  const { _meta: _, ...answer } =
    (await callTool(t.shelf, tool, { ...args, output_format: "json" })).json;
  return answer;
}

/** Names a machine's own server shows, as another machine's server shows them. */
const NAMES = new Set(["doc_id", "path", "target_path", "library", "from", "to"]);

/** A machine's own answer with its names qualified by the machine (`laptop:…`). */
function qualify(value: unknown, machine: string): unknown {
  if (Array.isArray(value)) return value.map((v) => qualify(v, machine));
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k,
      NAMES.has(k) && typeof v === "string" ? `${machine}:${v}` : qualify(v, machine),
    ]),
  );
}

/** The paths of a search's hits. */
const paths = (r: Record<string, unknown>) =>
  (r.results as { path: string }[]).map((h) => h.path).sort();

Deno.test({
  name: "a server answers field filters, links and status of every machine's library",
  ignore: noPostgres,
  async fn(t) {
    const server = await PgServer.start();
    const base = await Deno.makeTempDir({ prefix: "shelfmark-pgteamreads-" });
    const shelves: TestShelf[] = [];
    /** A machine's data folder with its library (fields as given) on the store. */
    const open = async (
      machine: string,
      store: string,
      library?: { name: string; files: Record<string, string>; fields?: string[] },
    ) => {
      const data = join(base, `data-${machine}`);
      await Deno.mkdir(data, { recursive: true });
      const libraries = [];
      if (library) {
        const root = join(base, machine, library.name);
        for (const [name, text] of Object.entries(library.files)) {
          await Deno.mkdir(join(root, name, ".."), { recursive: true });
          await Deno.writeTextFile(join(root, name), text);
        }
        libraries.push({ name: library.name, path: root, fields: library.fields });
      }
      await Deno.writeTextFile(
        join(data, "shelfmark.json"),
        JSON.stringify({ machine, store, libraries }),
      );
      const shelf = await openTestShelf({ base: join(base, machine), data });
      shelves.push(shelf);
      return shelf;
    };
    try {
      const store = await server.database();
      const laptop = await open("laptop", store, {
        name: "Notes",
        files: NOTES,
        fields: ["tags", "topic"],
      });
      assertEquals((await laptop.shelf.index()).indexed, 5);
      const nas = await open("nas", store, { name: "Docs", files: DOCS });
      assertEquals((await nas.shelf.index()).indexed, 1);
      const srv = await open("srv", store);

      await t.step("search filters on another machine's fields", async () => {
        const search = (s: TestShelf, args: Record<string, unknown>) =>
          json(s, "search", { query: "note", mode: "keyword", limit: 20, ...args });
        for (
          const filters of [{ tags: "shared" }, { topic: "go" }, { tags: ["Alpha", "#beta"] }]
        ) {
          const own = await search(laptop, { library: "Notes", filters });
          assert(paths(own).length > 0, JSON.stringify(filters));
          const there = await search(srv, { library: "laptop:Notes", filters });
          assertEquals(paths(there), paths(own).map((p) => `laptop:${p}`));
        }
        // every library: each machine's documents holding the value
        assertEquals(paths(await search(srv, { filters: { tags: "shared" } })), [
          "laptop:Notes/a.md",
          "laptop:Notes/b.md",
          "nas:Docs/n.md",
        ]);
        // a field only another machine indexes
        assertEquals(paths(await search(srv, { filters: { topic: "rust" } })), [
          "laptop:Notes/a.md",
        ]);
        assertEquals(
          paths(await search(srv, { library: "nas:Docs", filters: { status: "done" } })),
          [
            "nas:Docs/n.md",
          ],
        );
        // a field the laptop does not index (status): refused, saying what is known there
        const e = await assertRejects(() =>
          search(srv, { library: "laptop:Notes", filters: { status: "draft" } })
        ) as ToolError;
        assertEquals(e.code, "INVALID_ARGUMENT");
        assert(e.message.includes('"status"') && e.message.includes("laptop:Notes"), e.message);
        assert(e.hint?.includes("tags, topic"), e.hint);
        // the own machine's libraries as before
        const own = await assertRejects(() =>
          search(laptop, { library: "Notes", filters: { status: "draft" } })
        ) as ToolError;
        assertEquals(own.message, 'Field "status" is not indexed in library "Notes"');
      });

      await t.step("list_tags counts every machine's values", async () => {
        const tags = (s: TestShelf, args: Record<string, unknown> = {}) =>
          json(s, "list_tags", args);
        // another machine's library: as its own server answers, under its name in the store
        for (const field of ["tags", "topic"]) {
          const own = await tags(laptop, { field, library: "Notes" });
          assert((own.total as number) > 0, field);
          assertEquals(await tags(srv, { field, library: "laptop:Notes" }), {
            ...own,
            library: "laptop:Notes",
          });
        }
        // every library: a value both machines hold counts the documents of both, on a
        // server with no library and on a machine with its own
        const every = {
          field: "tags",
          library: null,
          total: 3,
          values: [
            { value: "shared", documents: 3 },
            { value: "alpha", documents: 1 },
            { value: "beta", documents: 1 },
          ],
        };
        assertEquals(await tags(srv), every);
        assertEquals(await tags(nas), every);
        assertEquals((await tags(nas, { library: "Docs" })).values, [
          { value: "shared", documents: 1 },
        ]);
        assertEquals((await tags(srv, { limit: 1 })).values, [{ value: "shared", documents: 3 }]);
        // a field only another machine indexes, and one of another machine's library
        assertEquals((await tags(srv, { field: "topic" })).values, [
          { value: "go", documents: 1 },
          { value: "rust", documents: 1 },
        ]);
        assertEquals((await tags(laptop, { field: "status", library: "nas:Docs" })).values, [
          { value: "done", documents: 1 },
        ]);
        // a field the laptop does not index, a library no machine has: refused
        const e = await assertRejects(() =>
          tags(srv, { field: "status", library: "laptop:Notes" })
        ) as ToolError;
        assertEquals(e.code, "INVALID_ARGUMENT");
        const none = await assertRejects(() => tags(srv, { library: "laptop:Nope" })) as ToolError;
        assertEquals(none.code, "LIBRARY_NOT_FOUND");
      });

      await t.step("links of another machine's documents, as on that machine", async () => {
        for (const file of Object.keys(NOTES)) {
          const want = await json(laptop, "links", { doc_id: `Notes/${file}` });
          const got = await json(srv, "links", { doc_id: `laptop:Notes/${file}` });
          assertEquals(got, qualify(want, "laptop"), file);
        }
        const a = await json(srv, "links", { doc_id: "laptop:Notes/a.md" });
        const kinds = (a.outgoing as { items: { kind: string }[] }).items.map((l) => l.kind);
        assertEquals(kinds.sort(), ["broken", "document", "document", "external"]);
        assertEquals(
          (a.incoming as { items: { path: string }[] }).items.map((l) => l.path),
          ["laptop:Notes/b.md", "laptop:Notes/sub/d.md"],
        );
        for (const kind of ["broken", "orphans", "most_linked"]) {
          const want = await json(laptop, "links", { kind, library: "Notes" });
          const got = await json(srv, "links", { kind, library: "laptop:Notes" });
          assert((want.items as unknown[]).length > 0, kind);
          assertEquals(got, qualify(want, "laptop"), kind);
        }
        // a chain of links, and the backlinks of context
        const chain = { from: "Notes/b.md", to: "Notes/sub/d.md" };
        const want = await json(laptop, "connection", chain);
        assertEquals(want.hops, 2);
        const got = await json(srv, "connection", {
          from: "laptop:Notes/b.md",
          to: "laptop:Notes/sub/d.md",
        });
        assertEquals(got, qualify(want, "laptop"));
        const ctx = async (s: TestShelf, doc: string) => {
          const { backlinks, links } = await json(s, "context", { doc_id: doc });
          return { backlinks, links };
        };
        assertEquals(
          await ctx(srv, "laptop:Notes/b.md"),
          qualify(await ctx(laptop, "Notes/b.md"), "laptop"),
        );
        // the NAS's link to nothing: broken in its library
        const n = await json(srv, "links", { kind: "broken", library: "nas:Docs" });
        assertEquals(
          (n.items as { path: string; target_path: string }[]).map((i) => [i.path, i.target_path]),
          [["nas:Docs/n.md", "nas:Docs/x.md"]],
        );
      });

      await t.step("status lists every machine's skipped files and partial documents", async () => {
        // a machine whose runs cut two documents short (tests/partial_docs.ts): one tried
        // again next run, one whose retry the hard limit stopped
        const deskStore = new PgCatalogStore(store, { machine: { name: "desk", owner: "desk" } });
        const desk = await partialData(join(base, "desk"), { catalog: deskStore }).finally(() =>
          deskStore.close()
        );
        const catalog = new Catalog(join(desk.data, "catalog.db"));
        const cut = catalog.partialDocuments(5).first;
        catalog.close();
        assertEquals(cut.map((d) => [d.path, d.stopped !== undefined]), [
          ["Cut/b.pages", false],
          ["Stopped/a.pages", true],
        ]);
        // files the laptop skipped: hidden, binary
        const notes = join(base, "laptop", "Notes");
        await Deno.writeTextFile(join(notes, ".hidden.md"), "# Hidden\n");
        await Deno.writeFile(join(notes, "blob.bin"), new Uint8Array(4096).map((_, i) => i % 7));
        await laptop.shelf.index();
        const mine = await json(laptop, "status");
        assertEquals((mine.skipped as { path: string }[]).map((f) => f.path), [
          "Notes/.hidden.md",
          "Notes/blob.bin",
        ]);

        const status = await json(srv, "status");
        assertEquals(status.libraries, [
          { name: "desk:Cut", documents: 1 },
          { name: "desk:Stopped", documents: 1 },
          { name: "laptop:Notes", documents: 5 },
          { name: "nas:Docs", documents: 1 },
        ]);
        assertEquals(status.skipped, qualify(mine.skipped, "laptop"));
        assertEquals(status.skipped_count, 2);
        assertEquals(status.documents_total, 8 + 2);
        assertEquals(status.partial_count, 2);
        assertEquals(status.partial, qualify(cut, "desk"));
        // a link to a file the laptop skipped: to a file, as on the laptop (broken before)
        const want = await json(laptop, "links", { doc_id: "Notes/b.md", direction: "out" });
        const items = (want.outgoing as { items: { path: string; kind: string }[] }).items;
        assert(items.some((l) => l.path === "Notes/blob.bin" && l.kind === "file"));
        assertEquals(
          await json(srv, "links", { doc_id: "laptop:Notes/b.md", direction: "out" }),
          qualify(want, "laptop"),
        );
        // the next run's list replaces the last one
        await Deno.remove(join(notes, ".hidden.md"));
        await laptop.shelf.index();
        assertEquals(
          ((await json(srv, "status")).skipped as { path: string }[]).map((f) => f.path),
          ["laptop:Notes/blob.bin"],
        );
      });

      await t.step("hybrid and semantic say the vectors are this machine's only", async () => {
        const standIn = startStandIn();
        const data = join(base, "data-vec");
        const own = join(base, "vec", "Own");
        await Deno.mkdir(data, { recursive: true });
        await Deno.mkdir(own, { recursive: true });
        await Deno.writeTextFile(join(own, "o.md"), "# O\n\nA note of this machine.\n");
        await Deno.writeTextFile(
          join(data, "shelfmark.json"),
          JSON.stringify({ machine: "vec", store, libraries: [{ name: "Own", path: own }] }),
        );
        const vec = await openTestShelf({
          base: join(base, "vec"),
          data,
          embedder: new OllamaEmbedder({ model: "toy", url: standIn.url }),
        });
        shelves.push(vec);
        try {
          assertEquals((await vec.shelf.index()).indexed, 1);
          await partsOf(vec.shelf).vectors!.idle();
          const search = (args: Record<string, unknown>) =>
            json(vec, "search", { query: "note", limit: 20, ...args });
          const hybrid = await search({ mode: "hybrid" });
          assertEquals(hybrid.mode_used, "hybrid");
          assertMatch(String(hybrid.note), /other machines' documents are ranked by keywords/);
          assert(paths(hybrid).includes("laptop:Notes/a.md"), paths(hybrid).join());
          const semantic = await search({ mode: "semantic" });
          assertMatch(String(semantic.note), /other machines' documents are not searched/);
          // another machine's library named: said; this machine's own, or keyword mode: not
          const there = await search({ mode: "hybrid", library: "nas:Docs" });
          assertMatch(String(there.note), /this machine's libraries only/);
          assertEquals((await search({ mode: "hybrid", library: "Own" })).note, undefined);
          assertEquals((await search({ mode: "keyword" })).note, undefined);
        } finally {
          await standIn.close();
        }
      });
    } finally {
      for (const s of shelves) await s.close().catch(() => {});
      await server.stop();
      await Deno.remove(base, { recursive: true }).catch(() => {});
    }
  },
});
