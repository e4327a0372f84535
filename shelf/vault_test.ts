import { join } from "node:path";
import type { ToolError } from "../core/types.ts";
import { assert, assertEquals } from "../tests/assert.ts";
import { openTestShelf } from "../tests/shelf_helper.ts";
import type { Shelf } from "./shelf.ts";
import { type VaultCommitter, versionOf } from "./vault.ts";

const NOTE = "# Otters\n\nOtters eat fish.\nThey live in holts.\n\n## Dens\n\nHolts by rivers.\n";

/** The ToolError a promise rejects with. */
async function rejected(p: Promise<unknown>): Promise<ToolError> {
  try {
    await p;
  } catch (e) {
    return e as ToolError;
  }
  throw new Error("no error thrown");
}

/** Two libraries, Notes (writable) and Papers (read-only), indexed. */
async function setup(opts: { write?: string[]; committer?: VaultCommitter } = {}) {
  const base = await Deno.makeTempDir({ prefix: "shelfmark-vault-" });
  await Deno.mkdir(join(base, "Notes"));
  await Deno.mkdir(join(base, "Papers"));
  await Deno.writeTextFile(join(base, "Notes", "otters.md"), NOTE);
  await Deno.writeTextFile(join(base, "Papers", "paper.md"), "# Paper\n\nRead only.\n");
  const t = await openTestShelf({
    base,
    folders: [join(base, "Notes"), join(base, "Papers")],
    write: opts.write ?? ["Notes"],
    committer: opts.committer,
  });
  await t.shelf.index();
  return { t, shelf: t.shelf, notes: join(base, "Notes"), papers: join(base, "Papers"), base };
}

async function hits(shelf: Shelf, query: string): Promise<string[]> {
  const r = await shelf.search({ query, limit: 10 });
  return r.hits.map((h) => r.cards.get(h.doc_id)!.path);
}

Deno.test("Shelf.writeFile() creates a note, indexes it before answering, and overwrites it", async () => {
  const { t, shelf, notes } = await setup();
  await using _ = t;
  const a = await shelf.writeFile({
    path: "Notes/log/day1.md",
    text: "# Day one\n\nquokkas seen\n",
  });
  assertEquals(a.created, true);
  assertEquals(a.path, "Notes/log/day1.md");
  assertEquals(Deno.readTextFileSync(join(notes, "log", "day1.md")), "# Day one\n\nquokkas seen\n");
  assertEquals(a.version, versionOf(Deno.readFileSync(join(notes, "log", "day1.md"))));
  assert(a.doc_id, "indexed before answering");
  assertEquals(await hits(shelf, "quokkas"), ["Notes/log/day1.md"]);
  assertEquals(shelf.stale, false);
  const b = await shelf.writeFile({ path: "Notes/log/day1.md", text: "# Day one\n\nwombats\n" });
  assertEquals(b.created, false);
  assertEquals(await hits(shelf, "quokkas"), []);
  assertEquals(await hits(shelf, "wombats"), ["Notes/log/day1.md"]);
  // The read shows the version of what was indexed.
  const lines = await shelf.readLines(b.doc_id!, { offset: 1 });
  assertEquals(lines.version, b.version);
});

Deno.test("Shelf.writeFile() puts front matter on Markdown and writes base64 for binary types", async () => {
  const { t, shelf, notes } = await setup();
  await using _ = t;
  await shelf.writeFile({
    path: "Notes/fm.md",
    text: "---\nold: 1\n---\nBody text.\n",
    frontMatter: { title: "Front", tags: ["a", "b"] },
  });
  assertEquals(
    Deno.readTextFileSync(join(notes, "fm.md")),
    "---\ntitle: Front\ntags:\n  - a\n  - b\n---\nBody text.\n",
  );
  const bytes = new Uint8Array([0, 1, 2, 250, 255]);
  const bin = await shelf.writeFile({
    path: "Notes/blob.bin",
    base64: btoa(String.fromCharCode(...bytes)),
  });
  assertEquals(Deno.readFileSync(join(notes, "blob.bin")), bytes);
  assertEquals(bin.version, versionOf(bytes));
  const pdfText = await rejected(shelf.writeFile({ path: "Notes/x.pdf", text: "hello" }));
  assertEquals(pdfText.code, "INVALID_ARGUMENT");
  const fmTxt = await rejected(
    shelf.writeFile({ path: "Notes/x.txt", text: "a", frontMatter: {} }),
  );
  assertEquals(fmTxt.code, "INVALID_ARGUMENT");
  const both = await rejected(shelf.writeFile({ path: "Notes/x.md", text: "a", base64: "YQ==" }));
  assertEquals(both.code, "INVALID_ARGUMENT");
  const bad64 = await rejected(shelf.writeFile({ path: "Notes/x.bin", base64: "not base64!" }));
  assertEquals(bad64.code, "INVALID_ARGUMENT");
});

