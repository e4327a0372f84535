import { join } from "node:path";
import { assert, assertEquals } from "../tests/assert.ts";
import { confinePath, docIdFor, libraryFromPath } from "./paths.ts";
import { ToolError } from "./types.ts";

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    return e instanceof ToolError ? e.code : "other";
  }
  return undefined;
}

Deno.test("libraryFromPath() names a library after the folder", () => {
  assertEquals(libraryFromPath("/home/me/Papers/").name, "Papers");
});

Deno.test("docIdFor() is short and stable for a path", () => {
  assertEquals(docIdFor("Papers/a.md"), docIdFor("Papers/a.md"));
  assert(docIdFor("Papers/a.md") !== docIdFor("Papers/b.md"));
  // 48 bits as 15 decimal digits (12 hex characters before: the same bits, fewer tokens).
  assertEquals(docIdFor("Papers/a.md").length, 15);
  assert(/^\d{15}$/.test(docIdFor("Papers/a.md")));
});

Deno.test("confinePath() refuses everything that leaves the library roots", async () => {
  const base = await Deno.makeTempDir();
  const root = join(base, "Lib");
  await Deno.mkdir(join(root, "sub"), { recursive: true });
  await Deno.writeTextFile(join(root, "sub", "a.md"), "# A");
  await Deno.writeTextFile(join(base, "secret.txt"), "secret");
  await Deno.symlink(join(base, "secret.txt"), join(root, "escape.txt"));
  await Deno.symlink("/etc", join(root, "etc"));
  const libs = [{ name: "Lib", root }];
  try {
    assertEquals(confinePath("Lib/sub/a.md", libs), "Lib/sub/a.md");
    assertEquals(confinePath("Lib/./sub//a.md", libs), "Lib/sub/a.md");
    assertEquals(confinePath(join(root, "sub", "a.md"), libs), "Lib/sub/a.md");
    for (
      const bad of [
        "Lib/../secret.txt",
        "Lib/sub/../../secret.txt",
        "../secret.txt",
        join(base, "secret.txt"),
        "/etc/passwd",
        "Lib/escape.txt",
        "Lib/etc/passwd",
        "Lib%2f..%2f..%2fsecret.txt",
        "Lib/sub/a.md\0.txt",
        "Lib\\..\\secret.txt",
      ]
    ) {
      assertEquals(code(() => confinePath(bad, libs)), "PATH_OUTSIDE_LIBRARY", bad);
    }
    assertEquals(code(() => confinePath("Other/a.md", libs)), "LIBRARY_NOT_FOUND");
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});
