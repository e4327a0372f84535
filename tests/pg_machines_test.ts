/**
 * Several machines, one store (issue 32, Team): two data folders with different `machine`
 * names index a library each (both named `Docs`, both holding a `README.md`: the same
 * display path, so the same doc id in their schemas) into one PostgreSQL database; a third
 * data folder with no library of its own (a server) lists and reads both machines'
 * libraries under their qualified names (`laptop:Docs`), with the same lines and outline
 * as each machine's own server gives. Against a real PostgreSQL 15 (ignored where it is
 * not installed).
 */
import { join } from "node:path";
import { callTool } from "../server/dispatch.ts";
import type { ToolName } from "../server/tools/mod.ts";
import type { ToolError } from "../core/types.ts";
import { assert, assertEquals, assertRejects } from "./assert.ts";
import { smallCorpus } from "./corpus.ts";
import { noPostgres, PgServer } from "./pg_server.ts";
import { openMachineShelf, type TestShelf } from "./shelf_helper.ts";

/** The files of each machine's library `Docs` (the small corpus's, by path in it). */
const FILES: Record<string, Record<string, string>> = {
  laptop: {
    "R-FAQ.pdf": "pdf-plain/r-doc-pdf/R-FAQ.pdf",
    "README.md": "markdown/zstd/zstd/README.md",
  },
  nas: {
    "README.md": "markdown/git-lfs/git-lfs/README.md",
    "Apache-2.0.txt": "text/licenses/Apache-2.0.txt",
  },
};

/** The reads compared, by file. */
const READS: Record<string, Record<string, unknown>[]> = {
  "R-FAQ.pdf": [{ page: 2 }, { offset: 120, limit: 40 }, { section: "1" }],
  "README.md": [{ offset: 1 }, { offset: 5, limit: 3 }],
  "Apache-2.0.txt": [{ offset: 30, limit: 20 }],
};

/** A tool's JSON answer (an error fails the test). */
async function json(t: TestShelf, tool: ToolName, args: Record<string, unknown> = {}) {
  return (await callTool(t.shelf, tool, { ...args, output_format: "json" })).json;
}

/** What `read` and `outline` say of a document, without its names (id, path, library). */
async function reads(t: TestShelf, doc: string, file: string) {
  const out: Record<string, unknown> = {};
  for (const r of READS[file]!) {
    const { lines, total_lines, next_offset } = await json(t, "read", { doc_id: doc, ...r });
    assert((lines as unknown[]).length > 0, `${doc} ${JSON.stringify(r)}: lines`);
    out[JSON.stringify(r)] = { lines, total_lines, next_offset };
  }
  const o = await json(t, "outline", { doc_ids: [doc], max_tokens: 50000 });
  const { nodes, title, total_lines } = (o.documents as Record<string, unknown>[])[0]!;
  out.outline = { nodes, title, total_lines };
  return out;
}

