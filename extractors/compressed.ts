/**
 * Compressed single documents: `.gz`, `.bz2`, `.xz` and `.zst` files (recognised by their
 * magic numbers) are a container holding one document. `open` inflates it, streaming and
 * bounded, and hands back the document inside under its inner name (`README.md.gz` ->
 * `.md`, `changelog.gz` -> no extension, so its content is sniffed); the registry then reads
 * it with the extractor chosen for it, and the document's type is that extractor's.
 *
 * Libraries: gzip and zstd through `node:zlib` (built into Deno 2.9: streams with 16 KB output
 * chunks, so a bomb is stopped after a few chunks; zstd frame by frame, see
 * {@link zstdFrames}), bzip2 through `seek-bzip` (pure JavaScript, byte-wise output the limit
 * checks as it goes), xz through `xz-decompress` (xz-embedded compiled to WebAssembly, a
 * streaming reader). No native code, nothing started outside the process.
 *
 * Limits, as for zip entries: at most {@link MAX_INFLATED} bytes, and past
 * {@link RATIO_FLOOR} bytes at most {@link MAX_RATIO} times the compressed bytes read so far
 * (documents stay under 30:1; 2 GB of zeros in 2 MB is 1000:1). Past a limit the file is
 * refused as `too_large` without inflating the rest; damaged or cut-short data is `corrupt`.
 *
 * @module
 */
import type { Transform } from "node:stream";
import { createGunzip, createZstdDecompress } from "node:zlib";
import Bunzip from "seek-bzip";
import xz from "xz-decompress";
import { type ContainerExtractor, ExtractorRegistry } from "../core/registry.ts";
import { ExtractError, type ExtractInput, type Extractor } from "../core/extractor.ts";
import { MAX_INFLATED } from "./_zip.ts";

/** Inflated bytes past which the ratio limit applies (16 MiB). */
export const RATIO_FLOOR = 16 * 1024 * 1024;
/** Largest ratio of inflated to compressed bytes accepted past {@link RATIO_FLOOR}. */
export const MAX_RATIO = 100;

/** Compressed bytes handed to a decompressor at a time, so the ratio is measured as it goes. */
const SLICE = 16 * 1024;

/** A compression format: how to recognise and inflate it. */
interface Format {
  /** `gzip`, `bzip2`, `xz`, `zstd`: said in messages. */
  name: string;
  /** Its file extensions, stripped to give the inner name. */
  extensions: string[];
  /** Its sniffed MIME type (see `core/sniff.ts`). */
  mimeType: string;
  /** The magic number its data starts with. */
  magic: number[];
  /** Inflate the whole of `bytes`, counting every output chunk against `budget`. */
  inflate(bytes: Uint8Array, budget: Budget): Promise<Uint8Array>;
}

/** Counts inflated bytes against the size cap and the ratio limit. */
class Budget {
  total = 0;
  constructor(readonly format: string, readonly max: number) {}

  /** Count `n` more inflated bytes, `consumed` compressed bytes having been read; throws past a limit. */
  add(n: number, consumed: number): void {
    this.total += n;
    const mb = (b: number) => `${Math.round(b / 1048576)} MB`;
    if (this.total > this.max) {
      throw new ExtractError(
        "too_large",
        `${this.format} data inflates to more than ${mb(this.max)}`,
      );
    }
    if (this.total > RATIO_FLOOR && this.total > Math.max(consumed, 1) * MAX_RATIO) {
      throw new ExtractError(
        "too_large",
        `${this.format} data inflates to more than ${MAX_RATIO} times its size past ` +
          `${mb(RATIO_FLOOR)} (${this.total} bytes from ${consumed}): a compression bomb?`,
      );
    }
  }
}

/** The compressed bytes as a stream of slices, saying how many were read. */
function slices(bytes: Uint8Array): { stream: ReadableStream<Uint8Array>; consumed: () => number } {
  let pos = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pos >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(pos, pos + SLICE));
      pos += SLICE;
    },
  }, { highWaterMark: 0 });
  return { stream, consumed: () => Math.min(pos, bytes.length) };
}

/** Read a stream of inflated chunks to its end within the budget; cancels it past a limit. */
async function drain(
  out: ReadableStream<Uint8Array>,
  consumed: () => number,
  budget: Budget,
): Promise<Uint8Array> {
  const reader = out.getReader();
  const chunks: Uint8Array[] = [];
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      budget.add(value.length, consumed());
      chunks.push(value);
    }
  } catch (e) {
    await reader.cancel().catch(() => {});
    throw e;
  }
  return joined(chunks, budget.total);
}

/** The chunks as one array of `total` bytes. */
function joined(chunks: Uint8Array[], total: number): Uint8Array {
  const whole = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    whole.set(c, at);
    at += c.length;
  }
  return whole;
}

