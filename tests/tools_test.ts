/** The tools through `callTool` on a real temporary library: search filters, outline, read, errors. */
import { join } from "node:path";
import type { Shelf } from "../shelf/shelf.ts";
import { callTool } from "../server/dispatch.ts";
import type { ToolError } from "../core/types.ts";
import { assert, assertEquals, assertMatch, assertRejects } from "./assert.ts";
import { openTestShelf } from "./shelf_helper.ts";
import { storeCases } from "./store_cases.ts";
import { partsOf } from "../shelf/_parts.ts";

async function setup(store?: string) {
  const base = await Deno.makeTempDir({ prefix: "shelfmark-tools-" });
  const lib = join(base, "Lab");
  await Deno.mkdir(join(lib, "2023"), { recursive: true });
  await Deno.mkdir(join(lib, "2024"), { recursive: true });
  const files: [string, string, string][] = [
    ["2023/old.md", "# Old lemur notes\n\nLemurs eat fruit.\n", "2023-03-01T00:00:00Z"],
    ["2024/new.md", "# New lemur notes\n\nLemurs sleep in trees.\n", "2024-06-01T00:00:00Z"],
    [
      "2024/page.html",
      "<title>Lemur page</title><h1>Lemur</h1><p>Lemurs jump.</p>",
      "2024-01-15T12:00:00Z",
    ],
  ];
  for (const [p, text, when] of files) {
    await Deno.writeTextFile(join(lib, p), text);
    await Deno.utime(join(lib, p), new Date(when), new Date(when));
  }
  const t = await openTestShelf({ base, store, folders: [lib] });
  await t.shelf.index();
  return { t, shelf: t.shelf };
}

async function paths(shelf: Shelf, args: Record<string, unknown>): Promise<string[]> {
  const r = await callTool(shelf, "search", { query: "lemur", ...args, output_format: "json" });
  return (r.json.results as { path: string }[]).map((h) => h.path);
}

storeCases({
  "search filters: doc_types, library, path_glob, modified_after/before, time_sort": async (
    { store },
  ) => {
    const { t, shelf } = await setup(store);
    try {
      assertEquals((await paths(shelf, {})).length, 3);
      assertEquals(await paths(shelf, { doc_types: ["html"] }), ["Lab/2024/page.html"]);
      assertEquals((await paths(shelf, { path_glob: "Lab/2024/*" })).sort(), [
        "Lab/2024/new.md",
        "Lab/2024/page.html",
      ]);
      assertEquals(await paths(shelf, { path_glob: "lab/2024/*" }), [], "GLOB is case-sensitive");
      assertEquals(await paths(shelf, { modified_before: "2023-12-31" }), ["Lab/2023/old.md"]);
      assertEquals(
        await paths(shelf, { modified_after: "2024-06-01" }),
        ["Lab/2024/new.md"],
        "inclusive",
      );
      assertEquals(
        (await paths(shelf, { modified_before: "2024-01-15" })).sort(),
        ["Lab/2023/old.md", "Lab/2024/page.html"],
        "a date-only upper bound takes in the whole day",
      );
      assertEquals(await paths(shelf, { time_sort: "newest" }), [
        "Lab/2024/new.md",
        "Lab/2024/page.html",
        "Lab/2023/old.md",
      ]);
      assertEquals(await paths(shelf, { time_sort: "oldest" }), [
        "Lab/2023/old.md",
        "Lab/2024/page.html",
        "Lab/2024/new.md",
      ]);
      assertEquals(await paths(shelf, { library: "Lab", limit: 1 }).then((p) => p.length), 1);
      const bad = await assertRejects(() =>
        callTool(shelf, "search", { query: "lemur", modified_after: "last week" })
      );
      assertEquals((bad as ToolError).code, "INVALID_ARGUMENT");
      const none = await assertRejects(() => callTool(shelf, "search", { query: "-lemur" }));
      assertEquals((none as ToolError).code, "INVALID_ARGUMENT");
    } finally {
      await t.close();
    }
  },
  "outline and read: titles, line ranges, pages refused for text, offsets past the end": async (
    { store },
  ) => {
    const { t, shelf } = await setup(store);
    try {
      const r = await callTool(shelf, "outline", {
        doc_ids: ["Lab/2024/new.md"],
        output_format: "json",
      });
      const doc = (r.json.documents as { title: string; nodes: { start_line: number }[] }[])[0]!;
      assertEquals(doc.title, "New lemur notes");
      assertEquals(doc.nodes[0]!.start_line, 1);
      const read = await callTool(shelf, "read", {
        doc_id: "Lab/2024/new.md",
        offset: 3,
        limit: 1,
      });
      assertMatch(read.text, /^3 \| Lemurs sleep in trees\.$/m);
      assertMatch(read.text, /Showing lines 3-3 of 3\./);
      const page = await assertRejects(() =>
        callTool(shelf, "read", { doc_id: "Lab/2024/new.md", page: 2 })
      );
      assertEquals((page as ToolError).code, "INVALID_ARGUMENT");
      const past = await assertRejects(() =>
        callTool(shelf, "read", { doc_id: "Lab/2024/new.md", offset: 99 })
      );
      assertEquals((past as ToolError).code, "INVALID_ARGUMENT");
      const unknownArg = await assertRejects(() =>
        callTool(shelf, "read", { doc_id: "x", bogus: 1 })
      );
      assertEquals((unknownArg as ToolError).code, "INVALID_ARGUMENT");
      const status = await callTool(shelf, "status", { output_format: "json" });
      assertEquals(status.json.state, "ready");
      assertEquals(status.json.documents_indexed, 3);
      assert((status.json._meta as { now: string }).now.endsWith("Z"));
    } finally {
      await t.close();
    }
  },
});

