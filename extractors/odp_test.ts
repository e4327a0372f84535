import { assert, assertEquals, assertRejects } from "../tests/assert.ts";
import { ExtractError } from "../core/extractor.ts";
import { odp } from "./odp.ts";
import { pptx } from "./pptx.ts";

const dir = new URL("./testdata/office/", import.meta.url);
const run = (bytes: Uint8Array) => odp().extract({ path: "l/deck.odp", extension: ".odp", bytes });

Deno.test("odp() makes one section per slide, with the slide titles and notes of the .pptx it was made from", async () => {
  const doc = await run(await Deno.readFile(new URL("zstd-readme.odp", dir)));
  const bytes = await Deno.readFile(new URL("zstd-readme.pptx", dir));
  const source = await pptx().extract({ path: "l/deck.pptx", extension: ".pptx", bytes });
  const outline = (hs: typeof doc.headings) => hs!.map((h) => [h.level, h.title, h.page]);
  assertEquals(outline(doc.headings), outline(source.headings));
  assertEquals(doc.pages?.length, 11);
  assertEquals(doc.meta?.title, "deck");
  const notes = doc.headings!.find((h) => h.title === "Notes")!;
  assert(
    doc.lines[notes.line + 1]!.startsWith("For reference, several fast compression algorithms"),
  );
  assert(doc.lines.includes("| zstd 1.5.1 -1 | 2.887 | 530 MB/s | 1700 MB/s |"));
  // page numbers of the notes pages are no text of the document
  assert(!doc.lines.some((l) => /^\d+$/.test(l)));
});

Deno.test("odp() skips bad files with a reason: truncated, not a presentation, empty", async () => {
  const reason = async (bytes: Uint8Array) => {
    const err = await assertRejects(() => run(bytes));
    assert(err instanceof ExtractError, String(err));
    return err.reason;
  };
  const bytes = await Deno.readFile(new URL("zstd-readme.odp", dir));
  assertEquals(await reason(bytes.slice(0, 10_000)), "corrupt");
  assertEquals(await reason(await Deno.readFile(new URL("zstd-readme.odt", dir))), "corrupt");
  assertEquals(await reason(new Uint8Array(0)), "empty");
});
