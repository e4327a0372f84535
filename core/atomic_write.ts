/**
 * Replace a file all at once: the new content goes to a temporary file beside it, is flushed
 * to the disk, and is then renamed over the old file. A write cut short (a full disk, a crash,
 * a killed process) leaves the old file as it was, never half a file.
 *
 * @module
 */
import { basename, dirname, join } from "node:path";

/**
 * Write `data` to `path` atomically: into a temporary file in the same folder, fsync it,
 * rename it over `path`, then fsync the folder where the system allows it (not on Windows).
 * An existing file's permission bits are kept. On any failure the temporary file is
 * removed, `path` is untouched, and the error is thrown.
 *
 * @param path the file to create or replace; its folder must exist
 * @param data the new content (a string is written as UTF-8)
 * @example
 * ```ts
 * import { writeFileAtomicSync } from "./atomic_write.ts";
 * const dir = Deno.makeTempDirSync();
 * writeFileAtomicSync(`${dir}/state.json`, '{"n":1}\n');
 * writeFileAtomicSync(`${dir}/state.json`, '{"n":2}\n');
 * if (Deno.readTextFileSync(`${dir}/state.json`) !== '{"n":2}\n') throw new Error("not replaced");
 * Deno.removeSync(dir, { recursive: true });
 * ```
 */
export function writeFileAtomicSync(path: string, data: string | Uint8Array): void {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  const dir = dirname(path);
  const mode = existingMode(path);
  const tmp = join(dir, `.${basename(path)}.${crypto.randomUUID().slice(0, 8)}.tmp`);
  try {
    const file = Deno.openSync(tmp, { write: true, createNew: true });
    try {
      if (mode !== undefined && Deno.build.os !== "windows") Deno.chmodSync(tmp, mode);
      for (let done = 0; done < bytes.length;) done += file.writeSync(bytes.subarray(done));
      file.syncSync();
    } finally {
      file.close();
    }
    Deno.renameSync(tmp, path);
  } catch (e) {
    try {
      Deno.removeSync(tmp);
    } catch {
      // never created, or already renamed
    }
    throw e;
  }
  syncFolder(dir);
}

/** The permission bits of an existing file, to give its replacement (undefined: none yet). */
function existingMode(path: string): number | undefined {
  try {
    const mode = Deno.statSync(path).mode;
    return mode === null ? undefined : mode & 0o7777;
  } catch {
    return undefined;
  }
}

/** Make a rename durable: fsync the folder that holds the entry (not possible on Windows). */
function syncFolder(dir: string): void {
  if (Deno.build.os === "windows") return;
  try {
    const handle = Deno.openSync(dir, { read: true });
    try {
      handle.syncSync();
    } finally {
      handle.close();
    }
  } catch {
    // some file systems refuse to fsync a folder; the rename itself has happened
  }
}
