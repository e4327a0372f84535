import { join } from "node:path";
import { assert, assertEquals } from "../tests/assert.ts";
import { openTestShelf } from "../tests/shelf_helper.ts";
import { callTool } from "../server/dispatch.ts";

const TEXT = Array.from(
  { length: 60 },
  (_, i) =>
    `Paragraph ${i}: the okapi ranges through the forest and eats leaves, sentence ${i * 7}.`,
).join("\n\n");

type Result = { path: string; copies?: { path: string }[] };

Deno.test("search collapses copies into one hit and still applies filters to every copy", async () => {
  const base = await Deno.makeTempDir({ prefix: "shelfmark-copies-" });
  const a = join(base, "A");
  const b = join(base, "B");
  await Deno.mkdir(join(a, "notes"), { recursive: true });
  await Deno.mkdir(b);
  await Deno.writeTextFile(join(a, "notes", "okapi.md"), `# Okapi\n\n${TEXT}\n`);
  // The same words with other markup and line breaks, in another folder and library.
  await Deno.writeTextFile(join(a, "okapi copy.txt"), `OKAPI\n\n${TEXT.replaceAll("\n\n", "\n")}`);
  await Deno.writeTextFile(join(b, "okapi.md"), `# Okapi\n\n${TEXT}\n`);
  // Nearly the same: one paragraph more.
  await Deno.writeTextFile(join(b, "okapi-v2.md"), `# Okapi\n\n${TEXT}\n\nA new last paragraph.\n`);
  await Deno.writeTextFile(
    join(b, "other.md"),
    "# Giraffe\n\nThe giraffe also eats leaves, okapi aside.\n",
  );
  await using t = await openTestShelf({ base, folders: [a, b] });
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
});
