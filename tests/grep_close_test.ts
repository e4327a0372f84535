/**
 * A library user's script that greps and closes the shelf exits on its own: the grep
 * worker belongs to the shelf and stops with `shelf.close()`. The script runs in its own
 * process; a worker left running would keep it alive, so a hang is the failure.
 */
import { join } from "node:path";
import { assert, assertEquals } from "./assert.ts";

Deno.test("shelf.close() after a grep lets a library user's script exit", async () => {
  const dir = await Deno.makeTempDir({ prefix: "shelfmark-grep-close-" });
  try {
    const docs = join(dir, "docs");
    await Deno.mkdir(docs);
    await Deno.writeTextFile(join(docs, "a.md"), "# Storage\n\nThe catalog is kept in sqlite.\n");
    await Deno.writeTextFile(join(docs, "b.md"), "# Other\n\nNothing to see here.\n");
    const script = join(dir, "script.ts");
    const url = (p: string) => new URL(p, import.meta.url).href;
    await Deno.writeTextFile(
      script,
      `import { Shelf } from ${JSON.stringify(url("../shelf/shelf.ts"))};
import { callTool } from ${JSON.stringify(url("../server/dispatch.ts"))};
const shelf = await Shelf.open({
  data: ${JSON.stringify(join(dir, "data"))},
  folders: [${JSON.stringify(docs)}],
  embedder: "none",
  log: () => {},
});
await shelf.index();
const answer = await callTool(shelf, "grep", { pattern: "sqlite" });
console.log(answer.text);
await shelf.close();
`,
    );
    const out = await new Deno.Command(Deno.execPath(), {
      // The script lies outside the project: the project's configuration maps its imports.
      args: ["run", "-A", "--config", new URL("../deno.json", import.meta.url).pathname, script],
      env: Deno.env.toObject(),
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stdout = new TextDecoder().decode(out.stdout);
    const stderr = new TextDecoder().decode(out.stderr);
    assertEquals(out.code, 0, stderr);
    assert(stdout.includes("1 match in 1 document for /sqlite/"), stdout);
    assert(stdout.includes("3: The catalog is kept in sqlite."), stdout);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
