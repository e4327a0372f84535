import { join } from "node:path";
import { zipSync } from "fflate";
import { assert, assertEquals, assertRejects } from "../tests/assert.ts";
import { smallCorpus } from "../tests/corpus.ts";
import { ExtractError } from "../core/extractor.ts";
import { markdown } from "./markdown.ts";
import { pptx } from "./pptx.ts";

const FIXTURE = new URL("./testdata/office/zstd-readme.pptx", import.meta.url);
const run = (bytes: Uint8Array) =>
  pptx().extract({ path: "l/deck.pptx", extension: ".pptx", bytes });

/** The titles of the source's level-1 and level-2 headings: pandoc's slides (--slide-level=2). */
async function slideTitles(rel: string): Promise<string[]> {
  const path = join(await smallCorpus(), rel);
  const doc = await markdown().extract({
    path,
    extension: ".md",
    bytes: await Deno.readFile(path),
  });
  return (doc.headings ?? []).filter((h) => h.level <= 2).map((h) => h.title);
}

Deno.test("pptx() makes one section and page per slide, titled as the source's sections", async () => {
  const doc = await run(await Deno.readFile(FIXTURE));
  const slides = doc.headings!.filter((h) => h.level === 1);
  assertEquals(slides.length, 11);
  assertEquals(doc.pages?.length, 11);
  assertEquals(slides.map((h) => h.page), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
  for (const h of slides) assertEquals(doc.pages![h.page! - 1], h.line);
  // slides without a title placeholder are named by their number
  const titled = slides.map((h) => h.title).filter((t) => !/^Slide \d+$/.test(t));
  assertEquals(titled, await slideTitles("markdown/zstd/zstd/README.md"));
  assertEquals(slides[0]!.title, "Slide 1");
  // no title in docProps/core.xml and none on the first slide: the file name, not "Slide 1"
  assertEquals(doc.meta?.title, "deck");
});

Deno.test("pptx() puts the speaker notes under a Notes heading of their slide", async () => {
  const doc = await run(await Deno.readFile(FIXTURE));
  const bench = doc.headings!.find((h) => h.title === "Benchmarks")!;
  const notes = doc.headings!.find((h) => h.title === "Notes" && h.page === bench.page)!;
  assertEquals(notes.level, 2);
  assert(notes.line > bench.line);
  assert(
    doc.lines[notes.line + 1]!.startsWith("For reference, several fast compression algorithms"),
    doc.lines[notes.line + 1],
  );
  assertEquals(doc.headings!.filter((h) => h.title === "Notes").length, 7);
  // slide numbers of the notes pages are no text of the document
  assert(!doc.lines.some((l) => /^\d+$/.test(l)));
});

Deno.test("pptx() keeps tables, numbered paragraphs and hyperlinks of the slides", async () => {
  const doc = await run(await Deno.readFile(FIXTURE));
  assert(doc.lines.includes("| zstd 1.5.1 -1 | 2.887 | 530 MB/s | 1700 MB/s |"));
  const item = doc.lines.indexOf("1. Create the dictionary");
  assert(item > 0, "no numbered paragraph");
  assertEquals(doc.lines[item + 2], "2. Compress with dictionary");
  const zlib = doc.links?.find((l) => l.target === "https://www.zlib.net/");
  assertEquals(zlib?.text, "zlib");
  assert(doc.lines[zlib!.line - 1]!.includes("such as zlib or lzma"));
});

Deno.test("pptx() skips bad files with a reason: truncated, not a presentation, empty", async () => {
  const reason = async (bytes: Uint8Array) => {
    const err = await assertRejects(() => run(bytes));
    assert(err instanceof ExtractError, String(err));
    return err.reason;
  };
  const bytes = await Deno.readFile(FIXTURE);
  assertEquals(await reason(bytes.slice(0, 20_000)), "corrupt");
  assertEquals(await reason(zipSync({ "a.txt": new TextEncoder().encode("hello") })), "corrupt");
  const workbook = await Deno.readFile(new URL("./testdata/office/tables.xlsx", import.meta.url));
  assertEquals(await reason(workbook), "corrupt");
  assertEquals(await reason(new Uint8Array(0)), "empty");
});