Deno.test({
  name: "a server lists and reads every machine's libraries of a shared store",
  ignore: noPostgres,
  async fn() {
    const corpus = await smallCorpus();
    const server = await PgServer.start();
    const base = await Deno.makeTempDir({ prefix: "shelfmark-pgmachines-" });
    const shelves: TestShelf[] = [];
    /** A data folder named as a machine, with the libraries given, on the store. */
    const open = async (machine: string, store: string, folders: string[]) => {
      const t = await openMachineShelf(base, machine, { folders, store, machine });
      shelves.push(t);
      return t;
    };
    try {
      const store = await server.database();
      const own: Record<string, TestShelf> = {};
      for (const [machine, files] of Object.entries(FILES)) {
        const lib = join(base, machine, "Docs");
        await Deno.mkdir(lib, { recursive: true });
        for (const [name, from] of Object.entries(files)) {
          await Deno.copyFile(join(corpus, from), join(lib, name));
        }
        own[machine] = await open(machine, store, [lib]);
        assertEquals((await own[machine]!.shelf.index()).indexed, 2, machine);
      }
      const srv = await open("srv", store, []);

      // every machine's libraries, by their names in the store
      assertEquals((await json(srv, "list_libraries")).libraries, [
        { name: "laptop:Docs", description: "", document_count: 2, state: "ready" },
        { name: "nas:Docs", description: "", document_count: 2, state: "ready" },
      ]);
      const status = await json(srv, "status");
      assertEquals(status.documents_indexed, 4);
      assertEquals(status.libraries, [
        { name: "laptop:Docs", documents: 2 },
        { name: "nas:Docs", documents: 2 },
      ]);
      // a machine's own server sees its libraries as they are, the other's qualified
      assertEquals(
        ((await json(own.laptop!, "list_libraries")).libraries as { name: string }[])
          .map((l) => l.name),
        ["Docs", "nas:Docs"],
      );

      // browse: the libraries, then each one's documents with qualified ids and paths
      const top = await json(srv, "browse");
      assertEquals(
        (top.folders as { name: string; documents: number }[]).map((f) => [f.name, f.documents]),
        [["laptop:Docs", 2], ["nas:Docs", 2]],
      );
      const ids = new Map<string, string>();
      for (const [machine, files] of Object.entries(FILES)) {
        const listed = await json(srv, "browse", { path: `${machine}:Docs` });
        const docs = listed.documents as { doc_id: string; path: string }[];
        assertEquals(
          docs.map((d) => d.path),
          Object.keys(files).sort().map((f) => `${machine}:Docs/${f}`),
        );
        // the machine's own id, with the machine before it
        const mine = (await json(own[machine]!, "browse", { path: "Docs" })).documents as {
          doc_id: string;
          path: string;
        }[];
        assertEquals(
          docs.map((d) => d.doc_id),
          mine.map((d) => `${machine}:${d.doc_id}`),
        );
        for (const d of docs) ids.set(d.path, d.doc_id);
      }
      // the same file name on both machines: one id in both schemas, two here
      const readme = (m: string) => ids.get(`${m}:Docs/README.md`)!;
      assertEquals(readme("laptop").split(":")[1], readme("nas").split(":")[1]);

      // find_documents finds both machines' files, and one machine's with its library
      const found = await json(srv, "find_documents", { query: "readme" });
      assertEquals(
        (found.results as { path: string }[]).map((d) => d.path).sort(),
        ["laptop:Docs/README.md", "nas:Docs/README.md"],
      );
      const onNas = await json(srv, "find_documents", { query: "readme", library: "nas:Docs" });
      assertEquals((onNas.results as { path: string }[]).map((d) => d.path), [
        "nas:Docs/README.md",
      ]);

      // read and outline: the same lines, pages and outline as the machine's own server,
      // by qualified path and by qualified id
      for (const [machine, files] of Object.entries(FILES)) {
        for (const file of Object.keys(files)) {
          const want = await reads(own[machine]!, `Docs/${file}`, file);
          const path = `${machine}:Docs/${file}`;
          assertEquals(await reads(srv, path, file), want, path);
          assertEquals(await reads(srv, ids.get(path)!, file), want, ids.get(path));
        }
      }
      const pageTwo = await json(srv, "read", { doc_id: "laptop:Docs/R-FAQ.pdf", page: 2 });
      assert((pageTwo.lines as { page?: number }[]).every((l) => l.page === 2), "page 2");
      const o = await json(srv, "outline", { doc_ids: [readme("nas")] });
      const card = (o.documents as { doc_id: string; path: string; library: string }[])[0]!;
      assertEquals([card.doc_id, card.path, card.library], [
        readme("nas"),
        "nas:Docs/README.md",
        "nas:Docs",
      ]);

      // grep in one document, and its context: as on its machine, under qualified names
      const grep = { pattern: "LFS|Git", context: 1 };
      const mine = await json(own.nas!, "grep", { ...grep, doc_id: "Docs/README.md" });
      const there = await json(srv, "grep", { ...grep, doc_id: readme("nas") });
      assert((mine.matches as unknown[]).length > 0, "grep matches");
      assertEquals(there.matches, mine.matches);
      assertEquals(there.path, "nas:Docs/README.md");
      const context = await json(srv, "context", { doc_id: "laptop:Docs/README.md" });
      assertEquals((context.card as { path: string }).path, "laptop:Docs/README.md");
      // keyword search and grep across documents of another machine's library: its
      // documents only (tests/pg_across_test.ts compares them with one SQLite index)
      const searched = await json(srv, "search", { query: "Git LFS", library: "nas:Docs" });
      assertEquals((searched.results as { path: string }[]).map((r) => r.path), [
        "nas:Docs/README.md",
      ]);
      const grepped = await json(srv, "grep", { pattern: "Git", library: "nas:Docs" });
      assertEquals((grepped.documents as { path: string }[]).map((d) => d.path), [
        "nas:Docs/README.md",
      ]);

      // names of no machine, or of a machine without the document: not found
      for (const doc of ["zz:123456789012345", "nas:Docs/none.md", "laptop:123456789012345"]) {
        const e = await assertRejects(() => json(srv, "read", { doc_id: doc })) as ToolError;
        assertEquals(e.code, "DOCUMENT_NOT_FOUND", doc);
      }
      const e = await assertRejects(() =>
        json(srv, "find_documents", { query: "readme", library: "zz:Docs" })
      ) as ToolError;
      assertEquals(e.code, "LIBRARY_NOT_FOUND");
      assert(e.hint?.includes("laptop:Docs, nas:Docs"), e.hint);

      // a machine that joins later is seen at the next call
      const lib = join(base, "desk", "Notes");
      await Deno.mkdir(lib, { recursive: true });
      await Deno.writeTextFile(join(lib, "n.md"), "# Note\n\nA note.\n");
      const desk = await open("desk", store, [lib]);
      await desk.shelf.index();
      assertEquals(
        ((await json(srv, "status")).libraries as { name: string }[]).map((l) => l.name),
        ["desk:Notes", "laptop:Docs", "nas:Docs"],
      );
      assertEquals(
        ((await json(srv, "read", { doc_id: "desk:Notes/n.md" })).lines as { text: string }[])
          .map((l) => l.text),
        ["# Note", "", "A note."],
      );
    } finally {
      for (const t of shelves) await t.close().catch(() => {});
      await server.stop();
      await Deno.remove(base, { recursive: true }).catch(() => {});
    }
  },
});
