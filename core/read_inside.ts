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
import { constants } from "node:fs";
import { open, stat } from "node:fs/promises";
import { isInside, realPath } from "./paths.ts";

/** Why a file was not read: its path now leads outside the root, or to no regular file. */
export class UnsafeFileError extends Error {
  override name = "UnsafeFileError";
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
  const h = await open(real!, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
    .catch((e: { code?: string }) => {
      if (e.code === "ELOOP") throw new UnsafeFileError(`${abs} became a symlink`);
      throw e;
    });
  try {
    const st = await h.stat();
    if (!st.isFile()) throw new UnsafeFileError(`${abs} is not a regular file`);
    // A folder on the way swapped for a link after realpath: the handle is another file.
    const again = realPath(real!);
    const now = again === undefined ? undefined : await stat(again).catch(() => undefined);
    if (!inside(again) || !now || now.ino !== st.ino || now.dev !== st.dev) {
      throw new UnsafeFileError(`${abs} changed while it was opened`);
    }
    // A plain Uint8Array, not node's Buffer subclass: pdf.js refuses a Buffer when the
    // extractor runs in this thread (workers: 0).
    const buf = await h.readFile();
    return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
  } finally {
    await h.close();
  }
}
