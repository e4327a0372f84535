import { join } from "node:path";
import { assert, assertEquals } from "../tests/assert.ts";
import { BLOCKING_READ_MAX, readInside, UnsafeFileError } from "./read_inside.ts";

Deno.test("readInside() gives every byte of a small file and of one read without blocking", async () => {
  const base = await Deno.makeTempDir({ prefix: "shelfmark-read-inside-" });
  try {
    const small = Uint8Array.from({ length: 5000 }, (_, i) => (i * 7) & 0xff);
    const large = Uint8Array.from({ length: BLOCKING_READ_MAX + 12345 }, (_, i) => (i * 13) & 0xff);
    await Deno.writeFile(join(base, "small.bin"), small);
    await Deno.writeFile(join(base, "large.bin"), large);
    await Deno.writeFile(join(base, "empty.bin"), new Uint8Array());
    for (
      const [name, bytes] of [["small.bin", small], ["large.bin", large], [
        "empty.bin",
        new Uint8Array(),
      ]] as const
    ) {
      const got = await readInside(base, join(base, name));
      // A plain Uint8Array, not node's Buffer (pdf.js refuses a Buffer).
      assertEquals(Object.getPrototypeOf(got), Uint8Array.prototype, name);
      assertEquals(got.length, bytes.length, name);
      assert(got.every((b, i) => b === bytes[i]), `${name}: bytes differ`);
    }
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("readInside() refuses a folder and a symlink out of the root, and says which", async () => {
  const base = await Deno.makeTempDir({ prefix: "shelfmark-read-inside-" });
  try {
    const lib = join(base, "lib");
    await Deno.mkdir(join(lib, "folder"), { recursive: true });
    await Deno.writeTextFile(join(base, "secret.md"), "secret");
    await Deno.symlink(join(base, "secret.md"), join(lib, "out.md"));
    const folder = await readInside(lib, join(lib, "folder")).catch((e) => e);
    assert(folder instanceof UnsafeFileError && /not a regular file/.test(folder.message));
    const out = await readInside(lib, join(lib, "out.md")).catch((e) => e);
    assert(out instanceof UnsafeFileError && /outside the library root/.test(out.message));
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});
