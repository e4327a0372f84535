/**
 * Image dimensions from the file header alone (PNG, JPEG, BMP, WebP, TIFF), so a huge image
 * can be refused before any pixel is decoded.
 *
 * @module
 */

/** Width and height read from an image header. */
export interface ImageSize {
  /** Container format: `png`, `jpeg`, `bmp`, `webp`, `tiff`. */
  format: string;
  /** Width in pixels. */
  width: number;
  /** Height in pixels. */
  height: number;
}

const u16be = (b: Uint8Array, o: number) => (b[o]! << 8) | b[o + 1]!;
const u16le = (b: Uint8Array, o: number) => b[o]! | (b[o + 1]! << 8);
const u24le = (b: Uint8Array, o: number) => b[o]! | (b[o + 1]! << 8) | (b[o + 2]! << 16);
const u32be = (b: Uint8Array, o: number) =>
  ((b[o]! << 24) | (b[o + 1]! << 16) | u16be(b, o + 2)) >>> 0;
const u32le = (b: Uint8Array, o: number) =>
  (u16le(b, o) | (b[o + 2]! << 16) | (b[o + 3]! << 24)) >>> 0;
const ascii = (b: Uint8Array, o: number, n: number) =>
  String.fromCharCode(...b.subarray(o, Math.min(b.length, o + n)));

function jpegSize(b: Uint8Array): ImageSize | undefined {
  let o = 2;
  while (o + 4 <= b.length) {
    if (b[o] !== 0xff) return undefined;
    const m = b[o + 1]!;
    if (m === 0xff) {
      o++;
      continue;
    }
    if (m === 0xd8 || m === 0x01 || (m >= 0xd0 && m <= 0xd7)) {
      o += 2;
      continue;
    }
    if (m === 0xd9 || m === 0xda) return undefined; // end of image / scan before any frame
    const len = u16be(b, o + 2);
    const sof = m >= 0xc0 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc;
    if (sof) {
      if (o + 9 > b.length) return undefined;
      return { format: "jpeg", height: u16be(b, o + 5), width: u16be(b, o + 7) };
    }
    o += 2 + len;
  }
  return undefined;
}

function tiffSize(b: Uint8Array): ImageSize | undefined {
  const le = b[0] === 0x49;
  const r16 = (o: number) => (le ? u16le(b, o) : u16be(b, o));
  const r32 = (o: number) => (le ? u32le(b, o) : u32be(b, o));
  const ifd = r32(4);
  if (ifd + 2 > b.length) return undefined;
  const n = r16(ifd);
  let width: number | undefined, height: number | undefined;
  for (let i = 0; i < n; i++) {
    const e = ifd + 2 + i * 12;
    if (e + 12 > b.length) break;
    const tag = r16(e), type = r16(e + 2);
    const value = type === 3 ? r16(e + 8) : type === 4 ? r32(e + 8) : undefined;
    if (tag === 256) width = value;
    if (tag === 257) height = value;
  }
  return width !== undefined && height !== undefined
    ? { format: "tiff", width, height }
    : undefined;
}

/**
 * Width and height of an image from its header alone (PNG IHDR, JPEG SOF, BMP info header,
 * WebP VP8/VP8L/VP8X, first TIFF IFD), or undefined when the header is unknown or cut short.
 */
export function imageSize(b: Uint8Array): ImageSize | undefined {
  if (b.length >= 24 && u32be(b, 0) === 0x89504e47 && ascii(b, 12, 4) === "IHDR") {
    return { format: "png", width: u32be(b, 16), height: u32be(b, 20) };
  }
  if (b.length >= 4 && b[0] === 0xff && b[1] === 0xd8) return jpegSize(b);
  if (b.length >= 26 && b[0] === 0x42 && b[1] === 0x4d) {
    if (u32le(b, 14) === 12) return { format: "bmp", width: u16le(b, 18), height: u16le(b, 20) };
    const h = u32le(b, 22) | 0;
    return { format: "bmp", width: u32le(b, 18) | 0, height: Math.abs(h) };
  }
  if (b.length >= 30 && ascii(b, 0, 4) === "RIFF" && ascii(b, 8, 4) === "WEBP") {
    const kind = ascii(b, 12, 4);
    if (kind === "VP8 ") {
      return { format: "webp", width: u16le(b, 26) & 0x3fff, height: u16le(b, 28) & 0x3fff };
    }
    if (kind === "VP8L") {
      const v = u32le(b, 21);
      return { format: "webp", width: (v & 0x3fff) + 1, height: ((v >>> 14) & 0x3fff) + 1 };
    }
    if (kind === "VP8X") {
      return { format: "webp", width: u24le(b, 24) + 1, height: u24le(b, 27) + 1 };
    }
    return undefined;
  }
  if (b.length >= 8 && (ascii(b, 0, 4) === "II*\0" || ascii(b, 0, 4) === "MM\0*")) {
    return tiffSize(b);
  }
  return undefined;
}
