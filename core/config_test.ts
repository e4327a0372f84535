import { join } from "node:path";
import { assert, assertEquals } from "../tests/assert.ts";
import { ConfigError, loadConfig, saveConfig } from "./config.ts";
import { walkLibrary } from "./walk.ts";

async function configWith(obj: unknown): Promise<string> {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(join(dir, "shelfmark.json"), JSON.stringify(obj));
  return dir;
}

function refusal(dir: string): string {
  try {
    loadConfig(dir);
  } catch (e) {
    assert(e instanceof ConfigError);
    return e.message;
  }
  return "";
}

Deno.test("loadConfig() refuses unknown keys and bad values, naming them", async () => {
  assert(refusal(await configWith({ libary: [] })).includes('unknown key "libary"'));
  assert(
    refusal(await configWith({ libraries: [{ name: "a", path: "/x", colour: 1 }] }))
      .includes('"libraries[0].colour"'),
  );
  assert(refusal(await configWith({ limits: { workers: -1 } })).includes("limits.workers"));
  assert(refusal(await configWith({ limits: { speed: 1 } })).includes('"limits.speed"'));
  assert(
    refusal(await configWith({ limits: { query_timeout_s: 0 } }))
      .includes("limits.query_timeout_s must be a number from 1 to 600"),
  );
  for (const nonsense of [10, "lots", -600]) {
    assert(
      refusal(await configWith({ limits: { index_memory_mb: nonsense } }))
        .endsWith("shelfmark.json: limits.index_memory_mb must be a number from 300 to 1048576"),
    );
  }
  assert(refusal(await configWith({ libraries: [{ name: "a/b", path: "/x" }] })).includes("name"));
  const ok = loadConfig(
    await configWith({
      libraries: [{ name: "Docs", path: "/x", include: ["**/*.md"], exclude: ["drafts"] }],
      limits: {
        max_file_mb: 10,
        file_timeout_s: 5,
        workers: 1,
        query_timeout_s: 3,
        index_memory_mb: 900,
      },
    }),
  );
  assertEquals(ok.limits?.query_timeout_s, 3);
  assertEquals(ok.limits?.index_memory_mb, 900);
  assertEquals(ok.libraries[0]!.include, ["**/*.md"]);
  assertEquals(ok.limits?.workers, 1);
});

Deno.test("walkLibrary() applies include and exclude globs", async () => {
  const root = await Deno.makeTempDir();
  await Deno.mkdir(join(root, "drafts"));
  await Deno.mkdir(join(root, "notes", "deep"), { recursive: true });
  for (const f of ["a.md", "b.txt", "drafts/c.md", "notes/deep/d.md"]) {
    await Deno.writeTextFile(join(root, f), "x");
  }
  const { files } = await walkLibrary({
    name: "L",
    root,
    include: ["**/*.md"],
    exclude: ["drafts"],
  });
  assertEquals(files.map((f) => f.path), ["L/a.md", "L/notes/deep/d.md"]);
  await Deno.remove(root, { recursive: true });
});

Deno.test("loadConfig() checks the embedder and OCR settings, naming what is wrong", async () => {
  assert(refusal(await configWith({ embedder: "bert" })).includes('"embedder" must be'));
  assert(
    refusal(await configWith({ embedder: { name: "ollama:x", port: 1 } })).includes(
      '"embedder.port"',
    ),
  );
  assert(
    refusal(await configWith({ embedder: { name: "openai:x", url: "ftp://h" } })).includes(
      "embedder.url",
    ),
  );
  assert(refusal(await configWith({ ocr: { languages: [] } })).includes("ocr.languages"));
  assert(refusal(await configWith({ ocr: { psm: 3 } })).includes('"ocr.psm"'));
  assert(
    refusal(await configWith({ ocr: { pdf_pages: "no" } })).endsWith(
      "ocr.pdf_pages must be true or false",
    ),
  );
  assertEquals(loadConfig(await configWith({ ocr: { pdf_pages: false } })).ocr?.pdf_pages, false);
  assert(
    refusal(await configWith({ ocr: { images: 1 } })).endsWith("ocr.images must be true or false"),
  );
  assertEquals(loadConfig(await configWith({ ocr: { images: false } })).ocr?.images, false);
  assertEquals(loadConfig(await configWith({ ocr: { max_pages: 20 } })).ocr?.max_pages, 20);
  assert(
    refusal(await configWith({ ocr: { max_pages: -1 } })).endsWith(
      "ocr.max_pages must be a number from 0 to 1000000",
    ),
  );
  const ok = loadConfig(
    await configWith({
      embedder: { name: "ollama:nomic-embed-text", url: "http://127.0.0.1:11434" },
      ocr: { languages: ["eng", "deu"] },
    }),
  );
  assertEquals(ok.embedder, { name: "ollama:nomic-embed-text", url: "http://127.0.0.1:11434" });
  assertEquals(ok.ocr?.languages, ["eng", "deu"]);
  assertEquals(loadConfig(await configWith({ embedder: "none" })).embedder, "none");
});

