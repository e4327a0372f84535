/** A library with nothing to index, as a new user meets it: quiet commands, no empty lines. */
import { assert, assertEquals } from "./assert.ts";
import { runCli as run } from "./cli_helper.ts";

Deno.test("cli: an empty library is indexed once, not again on every command", async () => {
  const data = await Deno.makeTempDir({ prefix: "shelfmark-empty-" });
  const folder = await Deno.makeTempDir({ prefix: "shelfmark-empty-lib-" });
  try {
    const idx = await run(["index", folder, "--data", data]);
    assertEquals(idx.code, 0, idx.stderr);
    assert(idx.stderr.includes("indexing: indexed 0"), idx.stderr);
    for (const cmd of [["search", "anything"], ["status"], ["explore"]]) {
      const r = await run([...cmd, "--data", data]);
      assertEquals(r.code, 0, r.stderr);
      assert(!r.stderr.includes("indexing"), `${cmd[0]} re-indexed: ${r.stderr}`);
    }
    // A library added later is indexed by the next command, once.
    const more = await Deno.makeTempDir({ prefix: "shelfmark-empty-more-" });
    try {
      await Deno.writeTextFile(`${more}/note.md`, "# Note\n\nA zebra crossing.\n");
      const add = await run(["libraries", "add", "more", more, "--data", data]);
      assertEquals(add.code, 0, add.stderr);
      const s = await run(["search", "zebra", "--data", data]);
      assert(s.stderr.includes("indexing: indexed 1"), s.stderr);
      assert(s.stdout.includes("note.md"), s.stdout);
      const again = await run(["search", "zebra", "--data", data]);
      assert(!again.stderr.includes("indexing"), again.stderr);
    } finally {
      await Deno.remove(more, { recursive: true });
    }
  } finally {
    await Deno.remove(data, { recursive: true });
    await Deno.remove(folder, { recursive: true });
  }
});

Deno.test("cli: explore of an empty library prints no empty Types or Folders heading", async () => {
  const data = await Deno.makeTempDir({ prefix: "shelfmark-empty-" });
  const folder = await Deno.makeTempDir({ prefix: "shelfmark-empty-lib-" });
  try {
    assertEquals((await run(["index", folder, "--data", data])).code, 0);
    const r = await run(["explore", "--data", data]);
    assertEquals(r.code, 0, r.stderr);
    assert(/: 0 documents/.test(r.stdout), r.stdout);
    assert(!r.stdout.includes("Types:"), r.stdout);
    assert(!r.stdout.includes("Folders"), r.stdout);
  } finally {
    await Deno.remove(data, { recursive: true });
    await Deno.remove(folder, { recursive: true });
  }
});
