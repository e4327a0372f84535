import { deepStrictEqual, throws } from "node:assert/strict";
import { join } from "node:path";
import * as libraryWorker from "pdfjs-dist/legacy/build/pdf.worker.mjs";
import { getDocument } from "pdfjs-dist/legacy/build/pdf.mjs";
import { assert, assertEquals } from "../tests/assert.ts";
import { smallCorpus } from "../tests/corpus.ts";
import {
  dropParsed,
  loadPdfjsWorker,
  patchWorkerSource,
  type PdfjsWorkerModule,
  WORKER_PATCHES,
} from "./_pdfjs_text_patch.ts";
import { inThreadWorker, type InThreadWorkerOptions, pdfjsTextPatch } from "./pdf.ts";
import { FastPort } from "./_pdf_port.ts";
import { PDFArray, PDFDict, PDFDocument, PDFName, PDFNull } from "pdf-lib";

const loaded = await loadPdfjsWorker();

Deno.test("loadPdfjsWorker() patches the pdf.js worker it was written for", async () => {
  // Fails on purpose after a pdf.js upgrade: renew the patches in _pdfjs_text_patch.ts (and
  // PATCHED_WORKER_SHA256) for the new bundle, or remove them.
  assert(loaded.patched, `pdf.js text patch not applied: ${loaded.reason}`);
  const used = await pdfjsTextPatch();
  assert(used.patched, `the PDF extractor runs unpatched: ${used.reason}`);
  assertEquals(typeof loaded.module.WorkerMessageHandler.initializeFromPort, "function");
});

Deno.test("patchWorkerSource() refuses a source a patch does not match", () => {
  const p = WORKER_PATCHES.find((x) => x.name === "prevTransform")!;
  const src = `${p.from}${p.from}`;
  throws(() => patchWorkerSource(src, [p]), {
    message: 'pdf.js worker patch "prevTransform": found 2 times, expected 1',
  });
  throws(() => patchWorkerSource("", [p]), {
    message: 'pdf.js worker patch "prevTransform": found 0 times, expected 1',
  });
});

type PdfDoc = Awaited<ReturnType<typeof getDocument>["promise"]>;

/** `read(doc)` on `bytes` opened with `worker` (and `options`), closed after. */
async function withDocument<T>(
  bytes: Uint8Array,
  worker: PdfjsWorkerModule,
  options: InThreadWorkerOptions,
  read: (doc: PdfDoc) => Promise<T>,
): Promise<T> {
  const port = await inThreadWorker(worker, options);
  const task = getDocument({
    data: bytes.slice(),
    worker: port.worker,
    disableFontFace: true,
    useSystemFonts: false,
    verbosity: 0,
  });
  try {
    return await read(await task.promise);
  } finally {
    await task.destroy();
    port.close();
  }
}

/**
 * Every page's text content (items with their transforms, styles) read with `worker`, font
 * names without the document number pdf.js puts in them (`g_d3_f1` -> `g_d_f1`).
 */
function textContents(
  bytes: Uint8Array,
  worker: PdfjsWorkerModule,
  maxPages = 40,
  options: InThreadWorkerOptions = {},
) {
  return withDocument(bytes, worker, options, async (doc) => {
    const out = [];
    for (let p = 1; p <= Math.min(doc.numPages, maxPages); p++) {
      const page = await doc.getPage(p);
      const tc = await page.getTextContent();
      const name = (s: string) => s.replace(/^g_d\d+_/, "g_d_");
      out.push({
        items: tc.items.map((it) => "fontName" in it ? { ...it, fontName: name(it.fontName) } : it),
        styles: Object.fromEntries(Object.entries(tc.styles).map(([k, v]) => [name(k), v])),
        lang: tc.lang,
      });
      page.cleanup();
    }
    return out;
  });
}

