import { join } from "node:path";
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
