/**
 * Content sniffing: recognise common binary formats by their magic numbers (zip-based
 * documents by their entries), tell text from binary (and RTF, HTML, troff from plain
 * text), decode text (UTF-8, UTF-16 with or without BOM, Latin-1 fallback) and split it
 * into lines.
 *
 * @module
 */

/** What the first bytes of a file say about it. */
export interface Sniffed {
  /** MIME type: `application/pdf`, `image/png`, `text/plain`, `application/octet-stream`, ... */
  mimeType: string;
  /** True when the content is text that `decodeText` can read. */
  text: boolean;
}

/** The result of `decodeText`. */
export interface Decoded {
  /** The text, BOM removed, line ends normalised to `\n`. */
  text: string;
  /** Encoding used to decode it. */
  encoding: "utf-8" | "utf-16le" | "utf-16be" | "latin-1";
  /** Non-fatal problems, such as a fallback to Latin-1. */
  warnings: string[];
}

/** Marks a short magic number that text could start with: it also needs a NUL byte. */
const WEAK = 1;

const MAGIC: [number[], string, number?][] = [
  [[0x25, 0x50, 0x44, 0x46, 0x2d], "application/pdf"], // %PDF-
  [[0x50, 0x4b, 0x03, 0x04], "application/zip"],
  [[0x50, 0x4b, 0x05, 0x06], "application/zip"], // empty zip
  [[0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], "image/png"],
  [[0xff, 0xd8, 0xff], "image/jpeg"],
  [[0x47, 0x49, 0x46, 0x38], "image/gif"], // GIF8
  [[0x49, 0x49, 0x2a, 0x00], "image/tiff"],
  [[0x4d, 0x4d, 0x00, 0x2a], "image/tiff"],
  [[0x42, 0x4d], "image/bmp", WEAK],
  [[0x1f, 0x8b], "application/gzip"],
  [[0x42, 0x5a, 0x68], "application/x-bzip2"], // BZh
  [[0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00], "application/x-xz"],
  [[0x28, 0xb5, 0x2f, 0xfd], "application/zstd"],
  [[0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c], "application/x-7z-compressed"],
  [[0x52, 0x61, 0x72, 0x21, 0x1a, 0x07], "application/vnd.rar"],
  [[0x7f, 0x45, 0x4c, 0x46], "application/x-elf"],
  [[0x4d, 0x5a], "application/x-msdownload", WEAK], // MZ
  [[0xcf, 0xfa, 0xed, 0xfe], "application/x-mach-binary"],
  [[0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1], "application/x-ole-storage"], // .doc/.xls
  // The whole 16-byte header "SQLite format 3\0": text such as "SQLite for Debian" starts
  // with the same 8 bytes.
  [[...new TextEncoder().encode("SQLite format 3"), 0x00], "application/vnd.sqlite3"],
  [[0x00, 0x61, 0x73, 0x6d], "application/wasm"],
  [[0x4f, 0x67, 0x67, 0x53], "audio/ogg"],
  [[0x66, 0x4c, 0x61, 0x43], "audio/flac"],
  [[0x49, 0x44, 0x33], "audio/mpeg", WEAK], // ID3
  [[0x1a, 0x45, 0xdf, 0xa3], "video/webm"],
  [[0x77, 0x4f, 0x46, 0x46], "font/woff"],
  [[0x77, 0x4f, 0x46, 0x32], "font/woff2"],
];

function startsWith(bytes: Uint8Array, magic: number[], at = 0): boolean {
  if (bytes.length < at + magic.length) return false;
  for (let i = 0; i < magic.length; i++) if (bytes[at + i] !== magic[i]) return false;
  return true;
}

function ascii(bytes: Uint8Array, from: number, to: number): string {
  return String.fromCharCode(...bytes.subarray(from, Math.min(to, bytes.length)));
}

