import { join } from "node:path";
import { assert, assertEquals } from "../tests/assert.ts";
import { openTestShelf } from "../tests/shelf_helper.ts";
import { callTool } from "../server/dispatch.ts";
import { FINGERPRINT_VERSION } from "../core/fingerprint.ts";
import { partsOf } from "../shelf/_parts.ts";
import { searchShelf } from "./search.ts";
import { storeCases } from "../tests/store_cases.ts";

const TEXT = Array.from(
  { length: 60 },
  (_, i) =>
    `Paragraph ${i}: the okapi ranges through the forest and eats leaves, sentence ${i * 7}.`,
).join("\n\n");

type Result = { path: string; copies?: { path: string }[] };

storeCases({
  "search collapses copies into one hit and still applies filters to every copy": async (
    { store },
  ) => {
    const base = await Deno.makeTempDir({ prefix: "shelfmark-copies-" });
    const a = join(base, "A");
    const b = join(base, "B");
    await Deno.mkdir(join(a, "notes"), { recursive: true });
    await Deno.mkdir(b);
    await Deno.writeTextFile(join(a, "notes", "okapi.md"), `# Okapi\n\n${TEXT}\n`);
    // The same words with other markup and line breaks, in another folder and library.
    await Deno.writeTextFile(
      join(a, "okapi copy.txt"),
      `OKAPI\n\n${TEXT.replaceAll("\n\n", "\n")}`,
    );
    await Deno.writeTextFile(join(b, "okapi.md"), `# Okapi\n\n${TEXT}\n`);
    // Nearly the same: one paragraph more.
    await Deno.writeTextFile(
      join(b, "okapi-v2.md"),
      `# Okapi\n\n${TEXT}\n\nA new last paragraph.\n`,
    );
    await Deno.writeTextFile(
      join(b, "other.md"),
      "# Giraffe\n\nThe giraffe also eats leaves, okapi aside.\n",
    );
    await using t = await openTestShelf({ base, store, folders: [a, b] });
    await t.shelf.index();
    const search = async (args: Record<string, unknown>) =>
      (await callTool(t.shelf, "search", { query: "okapi leaves", output_format: "json", ...args }))
        .json.results as Result[];

    const all = await search({});
    assertEquals(all.length, 2, JSON.stringify(all));
    const copy = all.find((r) => r.copies)!;
    assertEquals(
      [copy.path, ...copy.copies!.map((c) => c.path)].sort(),
      ["A/notes/okapi.md", "A/okapi copy.txt", "B/okapi-v2.md", "B/okapi.md"],
    );
    assert(all.some((r) => r.path === "B/other.md" && !r.copies));

    // A filter that keeps one copy shows that copy, never hides it behind its twin.
    const onlyB = await search({ library: "B" });
    assertEquals(onlyB.length, 2);
    const inB = onlyB.find((r) => r.path !== "B/other.md")!;
    assert(inB.path.startsWith("B/"), inB.path);
    assert((inB.copies ?? []).every((c) => c.path.startsWith("B/")), JSON.stringify(inB));
    const txt = await search({ doc_types: ["text"] });
    assertEquals(txt.map((r) => r.path), ["A/okapi copy.txt"]);
    assertEquals(txt[0]!.copies, undefined);

    const md = await callTool(t.shelf, "search", { query: "okapi leaves" });
    assert(/\+3 copies/.test(md.text), md.text);
  },
  "searchShelf() reads the passages of hits that collapsed copies bring up from the passage rows":
    async ({ store }) => {
      const base = await Deno.makeTempDir({ prefix: "shelfmark-copies-passages-" });
      const lib = join(base, "lib");
      await Deno.mkdir(lib);
      // Five copies rank first; a distinct document after them comes up into a short answer
      // (ranked sixth of the six candidates of three hits).
      for (const name of ["okapi.md", "okapi-2.md", "okapi-3.md", "okapi-4.md", "okapi-5.md"]) {
        await Deno.writeTextFile(join(lib, name), `# Okapi\n\n${TEXT}\n`);
      }
      const other = (animal: string) =>
        `# ${animal}\n\n## Habitat\n\nThe ${animal} lives on open plains far away.\n\n` +
        `## Food\n\nThe ${animal} eats leaves where an okapi would not.\n`;
      await Deno.writeTextFile(join(lib, "giraffe.md"), other("Giraffe"));
      await Deno.writeTextFile(join(lib, "zebra.md"), other("Zebra"));
      await using t = await openTestShelf({ base, store, folders: [lib] });
      await t.shelf.index();
      const ask = (limit: number) =>
        searchShelf(t.shelf, { query: "okapi leaves", limit, mode: "keyword", passages: 1 });
      const short = await ask(3);
      assertEquals(short.hits.length, 2);
      assertEquals(short.hits[0]!.copies?.length, 4);
      // no hit's whole text was scanned, and the one brought up shows its passage
      assertEquals(short.scanned, 0);
      const up = short.hits[1]!;
      assertEquals(up.candidates, undefined);
      assertEquals(up.passages?.length, 1, JSON.stringify(up));
      assert(/\*\*leaves\*\*/.test(up.passages![0]!.snippet), up.passages![0]!.snippet);
      assertEquals(up.snippet, up.passages![0]!.snippet);
      // the same passage as when the keyword index reads it itself, among its first hits
      const long = await ask(10);
      const same = long.hits.find((h) => h.doc_id === up.doc_id);
      assertEquals(up.passages, same?.passages);
    },
});

Deno.test("copies are told by their words as they read: link targets do not count", async () => {
  const base = await Deno.makeTempDir({ prefix: "shelfmark-copies-links-" });
  const lib = join(base, "lib");
  await Deno.mkdir(lib);
  // The same text; the Markdown version links every paragraph to a page of its own.
  const linked = TEXT.split("\n\n").map((p, i) =>
    p.replace("the okapi", `the [okapi](https://example.org/wiki/okapi-page-${i} "Okapi ${i}")`)
  ).join("\n\n");
  await Deno.writeTextFile(join(lib, "okapi.md"), `# Okapi\n\n${linked}\n`);
  await Deno.writeTextFile(join(lib, "okapi.txt"), `Okapi\n\n${TEXT}\n`);
  await Deno.writeTextFile(join(lib, "other.md"), "# Giraffe\n\nThe giraffe eats leaves.\n");
  await using t = await openTestShelf({ base, folders: [lib] });
  await t.shelf.index();
  const search = async () =>
    (await callTool(t.shelf, "search", { query: "okapi leaves", output_format: "json" }))
      .json.results as Result[];
  const collapsed = (rs: Result[]) =>
    rs.filter((r) => r.path !== "lib/other.md").map((r) =>
      [r.path, ...(r.copies ?? []).map((c) => c.path)].sort()
    );
  assertEquals(collapsed(await search()), [["lib/okapi.md", "lib/okapi.txt"]]);

  // A catalog fingerprinted by an older rule computes its fingerprints again on the next run.
  partsOf(t.shelf).catalog.setMeta("fingerprints", "1");
  partsOf(t.shelf).catalog.db.exec("UPDATE documents SET text_key = doc_id, minhash = NULL");
  assertEquals(collapsed(await search()).length, 2);
  await t.shelf.index();
  assertEquals(partsOf(t.shelf).catalog.getMeta("fingerprints"), FINGERPRINT_VERSION);
  assertEquals(collapsed(await search()), [["lib/okapi.md", "lib/okapi.txt"]]);
});
