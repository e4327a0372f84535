import { join } from "node:path";
import { ExtractorRegistry } from "../core/registry.ts";
import { ExtractError, type ExtractInput } from "../core/extractor.ts";
import { callTool } from "../server/dispatch.ts";
import { assert, assertEquals, assertRejects } from "../tests/assert.ts";
import { hasCommand, noteMissing } from "../tests/have.ts";
import { openTestShelf } from "../tests/shelf_helper.ts";
import { compressed, inflate, MAX_RATIO, RATIO_FLOOR, zstdFrames } from "./compressed.ts";
import { builtinExtractors } from "./mod.ts";
import { partsOf } from "../shelf/_parts.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);

const NOTES = "# Field notes\n\nThe okapi is shy.\n\n## Habitat\n\nRainforest of the Congo.\n";
const CHANGELOG = "hello (2.12-1) unstable; urgency=medium\n\n" +
  "  * New upstream release: fixes the quetzal greeting.\n\n" +
  " -- Jane Doe <jane@example.org>  Mon, 01 Jan 2024 10:00:00 +0000\n";
const MAN = '.TH FOO 1 "January 2024" "foo 1.0" "User Commands"\n' +
  ".SH NAME\nfoo \\- frobnicate the \\fBwombat\\fR files\n" +
  ".SH SYNOPSIS\n.B foo\n[\\fIOPTION\\fR]...\n" +
  ".SH DESCRIPTION\n.TP\n\\fB\\-v\\fR, \\fB\\-\\-verbose\\fR\nsay more\n";

/** Gzip with the web-standard CompressionStream. */
async function gzip(data: Uint8Array | ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const src: ReadableStream<BufferSource> = data instanceof Uint8Array
    ? new Blob([data as BlobPart]).stream()
    : data as ReadableStream<BufferSource>;
  return await new Response(src.pipeThrough(new CompressionStream("gzip"))).bytes();
}

/** Compress with a system tool (`bzip2`, `xz`, `zstd`) reading standard input. */
async function tool(name: string, data: Uint8Array | ReadableStream<Uint8Array>) {
  const p = new Deno.Command(name, { args: ["-c", "-q"], stdin: "piped", stdout: "piped" }).spawn();
  const src = data instanceof Uint8Array ? new Blob([data as BlobPart]).stream() : data;
  const [, out] = await Promise.all([src.pipeTo(p.stdin), p.output()]);
  assert(out.success, `${name} failed`);
  return out.stdout;
}

/** A stream of `mb` MiB of zeros, made as it is read. */
function zeros(mb: number): ReadableStream<Uint8Array> {
  const chunk = new Uint8Array(1 << 20);
  let n = 0;
  return new ReadableStream({
    pull: (c) => n++ < mb ? c.enqueue(chunk) : c.close(),
  });
}

function registry(): ExtractorRegistry {
  const reg = new ExtractorRegistry();
  for (const ex of builtinExtractors()) reg.register(ex);
  return reg;
}

const file = (path: string, bytes: Uint8Array): ExtractInput => ({
  path,
  extension: path.slice(path.lastIndexOf(".")).toLowerCase(),
  bytes,
});

async function reason(p: Promise<unknown>): Promise<string> {
  const e = await assertRejects(() => p);
  assert(e instanceof ExtractError, `not an ExtractError: ${e}`);
  return e.reason;
}

const tools = Object.fromEntries(
  await Promise.all(["bzip2", "xz", "zstd"].map(async (t) => [t, await hasCommand(t)])),
) as Record<string, boolean>;
const FORMATS = [
  { tool: "bzip2", ext: ".bz2" },
  { tool: "xz", ext: ".xz" },
  { tool: "zstd", ext: ".zst" },
];

Deno.test("compressed: README.md.gz is Markdown, its headings found; the display path is kept", async () => {
  const r = await registry().extract(file("lib/docs/README.md.gz", await gzip(enc(NOTES))));
  assertEquals(r?.extractor, "markdown");
  assertEquals(r!.extracted.headings?.map((h) => [h.level, h.title, h.line]), [
    [1, "Field notes", 1],
    [2, "Habitat", 5],
  ]);
  assertEquals(r!.extracted.lines[2], "The okapi is shy.");
});