/** A PDF of one page with `content`, Helvetica as F1, a Type3 font as F3, a vertical F4. */
function handMadePdf(content: string): Uint8Array {
  const type3Glyph = "500 0 0 0 400 700 d1 0 0 400 700 re f";
  const objs = [
    "<</Type/Catalog/Pages 2 0 R>>",
    "<</Type/Pages/Kids[3 0 R]/Count 1>>",
    "<</Type/Page/Parent 2 0 R/MediaBox[0 0 600 800]/Contents 4 0 R" +
    "/Resources<</Font<</F1 5 0 R/F3 6 0 R/F4 9 0 R>>>>>>",
    `<</Length ${content.length}>> stream\n${content}\nendstream`,
    "<</Type/Font/Subtype/Type1/BaseFont/Helvetica>>",
    "<</Type/Font/Subtype/Type3/FontBBox[0 0 500 700]/FontMatrix[0.001 0 0 0.001 0 0]" +
    "/CharProcs<</a 7 0 R/b 7 0 R>>/Encoding<</Type/Encoding/Differences[97/a/b]>>" +
    "/FirstChar 97/LastChar 98/Widths[500 500]/Resources<<>>>>",
    `<</Length ${type3Glyph.length}>> stream\n${type3Glyph}\nendstream`,
    "<</Type/Font/Subtype/CIDFontType2/BaseFont/MSMincho" +
    "/CIDSystemInfo<</Registry(Adobe)/Ordering(Identity)/Supplement 0>>" +
    "/FontDescriptor 10 0 R/DW 1000>>",
    "<</Type/Font/Subtype/Type0/BaseFont/MSMincho/Encoding/Identity-V" +
    "/DescendantFonts[8 0 R]>>",
    "<</Type/FontDescriptor/FontName/MSMincho/Flags 4/FontBBox[0 -141 1000 859]" +
    "/ItalicAngle 0/Ascent 859/Descent -141/CapHeight 700/StemV 80>>",
  ];
  return pdfFile(objs);
}

/** A PDF of `objs`, numbered from 1, the first the catalog (pdf.js rebuilds the xref). */
function pdfFile(objs: string[]): Uint8Array {
  return new TextEncoder().encode([
    "%PDF-1.4",
    ...objs.map((o, i) => `${i + 1} 0 obj ${o} endobj`),
    "trailer <</Root 1 0 R>>",
    "%%EOF",
  ].join("\n"));
}

/**
 * Text drawn the ways the text builder treats differently: kerning gaps that become spaces
 * or whitespace items, overlaps, rotations by 90, 180, 270 and 30 degrees, rise, word and
 * character spacing, horizontal scaling, a scaled CTM, a Type3 font at size 1, a
 * vertical CID font, and strings and names written with every escape the lexer reads
 * (`/F#31` is `/F1`; a hex string with spaces and an odd digit).
 */
const HAND_MADE = [
  "BT /F#31 12 Tf 20 700 Td (esc \\(paren\\) \\101\\102\\3 nl\\n tab\\t bs\\\\ (nested) \\q " +
  "cont\\\nline) Tj /F1 10 Tf (\\0537) Tj <48 65 6C6C\n6F2> Tj ET",
  "BT /F1 12 Tf 1 0 0 1 20 700 Tm (Hello) Tj [(Wor) -300 (ld) -2500 (far) 4000 (back)] TJ " +
  "0 -14 TD (next line) Tj T* (third) Tj 5 Ts (up) Tj 0 Ts (down) Tj ET",
  "BT /F1 10 Tf 0 1 -1 0 100 100 Tm (Ninety degrees) Tj [(a) -2000 (b)] TJ ET " +
  "BT /F1 10 Tf -1 0 0 -1 500 500 Tm (Upside down) Tj [(c) -2000 (d)] TJ ET " +
  "BT /F1 10 Tf 0 -1 1 0 300 600 Tm (Two seventy) Tj ET " +
  "BT /F1 10 Tf 0.866 0.5 -0.5 0.866 200 200 Tm (Thirty degrees) Tj [(e) -2000 (f)] TJ ET",
  "q 2 0 0 1.5 10 20 cm BT /F1 9 Tf 3 Tw 1 Tc 150 Tz 1 0 0 1 10 300 Tm (Spaced words here) Tj " +
  "0 Tw 0 Tc 100 Tz 20 TL T* (after) Tj (quote) ' 2 1 (dquote) \" ET Q " +
  "BT /F1 14 Tf 40 100 Td (Big) Tj /F1 7 Tf (small) Tj ET",
  "BT /F3 1 Tf 12 0 0 12 50 400 Tm (abba ab) Tj [(ab) -900 (ba)] TJ ET " +
  "BT /F4 12 Tf 1 0 0 1 400 700 Tm <0041004200430044> Tj [<0045> -3000 <0046> 900 <0047>] TJ ET",
];

