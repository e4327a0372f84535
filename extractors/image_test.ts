import { join } from "node:path";
import { ExtractError } from "../core/extractor.ts";
import { assert, assertEquals, assertRejects } from "../tests/assert.ts";
import { groundTruth, smallCorpus } from "../tests/corpus.ts";
import { closeImageWorkers, image } from "./image.ts";
import { imageSize } from "./_image_size.ts";

/** Whitespace-normalised text for CER. */
function norm(s: string): string {
  return s.replace(/\s+/g, " ").trim();
}

/** Levenshtein distance (two rows). */
function editDistance(a: string, b: string): number {
  let prev = new Uint32Array(b.length + 1).map((_, i) => i);
  let cur = new Uint32Array(b.length + 1);
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    const ca = a.charCodeAt(i - 1);
    for (let j = 1; j <= b.length; j++) {
      const sub = prev[j - 1]! + (ca === b.charCodeAt(j - 1) ? 0 : 1);
      cur[j] = Math.min(sub, prev[j]! + 1, cur[j - 1]! + 1);
    }
    [prev, cur] = [cur, prev];
  }
  return prev[b.length]!;
}

/** A PNG signature and IHDR chunk announcing `w`×`h`, and nothing else (33 bytes). */
function pngHeader(w: number, h: number): Uint8Array {
  const b = new Uint8Array(33);
  b.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
  const v = new DataView(b.buffer);
  v.setUint32(16, w);
  v.setUint32(20, h);
  b.set([8, 2, 0, 0, 0], 24); // 8-bit RGB; CRC left zero
  return b;
}

const sanitize = { sanitizeOps: false, sanitizeResources: false };

Deno.test("imageSize reads PNG, JPEG, BMP, WebP and TIFF headers", () => {
  assertEquals(imageSize(pngHeader(20000, 20000)), {
    format: "png",
    width: 20000,
    height: 20000,
  });
  const jpeg = new Uint8Array([
    0xff,
    0xd8,
    0xff,
    0xe0,
    0,
    4,
    0,
    0,
    0xff,
    0xc0,
    0,
    11,
    8,
    0x06,
    0x72,
    0x04,
    0xfb,
    3,
  ]);
  assertEquals(imageSize(jpeg), { format: "jpeg", width: 1275, height: 1650 });
  const bmp = new Uint8Array(54);
  bmp.set([0x42, 0x4d]);
  const bv = new DataView(bmp.buffer);
  bv.setUint32(14, 40, true);
  bv.setInt32(18, 640, true);
  bv.setInt32(22, -480, true);
  assertEquals(imageSize(bmp), { format: "bmp", width: 640, height: 480 });
  const webp = new Uint8Array(30);
  webp.set(new TextEncoder().encode("RIFF\0\0\0\0WEBPVP8X"));
  webp.set([99, 0, 0, 49, 0, 0], 24);
  assertEquals(imageSize(webp), { format: "webp", width: 100, height: 50 });
  const tiff = new Uint8Array(8 + 2 + 24);
  tiff.set(new TextEncoder().encode("II*\0"));
  const tv = new DataView(tiff.buffer);
  tv.setUint32(4, 8, true);
  tv.setUint16(8, 2, true);
  tv.setUint16(10, 256, true), tv.setUint16(12, 4, true), tv.setUint32(18, 3000, true);
  tv.setUint16(22, 257, true), tv.setUint16(24, 3, true), tv.setUint16(30, 2000, true);
  assertEquals(imageSize(tiff), { format: "tiff", width: 3000, height: 2000 });
  assertEquals(imageSize(new Uint8Array([1, 2, 3])), undefined);
});

Deno.test("image refuses empty, huge and unknown files without decoding", async () => {
  const ex = image();
  const empty = await assertRejects(() =>
    ex.extract({ path: "l/e.png", extension: ".png", bytes: new Uint8Array() })
  );
  assert(empty instanceof ExtractError && empty.reason === "empty");
  // A bare header with no pixel data: decoding it would end in "corrupt", so "too_large"
  // shows the size was refused from the header alone.
  const big = await assertRejects(() =>
    ex.extract({ path: "l/big.png", extension: ".png", bytes: pngHeader(20000, 20000) })
  );
  assert(big instanceof ExtractError && big.reason === "too_large", String(big));
  const junk = await assertRejects(() =>
    ex.extract({ path: "l/j.png", extension: ".png", bytes: new Uint8Array(64).fill(7) })
  );
  assert(junk instanceof ExtractError && junk.reason === "corrupt");
});

