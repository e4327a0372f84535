import { join } from "node:path";
import { assert, assertEquals, assertRejects } from "../tests/assert.ts";
import { smallCorpus } from "../tests/corpus.ts";
import { ExtractError } from "../core/extractor.ts";
import { markdown } from "./markdown.ts";
import { rtf } from "./rtf.ts";

const dir = new URL("./testdata/office/", import.meta.url);
const run = (bytes: Uint8Array) => rtf().extract({ path: "l/a.rtf", extension: ".rtf", bytes });
const text = (s: string) => run(new TextEncoder().encode(s));

/** The headings of a Markdown file of the small corpus, as level and title. */
async function sourceHeadings(rel: string): Promise<[number, string][]> {
  const path = join(await smallCorpus(), rel);
  const doc = await markdown().extract({
    path,
    extension: ".md",
    bytes: await Deno.readFile(path),
  });
  return (doc.headings ?? []).map((h) => [h.level, h.title]);
}

Deno.test("rtf() headings from pandoc's \\outlinelevel are the source's Markdown headings", async () => {
  const doc = await run(await Deno.readFile(new URL("zstd-readme.rtf", dir)));
  assertEquals(
    doc.headings?.map((h) => [h.level, h.title]),
    await sourceHeadings("markdown/zstd/zstd/README.md"),
  );
  for (const h of doc.headings!) {
    assertEquals(doc.lines[h.line - 1], `${"#".repeat(h.level)} ${h.title}`);
  }
  assert(doc.lines.includes("| zstd 1.5.1 -1 | 2.887 | 530 MB/s | 1700 MB/s |"));
  assert(doc.lines.includes("1. Create the dictionary"));
  assert(doc.lines.some((l) => l.startsWith("Zstandard’s format is stable")), "\\u8217 lost");
  const rfc = doc.links?.find((l) => l.text === "RFC8878");
  assertEquals(rfc?.target, "https://datatracker.ietf.org/doc/html/rfc8878");
  assert(doc.lines[rfc!.line - 1]!.includes("documented in RFC8878."));
});

Deno.test("rtf() reads LibreOffice's RTF: heading styles, Unicode text, \\info metadata", async () => {
  const doc = await run(await Deno.readFile(new URL("ja-bind.rtf", dir)));
  assertEquals(
    doc.headings?.map((h) => [h.level, h.title]),
    await sourceHeadings("markdown/from-html/apache2-doc/ja_bind.md"),
  );
  assertEquals(doc.meta?.title, "バインド");
  assertEquals(doc.meta?.author, "Apache HTTP Server Project");
  assert(doc.lines.includes("Apache が使用するアドレスとポートの設定をします。"));
  assert(doc.lines.includes("- IPv6 の特記事項"), "list item");
});

Deno.test("rtf() decodes \\'hh in the font's code page, \\uN with its fallback, and skips destinations", async () => {
  const doc = await text(String.raw`{\rtf1\ansi\ansicpg1252\deff0
{\fonttbl{\f0\fswiss Arial;}{\f1\fnil\fcharset128 MS Mincho;}{\f2\fnil\fcharset204 Arial Cyr;}}
{\colortbl;\red255\green0\blue0;}
{\stylesheet{\s0 Normal;}{\s2\sbasedon0 heading 2;}{\*\cs10 Default Paragraph Font;}}
{\info{\title Caf\'e9 notes}{\author A. Writer}{\creatim\yr2024\mo3\dy9\hr8\min5}{\revtim\yr2025\mo1\dy1}}
{\*\generator Test 1.0;}{\header Page header\par}
\pard\plain\s2 Caf\'e9 menu\par
\pard\plain caf\'e9 na\'efve \f1 \'93\'fa\'96\'7b\f2  \'cf\'f0\'e8\'e2\'e5\'f2\f0\par
\uc2\u8364\'80\'80 euro\uc1 , \u-10179?\u-8704? face\par
{\*\unknown skipped}{\pict\pngblip 89504e470d0a1a0a}{\*\bkmkstart x}Tail\~end\emdash done\tab x\line next\par
}`);
  assertEquals(doc.lines, [
    "## Café menu",
    "",
    "café naïve 日本 Привет",
    "",
    "€ euro, 😀 face",
    "",
    "Tail\u00a0end—done x",
    "next",
  ]);
  assertEquals(doc.meta, {
    title: "Café notes",
    author: "A. Writer",
    created: "2024-03-09T08:05:00",
  });
});

Deno.test("rtf() keeps tables, list markers, footnotes and hyperlinks", async () => {
  const doc = await text(String.raw`{\rtf1\ansi
\pard\intbl Name\cell Size\cell\row
\pard\intbl a\cell 1\cell\row
\pard {\listtext\'b7\tab}First item\par
{\pntext 2.\tab}Second item\par
Text{\super\chftn}{\footnote\pard {\super\chftn} See the book.}. See {\field{\*\fldinst HYPERLINK "https://example.org/"}{\fldrslt the site}} now.\par
}`);
  assertEquals(doc.lines, [
    "| Name | Size |",
    "| --- | --- |",
    "| a | 1 |",
    "",
    "- First item",
    "2. Second item",
    "",
    "Text[^1]. See the site now.",
    "",
    "[^1]: See the book.",
  ]);
  assertEquals(doc.links, [{ target: "https://example.org/", text: "the site", line: 8 }]);
});

Deno.test("rtf() reads a truncated file with a warning and skips non-RTF and empty files", async () => {
  const bytes = await Deno.readFile(new URL("zstd-readme.rtf", dir));
  const cut = await run(bytes.slice(0, 6000));
  assert(cut.lines.length > 5);
  assertEquals(cut.warnings, ["the RTF ends before its groups close (truncated?)"]);
  const reason = async (b: Uint8Array) => {
    const err = await assertRejects(() => run(b));
    assert(err instanceof ExtractError, String(err));
    return err.reason;
  };
  assertEquals(await reason(new TextEncoder().encode("plain text, no RTF")), "corrupt");
  assertEquals(
    await reason(new TextEncoder().encode("{\\rtf1\\ansi {\\fonttbl{\\f0 Arial;}}}")),
    "empty",
  );
  assertEquals(await reason(new TextEncoder().encode("{".repeat(20_000))), "corrupt");
  assertEquals(await reason(new Uint8Array(0)), "empty");
});