/** BOM-less UTF-16: NULs sit in every other byte of the sample. Returns the byte order. */
function utf16Order(sample: Uint8Array): "le" | "be" | undefined {
  const n = sample.length - (sample.length % 2);
  if (n < 4) return undefined;
  let evenNul = 0, oddNul = 0;
  for (let i = 0; i < n; i += 2) {
    if (sample[i] === 0) evenNul++;
    if (sample[i + 1] === 0) oddNul++;
  }
  const pairs = n / 2;
  if (oddNul > pairs * 0.4 && evenNul < pairs * 0.05) return "le";
  if (evenNul > pairs * 0.4 && oddNul < pairs * 0.05) return "be";
  return undefined;
}

/**
 * troff source (a man page): the first line that is not blank or a comment is a request,
 * and a `.TH`, `.Dd`, `.SH` or `.so` request stands at the start of a line.
 */
function looksLikeTroff(head: string): boolean {
  const first = /^(?:[ \t]*\n|[.'][ \t]*\\".*\n)*(.)/.exec(head)?.[1];
  return (first === "." || first === "'") && /^[.'][ \t]*(?:TH|Dd|SH|so)[ \t]/m.test(head);
}

/** Office Open XML types (and EPUB's), by the part that names them. */
const OOXML: [string, string][] = [
  ["word/document.xml", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"],
  [
    "ppt/presentation.xml",
    "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  ],
  ["xl/workbook.xml", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"],
  // An EPUB whose `mimetype` entry is missing or not first (real ebooks do that).
  ["META-INF/container.xml", "application/epub+zip"],
];

/**
 * The type of a zip-based document: OpenDocument and EPUB by their stored first entry
 * `mimetype`, Office Open XML by the entries its central directory lists.
 */
function zipType(bytes: Uint8Array): string | undefined {
  const u16 = (at: number) => bytes[at]! | bytes[at + 1]! << 8;
  const u32 = (at: number) => (u16(at) | u16(at + 2) << 16) >>> 0;
  if (ascii(bytes, 30, 38) === "mimetype" && u16(8) === 0) {
    const start = 30 + u16(26) + u16(28);
    const type = ascii(bytes, start, start + Math.min(u32(18), 100)).trim();
    if (/^application\/[\w.+-]+$/.test(type)) return type;
  }
  let eocd = bytes.length - 22;
  while (eocd >= 0 && eocd > bytes.length - 65558 && u32(eocd) !== 0x06054b50) eocd--;
  if (eocd < 0 || u32(eocd) !== 0x06054b50) return undefined;
  let at = u32(eocd + 16);
  for (let n = u16(eocd + 10); n > 0 && at + 46 <= bytes.length && u32(at) === 0x02014b50; n--) {
    const name = ascii(bytes, at + 46, at + 46 + u16(at + 28));
    const hit = OOXML.find(([part]) => part === name);
    if (hit) return hit[1];
    at += 46 + u16(at + 28) + u16(at + 30) + u16(at + 32);
  }
  return undefined;
}

function looksLikeHtml(head: string): boolean {
  return /^\s*(?:<\?xml[^>]*>\s*)?(?:<!--[\s\S]*?-->\s*)*<(?:!doctype\s+html|html|head|body)\b/i
    .test(head);
}

/**
 * Guess a file's type from its first bytes: magic numbers first (for a zip, the document
 * type its entries show), then text vs binary from the first 8 KB (NUL bytes and the share
 * of control characters).
 *
 * @param bytes the file's content (the first 8 KB are read, and a zip's directory)
 * @returns the sniffed MIME type and whether the content is text
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.deepEqual(sniff(new TextEncoder().encode("hello")), { mimeType: "text/plain", text: true });
 * ```
 */
export function sniff(bytes: Uint8Array): Sniffed {
  for (const [magic, mimeType, weak] of MAGIC) {
    if (!startsWith(bytes, magic)) continue;
    if (weak && !bytes.subarray(0, 8192).includes(0)) continue;
    if (mimeType === "application/zip") {
      return { mimeType: zipType(bytes) ?? mimeType, text: false };
    }
    return { mimeType, text: false };
  }
  if (ascii(bytes, 0, 4) === "RIFF" && ascii(bytes, 8, 12) === "WEBP") {
    return { mimeType: "image/webp", text: false };
  }
  if (ascii(bytes, 4, 8) === "ftyp") return { mimeType: "video/mp4", text: false };
  const sample = bytes.subarray(0, 8192);
  const bom16 = startsWith(sample, [0xff, 0xfe]) || startsWith(sample, [0xfe, 0xff]);
  if (bom16 || utf16Order(sample)) {
    const head = decodeText(sample.subarray(0, 1024)).text;
    return { mimeType: looksLikeHtml(head) ? "text/html" : "text/plain", text: true };
  }
  let control = 0;
  for (const b of sample) {
    if (b === 0) return { mimeType: "application/octet-stream", text: false };
    if (b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d && b !== 0x0c && b !== 0x1b) control++;
  }
  if (sample.length > 0 && control / sample.length > 0.1) {
    return { mimeType: "application/octet-stream", text: false };
  }
  const head = ascii(sample, 0, 1024).replace(/^\xef\xbb\xbf/, "");
  if (head.startsWith("{\\rtf")) return { mimeType: "text/rtf", text: true };
  if (looksLikeHtml(head)) return { mimeType: "text/html", text: true };
  if (/^%!PS/.test(head)) return { mimeType: "application/postscript", text: true };
  if (/^\s*[.']/.test(head) && looksLikeTroff(ascii(sample, 0, sample.length))) {
    return { mimeType: "text/troff", text: true };
  }
  return { mimeType: "text/plain", text: true };
}

/** Swap the bytes of each UTF-16 unit, so big-endian text can be decoded as little-endian. */
function swap16(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(bytes.length - (bytes.length % 2));
  for (let i = 0; i + 1 < bytes.length; i += 2) {
    out[i] = bytes[i + 1]!;
    out[i + 1] = bytes[i]!;
  }
  return out;
}

/** Replace CRLF and lone CR with LF. */
function normaliseEol(text: string): string {
  return text.includes("\r") ? text.replace(/\r\n?/g, "\n") : text;
}

/**
 * Decode text: strip a BOM, try UTF-16 (BOM or alternating NULs), then strict UTF-8,
 * else fall back to Latin-1 (windows-1252) with a warning. Line ends become `\n`.
 *
 * @param bytes the file's content
 * @returns the text, the encoding used and warnings
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(decodeText(new Uint8Array([0x68, 0x69, 0x0d, 0x0a])).text, "hi\n");
 * ```
 */
export function decodeText(bytes: Uint8Array): Decoded {
  const warnings: string[] = [];
  if (startsWith(bytes, [0xef, 0xbb, 0xbf])) bytes = bytes.subarray(3);
  else if (startsWith(bytes, [0xff, 0xfe])) {
    const text = new TextDecoder("utf-16le").decode(bytes.subarray(2));
    return { text: normaliseEol(text), encoding: "utf-16le", warnings };
  } else if (startsWith(bytes, [0xfe, 0xff])) {
    const text = new TextDecoder("utf-16le").decode(swap16(bytes.subarray(2)));
    return { text: normaliseEol(text), encoding: "utf-16be", warnings };
  } else {
    const order = utf16Order(bytes.subarray(0, 8192));
    if (order) {
      const le = order === "le" ? bytes : swap16(bytes);
      const text = new TextDecoder("utf-16le").decode(le);
      warnings.push(`decoded as UTF-16${order.toUpperCase()} without byte order mark`);
      return {
        text: normaliseEol(text),
        encoding: order === "le" ? "utf-16le" : "utf-16be",
        warnings,
      };
    }
  }
  try {
    const text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return { text: normaliseEol(text), encoding: "utf-8", warnings };
  } catch {
    const text = new TextDecoder("windows-1252").decode(bytes);
    warnings.push("not valid UTF-8: decoded as Latin-1 (windows-1252)");
    return { text: normaliseEol(text), encoding: "latin-1", warnings };
  }
}

/**
 * Split text into lines; a final newline does not make an extra empty line.
 *
 * @param text text with `\n` line ends
 * @returns the lines, without their line ends
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.deepEqual(splitLines("a\nb\n"), ["a", "b"]);
 * ```
 */
export function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = normaliseEol(text).split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}
