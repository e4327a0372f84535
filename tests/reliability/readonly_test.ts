/**
 * Read-only by design: a session of every tool (plus generated hostile requests) over
 * stdio while the server watches the library, and every CLI command, leave the library's
 * files, folders, modes and mtimes exactly as they were; the server's working directory
 * and HOME stay empty. The data directory is the only place shelfmark writes.
 */
import { join } from "node:path";
import { smallCorpus } from "../corpus.ts";
import { assert, assertEquals } from "../assert.ts";
import {
  callTool,
  cli,
  copyLibraries,
  diffSnapshots,
  snapshot,
  startStdio,
  waitReady,
} from "./_helpers.ts";
import { fuzz } from "./fuzz.ts";
import { fuzzPools } from "./fuzz_setup.ts";

Deno.test({
  name: "read-only: tools and CLI commands change no user file; only the data dir is written",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const work = await Deno.realPath(await Deno.makeTempDir({ prefix: "shelfmark-ro-" }));
    try {
      const lib = join(work, "lib");
      const cwd = join(work, "cwd");
      const home = join(work, "home");
      for (const d of [lib, cwd, home]) await Deno.mkdir(d);
      await copyLibraries(await smallCorpus(), ["markdown", "word"], lib);
      await Deno.writeTextFile(join(lib, "readonly.md"), "# Read only\n\nMode 0444.\n");
      await Deno.chmod(join(lib, "readonly.md"), 0o444);
      await Deno.symlink("readonly.md", join(lib, "link.md"));
      const denoDir = Deno.env.get("DENO_DIR") ??
        join(Deno.env.get("HOME") ?? "/root", ".cache", "deno");
      const env = { HOME: home, DENO_DIR: denoDir, XDG_DATA_HOME: join(home, ".local", "share") };
      const before = await snapshot(work);
      const data = join(work, "..", `${work.split("/").at(-1)}-data`);

      const s = await startStdio(data, [lib], { cwd, env });
      try {
        const { tools } = await s.client.listTools();
        // reindex writes the index (the data dir), no user file: checked below like the rest.
        assertEquals(
          tools.filter((t: { annotations?: { readOnlyHint?: boolean } }) =>
            t.annotations?.readOnlyHint !== true
          ).map((t: { name: string }) => t.name),
          ["reindex"],
        );
        await waitReady(s.client);
        const pools = await fuzzPools(s.client);
        const id = pools.docIds[0]!;
        for (
          const [name, args] of [
            ["search", { query: "the" }],
            ["outline", { doc_ids: [id, "lib/readonly.md"] }],
            ["read", { doc_id: "lib/link.md" }],
            ["read", { doc_id: id, offset: 2, limit: 5 }],
            ["grep", { doc_id: id, pattern: "e", output_mode: "count" }],
            ["list_libraries", {}],
            ["explore", { library: "lib" }],
            ["find_paths", { patterns: ["lib"] }],
            ["status", {}],
            ["browse", { path: "lib" }],
            ["find_documents", { query: "readonly" }],
            ["recent", {}],
            ["list_tags", {}],
            ["links", { doc_id: id }],
            ["connection", { from: id, to: "lib/readonly.md" }],
            ["context", { doc_id: id }],
            ["reindex", { full: true }],
            ["search", { query: "the", wait_for_index: true }],
          ] as const
        ) {
          const r = await callTool(s.client, name, args);
          assert(!r.isError, `${name}: ${r.content[0]?.text}`);
        }
        const f = await fuzz(s.client, s.pid, pools, 60, 7);
        assertEquals(f.failures, []);
      } finally {
        await s.close();
      }
      for (
        const args of [
          ["index", lib],
          ["search", "the"],
          ["outline", "lib/readonly.md"],
          ["read", "lib/link.md"],
          ["grep", "Read", "lib/readonly.md"],
          ["explore"],
          ["find-paths", "lib"],
          ["libraries"],
          ["status"],
          ["browse", "lib"],
          ["find-documents", "readonly"],
          ["recent"],
          ["list-tags"],
          ["links", "lib/readonly.md"],
          ["context", "lib/readonly.md"],
          ["reindex", "--full"],
          ["search", "the", "--fresh"],
        ]
      ) {
        const r = await cli([...args, "--data", data], { cwd, env });
        assertEquals(r.code, 0, `${args.join(" ")}: ${r.stderr}`);
      }
      assertEquals(diffSnapshots(before, await snapshot(work)), []);
      await Deno.remove(data, { recursive: true }).catch(() => {});
    } finally {
      await Deno.chmod(join(work, "lib", "readonly.md"), 0o644).catch(() => {});
      await Deno.remove(work, { recursive: true }).catch(() => {});
    }
  },
});
