/**
 * A disk filling during indexing: the run fails with the storage error, files are not
 * recorded as skipped, and the next run (space back) indexes them all. The data folder is
 * a small tmpfs (the test runs as root).
 */
import { join } from "node:path";
import { assertEquals, assertMatch } from "../assert.ts";

const ONCE = new URL("./index_once.ts", import.meta.url).pathname;

type Run = { state: string; last_error?: string; paths: string[]; skipped: string[][] };

async function indexOnce(data: string, folder: string): Promise<Run> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", ONCE, data, folder],
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
  return JSON.parse(new TextDecoder().decode(out.stdout));
}

async function mount(args: string[]): Promise<boolean> {
  return (await new Deno.Command("mount", { args, stderr: "null" }).output()).success;
}

/** Words no two files share much of, so the index grows with every file. */
function text(seed: number): string {
  let x = seed * 7919 + 1;
  const words: string[] = [];
  for (let i = 0; i < 1500; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    words.push(x.toString(36));
  }
  return `# File ${seed}\n\n${words.join(" ")}\n`;
}

Deno.test({
  name: "index stops as failed on a full disk, skips nothing, and retries after",
  ignore: Deno.build.os !== "linux" || Deno.uid() !== 0,
  fn: async () => {
    const base = await Deno.makeTempDir({ prefix: "shelfmark-full-" });
    const lib = join(base, "lib");
    const data = join(base, "data");
    await Deno.mkdir(lib);
    await Deno.mkdir(data);
    const n = 300; // several batches: the disk fills after some were committed
    for (let i = 0; i < n; i++) {
      await Deno.writeTextFile(join(lib, `f${String(i).padStart(3, "0")}.md`), text(i));
    }
    if (!(await mount(["-t", "tmpfs", "-o", "size=2m", "tmpfs", data]))) {
      await Deno.remove(base, { recursive: true });
      console.warn("mount not permitted: skipped");
      return;
    }
    try {
      const full = await indexOnce(data, lib);
      assertEquals(full.state, "failed");
      // The storage error itself, not "cannot commit - no transaction is active".
      assertMatch(full.last_error ?? "", /database or disk is full/);
      assertEquals(full.skipped, []);
      assertEquals(full.paths.length < n, true);

      assertEquals(await mount(["-o", "remount,size=64m", data]), true);
      const after = await indexOnce(data, lib);
      assertEquals(after.state, "ready");
      assertEquals(after.skipped, []);
      assertEquals(after.paths.length, n);
    } finally {
      await new Deno.Command("umount", { args: [data] }).output();
      await Deno.remove(base, { recursive: true });
    }
  },
});