/**
 * A `node:zlib` decompressor as an inflate function: the input is written a slice at a time
 * (waiting for `drain`), every output chunk (16 KB) is counted, and past a limit the stream
 * is destroyed. (`Duplex.toWeb` is not used: in Deno 2.9 a cancelled adapter still gets data
 * from zlib and throws an uncaught error.) `before` is how many compressed bytes of the file
 * come before `bytes`, for the ratio.
 */
function zlibInflate(create: () => Transform) {
  return (bytes: Uint8Array, budget: Budget, before = 0): Promise<Uint8Array> =>
    new Promise((resolve, reject) => {
      const z = create();
      const chunks: Uint8Array[] = [];
      const total = budget.total;
      let written = 0;
      let failed = false;
      const fail = (e: unknown) => {
        if (failed) return;
        failed = true;
        z.destroy();
        reject(e);
      };
      z.on("data", (chunk: Uint8Array) => {
        if (failed) return;
        try {
          budget.add(chunk.length, before + written);
          chunks.push(chunk);
        } catch (e) {
          fail(e);
        }
      });
      z.on("error", fail);
      z.on("end", () => failed || resolve(joined(chunks, budget.total - total)));
      const write = () => {
        while (!failed && written < bytes.length) {
          const more = z.write(bytes.subarray(written, written + SLICE));
          written = Math.min(written + SLICE, bytes.length);
          if (!more) return void z.once("drain", write);
        }
        if (!failed) z.end();
      };
      write();
    });
}

/** bzip2 through seek-bzip, which reads and writes one byte at a time (synchronously). */
function bunzip(bytes: Uint8Array, budget: Budget): Promise<Uint8Array> {
  let pos = 0;
  const input = {
    readByte(): number {
      if (pos >= bytes.length) throw new Error("unexpected end of data");
      return bytes[pos++]!;
    },
    read(buf: Uint8Array, off: number, len: number): number {
      if (pos >= bytes.length) return -1;
      const n = Math.min(len, bytes.length - pos);
      buf.set(bytes.subarray(pos, pos + n), off);
      pos += n;
      return n;
    },
    seek(p: number) {
      pos = p;
    },
    eof: () => pos >= bytes.length,
  };
  const chunks: Uint8Array[] = [];
  let chunk = new Uint8Array(64 * 1024);
  let fill = 0;
  const flush = () => {
    if (!fill) return;
    budget.add(fill, pos);
    chunks.push(chunk.subarray(0, fill));
    chunk = new Uint8Array(chunk.length);
    fill = 0;
  };
  const output = {
    writeByte(b: number) {
      chunk[fill++] = b;
      if (fill === chunk.length) flush();
    },
  };
  Bunzip.decode(input, output, true);
  flush();
  return Promise.resolve(joined(chunks, budget.total));
}

/** xz through xz-decompress (one stream; xz-embedded checks the CRC32/CRC64 it carries). */
function unxz(bytes: Uint8Array, budget: Budget): Promise<Uint8Array> {
  const src = slices(bytes);
  return drain(new xz.XzReadableStream(src.stream), src.consumed, budget);
}

/**
 * The zstd frames of `b` as `[start, end)` pairs (skippable frames left out), found by
 * walking frame and block headers without decoding; undefined when a frame is cut short or
 * malformed. Deno 2.9's zstd stream stops quietly after the first frame and ends quietly on
 * truncated data, so frames are inflated one by one and a cut-short file is told from here.
 */
export function zstdFrames(b: Uint8Array): [number, number][] | undefined {
  const u32 = (p: number) => (b[p]! | b[p + 1]! << 8 | b[p + 2]! << 16 | b[p + 3]! << 24) >>> 0;
  const frames: [number, number][] = [];
  let p = 0;
  while (p < b.length) {
    if (p + 5 > b.length) return undefined;
    const magic = u32(p);
    if (magic >>> 4 === 0x184d2a5) { // skippable frame
      if (p + 8 > b.length) return undefined;
      p += 8 + u32(p + 4);
      continue;
    }
    if (magic !== 0xfd2fb528) return undefined;
    const start = p;
    const fhd = b[p + 4]!;
    const single = (fhd >> 5) & 1;
    p += 5 + (single ? 0 : 1) + [0, 1, 2, 4][fhd & 3]! + [single, 2, 4, 8][fhd >> 6]!;
    for (let last = 0; !last;) {
      if (p + 3 > b.length) return undefined;
      const h = b[p]! | b[p + 1]! << 8 | b[p + 2]! << 16;
      const type = (h >> 1) & 3;
      if (type === 3) return undefined; // reserved block type
      last = h & 1;
      p += 3 + (type === 1 ? 1 : h >>> 3);
    }
    p += (fhd >> 2) & 1 ? 4 : 0; // content checksum
    frames.push([start, p]);
  }
  return p === b.length ? frames : undefined;
}