Deno.test("compressed: changelog.gz and NEWS.gz have no inner extension and are read as text", async () => {
  const reg = registry();
  for (const name of ["changelog.gz", "changelog.Debian.gz", "NEWS.gz", "README.gz"]) {
    const r = await reg.extract(file(`lib/hello/${name}`, await gzip(enc(CHANGELOG))));
    assertEquals(r?.extractor, "text", name);
    assertEquals(r!.extracted.lines[2], "  * New upstream release: fixes the quetzal greeting.");
  }
  // an inner `.1` that is not troff (tar's changelog.1.gz) is text too, not a man page
  const r = await reg.extract(file("lib/tar/changelog.1.gz", await gzip(enc(CHANGELOG))));
  assertEquals(r?.extractor, "text");
});

Deno.test("compressed: foo.1.gz is a man page; foo.html.gz is HTML", async () => {
  const reg = registry();
  const m = await reg.extract(file("lib/man1/foo.1.gz", await gzip(enc(MAN))));
  assertEquals(m?.extractor, "man");
  assertEquals(m!.extracted.meta?.title, "foo(1) - frobnicate the wombat files");
  const h = await reg.extract(
    file(
      "lib/foo.html.gz",
      await gzip(enc("<html><body><h1>Tapir</h1><p>Snout.</p></body></html>")),
    ),
  );
  assertEquals(h?.extractor, "html");
  assertEquals(h!.extracted.headings?.[0]?.title, "Tapir");
});

Deno.test("compressed: the container's own extract reads the document too (callers of select)", async () => {
  const formats = builtinExtractors().filter((e) => e.name !== "compressed");
  const doc = await compressed(formats).extract(file("lib/a.md.gz", await gzip(enc(NOTES))));
  assertEquals(doc.headings?.map((h) => h.title), ["Field notes", "Habitat"]);
});

for (const f of FORMATS) {
  Deno.test({
    name: `compressed: ${f.ext} made by ${f.tool}: whole, concatenated, cut short, a bomb`,
    ignore: noteMissing(!tools[f.tool], `${f.tool} is not installed: ${f.ext} not tested`),
    async fn() {
      const reg = registry();
      const packed = await tool(f.tool, enc(NOTES));
      const r = await reg.extract(file(`lib/notes.md${f.ext}`, packed));
      assertEquals(r?.extractor, "markdown");
      assertEquals(r!.extracted.headings?.map((h) => h.title), ["Field notes", "Habitat"]);
      // two streams (frames, members) one after the other are one document
      const twice = new Uint8Array([...packed, ...packed]);
      assertEquals(dec(await inflate(twice)), NOTES + NOTES);
      // cut short
      const cut = packed.subarray(0, Math.floor(packed.length * 0.6));
      assertEquals(await reason(reg.extract(file(`lib/cut.md${f.ext}`, cut))), "corrupt");
      // 256 MiB of zeros: refused past the ratio limit, not inflated
      const bomb = await tool(f.tool, zeros(256));
      assert(bomb.length * MAX_RATIO < 256 << 20, `${f.tool} bomb is only ${bomb.length} bytes`);
      assertEquals(await reason(reg.extract(file(`lib/bomb${f.ext}`, bomb))), "too_large");
      // the decoder is usable again after a refused file (xz-decompress holds a lock)
      assertEquals(dec(await inflate(packed)), NOTES);
    },
  });
}

Deno.test("compressed: a gzip bomb (2 GB of zeros in ~2 MB) is refused as too_large without inflating it", async () => {
  const bomb = await gzip(zeros(2048));
  assert(bomb.length < 4 << 20, `bomb is ${bomb.length} bytes`);
  const before = Deno.memoryUsage().rss;
  const e = await assertRejects(() => registry().extract(file("lib/zeros.txt.gz", bomb)));
  assert(e instanceof ExtractError);
  assertEquals(e.reason, "too_large");
  assert(/compression bomb/.test(e.message), e.message);
  // stopped a little past the ratio floor: nowhere near the 2 GB the file holds
  const grew = Deno.memoryUsage().rss - before;
  assert(grew < 512 << 20, `memory grew by ${grew} bytes`);
  assert(RATIO_FLOOR < 512 << 20);
});

Deno.test("compressed: the size cap holds for data that compresses normally", async () => {
  const words = enc("The capybara is the largest living rodent. ".repeat(60_000)); // 2.5 MB
  const gz = await gzip(words);
  assertEquals((await inflate(gz)).length, words.length);
  const e = await assertRejects(() => inflate(gz, { maxBytes: 1 << 20 }));
  assertEquals((e as ExtractError).reason, "too_large");
});

