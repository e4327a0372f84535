import { zipSync } from "fflate";
import { assert, assertEquals } from "../tests/assert.ts";
import { ExtractError, type Extractor } from "../core/extractor.ts";
import { odp } from "./odp.ts";
import { ods } from "./ods.ts";
import { odt } from "./odt.ts";
import { pptx } from "./pptx.ts";
import { rtf } from "./rtf.ts";
import { xlsx } from "./xlsx.ts";
import {
  DocBuilder,
  openPackage,
  sheetRow,
  SheetWriter,
  tableRow,
  zipEncrypted,
} from "./_office.ts";

const enc = (s: string) => new TextEncoder().encode(s);

/** The reason `openPackage` gives for `bytes`, or "ok". */
function reason(bytes: Uint8Array): string {
  try {
    openPackage(bytes, "test document", () => true);
    return "ok";
  } catch (e) {
    assert(e instanceof ExtractError, String(e));
    return e.reason;
  }
}

/** Set the "encrypted" flag of every entry, local headers and central directory alike. */
function markEncrypted(zip: Uint8Array): Uint8Array {
  const out = zip.slice();
  const view = new DataView(out.buffer);
  for (let i = 0; i + 4 <= out.length; i++) {
    const sig = view.getUint32(i, true);
    if (sig === 0x04034b50) out[i + 6]! |= 1;
    if (sig === 0x02014b50) out[i + 8]! |= 1;
  }
  return out;
}

Deno.test("openPackage() refuses encrypted, legacy, non-zip and empty files with their reasons", () => {
  const zip = zipSync({ "a.xml": enc("<a/>") });
  assertEquals(reason(zip), "ok");
  assertEquals(zipEncrypted(zip), false);
  const locked = markEncrypted(zip);
  assertEquals(zipEncrypted(locked), true);
  assertEquals(reason(locked), "encrypted");
  // An encrypted OOXML file is an OLE compound file holding an "EncryptedPackage" stream;
  // a legacy .doc/.xls/.ppt is an OLE file without one.
  const ole = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];
  const name = [..."EncryptedPackage"].flatMap((c) => [c.charCodeAt(0), 0]);
  const encrypted = new Uint8Array(4096);
  encrypted.set(ole);
  encrypted.set(name, 1024);
  assertEquals(reason(encrypted), "encrypted");
  const legacy = new Uint8Array(4096);
  legacy.set(ole);
  assertEquals(reason(legacy), "unsupported");
  assertEquals(reason(enc("just text, not a zip")), "corrupt");
  assertEquals(reason(zip.slice(0, zip.length - 30)), "corrupt");
  assertEquals(reason(new Uint8Array(0)), "empty");
});

Deno.test("sheetRow() and tableRow() keep cells apart: trailing empties dropped, pipes escaped", () => {
  assertEquals(sheetRow(["a", "", "c|d", "", ""]), "a |  | c\\|d");
  assertEquals(sheetRow(["", ""]), "");
  assertEquals(sheetRow(["two\nlines"]), "two lines");
  assertEquals(tableRow(["x", "y|z"]), "| x | y\\|z |");
});

Deno.test("SheetWriter keeps maxRows rows a sheet and names a cut sheet in the warnings", () => {
  const doc = new DocBuilder();
  const out = new SheetWriter(doc, 3);
  out.sheet("Small");
  out.row(["1", "2"]);
  out.row(["", ""]); // empty: neither kept nor counted
  out.sheet("Big");
  for (let i = 0; i < 5; i++) out.row([String(i)]);
  out.row(["x"], 10); // a repeated row counts as often as it repeats
  out.end();
  assertEquals(doc.lines, ["# Small", "", "1 | 2", "", "# Big", "", "0", "1", "2"]);
  assertEquals(doc.warnings, ['sheet "Big": first 3 of 15 rows kept (row cap 3)']);
  assertEquals(doc.headings.map((h) => [h.title, h.line]), [["Small", 1], ["Big", 5]]);
});

Deno.test("DocBuilder separates blocks, keeps groups together, places links and pages", () => {
  const doc = new DocBuilder();
  doc.page();
  doc.heading(1, "  Slide   one ");
  doc.block("first\nsecond", "slide", [{ target: "https://x.test/", text: "second", at: 6 }]);
  doc.block("third", "slide");
  doc.page();
  doc.heading(1, "");
  doc.block("   ");
  doc.block("alone");
  const r = doc.result({}, "test");
  assertEquals(r.lines, ["# Slide one", "", "first", "second", "third", "", "alone"]);
  assertEquals(r.pages, [1, 7]);
  assertEquals(r.headings, [{ level: 1, title: "Slide one", line: 1, page: 1 }]);
  assertEquals(r.links, [{ target: "https://x.test/", text: "second", line: 4 }]);
  let reason = "";
  try {
    new DocBuilder().result({}, "test");
  } catch (e) {
    reason = (e as ExtractError).reason;
  }
  assertEquals(reason, "empty");
});

Deno.test("damaged office files fail with an ExtractError (a skip reason), never another error", async () => {
  const dir = new URL("./testdata/office/", import.meta.url);
  const cases: [string, Extractor][] = [
    ["zstd-readme.pptx", pptx()],
    ["tables.xlsx", xlsx()],
    ["zstd-readme.odt", odt()],
    ["tables.ods", ods()],
    ["zstd-readme.odp", odp()],
    ["ja-bind.rtf", rtf()],
  ];
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (const [name, ex] of cases) {
    const bytes = await Deno.readFile(new URL(name, dir));
    const damaged: Uint8Array[] = [];
    for (let k = 1; k < 16; k++) damaged.push(bytes.slice(0, Math.floor((bytes.length * k) / 16)));
    for (let k = 0; k < 16; k++) {
      const b = bytes.slice();
      for (let j = 0; j <= k % 4; j++) b[Math.floor(random() * b.length)] = random() * 256;
      damaged.push(b);
    }
    for (const b of damaged) {
      const extension = name.slice(name.lastIndexOf("."));
      try {
        await ex.extract({ path: `l/${name}`, extension, bytes: b });
      } catch (e) {
        assert(e instanceof ExtractError, `${name} (${b.length} bytes): ${e}`);
      }
    }
  }
});
