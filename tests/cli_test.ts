/** The CLI as a user runs it: a real process, real exit codes, stdout and stderr. */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { assert, assertEquals, assertMatch } from "./assert.ts";

import { runCli as run } from "./cli_helper.ts";
import { smallCorpus } from "./corpus.ts";

const SAMPLES = new URL("../samples", import.meta.url).pathname;

Deno.test("cli: index, search, outline, read, grep, find-paths on the samples", async () => {
  const data = await Deno.makeTempDir({ prefix: "shelfmark-cli-" });
  try {
    const idx = await run(["index", SAMPLES, "--data", data]);
    assertEquals(idx.code, 0, idx.stderr);
    assertEquals(idx.stdout, "");
    assertMatch(idx.stderr, /indexed 9, unchanged 0, skipped 0/);

    const s = await run(["search", "DROP VIEW", "--data", data, "--json", "--limit", "3"]);
    assertEquals(s.code, 0, s.stderr);
    const hits = JSON.parse(s.stdout).results as { doc_id: string; path: string }[];
    assertEquals(hits[0]!.path, "samples/sqlite/lang_dropview.html");
    const id = hits[0]!.doc_id;

    const md = await run(["search", "DROP VIEW", "--data", data, "--type", "markdown"]);
    assertEquals(md.code, 0);
    assert(!md.stdout.includes("lang_dropview"), "the type filter keeps html out");

    const o = await run(["outline", "samples/git-lfs/batch.md", "--data", data]);
    assertEquals(o.code, 0);
    assertMatch(o.stdout, /\[1\] .*\[L\d+-\d+, \d+ lines\]/);

    const r = await run(["read", id, "--offset", "2", "--limit", "3", "--data", data]);
    assertMatch(r.stdout, /^2 \| /m);
    // At a terminal, hints name flags, not tool arguments.
    assertMatch(r.stdout, /Showing lines 2-4 of \d+\. Next: add --offset 5\./);
    const plain = await run(["search", "DROP VIEW", "--data", data, "--limit", "1"]);
    assertMatch(plain.stdout, /Next: shelfmark read ID --offset L/);

    const g = await run(["grep", "view", id, "-i", "--count", "--data", data, "--json"]);
    assert(JSON.parse(g.stdout).total_matches > 0);

    const f = await run(["find-paths", "git", "--data", data]);
    assertMatch(f.stdout, /samples\/git-lfs\/ \(2 files\)/);

    const libs = await run(["libraries", "--data", data, "--json"]);
    assertEquals(JSON.parse(libs.stdout).libraries[0].document_count, 9);
  } finally {
    await Deno.remove(data, { recursive: true });
  }
});

Deno.test("cli: bad usage exits 2, a missing document exits 1 with a clear error", async () => {
  const data = await Deno.makeTempDir({ prefix: "shelfmark-cli-" });
  try {
    assertEquals((await run(["frobnicate", "--data", data])).code, 2);
    assertEquals((await run(["search", "--limit", "x", "q", "--data", data])).code, 2);
    assertEquals((await run(["search", "--bogus", "--data", data])).code, 2);
    await run(["index", SAMPLES, "--data", data, "--quiet"]);
    const missing = await run(["read", "ffffffffffff", "--data", data]);
    assertEquals(missing.code, 1);
    assertMatch(missing.stderr, /No document "ffffffffffff"/);
    assert(!missing.stderr.includes("    at "), "no stack trace");
    const help = await run(["grep", "--help"]);
    assertEquals(help.code, 0);
    assertMatch(help.stdout, /shelfmark grep PATTERN ID/);
  } finally {
    await Deno.remove(data, { recursive: true });
  }
});

