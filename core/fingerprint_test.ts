import { readdirSync, readFileSync } from "node:fs";
import { extname, join } from "node:path";
import fc from "fast-check";
import { assert, assertEquals } from "../tests/assert.ts";
import { smallCorpus } from "../tests/corpus.ts";
import { fingerprint, MINHASH_SEEDS, MINHASH_SIZE } from "./fingerprint.ts";

/**
 * The MinHash signature as first written (uint32 arithmetic throughout): stored catalogs
 * hold signatures made so, and new ones must stay comparable with them.
 */
function referenceMinhash(text: string): number[] | undefined {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  if (words.length < 100) return undefined;
  const { a, b } = MINHASH_SEEDS;
  const fnv = (s: string) => {
    let h = 0x811c9dc5;
    for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
    return h >>> 0;
  };
  const min = new Uint32Array(MINHASH_SIZE).fill(0xffffffff);
  const wh = words.slice(0, 20_000).map(fnv);
  for (let i = 0; i + 5 <= wh.length; i++) {
    let h = 0x811c9dc5;
    for (let k = 0; k < 5; k++) h = Math.imul(h ^ wh[i + k]!, 0x01000193) >>> 0;
    if ((h & 3) !== 0) continue;
    for (let j = 0; j < MINHASH_SIZE; j++) {
      const v = (Math.imul(a[j]!, h) + b[j]!) >>> 0;
      if (v < min[j]!) min[j] = v;
    }
  }
  return [...min];
}

Deno.test("fingerprint() gives the signatures of the uint32 MinHash on the small corpus's texts", async () => {
  const root = await smallCorpus();
  let compared = 0;
  for (const dir of ["text", "markdown"]) {
    for (const name of readdirSync(join(root, dir), { recursive: true, encoding: "utf8" })) {
      if (![".txt", ".md"].includes(extname(name))) continue;
      const text = new TextDecoder().decode(readFileSync(join(root, dir, name)));
      // Plain lines without links are read as they are: the reference reads the same words.
      if (text.includes("](") || text.includes("][")) continue;
      const got = fingerprint(text).minhash;
      assertEquals(got && [...got], referenceMinhash(text), name);
      if (got) compared++;
    }
  }
  assert(compared >= 20, `only ${compared} signatures compared`);
});

Deno.test("fingerprint() gives the uint32 MinHash's signatures on random texts past 20,000 words", () => {
  const word = fc.stringMatching(/^[a-zé0-9]{1,9}$/);
  fc.assert(
    fc.property(
      fc.array(word, { minLength: 90, maxLength: 400 }),
      fc.integer({ min: 1, max: 60 }),
      (ws, times) => {
        const text = Array.from({ length: times }, (_, i) => `${ws.join(" ")} r${i}`).join("\n");
        const got = fingerprint(text).minhash;
        assertEquals(got && [...got], referenceMinhash(text));
      },
    ),
    { numRuns: 40 },
  );
});