Deno.test("patched pdf.js gives the library's text content on hand-made pages", async () => {
  let vertical = 0;
  for (const content of HAND_MADE) {
    const bytes = handMadePdf(content);
    const mine = await textContents(bytes, loaded.module);
    const theirs = await textContents(bytes, libraryWorker);
    assert(mine[0]!.items.length > 0, `no text read from: ${content}`);
    deepStrictEqual(mine, theirs, content);
    const textOnly = await textContents(bytes, loaded.module, 40, { textOnlyFonts: true });
    deepStrictEqual(textOnly, theirs, `${content} (text-only fonts)`);
    for (const s of Object.values(mine[0]!.styles)) if (s.vertical) vertical++;
  }
  assert(vertical > 0, "the vertical font was not read as vertical");
});

Deno.test("patched pdf.js gives the library's text content on corpus PDFs", async () => {
  const dir = await smallCorpus();
  const files = [
    "nested/Home/Downloads/报告_最终版.pdf",
    "nested/Home/Documents/manual without bookmarks.pdf",
    "pdf-manuals/r-doc-pdf/R-FAQ.pdf",
    join(import.meta.dirname!, "testdata/layout/two-columns.pdf"),
    join(import.meta.dirname!, "testdata/layout/tables.pdf"),
  ];
  for (const f of files) {
    const bytes = await Deno.readFile(f.startsWith("/") ? f : join(dir, f));
    const mine = await textContents(bytes, loaded.module);
    const theirs = await textContents(bytes, libraryWorker);
    assert(mine.some((tc) => tc.items.length > 0), `no text read from ${f}`);
    assertEquals(mine.length, theirs.length, f);
    mine.forEach((tc, p) => deepStrictEqual(tc, theirs[p], `${f}, page ${p + 1}`));
    const textOnly = await textContents(bytes, loaded.module, 40, { textOnlyFonts: true });
    assertEquals(textOnly.length, theirs.length, f);
    textOnly.forEach((tc, p) => deepStrictEqual(tc, theirs[p], `${f}, page ${p + 1}, text-only`));
  }
});

Deno.test("a font set again goes on without a promise: the same text in fewer chunks", async () => {
  // Sixty lines, each setting one of two loaded fonts (at two sizes): the library's text
  // builder stops at every change and sends what it has in a chunk once it holds ten items;
  // the patched one stops only to load a font, and sends it all at the end.
  const lines = Array.from(
    { length: 60 },
    (_, i) => `/F${i % 3 ? 1 : 3} ${9 + (i % 2)} Tf 20 ${760 - 12 * i} Td (ab line ${i}) Tj`,
  );
  const bytes = handMadePdf(`BT ${lines.join(" 1 0 0 1 0 0 Tm ")} ET`);
  const messages = async (worker: PdfjsWorkerModule) => {
    let sent = 0;
    const post = FastPort.prototype.postMessage;
    FastPort.prototype.postMessage = function (obj, transfer) {
      sent++;
      post.call(this, obj, transfer);
    };
    try {
      return { contents: await textContents(bytes, worker), sent };
    } finally {
      FastPort.prototype.postMessage = post;
    }
  };
  const mine = await messages(loaded.module);
  const theirs = await messages(libraryWorker);
  assert(mine.contents[0]!.items.length >= 60, "not every line was read");
  deepStrictEqual(mine.contents, theirs.contents);
  assert(mine.sent + 4 < theirs.sent, `${mine.sent} messages, the library ${theirs.sent}`);
});

Deno.test("text-only fonts read widths a PDF lacks from the Type1 font program", async () => {
  // R-FAQ.pdf embeds Type1 fonts with built-in encodings; every other entry of their
  // /Widths is blanked, so pdf.js takes those widths from the glyphs' charstrings, which
  // text-only fonts decrypt and run only for that.
  const dir = await smallCorpus();
  const doc = await PDFDocument.load(
    await Deno.readFile(join(dir, "pdf-manuals/r-doc-pdf/R-FAQ.pdf")),
  );
  let blanked = 0;
  for (const [, obj] of doc.context.enumerateIndirectObjects()) {
    if (!(obj instanceof PDFDict) || obj.get(PDFName.of("Subtype")) !== PDFName.of("Type1")) {
      continue;
    }
    const descriptor = obj.lookup(PDFName.of("FontDescriptor"));
    const widths = obj.lookup(PDFName.of("Widths"));
    if (!(descriptor instanceof PDFDict) || !descriptor.has(PDFName.of("FontFile"))) continue;
    if (!(widths instanceof PDFArray)) continue;
    for (let i = 0; i < widths.size(); i += 2) widths.set(i, PDFNull);
    blanked++;
  }
  assert(blanked > 0, "no embedded Type1 font with /Widths in R-FAQ.pdf");
  const bytes = await doc.save({ useObjectStreams: false });
  const theirs = await textContents(bytes, libraryWorker, 6);
  const textOnly = await textContents(bytes, loaded.module, 6, { textOnlyFonts: true });
  assert(theirs.some((tc) => tc.items.length > 0), "no text read from the changed R-FAQ.pdf");
  textOnly.forEach((tc, p) => deepStrictEqual(tc, theirs[p], `page ${p + 1}`));
});

