import { assertEquals } from "../tests/assert.ts";
import { decodeText, sniff, splitLines } from "./sniff.ts";

const enc = (s: string) => new TextEncoder().encode(s);

Deno.test("sniff() recognises binary formats by their magic numbers", () => {
  const cases: [number[], string][] = [
    [[0x25, 0x50, 0x44, 0x46, 0x2d, 0x31], "application/pdf"],
    [[0x50, 0x4b, 0x03, 0x04, 0, 0], "application/zip"],
    [[0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], "image/png"],
    [[0xff, 0xd8, 0xff, 0xe0], "image/jpeg"],
    [[0x47, 0x49, 0x46, 0x38, 0x39, 0x61], "image/gif"],
    [[0x1f, 0x8b, 0x08], "application/gzip"],
    [[0x7f, 0x45, 0x4c, 0x46, 2, 1], "application/x-elf"],
  ];
  for (const [bytes, mimeType] of cases) {
    assertEquals(sniff(new Uint8Array(bytes)), { mimeType, text: false });
  }
  const webp = new Uint8Array([...enc("RIFF"), 0, 0, 0, 0, ...enc("WEBPVP8 ")]);
  assertEquals(sniff(webp).mimeType, "image/webp");
});

Deno.test("sniff() tells text from binary", () => {
  assertEquals(sniff(enc("hello\nworld\n")), { mimeType: "text/plain", text: true });
  assertEquals(sniff(enc("<!DOCTYPE html><html><body>x")).mimeType, "text/html");
  assertEquals(sniff(new Uint8Array([1, 2, 3, 0, 5, 6])).text, false);
  // "BM" and "MZ" starting plain text are not BMP or EXE files
  assertEquals(sniff(enc("BMW and MZ are letters")).mimeType, "text/plain");
});

Deno.test("sniff() treats UTF-16 with and without BOM as text", () => {
  const le = new Uint8Array([0xff, 0xfe, ...[..."Hi there"].flatMap((c) => [c.charCodeAt(0), 0])]);
  assertEquals(sniff(le), { mimeType: "text/plain", text: true });
  const bare = new Uint8Array([..."Hello, world"].flatMap((c) => [c.charCodeAt(0), 0]));
  assertEquals(sniff(bare).text, true);
});

Deno.test("decodeText() strips BOMs, normalises line ends and falls back to Latin-1", () => {
  assertEquals(decodeText(new Uint8Array([0xef, 0xbb, 0xbf, 0x61, 0x0d, 0x0a, 0x62, 0x0d])), {
    text: "a\nb\n",
    encoding: "utf-8",
    warnings: [],
  });
  const latin = decodeText(new Uint8Array([0x63, 0x61, 0x66, 0xe9]));
  assertEquals(latin.text, "café");
  assertEquals(latin.encoding, "latin-1");
  assertEquals(latin.warnings.length, 1);
  const be = decodeText(new Uint8Array([0xfe, 0xff, 0, 0x4b, 0, 0xf6]));
  assertEquals([be.text, be.encoding], ["Kö", "utf-16be"]);
  const bare = decodeText(new Uint8Array([..."Grüße"].flatMap((c) => [c.charCodeAt(0), 0])));
  assertEquals([bare.text, bare.encoding], ["Grüße", "utf-16le"]);
});

Deno.test("splitLines() drops only the empty line after a final newline", () => {
  assertEquals(splitLines("a\nb\n"), ["a", "b"]);
  assertEquals(splitLines("a\n\n"), ["a", ""]);
  assertEquals(splitLines(""), []);
  assertEquals(splitLines("a\r\nb"), ["a", "b"]);
});

Deno.test("sniff() names zip-based documents by their entries and RTF by its signature", async () => {
  const { zipSync } = await import("fflate");
  const odt = "application/vnd.oasis.opendocument.text";
  const odf = zipSync({ mimetype: [enc(odt), { level: 0 }], "content.xml": enc("<x/>") });
  assertEquals(sniff(odf), { mimeType: odt, text: false });
  const pptx = zipSync({ "[Content_Types].xml": enc("<x/>"), "ppt/presentation.xml": enc("<x/>") });
  assertEquals(
    sniff(pptx).mimeType,
    "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  );
  assertEquals(sniff(zipSync({ "a.txt": enc("hello") })).mimeType, "application/zip");
  assertEquals(sniff(enc("{\\rtf1\\ansi Hello\\par}")), { mimeType: "text/rtf", text: true });
});

Deno.test("sniff() needs the whole 16-byte SQLite header, not its first 8 bytes", () => {
  const db = new Uint8Array([...enc("SQLite format 3"), 0, 0x10, 0x00, 1, 1]);
  assertEquals(sniff(db), { mimeType: "application/vnd.sqlite3", text: false });
  assertEquals(sniff(enc("SQLite for Debian\n-----------------\n")), {
    mimeType: "text/plain",
    text: true,
  });
  // "SQLite format 3" without its NUL is text too
  assertEquals(sniff(enc("SQLite format 3 is the file format\n")).text, true);
});

const sqliteReadme = "/usr/share/doc/libsqlite3-0/README.Debian";
const hasSqliteReadme = (() => {
  try {
    return Deno.statSync(sqliteReadme).isFile;
  } catch {
    return false;
  }
})();

Deno.test({
  name: "sniff() reads Debian's libsqlite3 README.Debian as text, not a database",
  ignore: !hasSqliteReadme,
  fn: () => {
    assertEquals(sniff(Deno.readFileSync(sqliteReadme)), { mimeType: "text/plain", text: true });
  },
});
