/**
 * When the git tools are listed: a library is a git work tree and writing is enabled for it.
 * With writing off, `tools/list` stays as it was (its 5,000-token budget); `history` and
 * `diff` still answer calls there (they only read), and the web page shows history.
 *
 * @module
 */
import type { Shelf } from "../../shelf/shelf.ts";

/** Whether a library is both a git work tree and writable. */
export function gitListed(shelf: Shelf): boolean {
  const writable = shelf.writableLibraries();
  return shelf.gitLibraries().some((l) => writable.includes(l.name));
}
