/**
 * A folder that cannot be read for one run keeps its documents (and is reported as
 * skipped, unreadable); only a folder that is really gone removes them. The run without
 * read permission is a process without CAP_DAC_OVERRIDE (setpriv), so the test's root
 * user meets the same permission checks as any user.
 */
import { join } from "node:path";
import { assertEquals } from "../assert.ts";

const ONCE = new URL("./index_once.ts", import.meta.url).pathname;

type Run = { state: string; last_error?: string; paths: string[]; skipped: string[][] };

async function indexOnce(data: string, folder: string, restricted: boolean): Promise<Run> {
  const deno = [Deno.execPath(), "run", "-A", ONCE, data, folder];
  const [cmd, ...args] = restricted
    ? ["setpriv", "--bounding-set", "-dac_override,-dac_read_search", ...deno]
    : deno;
  const out = await new Deno.Command(cmd!, { args, stdout: "piped", stderr: "piped" }).output();
  const text = new TextDecoder().decode(out.stdout);
  if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
  return JSON.parse(text);
}

Deno.test({
  name: "index keeps the documents of a folder it cannot read, removes a deleted one",
  ignore: Deno.build.os !== "linux" || Deno.uid() !== 0,
  fn: async () => {
    const base = await Deno.makeTempDir({ prefix: "shelfmark-unreadable-" });
    const lib = join(base, "lib");
    const data = join(base, "data");
    try {
      await Deno.mkdir(join(lib, "sub"), { recursive: true });
      await Deno.writeTextFile(join(lib, "top.md"), "# Top\n\nText.\n");
      for (const n of ["a", "b", "c"]) {
        await Deno.writeTextFile(join(lib, "sub", `${n}.md`), `# ${n}\n\nText.\n`);
      }
      const all = ["lib/sub/a.md", "lib/sub/b.md", "lib/sub/c.md", "lib/top.md"];
      const first = await indexOnce(data, lib, false);
      assertEquals(first.paths, all);

      await Deno.chmod(join(lib, "sub"), 0o000);
      const sub = await indexOnce(data, lib, true);
      assertEquals(sub.state, "ready");
      assertEquals(sub.paths, all);
      assertEquals(sub.skipped, [["lib/sub", "unreadable"]]);

      await Deno.chmod(join(lib, "sub"), 0o755);
      await Deno.chmod(lib, 0o000);
      const root = await indexOnce(data, lib, true);
      assertEquals(root.paths, all);
      // The root is reported; what was known under it is kept as it was.
      assertEquals(root.skipped, [["lib/", "unreadable"], ["lib/sub", "unreadable"]]);

      await Deno.chmod(lib, 0o755);
      const back = await indexOnce(data, lib, true);
      assertEquals(back.paths, all);
      assertEquals(back.skipped, []);

      await Deno.remove(join(lib, "sub"), { recursive: true });
      const gone = await indexOnce(data, lib, true);
      assertEquals(gone.paths, ["lib/top.md"]);
    } finally {
      await Deno.chmod(lib, 0o755).catch(() => {});
      await Deno.chmod(join(lib, "sub"), 0o755).catch(() => {});
      await Deno.remove(base, { recursive: true });
    }
  },
});
