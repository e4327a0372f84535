import { join } from "node:path";
import { assert, assertEquals } from "../tests/assert.ts";
import { writeFileAtomicSync } from "./atomic_write.ts";

Deno.test("writeFileAtomicSync() replaces the content, keeps the mode and leaves no temporary file", () => {
  const dir = Deno.makeTempDirSync();
  try {
    const file = join(dir, "state.json");
    writeFileAtomicSync(file, "first\n");
    assertEquals(Deno.readTextFileSync(file), "first\n");
    if (Deno.build.os !== "windows") Deno.chmodSync(file, 0o600);
    writeFileAtomicSync(file, new TextEncoder().encode("second, longer\n"));
    assertEquals(Deno.readTextFileSync(file), "second, longer\n");
    if (Deno.build.os !== "windows") assertEquals(Deno.statSync(file).mode! & 0o777, 0o600);
    assertEquals([...Deno.readDirSync(dir)].map((e) => e.name), ["state.json"]);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("writeFileAtomicSync() that fails removes its temporary file and throws", () => {
  const dir = Deno.makeTempDirSync();
  try {
    // A folder where the file should go: the rename over it fails after the data is written.
    Deno.mkdirSync(join(dir, "taken"));
    Deno.writeTextFileSync(join(dir, "taken", "inside"), "kept");
    let thrown: unknown;
    try {
      writeFileAtomicSync(join(dir, "taken"), "x".repeat(10_000));
    } catch (e) {
      thrown = e;
    }
    assert(thrown instanceof Error);
    assertEquals([...Deno.readDirSync(dir)].map((e) => e.name), ["taken"]);
    assertEquals(Deno.readTextFileSync(join(dir, "taken", "inside")), "kept");
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