Deno.test({
  name: "image OCR of the small corpus scans: CER <= 0.10, truncated PNG is corrupt",
  ...sanitize,
  async fn() {
    const dir = await smallCorpus();
    const truth = await groundTruth(dir);
    const ex = image({ ocr: true });
    try {
      const files = [...Deno.readDirSync(join(dir, "scans"))].map((e) => e.name).sort();
      assert(files.length > 0, "no scans in the small corpus");
      let sum = 0;
      let n = 0;
      for (const name of files) {
        const row = truth.get(`scans/${name}`);
        if (row?.source !== "pdftotext-layout" || typeof row.text !== "string") continue;
        const bytes = await Deno.readFile(join(dir, "scans", name));
        const ext = name.slice(name.lastIndexOf(".")).toLowerCase();
        const t = performance.now();
        const doc = await ex.extract({ path: `small/scans/${name}`, extension: ext, bytes });
        const secs = (performance.now() - t) / 1000;
        assertEquals(doc.pages, [1]);
        assertEquals(doc.outlineQuality, "none");
        assertEquals(doc.meta?.language, "en");
        assert(!doc.headings?.length);
        const want = norm(row.text);
        const cer = editDistance(norm(doc.lines.join("\n")), want) / Math.max(1, want.length);
        console.log(
          `  ${name}: CER ${cer.toFixed(4)}, ${doc.lines.length} lines, ${secs.toFixed(2)} s`,
        );
        sum += cer;
        n++;
      }
      const mean = sum / n;
      console.log(`  mean CER over ${n} scans: ${mean.toFixed(4)}`);
      assert(n >= 1);
      assert(mean <= 0.10, `mean CER ${mean}`);

      // A PNG cut after 100 bytes: the header passes, decoding fails.
      const first = files.find((f) => f.endsWith(".png"))!;
      const cut = (await Deno.readFile(join(dir, "scans", first))).slice(0, 100);
      try {
        const doc = await ex.extract({ path: "l/cut.png", extension: ".png", bytes: cut });
        assertEquals(doc.lines, []);
      } catch (e) {
        assert(e instanceof ExtractError && e.reason === "corrupt", String(e));
      }

      // The worker survives the failure and still reads a good page.
      const again = await ex.extract({
        path: "l/again.png",
        extension: ".png",
        bytes: await Deno.readFile(join(dir, "scans", first)),
      });
      assert(again.lines.length > 5);
    } finally {
      await closeImageWorkers();
    }
  },
});

Deno.test({
  name: "OCR languages reach the extractor in pool workers and in process; a missing one is named",
  ...sanitize,
  async fn() {
    const { ExtractPool, inProcess } = await import("../extraction/pool.ts");
    const { OcrPool } = await import("../extraction/ocr_pool.ts");
    const { ExtractorRegistry } = await import("../core/registry.ts");
    const dir = await smallCorpus();
    const name = [...Deno.readDirSync(join(dir, "scans"))].map((e) => e.name).sort()
      .find((n) => n.endsWith(".png"))!;
    const bytes = await Deno.readFile(join(dir, "scans", name));
    const input = () => ({ path: `small/scans/${name}`, extension: ".png", bytes: bytes.slice() });
    const registry = new ExtractorRegistry();
    registry.register(image());
    const pool = new ExtractPool({ workers: 1, ocrLanguages: ["eng"] });
    const missing = new ExtractPool({ workers: 1, ocrLanguages: ["eng", "qaa"] });
    const ocr = new OcrPool({ languages: ["eng"], pageTimeoutMs: 120_000, isolation: "thread" });
    const noQaa = new OcrPool({
      languages: ["eng", "qaa"],
      pageTimeoutMs: 120_000,
      isolation: "thread",
    });
    try {
      // The text pass reads no text: an empty page 1 waits for the background OCR.
      const got = await pool.extract(input());
      assertEquals(got?.extractor, "image");
      assertEquals(got!.extracted.lines, []);
      assertEquals(got!.extracted.pages, [1]);
      assertEquals(got!.extracted.meta?.language, "en");
      // The OCR worker reads it, in the configured languages.
      const [read] = await Array.fromAsync(ocr.image(bytes));
      assert(read && "lines" in read && read.lines.length > 5, "OCR read nothing");
      const [lost] = await Array.fromAsync(noQaa.image(bytes));
      assert(lost && "error" in lost, JSON.stringify(lost));
      assertEquals(lost.reason, "ocr_unavailable");
      assert(lost.error.includes("@tesseract.js-data/qaa"), lost.error);

      const err = await assertRejects(() => missing.extract(input()));
      assert(err instanceof ExtractError, String(err));
      assertEquals(err.reason, "ocr_unavailable");
      assert(err.message.includes("@tesseract.js-data/qaa"), err.message);
      assert(!err.message.includes("@tesseract.js-data/eng"), err.message);

      const local = await assertRejects(() =>
        inProcess(registry, { ocrLanguages: ["qaa"] })(input())
      );
      assert(local instanceof ExtractError && local.message.includes("@tesseract.js-data/qaa"));
      const eng = await inProcess(registry, { ocrLanguages: ["eng"] })(input());
      assertEquals(eng?.extracted.lines, got!.extracted.lines);
    } finally {
      pool.close();
      missing.close();
      ocr.close();
      noQaa.close();
      await closeImageWorkers();
    }
  },
});