Deno.test("outline default: a compact view of about 500 tokens, the full tree on request", async () => {
  const base = await Deno.makeTempDir({ prefix: "shelfmark-outline-" });
  const lib = join(base, "Manuals");
  await Deno.mkdir(lib);
  // 12 chapters of 8 sections, each with a sentence: far more than 500 tokens in full.
  const big = ["# Manual", ""];
  for (let c = 1; c <= 12; c++) {
    big.push(
      `## Chapter ${c} on subject ${c}`,
      "",
      `Chapter ${c} explains subject ${c} at length.`,
      "",
    );
    for (let s = 1; s <= 8; s++) {
      big.push(
        `### Section ${c}.${s} detail`,
        "",
        `Section ${c}.${s} covers one detail of it.`,
        "",
      );
    }
  }
  await Deno.writeTextFile(join(lib, "big.md"), big.join("\n"));
  // 80 top-level sections: even the top level needs more than 500 tokens.
  const wide = Array.from(
    { length: 80 },
    (_, i) => `# Topic number ${i + 1} of the list\n\nText ${i}.\n`,
  );
  await Deno.writeTextFile(join(lib, "wide.md"), wide.join("\n"));
  const t = await openTestShelf({ base, folders: [lib] });
  const shelf = t.shelf;
  try {
    await shelf.index();
    const id = (p: string) => partsOf(shelf).catalog.idByPath(`Manuals/${p}`)!;
    const tokens = (s: string) => Math.ceil(s.length / 4);
    const compact = await callTool(shelf, "outline", {
      doc_ids: [id("big.md")],
      output_format: "json",
    });
    const doc = (compact.json.documents as { budget: string }[])[0]!;
    assert(doc.budget !== "full", doc.budget);
    const md = await callTool(shelf, "outline", { doc_ids: [id("big.md")] });
    assert(tokens(md.text) < 600, `compact view of ${tokens(md.text)} tokens`);
    assertMatch(md.text, /\[1\.12\] Chapter 12/);
    assertMatch(md.text, /use expand=\["[\d.]+"\] or max_tokens=1000/);
    // At a terminal the same hint names flags.
    const term = await callTool(shelf, "outline", { doc_ids: [id("big.md")] }, { cli: true });
    assertMatch(term.text, /use --expand [\d.]+ or --max-tokens 1000/);
    assert(!/expand=|max_tokens/.test(term.text), term.text);
    const full = await callTool(shelf, "outline", {
      doc_ids: [id("big.md")],
      max_tokens: 5000,
      output_format: "json",
    });
    assertEquals((full.json.documents as { budget: string }[])[0]!.budget, "full");
    // A wide top level gets the 2,000-token default rather than a cut list.
    const w = await callTool(shelf, "outline", { doc_ids: [id("wide.md")] });
    assertMatch(w.text, /\[80\] Topic number 80/);
  } finally {
    await t.close();
  }
});
