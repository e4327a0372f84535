/**
 * Other local users: the data folder (every document's text) is the owner's alone, and the
 * HTTP token can come from a file, so it never shows in `ps`.
 */
import { join } from "node:path";
import { assertEquals } from "../assert.ts";
import { openTestShelf } from "../shelf_helper.ts";
import { runCli, startHttpServer } from "../cli_helper.ts";

const mode = (p: string) => Deno.statSync(p).mode! & 0o777;

Deno.test({
  name: "Shelf.open() makes the data folder 0700 and the catalog files 0600",
  ignore: Deno.build.os === "windows",
  fn: async () => {
    const base = await Deno.makeTempDir({ prefix: "shelfmark-modes-" });
    const lib = join(base, "lib");
    const data = join(base, "data");
    await Deno.mkdir(lib);
    await Deno.writeTextFile(join(lib, "a.md"), "# A\n\nPrivate text.\n");
    // An older version left the folder and database readable by everyone.
    await Deno.mkdir(data, { mode: 0o755 });
    Deno.chmodSync(data, 0o755);
    await using t = await openTestShelf({ base, data, folders: [lib] });
    await t.shelf.index();
    assertEquals(mode(data).toString(8), "700");
    for (const f of ["catalog.db", "catalog.db-wal", "catalog.db-shm"]) {
      assertEquals(mode(join(data, f)).toString(8), "600", f);
    }
    const fresh = await openTestShelf({ folders: [lib] });
    try {
      assertEquals(mode(fresh.data).toString(8), "700");
      assertEquals(mode(join(fresh.data, "catalog.db")).toString(8), "600");
    } finally {
      await fresh.close();
    }
  },
});

Deno.test({
  name: "serve --http --token-file reads the token from the file, not the command line",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const base = await Deno.makeTempDir({ prefix: "shelfmark-token-" });
    try {
      const lib = join(base, "lib");
      await Deno.mkdir(lib);
      await Deno.writeTextFile(join(lib, "a.md"), "# A\n\nText.\n");
      const file = join(base, "token");
      await Deno.writeTextFile(file, "file-s3cret\n", { mode: 0o600 });
      const env = { SHELFMARK_EMBEDDER: "none", SHELFMARK_HOME: join(base, "data") };
      const server = await startHttpServer(["--token-file", file, "--no-watch", lib], env);
      try {
        const info = (token?: string) =>
          fetch(new URL("/api/info", server.url), {
            headers: token ? { authorization: `Bearer ${token}` } : {},
          });
        const none = await info();
        await none.body?.cancel();
        assertEquals(none.status, 401);
        const wrong = await info("file-s3cre");
        await wrong.body?.cancel();
        assertEquals(wrong.status, 401);
        const right = await info("file-s3cret");
        assertEquals(right.status, 200);
        assertEquals((await right.json()).writes, true);
      } finally {
        server.child.kill();
        await server.child.status;
      }
      const missing = await runCli(["serve", "--http", "--token-file", join(base, "nope")], env);
      assertEquals(missing.code, 2);
      assertEquals(missing.stderr.includes("--token-file"), true, missing.stderr);
      assertEquals(missing.stderr.includes("    at "), false, missing.stderr);
    } finally {
      await Deno.remove(base, { recursive: true });
    }
  },
});