Deno.test("compressed: damaged and cut-short gzip is corrupt; not compressed at all is left to others", async () => {
  const reg = registry();
  const gz = await gzip(enc(NOTES.repeat(50)));
  assertEquals(
    await reason(reg.extract(file("lib/a.md.gz", gz.subarray(0, gz.length - 12)))),
    "corrupt",
  );
  const damaged = gz.slice();
  damaged.fill(0xff, 12, 40);
  assertEquals(await reason(reg.extract(file("lib/b.md.gz", damaged))), "corrupt");
  // a `.gz` that holds plain text (no magic number) is not a compressed file
  const r = await reg.extract(file("lib/mislabelled.gz", enc("Plain words, not gzip.\n")));
  assertEquals(r?.extractor, "text");
});

Deno.test("compressed: an inner file no extractor reads, or another compressed file, is unsupported", async () => {
  const reg = registry();
  const tar = new Uint8Array(1024);
  tar.set(enc("notes.md"), 0);
  tar.set(enc("ustar"), 257);
  assertEquals(await reason(reg.extract(file("lib/x.tar.gz", await gzip(tar)))), "unsupported");
  const bin = await gzip(new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 0, 0, 0, 0]));
  const err = await assertRejects(() => reg.extract(file("lib/prog.gz", bin)));
  assertEquals((err as ExtractError).reason, "unsupported");
  assert(/binary file \(application\/x-elf\)/.test(err.message), err.message);
  const nested = await gzip(await gzip(enc(NOTES)));
  const n = await assertRejects(() => reg.extract(file("lib/notes.md.gz.gz", nested)));
  assertEquals((n as ExtractError).reason, "unsupported");
});

Deno.test("zstdFrames: walks frames and skippable frames, and says when the last one is cut", () => {
  // a frame holding "hi" as one raw block: magic, FHD (single segment, 1-byte size), size, block
  const frame = [0x28, 0xb5, 0x2f, 0xfd, 0x20, 0x02, 0x11, 0x00, 0x00, 0x68, 0x69];
  const skippable = [0x50, 0x2a, 0x4d, 0x18, 0x02, 0x00, 0x00, 0x00, 0xaa, 0xbb];
  const b = new Uint8Array([...frame, ...skippable, ...frame]);
  assertEquals(zstdFrames(b), [[0, 11], [21, 32]]);
  assertEquals(zstdFrames(b.subarray(0, 30)), undefined);
});

Deno.test("indexing a folder of compressed documentation: each found by search, a cut-short file skipped as corrupt", async () => {
  const base = await Deno.makeTempDir({ prefix: "shelfmark-gz-" });
  const lib = join(base, "doc");
  await Deno.mkdir(join(lib, "hello"), { recursive: true });
  const put = async (name: string, text: string) =>
    await Deno.writeFile(join(lib, "hello", name), await gzip(enc(text)));
  await put("README.gz", "Hello\n=====\n\nThe hello program greets the pangolin.\n");
  await put("changelog.Debian.gz", CHANGELOG);
  await put("foo.1.gz", MAN);
  await put("notes.md.gz", NOTES);
  const broken = await gzip(enc(NOTES.repeat(40)));
  await Deno.writeFile(join(lib, "hello", "broken.txt.gz"), broken.subarray(0, broken.length / 2));
  await Deno.writeTextFile(join(lib, "hello", "plain.txt"), "An uncompressed note on lemurs.\n");
  // One extraction worker: the path `serve` and `index` take (the document's type is the
  // inner extractor's there).
  await using t = await openTestShelf({ base, folders: [lib], workers: 1 });
  const p = await t.shelf.index();
  assertEquals([p.indexed, p.skipped], [5, 1]);
  const hit = async (query: string) => {
    const r = await callTool(t.shelf, "search", { query, output_format: "json" });
    return (r.json.results as { path: string; doc_type: string; title: string }[])
      .map((h) => [h.path, h.doc_type]);
  };
  assertEquals(await hit("pangolin"), [["doc/hello/README.gz", "text"]]);
  assertEquals(await hit("quetzal"), [["doc/hello/changelog.Debian.gz", "text"]]);
  assertEquals(await hit("wombat"), [["doc/hello/foo.1.gz", "man"]]);
  assertEquals(await hit("okapi"), [["doc/hello/notes.md.gz", "markdown"]]);
  assertEquals(await hit("lemurs"), [["doc/hello/plain.txt", "text"]]);
  assertEquals(partsOf(t.shelf).catalog.skipped().map((s) => [s.path, s.reason]), [[
    "doc/hello/broken.txt.gz",
    "corrupt",
  ]]);
  const outline = await callTool(t.shelf, "search", { query: "wombat", output_format: "json" });
  assertEquals(
    (outline.json.results as { title: string }[])[0]?.title,
    "foo(1) - frobnicate the wombat files",
  );
});
