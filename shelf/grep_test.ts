/**
 * Grep through the Shelf's API, as a library user calls it: plain data with display
 * paths, defaults filled in, errors as `ToolError` codes. Deno's resource and op
 * sanitizers stay on: closing the shelf leaves no grep worker running.
 */
import { join } from "node:path";
import { ToolError } from "../core/types.ts";
import { assert, assertEquals, assertRejects } from "../tests/assert.ts";
import { openTestShelf } from "../tests/shelf_helper.ts";
import { partsOf } from "./_parts.ts";

Deno.test({
  name: "shelf.grep and shelf.grepDocuments answer plain data with display paths",
  async fn() {
    const base = await Deno.makeTempDir({ prefix: "shelfmark-shelf-grep-" });
    const notes = join(base, "Notes");
    await Deno.mkdir(notes);
    await Deno.writeTextFile(join(notes, "a.md"), "# A\n\none wal\ntwo\nthree WAL\n");
    await Deno.writeTextFile(join(notes, "b.md"), "# B\n\nno match here\n");
    await using t = await openTestShelf({ base, folders: [notes] });
    await t.shelf.index();
    const id = partsOf(t.shelf).catalog.idByPath("Notes/a.md")!;

    const one = await t.shelf.grep(id, { pattern: "wal", caseInsensitive: true, before: 0 });
    assertEquals(one.path, "Notes/a.md");
    assertEquals(one.total_matches, 2);
    assertEquals(one.matches!.map((m) => [m.line, m.text, m.before]), [
      [3, "one wal", []],
      [5, "three WAL", []],
    ]);
    assertEquals(one.matches![0]!.after, ["two"], "context after, 3 lines by default");
    assertEquals(one.next_offset, null);
    const page = await t.shelf.grep(id, { pattern: "wal", caseInsensitive: true, limit: 1 });
    assertEquals([page.matches!.length, page.next_offset], [1, 1]);
    const count = await t.shelf.grep(id, { pattern: "wal", countOnly: true });
    assertEquals([count.total_matches, count.matches], [1, undefined]);

    const many = await t.shelf.grepDocuments({ pattern: "wal|match" });
    assertEquals(many.documents.map((d) => [d.path, d.total_matches]), [
      ["Notes/a.md", 1],
      ["Notes/b.md", 1],
    ]);
    assertEquals([many.documents_in_scope, many.complete], [2, true]);
    const scoped = await t.shelf.grepDocuments({
      pattern: "match",
      scope: { path_glob: "Notes/a*" },
    });
    assertEquals(scoped.total_documents, 0);

    const missing = await assertRejects(() => t.shelf.grep("000000000000000", { pattern: "a" }));
    assert(missing instanceof ToolError && missing.code === "DOCUMENT_NOT_FOUND", `${missing}`);
    const bad = await assertRejects(() => t.shelf.grepDocuments({ pattern: "(" }));
    assert(bad instanceof ToolError && bad.code === "INVALID_PATTERN", `${bad}`);
  },
});

Deno.test({
  name: "shelf.grep matches a phrase across a line break of a paragraph, never across paragraphs",
  async fn() {
    const base = await Deno.makeTempDir({ prefix: "shelfmark-shelf-grep-" });
    const notes = join(base, "Notes");
    await Deno.mkdir(notes);
    await Deno.writeTextFile(
      join(notes, "wrap.md"),
      "# Wrap\n\nThe catalog keeps\n  the text of each\ndocument whole.\n\nRead the manu-\nals first.\n",
    );
    await using t = await openTestShelf({ base, folders: [notes] });
    await t.shelf.index();
    const id = partsOf(t.shelf).catalog.idByPath("Notes/wrap.md")!;
    const grep = (pattern: string) => t.shelf.grep(id, { pattern, before: 1, after: 1 });

    const phrase = await grep("keeps the text");
    assertEquals(phrase.matches!.map((m) => [m.line, m.end_line, m.text, m.before, m.after]), [
      [3, 4, "The catalog keeps the text of each", [""], ["document whole."]],
    ]);
    assertEquals((await grep("keeps\\s+the")).matches!.map((m) => [m.line, m.end_line]), [[3, 4]]);
    // A match on one line stays a one-line match; a blank line is a paragraph's end.
    assertEquals((await grep("the text")).matches!.map((m) => [m.line, m.end_line]), [[
      4,
      undefined,
    ]]);
    assertEquals((await grep("whole. Read")).total_matches, 0);
    // A hyphenated line end is the whole word; without a space in the pattern, other
    // breaks stay breaks.
    assertEquals((await grep("manuals")).matches!.map((m) => [m.line, m.end_line]), [[7, 8]]);
    assertEquals((await grep("keeps.the")).total_matches, 0);
    assertEquals(
      (await t.shelf.grep(id, { pattern: "each document", countOnly: true })).total_matches,
      1,
    );
    // Not a paged document: no page.
    assertEquals(phrase.matches![0]!.page, undefined);
  },
});
