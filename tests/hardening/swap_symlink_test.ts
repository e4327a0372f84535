/**
 * A file swapped for a symlink to a file outside the library, after the walk found it
 * and before it is read, is not indexed: the read refuses the link instead of following
 * it. The same for a folder on its path swapped for a link; links inside the root still
 * work.
 */
import { join } from "node:path";
import { assertEquals } from "../assert.ts";
import { openTestShelf } from "../shelf_helper.ts";
import { walkLibrary } from "../../core/walk.ts";
import { readInside, UnsafeFileError } from "../../core/read_inside.ts";
import { partsOf } from "../../shelf/_parts.ts";

async function setup() {
  const base = await Deno.makeTempDir({ prefix: "shelfmark-swap-" });
  const lib = join(base, "lib");
  await Deno.mkdir(join(lib, "sub"), { recursive: true });
  await Deno.mkdir(join(base, "outside"));
  await Deno.writeTextFile(join(base, "outside", "a.md"), "# Stolen\n\nsecretword\n");
  await Deno.writeTextFile(join(lib, "a.md"), "# A\n\nplain\n");
  await Deno.writeTextFile(join(lib, "sub", "a.md"), "# B\n\nplain\n");
  await Deno.writeTextFile(join(lib, "real.md"), "# Real\n\nlinked\n");
  await Deno.symlink(join(lib, "real.md"), join(lib, "link.md"));
  return { base, lib };
}

Deno.test("Indexer.indexFile() refuses a file swapped for an outside symlink after the walk", async () => {
  const { base, lib } = await setup();
  await using t = await openTestShelf({ base, folders: [lib] });
  const library = t.shelf.libraries[0]!;
  const { files } = await walkLibrary(library);
  // The swap, between the walk and the read: a file, and a folder on another's path.
  await Deno.remove(join(lib, "a.md"));
  await Deno.symlink(join(base, "outside", "a.md"), join(lib, "a.md"));
  await Deno.rename(join(lib, "sub"), join(base, "sub.old"));
  await Deno.symlink(join(base, "outside"), join(lib, "sub"));
  const got: Record<string, string> = {};
  partsOf(t.shelf).catalog.begin();
  for (const f of files) {
    got[f.path] = await partsOf(t.shelf).indexer.indexFile(library, f, undefined);
  }
  partsOf(t.shelf).catalog.commit();
  assertEquals(got, {
    "lib/a.md": "skipped",
    "lib/link.md": "indexed",
    "lib/real.md": "indexed",
    "lib/sub/a.md": "skipped",
  });
  const skipped = partsOf(t.shelf).catalog.skipped().map((s) => [s.path, s.reason]).sort();
  assertEquals(skipped, [["lib/a.md", "outside_root"], ["lib/sub/a.md", "outside_root"]]);
  for (const id of partsOf(t.shelf).catalog.ids()) {
    assertEquals(partsOf(t.shelf).catalog.text(id)!.includes("secretword"), false);
  }
});

Deno.test("readInside() refuses a FIFO and a file that is not there", async () => {
  const { base, lib } = await setup();
  try {
    await new Deno.Command("mkfifo", { args: [join(lib, "pipe.md")] }).output();
    const e = await readInside(lib, join(lib, "pipe.md")).catch((e) => e);
    assertEquals(e instanceof UnsafeFileError, true);
    const gone = await readInside(lib, join(lib, "nope.md")).catch((e) => e);
    assertEquals(gone instanceof Deno.errors.NotFound, true);
    assertEquals(
      new TextDecoder().decode(await readInside(lib, join(lib, "link.md"))),
      "# Real\n\nlinked\n",
    );
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});