Deno.test("a document with text-only fonts still gives the page's operator list", async () => {
  // Its Type1 fonts have no font file (no outlines): the operators are the same and the
  // request ends instead of failing inside pdf.js.
  const dir = await smallCorpus();
  const bytes = await Deno.readFile(join(dir, "pdf-manuals/r-doc-pdf/R-FAQ.pdf"));
  const ops = (options: InThreadWorkerOptions) =>
    withDocument(bytes, loaded.module, options, async (doc) => {
      const page = await doc.getPage(1);
      return (await page.getOperatorList()).fnArray;
    });
  const full = await ops({});
  assert(full.length > 0, "no operators on page 1 of R-FAQ.pdf");
  deepStrictEqual(await ops({ textOnlyFonts: true }), full);
});

/**
 * Every page's text items (font names without the document number), read by the patched
 * worker with text-only fonts, `dropParsed` after every page when `drop`; and how many
 * parsed objects those drops let go.
 */
function contentsDropping(bytes: Uint8Array, drop: boolean) {
  return withDocument(bytes, loaded.module, { textOnlyFonts: true }, async (doc) => {
    const pages = [];
    let dropped = 0;
    for (let p = 1; p <= doc.numPages; p++) {
      const page = await doc.getPage(p);
      const tc = await page.getTextContent();
      pages.push(
        tc.items.map((it) =>
          "fontName" in it ? { ...it, fontName: it.fontName.replace(/^g_d\d+_/, "g_d_") } : it
        ),
      );
      page.cleanup();
      if (drop) dropped += await dropParsed(doc, p);
    }
    return { pages, dropped };
  });
}

Deno.test("dropParsed() lets go of parsed objects and pages: the text content is the same", async () => {
  const dir = await smallCorpus();
  const bytes = await Deno.readFile(join(dir, "pdf-manuals/r-doc-pdf/R-FAQ.pdf"));
  const kept = await contentsDropping(bytes, false);
  const dropped = await contentsDropping(bytes, true);
  assert(kept.pages.length > 20 && kept.pages.every((items) => items.length > 0));
  assert(dropped.dropped > kept.pages.length, `only ${dropped.dropped} objects let go`);
  dropped.pages.forEach((items, p) => deepStrictEqual(items, kept.pages[p], `page ${p + 1}`));
});

Deno.test("dropParsed() keeps an inline font's cache key: the font keeps its name", async () => {
  // Three pages share one resources dictionary whose font is written inline (no object of
  // its own): pdf.js finds it again by a key it writes on that dictionary, so a parsed copy
  // without the key would load the font again under a new name.
  const content = "BT /F1 12 Tf 20 700 Td (Same font) Tj ET";
  const page = "<</Type/Page/Parent 2 0 R/MediaBox[0 0 600 800]/Contents 6 0 R/Resources 7 0 R>>";
  const bytes = pdfFile([
    "<</Type/Catalog/Pages 2 0 R>>",
    "<</Type/Pages/Kids[3 0 R 4 0 R 5 0 R]/Count 3>>",
    page,
    page,
    page,
    `<</Length ${content.length}>> stream\n${content}\nendstream`,
    "<</Font<</F1<</Type/Font/Subtype/Type1/BaseFont/Helvetica>>>>>>",
  ]);
  const kept = await contentsDropping(bytes, false);
  const dropped = await contentsDropping(bytes, true);
  assert(dropped.dropped > 0, "nothing let go");
  const fonts = dropped.pages.map((items) => items.map((it) => "fontName" in it && it.fontName));
  deepStrictEqual(fonts, [["g_d_f1"], ["g_d_f1"], ["g_d_f1"]]);
  deepStrictEqual(dropped.pages, kept.pages);
});
