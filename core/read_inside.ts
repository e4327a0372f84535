/**
 * Read a file of a library so that what is read is what the walk allowed: a file swapped
 * for a symlink (or a folder on its path swapped for one) between the walk and the read
 * is refused, never read from outside the library root. The real path is resolved and
 * checked inside the root, opened without following a final symlink (and without
 * blocking on a FIFO), and the opened handle must still be the file found at a real path
 * inside the root; the bytes come from that handle.
 *
 * @module
 */
import {
  closeSync,
  constants,
  fstatSync,
  openSync,
  readFile,
  readFileSync,
  statSync,
} from "node:fs";
import { isInside, realPath } from "./paths.ts";

/** Why a file was not read: its path now leads outside the root, or to no regular file. */
export class UnsafeFileError extends Error {
  override name = "UnsafeFileError";
}

/**
 * Files up to this size are read with blocking calls: a few milliseconds at most from the
 * page cache, where node's promise API (`node:fs/promises`, its `FileHandle`) cost about
 * 0.8 ms of CPU per file in Deno (a quarter of the index process's own per-file work on a
 * small text file). Larger files are read without blocking this thread, which also serves
 * searches; opening and the two `stat`s block either way (metadata only).
 */
export const BLOCKING_READ_MAX = 4 * 2 ** 20;

/** The bytes of an open file, read without blocking. */
function readAsync(fd: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) => readFile(fd, (e, b) => e ? reject(e) : resolve(b)));
}

/**
 * The bytes of `abs`, a file inside `root` (both may go through symlinks inside the root).
 *
 * @param root the library root
 * @param abs the file's path as the walk found it
 * @returns its bytes
 * @throws UnsafeFileError when the path leads outside the root or not to a regular file;
 *   the file system's own error when it cannot be opened or read
 */
export async function readInside(root: string, abs: string): Promise<Uint8Array> {
  const realRoot = realPath(root);
  const real = realPath(abs);
  const inside = (p: string | undefined) => !!realRoot && !!p && isInside(realRoot, p);
  if (real === undefined) throw new Deno.errors.NotFound(`${abs}: no such file`);
  if (!inside(real)) throw new UnsafeFileError(`${abs} leads outside the library root`);
  let fd: number;
  try {
    fd = openSync(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (e) {
    if ((e as { code?: string }).code === "ELOOP") {
      throw new UnsafeFileError(`${abs} became a symlink`);
    }
    throw e;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new UnsafeFileError(`${abs} is not a regular file`);
    // A folder on the way swapped for a link after realpath: the handle is another file.
    const again = realPath(real);
    const now = again === undefined ? undefined : statSync(again, { throwIfNoEntry: false });
    if (!inside(again) || !now || now.ino !== st.ino || now.dev !== st.dev) {
      throw new UnsafeFileError(`${abs} changed while it was opened`);
    }
    // A plain Uint8Array, not node's Buffer (pdf.js refuses a Buffer).
    const b = st.size <= BLOCKING_READ_MAX ? readFileSync(fd) : await readAsync(fd);
    return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
  } finally {
    closeSync(fd);
  }
}