/** zstd through `node:zlib`, one frame at a time; cut-short data is refused. */
async function unzstd(bytes: Uint8Array, budget: Budget): Promise<Uint8Array> {
  const frames = zstdFrames(bytes);
  if (!frames) throw new Error("a frame is incomplete");
  const parts: Uint8Array[] = [];
  for (const [start, end] of frames) {
    parts.push(await zlibInflate(createZstdDecompress)(bytes.subarray(start, end), budget, start));
  }
  return parts.length === 1 ? parts[0]! : joined(parts, budget.total);
}

/** The formats read, by magic number. */
export const FORMATS: readonly Format[] = [
  {
    name: "gzip",
    extensions: [".gz"],
    mimeType: "application/gzip",
    magic: [0x1f, 0x8b],
    inflate: zlibInflate(createGunzip),
  },
  {
    name: "bzip2",
    extensions: [".bz2"],
    mimeType: "application/x-bzip2",
    magic: [0x42, 0x5a, 0x68], // BZh
    inflate: bunzip,
  },
  {
    name: "xz",
    extensions: [".xz"],
    mimeType: "application/x-xz",
    magic: [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00],
    inflate: unxz,
  },
  {
    name: "zstd",
    extensions: [".zst"],
    mimeType: "application/zstd",
    magic: [0x28, 0xb5, 0x2f, 0xfd],
    inflate: unzstd,
  },
];

/** The format whose magic number the bytes start with. */
function formatOf(bytes: Uint8Array): Format | undefined {
  return FORMATS.find((f) => f.magic.every((b, i) => bytes[i] === b));
}

/** The inner file's extension: the name without the compression extension, if it has one. */
function innerExtension(path: string, extension: string): string {
  if (!FORMATS.some((f) => f.extensions.includes(extension))) return "";
  const base = path.slice(path.lastIndexOf("/") + 1, path.length - extension.length);
  const dot = base.lastIndexOf(".");
  return dot > 0 ? base.slice(dot).toLowerCase() : "";
}

/** Options of {@link inflate}. */
export interface InflateOptions {
  /** Cap on the inflated size; default {@link MAX_INFLATED}. */
  maxBytes?: number;
}

/**
 * Inflate a gzip, bzip2, xz or zstd file whole, within the size and ratio limits.
 *
 * @param bytes the compressed file
 * @param options size cap
 * @returns the inflated bytes
 * @throws ExtractError `too_large` past a limit, `corrupt` for damaged, cut-short or
 *   unrecognised data
 */
export async function inflate(
  bytes: Uint8Array,
  options: InflateOptions = {},
): Promise<Uint8Array> {
  const format = formatOf(bytes);
  if (!format) throw new ExtractError("corrupt", "not gzip, bzip2, xz or zstd data");
  const budget = new Budget(format.name, options.maxBytes ?? MAX_INFLATED);
  try {
    return await format.inflate(bytes, budget);
  } catch (e) {
    if (e instanceof ExtractError) throw e;
    const why = e instanceof Error ? e.message : String(e);
    throw new ExtractError("corrupt", `${format.name} data is damaged or cut short: ${why}`, {
      cause: e,
    });
  }
}

/**
 * The compressed-file container. `inner` are the extractors its own `extract` reads the
 * document with when it is called directly (through `select`) rather than through
 * `ExtractorRegistry.extract`, which uses every registered extractor, plugins included.
 *
 * @param inner extractors for the document inside (default: none, so only `open` is useful)
 * @example
 * ```ts
 * import { ExtractorRegistry } from "../core/registry.ts";
 * import { compressed } from "./compressed.ts";
 * import { text } from "./text.ts";
 * import assert from "node:assert/strict";
 *
 * const reg = new ExtractorRegistry();
 * reg.register(text());
 * reg.register(compressed());
 * const gz = await new Response(
 *   new Blob(["Plain words.\n"]).stream().pipeThrough(new CompressionStream("gzip")),
 * ).bytes();
 * const r = await reg.extract({ path: "lib/NEWS.gz", extension: ".gz", bytes: gz });
 * assert.equal(r?.extractor, "text");
 * ```
 */
export function compressed(inner: Extractor[] = []): ContainerExtractor {
  let registry: ExtractorRegistry | undefined;
  const self: ContainerExtractor = {
    name: "compressed",
    extensions: FORMATS.flatMap((f) => f.extensions),
    mimeTypes: FORMATS.map((f) => f.mimeType),
    accepts: (input) => formatOf(input.bytes) !== undefined,
    async open(input: ExtractInput): Promise<ExtractInput> {
      const bytes = await inflate(input.bytes);
      return {
        path: input.path,
        extension: innerExtension(input.path, input.extension.toLowerCase()),
        bytes,
        signal: input.signal,
      };
    },
    async extract(input) {
      if (!registry) {
        registry = new ExtractorRegistry();
        for (const ex of [...inner, self]) registry.register(ex);
      }
      const r = await registry.extract(input);
      if (!r) throw new ExtractError("unsupported", "not a compressed file");
      return r.extracted;
    },
  };
  return self;
}