Deno.test("Shelf.writeFile() with a stale if_match is refused with CONFLICT and the current version", async () => {
  const { t, shelf, notes } = await setup();
  await using _ = t;
  const v0 = versionOf(Deno.readFileSync(join(notes, "otters.md")));
  const ok = await shelf.writeFile({ path: "Notes/otters.md", text: "v1\n", ifMatch: v0 });
  const e = await rejected(shelf.writeFile({ path: "Notes/otters.md", text: "v2\n", ifMatch: v0 }));
  assertEquals(e.code, "CONFLICT");
  assertEquals(e.details?.current_version, ok.version);
  assertEquals(Deno.readTextFileSync(join(notes, "otters.md")), "v1\n");
});

Deno.test("Shelf.editFile() replaces an exact match, a normalized match, a line range and a match in a range", async () => {
  const { t, shelf, notes } = await setup();
  await using _ = t;
  const path = join(notes, "otters.md");
  const a = await shelf.editFile({
    path: "Notes/otters.md",
    oldText: "eat fish",
    newText: "eat crabs",
  });
  assertEquals(a.match_type, "exact");
  assertEquals([a.start_line, a.end_line], [3, 3]);
  assert(Deno.readTextFileSync(path).includes("Otters eat crabs."));
  assertEquals(await hits(shelf, "crabs"), ["Notes/otters.md"]);
  // Smart quotes, a dash and a run of spaces in the file; plain ones in old_text.
  Deno.writeTextFileSync(path, "# Otters\n\nThey say \u201cholts\u201d \u2014 dens   by rivers.\n");
  const b = await shelf.editFile({
    path: "Notes/otters.md",
    oldText: 'They say "holts" - dens by rivers.',
    newText: "They dig holts.",
  });
  assertEquals(b.match_type, "normalized");
  assertEquals(Deno.readTextFileSync(path), "# Otters\n\nThey dig holts.\n");
  // A line range alone replaces those lines.
  Deno.writeTextFileSync(path, "l1\nl2\nl3\nl4\n");
  const c = await shelf.editFile({
    path: "Notes/otters.md",
    startLine: 2,
    endLine: 3,
    newText: "two\nthree",
  });
  assertEquals(c.match_type, "lines");
  assertEquals(Deno.readTextFileSync(path), "l1\ntwo\nthree\nl4\n");
  // old_text occurs twice; scoped to a range it is once.
  Deno.writeTextFileSync(path, "x = 1\ny = 2\nx = 1\n");
  const many = await rejected(
    shelf.editFile({ path: "Notes/otters.md", oldText: "x = 1", newText: "x = 3" }),
  );
  assertEquals(many.code, "NOT_UNIQUE");
  assertEquals(many.details?.lines, [1, 3]);
  const d = await shelf.editFile({
    path: "Notes/otters.md",
    oldText: "x = 1",
    newText: "x = 3",
    startLine: 3,
    endLine: 3,
  });
  assertEquals([d.match_type, d.start_line], ["exact", 3]);
  assertEquals(Deno.readTextFileSync(path), "x = 1\ny = 2\nx = 3\n");
});

Deno.test("Shelf.editFile() matches decomposed accents (NFD) in the file with composed ones (NFC)", async () => {
  const { t, shelf, notes } = await setup();
  await using _ = t;
  const path = join(notes, "otters.md");
  Deno.writeTextFileSync(path, "# Caf\u0065\u0301\n\nUn caf\u0065\u0301 cr\u0065\u0300me.\n");
  const e = await shelf.editFile({
    path: "Notes/otters.md",
    oldText: "Un caf\u00e9 cr\u00e8me.",
    newText: "Un th\u00e9.",
  });
  assertEquals(e.match_type, "normalized");
  assertEquals(Deno.readTextFileSync(path), "# Caf\u0065\u0301\n\nUn th\u00e9.\n");
});

Deno.test("Shelf.moveFile() moves a file to another writable library and re-indexes both", async () => {
  const { t, shelf, notes, papers } = await setup({ write: ["Notes", "Papers"] });
  await using _ = t;
  const m = await shelf.moveFile({ from: "Notes/otters.md", to: "Papers/in/otters.md" });
  assertEquals([m.from, m.to], ["Notes/otters.md", "Papers/in/otters.md"]);
  assertEquals(Deno.readTextFileSync(join(papers, "in", "otters.md")), NOTE);
  assert(!(await Deno.stat(join(notes, "otters.md")).catch(() => undefined)));
  assertEquals(await hits(shelf, "holts"), ["Papers/in/otters.md"]);
  assertEquals(m.doc_id, shelf.findDocument("Papers/in/otters.md"));
});

