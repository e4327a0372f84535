import { join } from "node:path";
import { assert, assertEquals, assertRejects } from "../tests/assert.ts";
import { smallCorpus } from "../tests/corpus.ts";
import { ExtractError, type Heading } from "../core/extractor.ts";
import { markdown } from "./markdown.ts";
import { odt } from "./odt.ts";

const FIXTURE = new URL("./testdata/office/zstd-readme.odt", import.meta.url);
const run = (bytes: Uint8Array, extension = ".odt") =>
  odt().extract({ path: `l/a${extension}`, extension, bytes });

/** The headings of a Markdown file of the small corpus, as level and title. */
async function sourceHeadings(rel: string): Promise<[number, string][]> {
  const path = join(await smallCorpus(), rel);
  const doc = await markdown().extract({
    path,
    extension: ".md",
    bytes: await Deno.readFile(path),
  });
  return (doc.headings ?? []).map((h: Heading) => [h.level, h.title]);
}

Deno.test("odt() headings are the text:h of the source's Markdown headings, at their levels", async () => {
  const doc = await run(await Deno.readFile(FIXTURE));
  const truth = await sourceHeadings("markdown/zstd/zstd/README.md");
  assert(truth.length >= 10, `${truth.length} source headings`);
  assertEquals(doc.headings?.map((h) => [h.level, h.title]), truth);
  assertEquals(doc.outlineQuality, "high");
  for (const h of doc.headings!) {
    assertEquals(doc.lines[h.line - 1], `${"#".repeat(h.level)} ${h.title}`);
  }
  assertEquals(doc.meta?.title, "Zstandard README");
  assertEquals(doc.meta?.author, "Zstandard authors");
});

Deno.test("odt() keeps tables as Markdown rows, numbered lists, code lines and links", async () => {
  const doc = await run(await Deno.readFile(FIXTURE));
  const header = doc.lines.indexOf("| Compressor name | Ratio | Compression | Decompress. |");
  assert(header > 0, "no table header");
  assertEquals(doc.lines[header + 1], "| --- | --- | --- | --- |");
  assertEquals(doc.lines[header + 2], "| zstd 1.5.1 -1 | 2.887 | 530 MB/s | 1700 MB/s |");
  const item = doc.lines.indexOf("1. Create the dictionary");
  assert(item > 0, "no numbered item");
  assertEquals(doc.lines[item + 2], "2. Compress with dictionary");
  const code = doc.lines.indexOf("cd vcpkg");
  assertEquals(doc.lines.slice(code - 1, code + 2), [
    "git clone https://github.com/Microsoft/vcpkg.git",
    "cd vcpkg",
    "./bootstrap-vcpkg.sh",
  ]);
  const rfc = doc.links?.find((l) => l.text === "RFC8878");
  assertEquals(rfc?.target, "https://datatracker.ietf.org/doc/html/rfc8878");
  assert(doc.lines[rfc!.line - 1]!.includes("documented in RFC8878."));
});

Deno.test("odt() reads a flat .fodt document with notes, nested lists and line breaks", async () => {
  const xml = `<?xml version="1.0"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"
 xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"
 xmlns:dc="http://purl.org/dc/elements/1.1/"
 office:mimetype="application/vnd.oasis.opendocument.text">
<office:meta><dc:title>Flat</dc:title></office:meta>
<office:body><office:text>
<text:h text:outline-level="1">Top</text:h>
<text:p>Body<text:note><text:note-citation>1</text:note-citation><text:note-body><text:p>A note.</text:p></text:note-body></text:note> text<text:line-break/>next line</text:p>
<text:list><text:list-item><text:p>one</text:p><text:list><text:list-item><text:p>inner</text:p></text:list-item></text:list></text:list-item></text:list>
<text:table-of-content><text:index-body><text:p>Top 1</text:p></text:index-body></text:table-of-content>
<text:h text:outline-level="3"><text:number>1.1.</text:number>Deep<office:annotation><text:p>comment</text:p></office:annotation></text:h>
</office:text></office:body></office:document>`;
  const doc = await run(new TextEncoder().encode(xml), ".fodt");
  assertEquals(doc.lines, [
    "# Top",
    "",
    "Body[^1] text",
    "next line",
    "",
    "[^1]: A note.",
    "",
    "- one",
    "  - inner",
    "",
    "### Deep",
  ]);
  assertEquals(doc.meta?.title, "Flat");
});

Deno.test("odt() skips bad files with a reason: truncated, not a text document, empty", async () => {
  const reason = async (bytes: Uint8Array) => {
    const err = await assertRejects(() => run(bytes));
    assert(err instanceof ExtractError, String(err));
    return err.reason;
  };
  const bytes = await Deno.readFile(FIXTURE);
  assertEquals(await reason(bytes.slice(0, bytes.length - 2000)), "corrupt");
  const sheet = await Deno.readFile(new URL("./testdata/office/tables.ods", import.meta.url));
  assertEquals(await reason(sheet), "corrupt");
  assertEquals(await reason(new TextEncoder().encode("<html><body>x</body></html>")), "corrupt");
  assertEquals(await reason(new Uint8Array(0)), "empty");
});
