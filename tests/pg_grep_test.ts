/**
 * A server whose data folder has no catalog rows (the SQLite catalog deleted after
 * indexing into PostgreSQL, the library's files gone) gives the same grep answers, in every
 * mode, as the server that indexed; a connection dropped during a grep is a structured
 * error and the next grep answers.
 */
import { join } from "node:path";
import { callTool } from "../server/dispatch.ts";
import { ToolError } from "../core/types.ts";
import { assert, assertEquals } from "./assert.ts";
import { smallCorpus } from "./corpus.ts";
import { noPostgres, pgRows, PgServer } from "./pg_server.ts";
import { storeAlone } from "./store_cases.ts";
import { openTestShelf } from "./shelf_helper.ts";

/** The greps asked, before and after the catalog is gone. */
const GREPS: Record<string, unknown>[] = [
  { pattern: "memory", doc_id: "Docs/R-FAQ.pdf", limit: 5 },
  { pattern: "memory", doc_id: "Docs/R-FAQ.pdf", offset: 3, limit: 2, context: 1 },
  { pattern: "memory", doc_id: "Docs/R-FAQ.pdf", output_mode: "count" },
  { pattern: "compression" },
  { pattern: "compress(ion)?", case_insensitive: true, list: true },
  { pattern: "the", output_mode: "count", limit_documents: 50 },
  { pattern: "level", path_glob: "Docs/*.md", limit: 2 },
  { pattern: "R", doc_types: ["pdf"], limit_documents: 1, offset_documents: 0 },
  { pattern: "dictionary", library: "Docs" },
];

Deno.test({
  name: "grep answers from PostgreSQL alone, and a dropped connection is a structured error",
  ignore: noPostgres,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const corpus = await smallCorpus();
    const server = await PgServer.start();
    const base = await Deno.makeTempDir({ prefix: "shelfmark-pggrep-" });
    try {
      const lib = join(base, "Docs");
      await Deno.mkdir(lib);
      await Deno.copyFile(join(corpus, "pdf-plain/r-doc-pdf/R-FAQ.pdf"), join(lib, "R-FAQ.pdf"));
      await Deno.copyFile(join(corpus, "markdown/zstd/zstd/README.md"), join(lib, "README.md"));
      // a copy: folded the same way from either store
      await Deno.copyFile(join(corpus, "markdown/zstd/zstd/README.md"), join(lib, "copy.md"));
      const url = await server.database();
      await using t = await openTestShelf({ base, store: url, folders: [lib] });
      assertEquals((await t.shelf.index()).indexed, 3);
      const grep = async (args: Record<string, unknown>) => {
        const { _meta: _, ...rest } =
          (await callTool(t.shelf, "grep", { ...args, output_format: "json" })).json;
        return rest;
      };
      const answers = async () => {
        const out: Record<string, unknown> = {};
        for (const g of GREPS) out[JSON.stringify(g)] = await grep(g);
        return out;
      };
      const before = await answers();
      const pdf = before[JSON.stringify(GREPS[0])] as { matches: { page?: number }[] };
      assert(pdf.matches.length > 0 && pdf.matches.every((m) => m.page), "pages given");
      const many = before[JSON.stringify(GREPS[3])] as {
        documents: { copies?: unknown[] }[];
      };
      assert(many.documents.some((d) => d.copies?.length), "the copy folded");

      await storeAlone(t, url, [lib]);
      assertEquals(await answers(), before);

      // every connection of the database dropped while a grep runs
      const args = GREPS[4]!;
      const running = grep(args).catch((e) => e);
      await pgRows(
        url,
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
         WHERE datname = current_database() AND pid <> pg_backend_pid()`,
      );
      const first = await running;
      if (first instanceof Error) {
        assert(first instanceof ToolError, String(first));
        assertEquals(first.code, "INDEX_UNAVAILABLE");
      } else assertEquals(first, before[JSON.stringify(args)]);
      assertEquals(await grep(args), before[JSON.stringify(args)]);
    } finally {
      await server.stop().catch(() => {});
      await Deno.remove(base, { recursive: true }).catch(() => {});
    }
  },
});