Deno.test("Shelf.editFile() names the closest line and the first differing character when nothing matches", async () => {
  const { t, shelf, notes } = await setup();
  await using _ = t;
  const e = await rejected(
    shelf.editFile({ path: "Notes/otters.md", oldText: "They live in houses.", newText: "x" }),
  );
  assertEquals(e.code, "NO_MATCH");
  assertEquals(e.details?.closest_line, 4);
  assertEquals(e.details?.differs_at, { line: 4, column: 16 });
  assertEquals(e.details?.expected, "They live in houses.");
  assertEquals(e.details?.found, "They live in holts.");
  assert(e.message.includes("line 4"), e.message);
  assertEquals(Deno.readTextFileSync(join(notes, "otters.md")), NOTE, "nothing written");
});

Deno.test("Shelf.editFile() refuses a stale if_match, an empty old_text and lines past the end", async () => {
  const { t, shelf, notes } = await setup();
  await using _ = t;
  const v0 = versionOf(Deno.readFileSync(join(notes, "otters.md")));
  Deno.writeTextFileSync(join(notes, "otters.md"), NOTE + "changed outside\n");
  const e = await rejected(
    shelf.editFile({ path: "Notes/otters.md", oldText: "fish", newText: "eels", ifMatch: v0 }),
  );
  assertEquals(e.code, "CONFLICT");
  assertEquals(e.details?.current_version, versionOf(Deno.readFileSync(join(notes, "otters.md"))));
  const empty = await rejected(
    shelf.editFile({ path: "Notes/otters.md", oldText: "", newText: "x" }),
  );
  assertEquals(empty.code, "INVALID_ARGUMENT");
  const past = await rejected(
    shelf.editFile({ path: "Notes/otters.md", startLine: 99, newText: "x" }),
  );
  assertEquals(past.code, "INVALID_ARGUMENT");
  // Latin-1 bytes would not survive a round trip through UTF-8: refused, left as they are.
  const latin1 = new Uint8Array([...new TextEncoder().encode("caf"), 0xe9, 0x0a]);
  Deno.writeFileSync(join(notes, "latin1.txt"), latin1);
  const enc = await rejected(
    shelf.editFile({ path: "Notes/latin1.txt", oldText: "caf", newText: "x" }),
  );
  assertEquals(enc.code, "INVALID_ARGUMENT");
  assertEquals(Deno.readFileSync(join(notes, "latin1.txt")), latin1);
  const missing = await rejected(
    shelf.editFile({ path: "Notes/nope.md", oldText: "a", newText: "b" }),
  );
  assertEquals(missing.code, "FILE_NOT_FOUND");
});

Deno.test("Shelf.moveFile() renames within a library and refuses to overwrite", async () => {
  const { t, shelf, notes } = await setup();
  await using _ = t;
  const m = await shelf.moveFile({ from: "Notes/otters.md", to: "Notes/animals/otters.md" });
  assertEquals(m.to, "Notes/animals/otters.md");
  assert(!(await Deno.stat(join(notes, "otters.md")).catch(() => undefined)));
  assertEquals(Deno.readTextFileSync(join(notes, "animals", "otters.md")), NOTE);
  assertEquals(await hits(shelf, "holts"), ["Notes/animals/otters.md"]);
  await shelf.writeFile({ path: "Notes/other.md", text: "other\n" });
  const e = await rejected(
    shelf.moveFile({ from: "Notes/other.md", to: "Notes/animals/otters.md" }),
  );
  assertEquals(e.code, "ALREADY_EXISTS");
  assertEquals(Deno.readTextFileSync(join(notes, "animals", "otters.md")), NOTE);
  assertEquals(Deno.readTextFileSync(join(notes, "other.md")), "other\n");
});

Deno.test("Shelf.deleteFile() removes the file and its document", async () => {
  const { t, shelf, notes } = await setup();
  await using _ = t;
  const id = shelf.findDocument("Notes/otters.md");
  const d = await shelf.deleteFile({ path: "Notes/otters.md" });
  assertEquals(d.doc_id, id);
  assert(!(await Deno.stat(join(notes, "otters.md")).catch(() => undefined)));
  assertEquals(shelf.findDocument("Notes/otters.md"), undefined);
  assertEquals(await hits(shelf, "holts"), []);
  const again = await rejected(shelf.deleteFile({ path: "Notes/otters.md" }));
  assertEquals(again.code, "FILE_NOT_FOUND");
});

