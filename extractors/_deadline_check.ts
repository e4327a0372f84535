/**
 * Test support: what the extractor tests check about a file cut at its soft deadline
 * before any text (an `input.signal` that reads aborted, as `extraction/host.ts` gives one
 * past 80 % of the CPU limit): the answer is a partial document with a warning, not an
 * `empty` error, so the indexer keeps it as a partial document and retries it with more time.
 *
 * @module
 */
import { extname } from "node:path";
import type { Extracted, Extractor } from "../core/extractor.ts";
import { assert, assertEquals } from "../tests/assert.ts";

/**
 * Extract a file whose soft deadline has passed (by default from the first read of it):
 * asserts that the answer has no line and that its first warning names the time limit.
 *
 * @param extractor the extractor
 * @param path the file's path (its extension is the input's)
 * @param bytes the file
 * @param signal the soft deadline (default: aborted already)
 * @returns the answer, for a test to check more of it
 */
export async function cutBeforeText(
  extractor: Extractor,
  path: string,
  bytes: Uint8Array,
  signal: AbortSignal = AbortSignal.abort(),
): Promise<Extracted> {
  const doc = await extractor.extract({ path, extension: extname(path), bytes, signal });
  assertEquals(doc.lines, []);
  assert(/time limit/.test(doc.warnings?.[0] ?? ""), String(doc.warnings));
  return doc;
}