Deno.test("loadConfig() names the list, not its element, and checks descriptions", async () => {
  assertEquals(
    refusal(await configWith({ libraries: [{ name: "a", path: "/x", exclude: ["ok", ""] }] }))
      .split(": ").slice(1).join(": "),
    "libraries[0].exclude must be an array of glob patterns",
  );
  assert(
    refusal(await configWith({ ocr: { languages: ["EN"] } })).endsWith(
      ': ocr.languages must be a non-empty array of Tesseract codes such as "eng"',
    ),
  );
  assert(
    refusal(await configWith({ extractors: ["./a.ts", 1] })).endsWith(
      ': "extractors" must be an array of module paths',
    ),
  );
  assert(
    refusal(await configWith({ libraries: [{ name: "a", path: "/x", description: 3 }] }))
      .endsWith(": libraries[0].description must be a string"),
  );
  assert(refusal(await configWith([])).endsWith("shelfmark.json: must be a JSON object"));
});

/** A tiny tmpfs to fill up (Linux, as root); undefined where it cannot be mounted. */
function tinyDisk(): string | undefined {
  if (Deno.build.os !== "linux" || Deno.uid() !== 0) return undefined;
  const dir = Deno.makeTempDirSync();
  const mount = new Deno.Command("mount", {
    args: ["-t", "tmpfs", "-o", "size=64k", "tmpfs", dir],
    stdout: "null",
    stderr: "null",
  });
  try {
    if (mount.outputSync().success) return dir;
  } catch {
    // no mount command
  }
  Deno.removeSync(dir);
  return undefined;
}

const disk = tinyDisk();

Deno.test({
  name: "saveConfig() on a full disk leaves the previous shelfmark.json whole",
  ignore: !disk,
  fn: () => {
    try {
      const before = { libraries: [{ name: "Docs", path: "/home/me/Docs" }] };
      saveConfig(disk!, before);
      const huge = {
        libraries: Array.from({ length: 400 }, (_, i) => ({
          name: `L${i}`,
          path: `/x/${i}`,
          description: "d".repeat(300),
        })),
      };
      let thrown: unknown;
      try {
        saveConfig(disk!, huge);
      } catch (e) {
        thrown = e;
      }
      assert(thrown instanceof Error, "a write larger than the disk fails");
      assertEquals(loadConfig(disk!).libraries, before.libraries);
      assertEquals([...Deno.readDirSync(disk!)].map((e) => e.name), ["shelfmark.json"]);
    } finally {
      new Deno.Command("umount", { args: [disk!] }).outputSync();
      Deno.removeSync(disk!);
    }
  },
});

Deno.test("loadConfig() reads the git keys and names a bad author", async () => {
  const ok = loadConfig(
    await configWith({
      libraries: [{ name: "Notes", path: "/x", git: false }],
      git: { author: { name: "Vault Bot", email: "bot@example.org" } },
    }),
  );
  assertEquals(ok.libraries[0]!.git, false);
  assertEquals(ok.git?.author, { name: "Vault Bot", email: "bot@example.org" });
  const says = async (author: unknown) =>
    refusal(await configWith({ git: { author } })).split(": ").at(-1);
  assertEquals(await says("me"), 'git.author must be an object {"name", "email"}');
  assertEquals(await says({ name: "x" }), "git.author.email must be an email address");
  assertEquals(await says({ name: "x", email: "no" }), "git.author.email must be an email address");
  assertEquals(
    await says({ name: "a <b>", email: "c@d" }),
    'git.author.name must be a name without "<", ">" or a line break',
  );
  assert(refusal(await configWith({ git: { user: 1 } })).includes('unknown key "git.user"'));
  assert(
    refusal(await configWith({ libraries: [{ name: "a", path: "/x", git: "yes" }] }))
      .includes("libraries[0].git must be true or false"),
  );
});