Deno.test("Shelf vault writes nothing outside a writable library", async () => {
  const { t, shelf, notes, papers, base } = await setup();
  await using _ = t;
  const outsideDir = join(base, "outside");
  await Deno.mkdir(outsideDir);
  await Deno.symlink(outsideDir, join(notes, "link"));
  await Deno.symlink(join(outsideDir, "f.md"), join(notes, "flink.md"));
  const cases: [string, string][] = [
    ["Notes/../outside/x.md", "PATH_OUTSIDE_LIBRARY"],
    [`${outsideDir}/x.md`, "PATH_OUTSIDE_LIBRARY"],
    ["Notes/link/x.md", "PATH_OUTSIDE_LIBRARY"],
    ["Notes/flink.md", "PATH_OUTSIDE_LIBRARY"],
    ["Notes/.git/config", "PATH_OUTSIDE_LIBRARY"],
    ["Notes/a\0b.md", "PATH_OUTSIDE_LIBRARY"],
    ["Papers/new.md", "NOT_ALLOWED"],
    ["Nowhere/new.md", "LIBRARY_NOT_FOUND"],
  ];
  for (const [path, code] of cases) {
    const e = await rejected(shelf.writeFile({ path, text: "x\n" }));
    assertEquals(e.code, code, path);
  }
  const mv = await rejected(shelf.moveFile({ from: "Notes/otters.md", to: "Papers/otters.md" }));
  assertEquals(mv.code, "NOT_ALLOWED");
  const del = await rejected(shelf.deleteFile({ path: "Papers/paper.md" }));
  assertEquals(del.code, "NOT_ALLOWED");
  assertEquals([...Deno.readDirSync(outsideDir)], []);
  assertEquals([...Deno.readDirSync(papers)].map((e) => e.name), ["paper.md"]);
  assertEquals(Deno.readTextFileSync(join(notes, "otters.md")), NOTE);
});

Deno.test("Shelf vault refuses every write when writing is off", async () => {
  const { t, shelf, notes } = await setup({ write: [] });
  await using _ = t;
  assertEquals(shelf.writableLibraries(), []);
  const e = await rejected(shelf.writeFile({ path: "Notes/new.md", text: "x\n" }));
  assertEquals(e.code, "NOT_ALLOWED");
  assertEquals((await rejected(shelf.deleteFile({ path: "Notes/otters.md" }))).code, "NOT_ALLOWED");
  assertEquals([...Deno.readDirSync(notes)].map((e) => e.name), ["otters.md"]);
});

Deno.test("Shelf vault calls the committer with the paths and the message, and reports the commit", async () => {
  const calls: [string, string[], string][] = [];
  const committer: VaultCommitter = {
    commit: (root, paths, message) => {
      calls.push([root, paths, message]);
      return Promise.resolve(`c${calls.length}`);
    },
  };
  const { t, shelf, notes } = await setup({ committer });
  await using _ = t;
  const w = await shelf.writeFile({ path: "Notes/a.md", text: "a\n", message: "add a" });
  const m = await shelf.moveFile({ from: "Notes/a.md", to: "Notes/b.md" });
  const d = await shelf.deleteFile({ path: "Notes/b.md" });
  assertEquals([w.commit, m.commit, d.commit], ["c1", "c2", "c3"]);
  const root = Deno.realPathSync(notes);
  assertEquals(calls, [
    [root, ["a.md"], "add a"],
    [root, ["a.md", "b.md"], "Move Notes/a.md to Notes/b.md"],
    [root, ["b.md"], "Delete b.md"],
  ]);
});

Deno.test("Shelf vault: concurrent edits with the same if_match: one wins, the other gets CONFLICT", async () => {
  const { t, shelf, notes } = await setup();
  await using _ = t;
  const v0 = versionOf(Deno.readFileSync(join(notes, "otters.md")));
  const results = await Promise.allSettled([
    shelf.editFile({ path: "Notes/otters.md", oldText: "fish", newText: "eels", ifMatch: v0 }),
    shelf.editFile({
      path: "Notes/otters.md",
      oldText: "holts.",
      newText: "burrows.",
      ifMatch: v0,
    }),
  ]);
  const won = results.filter((r) => r.status === "fulfilled");
  const lost = results.filter((r) => r.status === "rejected") as PromiseRejectedResult[];
  assertEquals(won.length, 1);
  assertEquals(lost.length, 1);
  assertEquals((lost[0]!.reason as ToolError).code, "CONFLICT");
  const text = Deno.readTextFileSync(join(notes, "otters.md"));
  assertEquals(text.includes("eels") !== text.includes("burrows."), true, text);
});
