import { assertEquals, assertMatch } from "../tests/assert.ts";
import { ExtractorRegistry } from "../core/registry.ts";
import { builtinExtractors } from "./mod.ts";
import type { ExtractInput, Extractor } from "../core/extractor.ts";
import { smallCorpus } from "../tests/corpus.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const input = (path: string, bytes: Uint8Array): ExtractInput => {
  const dot = path.lastIndexOf(".");
  return { path, extension: dot > 0 ? path.slice(dot).toLowerCase() : "", bytes };
};
const fake = (name: string, extensions: string[], extra: Partial<Extractor> = {}): Extractor => ({
  name,
  extensions,
  extract: () => Promise.resolve({ lines: [] }),
  ...extra,
});

function builtins(): ExtractorRegistry {
  const reg = new ExtractorRegistry();
  for (const ex of builtinExtractors()) reg.register(ex);
  return reg;
}

Deno.test("ExtractorRegistry.select() picks by extension, case-insensitively", () => {
  const reg = builtins();
  assertEquals(reg.select(input("l/a.md", enc("# x")))?.name, "markdown");
  assertEquals(reg.select({ ...input("l/a.HTML", enc("<p>")), extension: ".HTML" })?.name, "html");
  assertEquals(reg.select(input("l/a.rst", enc("x")))?.name, "text");
});

Deno.test("ExtractorRegistry.select() falls back to the sniffed type without an extension", () => {
  const reg = builtins();
  assertEquals(reg.select(input("l/README", enc("plain words\n")))?.name, "text");
  assertEquals(reg.select(input("l/page", enc("<!DOCTYPE html><html>")))?.name, "html");
  assertEquals(reg.select(input("l/blob", new Uint8Array([0x7f, 0x45, 0x4c, 0x46]))), undefined);
});

Deno.test("ExtractorRegistry.select() prefers low priority, then the latest registration", () => {
  const reg = new ExtractorRegistry();
  reg.register(fake("generic", [".x"], { priority: 10 }));
  reg.register(fake("builtin", [".x"]));
  assertEquals(reg.select(input("a.x", enc("")))?.name, "builtin");
  reg.register(fake("plugin", [".x"]));
  assertEquals(reg.select(input("a.x", enc("")))?.name, "plugin");
  reg.register(fake("picky", [".x"], { priority: -1, accepts: () => false }));
  assertEquals(reg.select(input("a.x", enc("")))?.name, "plugin");
});

Deno.test("ExtractorRegistry.register() rejects an extension without its dot", () => {
  const reg = new ExtractorRegistry();
  let message = "";
  try {
    reg.register(fake("bad", ["md"]));
  } catch (e) {
    message = (e as Error).message;
  }
  assertMatch(message, /^Invalid file extension: "md"\. It must start with '\.'$/);
  assertEquals(reg.list().length, 0);
});

Deno.test("ExtractorRegistry.extensions() lists every registered extension once", () => {
  const exts = builtins().extensions();
  for (const e of [".md", ".html", ".txt", ".rst"]) assertEquals(exts.includes(e), true);
  assertEquals(new Set(exts).size, exts.length);
});

Deno.test("ExtractorRegistry.select() picks the office extractors by extension and by content", async () => {
  const reg = builtins();
  const dir = new URL("./testdata/office/", import.meta.url);
  const files: [string, string][] = [
    ["zstd-readme.pptx", "pptx"],
    ["tables.xlsx", "xlsx"],
    ["zstd-readme.odt", "odt"],
    ["tables.ods", "ods"],
    ["zstd-readme.odp", "odp"],
    ["zstd-readme.rtf", "rtf"],
  ];
  for (const [name, extractor] of files) {
    const bytes = await Deno.readFile(new URL(name, dir));
    assertEquals(reg.select(input(`l/${name}`, bytes))?.name, extractor, name);
    assertEquals(reg.select(input("l/no-extension", bytes))?.name, extractor, `${name} sniffed`);
  }
});

Deno.test("ExtractorRegistry.select() reads a Word file or an ebook without its extension", async () => {
  const corpus = await smallCorpus();
  const reg = builtins();
  for (
    const [path, extractor] of [
      ["word/from-markdown/nodejs-doc/esm.docx", "docx"],
      ["ebooks/shipped/debian-policy.epub", "epub"],
    ]
  ) {
    const bytes = await Deno.readFile(`${corpus}/${path}`);
    assertEquals(reg.select(input("l/no-extension", bytes))?.name, extractor, path);
  }
});
