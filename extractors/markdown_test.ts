import { join } from "node:path";
import { assert, assertEquals, assertRejects } from "../tests/assert.ts";
import { groundTruth, smallCorpus, titleF1 } from "../tests/corpus.ts";
import { ExtractError } from "../core/extractor.ts";
import { markdown } from "./markdown.ts";
import { corpusLinks } from "./_links_check.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const run = (s: string) => markdown().extract({ path: "l/a.md", extension: ".md", bytes: enc(s) });

Deno.test("markdown() keeps the file's lines and reads front matter", async () => {
  const md =
    "---\ntitle: Guide\nauthor:\n  - name: Ann\n  - Bob\ntags: [a, b]\ndate: 2024-05-01\nlang: fr\n---\n# Intro\n";
  const doc = await run(md);
  assertEquals(doc.lines.length, 10);
  assertEquals(doc.headings, [{ level: 1, title: "Intro", line: 10 }]);
  assertEquals(doc.meta, {
    title: "Guide",
    author: "Ann, Bob",
    created: "2024-05-01",
    language: "fr",
    tags: ["a", "b"],
    fields: {
      title: ["Guide"],
      author: ["Ann", "Bob"],
      tags: ["a", "b"],
      date: ["2024-05-01"],
      lang: ["fr"],
    },
  });
  assertEquals(doc.outlineQuality, "high");
});

Deno.test("markdown() gives every front-matter key as fields: lists, tag strings, singular keys", async () => {
  const md = "---\nTags: 'plot, Pacing'\nalias: Old name\nstatus: draft\ndraft: true\n" +
    "rating: 4\nnested: {a: 1}\nlist: [x, [y], {name: z}]\n---\ntext\n";
  const doc = await run(md);
  assertEquals(doc.meta?.fields, {
    tags: ["plot", "Pacing"],
    aliases: ["Old name"],
    status: ["draft"],
    draft: ["true"],
    rating: ["4"],
    list: ["x", "z"],
  });
});

Deno.test("markdown() warns about broken front matter instead of throwing", async () => {
  const doc = await run("---\ntitle: [unclosed\n---\ntext\n");
  assertEquals(doc.meta, {});
  assertEquals(doc.warnings?.length, 1);
  assertEquals(doc.outlineQuality, "none");
});

Deno.test("markdown() refuses an empty file with reason empty", async () => {
  const err = await assertRejects(() => run(""));
  assert(err instanceof ExtractError);
  assertEquals(err.reason, "empty");
});

Deno.test("markdown() finds the headings of the small corpus (mean title F1 >= 0.95)", async () => {
  const dir = await smallCorpus();
  const scores: number[] = [];
  for (const [path, truth] of await groundTruth(dir)) {
    if (!path.startsWith("markdown/") || !truth.headings) continue;
    const bytes = await Deno.readFile(join(dir, path));
    const doc = await markdown().extract({ path, extension: ".md", bytes });
    scores.push(
      titleF1((doc.headings ?? []).map((h) => h.title), truth.headings.map((h) => h.title)),
    );
  }
  const mean = scores.reduce((a, b) => a + b, 0) / scores.length;
  console.log(`markdown/: ${scores.length} docs, mean title F1 ${mean.toFixed(3)}`);
  assert(scores.length > 10, "expected the markdown library in the small corpus");
  assert(mean >= 0.95, `mean F1 ${mean}`);
});

Deno.test("markdown() keeps its text verbatim and returns its links apart", async () => {
  const md = [
    "# Notes on [the setup](setup.md#install)",
    "",
    "See [Other Note](x.md), [[Wiki Link|alias]] and ![[diagram.png]].",
    "Code keeps its brackets: `[not](a-link.md)` and `[[not a wiki]]`.",
    "",
    "```",
    "[also](code.md)",
    "```",
  ].join("\n") + "\n";
  const doc = await run(md);
  assertEquals(doc.lines.join("\n"), md.slice(0, -1));
  assertEquals(doc.headings?.[0]?.title, "Notes on the setup");
  assertEquals(doc.links, [
    { target: "setup.md#install", text: "the setup", line: 1 },
    { target: "x.md", text: "Other Note", line: 3 },
    { target: "Wiki Link", text: "alias", line: 3 },
    { target: "diagram.png", text: "diagram.png", line: 3 },
  ]);
});

Deno.test("markdown() finds the links of the small corpus on their lines", async () => {
  const links = await corpusLinks(markdown(), (p) => p.startsWith("markdown/"), (doc, path) => {
    for (const l of doc.links ?? []) {
      const line = doc.lines[l.line - 1]!;
      assert(line.includes("[") || line.includes("<"), `${path}:${l.line} ${JSON.stringify(l)}`);
    }
    return doc.links?.length ?? 0;
  });
  assert(links > 100, `${links} links`);
});
