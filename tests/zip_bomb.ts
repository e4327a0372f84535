/**
 * A zip bomb for the extractors' tests: one entry that inflates to `mb` MB of spaces,
 * built in 1 MB chunks (a few hundred KB on disk).
 *
 * @module
 */
import { Zip, ZipDeflate } from "fflate";

/** A zip whose entry `name` (e.g. `word/document.xml`) inflates to `mb` MB. */
export function zipBomb(name: string, mb: number): Uint8Array {
  const parts: Uint8Array[] = [];
  const zip = new Zip((err, chunk) => {
    if (err) throw err;
    parts.push(chunk);
  });
  const entry = new ZipDeflate(name, { level: 9 });
  zip.add(entry);
  const chunk = new Uint8Array(1 << 20).fill(0x20);
  for (let i = 0; i < mb; i++) entry.push(chunk, i === mb - 1);
  zip.end();
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
