/**
 * Zip reading shared by the DOCX and EPUB extractors, on fflate, with zip-bomb protection:
 * the declared uncompressed size of every wanted entry is checked before anything is
 * inflated, and fflate inflates into a buffer of exactly the declared size, so an entry
 * that lies about its size is truncated rather than allowed to grow.
 *
 * @module
 */
import { unzipSync } from "fflate";
import { ExtractError } from "../core/extractor.ts";

/** Default cap on the total inflated bytes of one document (200 MB). */
export const MAX_INFLATED = 200 * 1024 * 1024;

/** An entry of a zip archive as its central directory declares it. */
export interface ZipEntry {
  /** Path inside the archive, `/`-separated. */
  name: string;
  /** Compressed size in bytes. */
  size: number;
  /** Declared uncompressed size in bytes. */
  originalSize: number;
  /** Compression method (0 stored, 8 deflate). */
  compression: number;
}

/** The entries of an archive, the wanted ones inflated. */
export interface ZipContents {
  /** Every entry of the archive, in central-directory order. */
  entries: ZipEntry[];
  /** Inflated contents of the wanted entries, by name. */
  files: Map<string, Uint8Array>;
}

/** Options of {@link readZip}. */
export interface ReadZipOptions {
  /** Cap on the total declared uncompressed size of the wanted entries; default {@link MAX_INFLATED}. */
  maxTotal?: number;
}

/** Whether the bytes start like a zip archive (local file header or empty archive). */
export function looksLikeZip(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b &&
    ((bytes[2] === 3 && bytes[3] === 4) || (bytes[2] === 5 && bytes[3] === 6));
}

/**
 * Read a zip archive, inflating only the entries `want` selects.
 *
 * @param bytes the archive
 * @param want which entries to inflate (called once per entry, before inflating it)
 * @param options size cap
 * @returns all entries and the inflated wanted ones
 * @throws ExtractError `empty` for no bytes, `corrupt` for a damaged or non-zip file,
 *   `too_large` when the wanted entries declare more than the cap
 */
export function readZip(
  bytes: Uint8Array,
  want: (entry: ZipEntry) => boolean,
  options: ReadZipOptions = {},
): ZipContents {
  if (bytes.length === 0) throw new ExtractError("empty", "file is empty");
  const maxTotal = options.maxTotal ?? MAX_INFLATED;
  const entries: ZipEntry[] = [];
  let total = 0;
  let raw: Record<string, Uint8Array>;
  try {
    raw = unzipSync(bytes, {
      filter(file) {
        const entry: ZipEntry = {
          name: file.name,
          size: file.size,
          originalSize: file.originalSize,
          compression: file.compression,
        };
        entries.push(entry);
        if (!want(entry)) return false;
        total += file.originalSize;
        if (total > maxTotal) {
          throw new ExtractError(
            "too_large",
            `zip entries inflate to more than ${Math.round(maxTotal / 1048576)} MB ` +
              `(${file.name} declares ${file.originalSize} bytes)`,
          );
        }
        return true;
      },
    });
  } catch (e) {
    if (e instanceof ExtractError) throw e;
    throw new ExtractError("corrupt", `not a readable zip archive: ${errorText(e)}`, { cause: e });
  }
  return { entries, files: new Map(Object.entries(raw)) };
}

/** Decode an inflated entry as UTF-8 (BOM dropped; UTF-16 with a BOM honoured). */
export function entryText(data: Uint8Array): string {
  if (data[0] === 0xff && data[1] === 0xfe) return new TextDecoder("utf-16le").decode(data);
  if (data[0] === 0xfe && data[1] === 0xff) return new TextDecoder("utf-16be").decode(data);
  return new TextDecoder("utf-8").decode(data);
}

/**
 * Resolve `href` (URL-encoded, relative, maybe with a `#fragment`) against the folder of
 * the zip entry `base`; returns the entry name without the fragment.
 */
export function resolveHref(base: string, href: string): string {
  const noFrag = href.replace(/#.*$/, "");
  let path: string;
  try {
    path = decodeURIComponent(noFrag);
  } catch {
    path = noFrag;
  }
  if (path.startsWith("/")) return normalise(path.slice(1));
  const dir = base.includes("/") ? base.slice(0, base.lastIndexOf("/") + 1) : "";
  return normalise(dir + path);
}

function normalise(path: string): string {
  const out: string[] = [];
  for (const part of path.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") out.pop();
    else out.push(part);
  }
  return out.join("/");
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
