import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { assert, assertEquals, assertRejects } from "../tests/assert.ts";
import { groundTruth, smallCorpus, titleF1 } from "../tests/corpus.ts";
import { ExtractError } from "../core/extractor.ts";
import { text } from "./text.ts";

const run = (bytes: Uint8Array, extension = ".txt") =>
  text().extract({ path: `l/a${extension}`, extension, bytes });

Deno.test("text() refuses a PNG named .txt with reason binary", async () => {
  const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
  const err = await assertRejects(() => run(png));
  assert(err instanceof ExtractError);
  assertEquals(err.reason, "binary");
});

Deno.test("text() refuses an empty file with reason empty", async () => {
  const err = await assertRejects(() => run(new Uint8Array()));
  assert(err instanceof ExtractError);
  assertEquals(err.reason, "empty");
});

Deno.test("text() decodes Latin-1 with a warning", async () => {
  const doc = await run(new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a]));
  assertEquals(doc.lines, ["café"]);
  assertEquals(doc.warnings?.length, 1);
});

Deno.test("text() finds the headings of the small corpus's text library", async () => {
  const dir = await smallCorpus();
  const bySub = new Map<string, number[]>();
  for (const [path, truth] of await groundTruth(dir)) {
    if (!path.startsWith("text/") || !truth.headings) continue;
    const bytes = await Deno.readFile(join(dir, path));
    const ext = path.slice(path.lastIndexOf("."));
    const doc = await text().extract({ path, extension: ext, bytes });
    const f1 = titleF1(
      (doc.headings ?? []).map((h) => h.title),
      truth.headings.map((h) => h.title),
    );
    const sub = path.split("/")[1]!;
    bySub.set(sub, [...(bySub.get(sub) ?? []), f1]);
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  for (const [sub, xs] of [...bySub].sort()) {
    console.log(`text/${sub}/: ${xs.length} docs, mean title F1 ${mean(xs).toFixed(3)}`);
  }
  // Every sub-folder below has ground-truth headings in the small corpus: a missing one
  // is a broken corpus (or a changed build.sh), not a reason to pass.
  const floors: [string, number][] = [
    ["from-markdown", 0.8],
    // underlined and man-page layouts are regular: hold them to a high floor too
    ["man", 0.9],
    ["gnu-info", 0.9],
    ["sphinx-text", 0.9],
    ["asciidoc", 0.9],
    ["rst-sources", 0.9],
  ];
  for (const [sub, floor] of floors) {
    const xs = bySub.get(sub);
    assert(
      xs?.length,
      `no text/${sub}/ document with ground-truth headings in ${dir}: rebuild the small corpus`,
    );
    assert(mean(xs) >= floor, `text/${sub}/ mean F1 ${mean(xs)} < ${floor}`);
  }
});

Deno.test("text() titles a man page by its NAME line", async () => {
  const page = [
    "ldd(1)                  General Commands Manual                  ldd(1)",
    "",
    "NAME",
    "       ldd - print shared object dependencies",
    "",
    "SYNOPSIS",
    "       ldd [option]... file...",
  ].join("\n");
  const doc = await text().extract({
    path: "man/ldd.1.txt",
    extension: ".txt",
    bytes: new TextEncoder().encode(page),
  });
  assertEquals(doc.meta?.title, "ldd - print shared object dependencies");
});

Deno.test("text: scripts and config files have no headings; the file name is their title", async () => {
  const bytes = new TextEncoder().encode(
    "#!/bin/sh\n# [JNZ] Modified 21-Jun-2013\n\nSETUP\n=====\n\necho hello\n",
  );
  const sh = await text().extract({ path: "lib/tools/setup", extension: "", bytes });
  assertEquals(sh.headings, []);
  assertEquals(sh.outlineQuality, "none");
  const conf = await text().extract({
    path: "lib/app.conf",
    extension: ".conf",
    bytes: new TextEncoder().encode("# Main settings\n\nPORT=80\n"),
  });
  assertEquals(conf.headings, []);
  const prose = await text().extract({
    path: "lib/notes.txt",
    extension: ".txt",
    bytes: new TextEncoder().encode("SETUP\n=====\n\nHow to set up.\n"),
  });
  assertEquals(prose.headings?.map((h) => h.title), ["SETUP"]);
});

/** The lines and headings `text()` gives a gzip-compressed file of /usr/share/doc. */
async function docFile(path: string) {
  const bytes = gunzipSync(await Deno.readFile(path));
  return await text().extract({ path, extension: "", bytes: new Uint8Array(bytes) });
}

/** Whether a file of /usr/share/doc is on this machine (tests of it are ignored if not). */
function present(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

const RANDR = "/usr/share/doc/x11proto-dev/randrproto.txt.gz";
const BASH_INTRO = "/usr/share/doc/bash/INTRO.gz";
const BASH_CHANGES = "/usr/share/doc/bash/CHANGES.gz";

Deno.test({
  name: "text() takes a centred first line as the title (randrproto.txt, bash INTRO)",
  ignore: !present(RANDR) || !present(BASH_INTRO), // packages x11proto-dev and bash-doc
  fn: async () => {
    assertEquals(
      (await docFile(RANDR)).meta?.title,
      "The X Resize, Rotate and Reflect Extension",
    );
    assertEquals((await docFile(BASH_INTRO)).meta?.title, "BASH - The Bourne-Again Shell");
  },
});

Deno.test({
  name: "text() tells repeated headings of bash CHANGES apart by their release",
  ignore: !present(BASH_CHANGES), // package bash
  fn: async () => {
    const titles = ((await docFile(BASH_CHANGES)).headings ?? []).map((h) => h.title);
    assertEquals(titles.slice(0, 5), [
      "1. Changes to Bash (bash-5.2-release)",
      "2. Changes to Readline (bash-5.2-release)",
      "3. New Features in Bash (bash-5.2-release)",
      "4. New Features in Readline (bash-5.2-release)",
      "1. Changes to Bash (bash-5.2-rc4)",
    ]);
    const repeats = titles.length - new Set(titles).size;
    assert(repeats * 20 < titles.length, `${repeats} of ${titles.length} titles repeat`);
  },
});

Deno.test("text() takes the first line before a numbered first section as the title", async () => {
  const bytes = new TextEncoder().encode(
    "The Foo Protocol\n\n1. Introduction\n\nFoo is a protocol.\n\n2. Messages\n\nThey flow.\n",
  );
  const doc = await text().extract({ path: "l/foo.txt", extension: ".txt", bytes });
  assertEquals(doc.meta?.title, "The Foo Protocol");
  const prose = await text().extract({
    path: "l/bar.txt",
    extension: ".txt",
    bytes: new TextEncoder().encode(
      "This file explains bar. Read it.\n\n1. Usage\n\nx\n\n2. End\n\ny\n",
    ),
  });
  assertEquals(prose.meta?.title, undefined);
  // a list indented by a tab throughout (git subtree's todo) has no centred title
  const list = await text().extract({
    path: "l/todo",
    extension: "",
    bytes: new TextEncoder().encode("\n\tdelete tempdir\n\n\tadd a rejoin option\n\n\tfix merge\n"),
  });
  assertEquals(list.meta?.title, undefined);
});

const MAN_CHANGES = "/usr/share/doc/manpages/Changes.old.gz";

Deno.test({
  name: "text() tags a release's headings that come before its first repeated one",
  ignore: !present(MAN_CHANGES), // package manpages
  fn: async () => {
    const titles = ((await docFile(MAN_CHANGES)).headings ?? []).map((h) => h.title);
    // man-pages 2.10 has no "Contributors" section, 2.11 opens with one
    const at = titles.indexOf("Contributors (2005-10-24)");
    assert(at > 0, titles.slice(0, 40).join(" | "));
    assertEquals(titles[at + 1], "Global changes (2005-10-24)");
    const repeats = titles.length - new Set(titles).size; // hundreds without the tags
    assert(repeats * 50 < titles.length, `${repeats} of ${titles.length} titles repeat`);
  },
});