Deno.test("cli: a data folder without an index is an error, not an empty answer", async () => {
  const base = await Deno.makeTempDir({ prefix: "shelfmark-cli-" });
  try {
    const typo = join(base, "typo");
    for (const args of [["search", "gzip"], ["status"], ["read", "x"], ["grep", "x"]]) {
      const r = await run([...args, "--data", typo]);
      assertEquals(r.code, 1, `${args[0]}: ${r.stderr}`);
      assertMatch(r.stderr, /^error: no index at .*typo \(the default data folder is .+\)/);
      assert(!r.stdout.includes("No documents match"));
    }
    assert(!existsSync(typo), "nothing was created");
    const idx = await run(["index", SAMPLES, "--data", typo, "--quiet"]);
    assertEquals(idx.code, 0, idx.stderr);
    assert(existsSync(join(typo, "catalog.db")), "index still creates it");
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("cli: usage errors are one line in a terminal's terms; old flags still work", async () => {
  const data = await Deno.makeTempDir({ prefix: "shelfmark-cli-" });
  try {
    await run(["index", SAMPLES, "--data", data, "--quiet"]);
    const typo = await run(["search", "gzip", "--limt", "3", "--data", data]);
    assertEquals([typo.code, typo.stderr.trim()], [
      2,
      "error: unknown flag --limt (did you mean --limit?)",
    ]);
    const bare = await run(["search", "gzip", "--limit"]);
    assertEquals([bare.code, bare.stderr], [2, "error: --limit needs a value\n"]);
    const valued = await run(["search", "gzip", "--verbose=3"]);
    assertEquals([valued.code, valued.stderr], [2, "error: --verbose takes no value\n"]);
    const negative = await run(["search", "gzip", "--limit", "-3", "--data", data]);
    assertEquals(negative.code, 2);
    assertMatch(negative.stderr, /^error: search: --limit must be between 1 and 50, not -3\n$/);
    const big = await run(["search", "gzip", "--limit", "100000", "--data", data]);
    assertMatch(big.stderr, /--limit must be between 1 and 50, not 100000/);
    assert(!big.stderr.includes("input schema"), big.stderr);
    for (const [memory, says] of [["10", "10"], ["lots", '"lots"']] as const) {
      const goal = await run(["index", SAMPLES, "--data", data, "--memory", memory]);
      assertEquals([goal.code, goal.stderr.split("\n")[0]], [
        2,
        `error: --memory must be between 300 and 1048576, not ${says}`,
      ]);
    }
    const sort = await run(["search", "gzip", "--sort", "sideways", "--data", data]);
    assertEquals(sort.code, 2);
    assertMatch(sort.stderr, /^error: --sort: .*\nhint: See shelfmark search --help\.\n$/);
    const pfd = await run(["search", "gzip", "--type", "pfd", "--data", data]);
    assertEquals(pfd.code, 2);
    assertMatch(pfd.stderr, /^error: Unknown document type "pfd"\nhint: Known types: .*pdf/);
    const oldFlags = await run([
      "grep",
      "git",
      "--type",
      "markdown",
      "--ignore-case",
      "--documents",
      "1",
      "--data",
      data,
    ]);
    const newFlags = await run([
      "grep",
      "git",
      "--doc-types",
      "markdown",
      "--case-insensitive",
      "--limit-documents",
      "1",
      "--data",
      data,
    ]);
    assertEquals(oldFlags.code, 0, oldFlags.stderr);
    assertEquals(
      oldFlags.stdout.replace(/now=\S+/, ""),
      newFlags.stdout.replace(/now=\S+/, ""),
    );
    assertMatch(newFlags.stdout, /More documents: --offset-documents 1\./);
    const one = await run(["libraries", "--data", data]);
    assertMatch(one.stdout, /^- samples: 9 documents \(ready\)$/m);
  } finally {
    await Deno.remove(data, { recursive: true });
  }
});

Deno.test("cli: libraries add and remove edit shelfmark.json", async () => {
  const data = await Deno.makeTempDir({ prefix: "shelfmark-cli-" });
  try {
    const add = await run(["libraries", "add", "Docs", SAMPLES, "--data", data]);
    assertEquals(add.code, 0, add.stderr);
    const cfg = JSON.parse(await Deno.readTextFile(join(data, "shelfmark.json")));
    assertEquals(cfg.libraries[0].name, "Docs");
    assertEquals((await run(["libraries", "add", "Docs", SAMPLES, "--data", data])).code, 2);
    assertEquals((await run(["libraries", "remove", "Docs", "--data", data])).code, 0);
    const after = JSON.parse(await Deno.readTextFile(join(data, "shelfmark.json")));
    assertEquals(after.libraries, []);
  } finally {
    await Deno.remove(data, { recursive: true });
  }
});

Deno.test("deno task install: the launcher runs this checkout's CLI from any folder", async () => {
  const root = await Deno.makeTempDir({ prefix: "shelfmark-install-" });
  try {
    const script = new URL("../scripts/install.ts", import.meta.url).pathname;
    const inst = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", script, "--root", root],
    }).output();
    assertEquals(inst.code, 0, new TextDecoder().decode(inst.stderr));
    const shim = join(root, "bin", Deno.build.os === "windows" ? "shelfmark.cmd" : "shelfmark");
    const out = await new Deno.Command(shim, { args: ["--help"], cwd: root }).output();
    assertEquals(out.code, 0, new TextDecoder().decode(out.stderr));
    assertMatch(new TextDecoder().decode(out.stdout), /Usage: shelfmark <command>/);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("cli: the index summary counts what status counts (refused links included)", async () => {
  const base = await Deno.makeTempDir({ prefix: "shelfmark-cli-" });
  try {
    const lib = `${base}/lib`;
    await Deno.mkdir(lib);
    await Deno.writeTextFile(`${lib}/a.md`, "# A\n\nAlpha text.\n");
    await Deno.writeFile(`${lib}/b.txt`, new Uint8Array([0, 1, 2, 0, 0, 255, 0, 7]));
    await Deno.symlink(`${lib}/missing.md`, `${lib}/dangling.md`);
    const idx = await run(["index", lib, "--data", `${base}/data`]);
    assertEquals(idx.code, 0, idx.stderr);
    const st = await run(["status", "--data", `${base}/data`, "--json"]);
    const s = JSON.parse(st.stdout);
    assertEquals([s.documents_indexed, s.documents_total], [1, 3]);
    assertMatch(idx.stderr, /skipped 2, removed 0; 1 of 3 documents indexed/);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

/** Scans the OCR reads in the background: a scanned PDF page and an image file. */
const OCR_CASES = [
  {
    what: "scanned PDF pages",
    file: "faq.pdf",
    from: () =>
      Promise.resolve(
        new URL("../extractors/testdata/scans/r-faq-p6-scan.pdf", import.meta.url).pathname,
      ),
    phrase: "R-devel@R-project",
  },
  {
    what: "image files",
    file: "faq.png",
    from: async () => join(await smallCorpus(), "scans", "R-FAQ-p9.png"),
    phrase: "Texinfo system",
  },
];

for (const c of OCR_CASES) {
  Deno.test({
    name: `cli: index waits for the OCR of ${c.what} unless --no-ocr`,
    sanitizeResources: false,
    async fn() {
      const base = await Deno.makeTempDir({ prefix: "shelfmark-cli-ocr-" });
      try {
        const lib = join(base, "Scans");
        await Deno.mkdir(lib);
        await Deno.copyFile(await c.from(), join(lib, c.file));
        const data = join(base, "data");
        // A page's OCR gets 15 minutes (the file time limit; 60 s by default): on a machine
        // busy with other work tesseract can take more than a minute of wall time.
        await Deno.mkdir(data);
        await Deno.writeTextFile(
          join(data, "shelfmark.json"),
          JSON.stringify({ limits: { file_timeout_s: 900 } }),
        );
        const quick = await run(["index", lib, "--data", data, "--no-ocr"]);
        assertEquals(quick.code, 0, quick.stderr);
        const waiting = await run(["status", "--data", data]);
        assertMatch(
          waiting.stdout,
          /OCR of scanned pages and images: waiting, 0 pages read, 1 waiting/,
        );
        const g0 = await run(["grep", c.phrase, "--data", data, "--json"]);
        assertEquals(JSON.parse(g0.stdout).documents.length, 0);

        const full = await run(["index", "--data", data]);
        assertEquals(full.code, 0, full.stderr);
        assertMatch(full.stderr, /1 scanned page read by OCR/);
        const done = await run(["status", "--data", data]);
        assertMatch(done.stdout, /OCR of scanned pages and images: idle, 1 page read, 0 waiting/);
        const g1 = await run(["grep", c.phrase, "--data", data, "--json"]);
        assertEquals(JSON.parse(g1.stdout).documents.length, 1, g1.stdout);
      } finally {
        await Deno.remove(base, { recursive: true });
      }
    },
  });
}
