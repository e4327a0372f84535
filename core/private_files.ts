/**
 * The data folder holds the text of every document: it is made readable by its owner
 * only (folder 0700, catalog files 0600), whatever the umask, and tightened when an
 * older version left it open. No-ops on Windows, where modes do not apply.
 *
 * @module
 */
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from "node:fs";

const POSIX = Deno.build.os !== "windows";

/**
 * Create `dir` (and its parents) if missing, and make it the owner's alone (0700).
 *
 * @param dir the folder
 */
export function makePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (POSIX) chmodSync(dir, 0o700);
}

/**
 * Create `file` empty if missing, and make it and its SQLite companions (`-wal`, `-shm`,
 * which SQLite creates with the mode of the database file) the owner's alone (0600).
 *
 * @param file the database file
 */
export function makePrivateFile(file: string): void {
  if (!POSIX) return;
  closeSync(openSync(file, "a", 0o600));
  for (const f of [file, `${file}-wal`, `${file}-shm`]) {
    if (existsSync(f)) chmodSync(f, 0o600);
  }
}
