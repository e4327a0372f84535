import fc from "fast-check";
import { assert, assertEquals } from "../tests/assert.ts";
import { encodeFrame, FrameReader, withoutOcrChatter } from "./proc_channel.ts";

Deno.test("FrameReader: frames split anywhere, stray bytes skipped, oversized frames refused", () => {
  const a = encodeFrame({ id: 1, text: "é" }, new Uint8Array([1, 2, 3]));
  const b = encodeFrame({ id: 2 });
  const stray = new TextEncoder().encode("Warning: noise\n");
  const all = new Uint8Array([...stray, ...a, ...stray, ...b]);
  for (const cut of [1, 5, 13, 40, all.length]) {
    const r = new FrameReader();
    const got = [];
    for (let i = 0; i < all.length; i += cut) got.push(...r.push(all.subarray(i, i + cut)));
    assertEquals(got.map((f) => f.msg), [{ id: 1, text: "é" }, { id: 2 }]);
    assertEquals([...got[0]!.bin], [1, 2, 3]);
  }
  const big = encodeFrame({ s: "x".repeat(100) });
  let thrown: unknown;
  try {
    new FrameReader(50).push(big);
  } catch (e) {
    thrown = e;
  }
  assert(thrown instanceof RangeError);
});

const MiB = 1 << 20;

/** `n` bytes of a pattern that differs from frame to frame. */
function pattern(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let j = 0; j < n; j++) out[j] = (j * 31 + seed * 7) & 255;
  return out;
}

/** Where two byte arrays first differ, or -1 when they are the same. */
function firstDifference(a: Uint8Array, b: Uint8Array): number {
  if (a.length !== b.length) return Math.min(a.length, b.length);
  for (let j = 0; j < a.length; j++) if (a[j] !== b[j]) return j;
  return -1;
}

Deno.test("FrameReader: frames of every size arrive whole, whatever the chunks", () => {
  // around the first room (64 KiB), the room kept (1 MiB), and well past it
  const sizes = [0, 1, 1000, 65_524, 65_536, 65_537, MiB - 12, MiB, MiB + 1, 3 * MiB];
  fc.assert(
    fc.property(
      fc.array(fc.constantFrom(...sizes), { minLength: 1, maxLength: 6 }),
      fc.array(fc.integer({ min: 500, max: 400_000 }), { minLength: 1, maxLength: 8 }),
      (lengths, cuts) => {
        const frames = lengths.map((n, i) => encodeFrame({ id: i }, pattern(n, i)));
        const stream = new Uint8Array(frames.reduce((t, f) => t + f.length, 0));
        frames.reduce((at, f) => (stream.set(f, at), at + f.length), 0);
        const r = new FrameReader();
        const got = [];
        for (let at = 0, k = 0; at < stream.length; k++) {
          const end = Math.min(stream.length, at + cuts[k % cuts.length]!);
          got.push(...r.push(stream.subarray(at, end)));
          at = end;
        }
        assertEquals(got.map((f) => f.msg), lengths.map((_, i) => ({ id: i })));
        got.forEach((f, i) => assertEquals(firstDifference(f.bin, pattern(lengths[i]!, i)), -1));
      },
    ),
    { numRuns: 60 },
  );
});

Deno.test("withoutOcrChatter: tesseract's page messages are left out, other lines kept", () => {
  assertEquals(
    withoutOcrChatter(
      "Image too small to scale!! (2x36 vs min width of 3)\nLine cannot be recognized!!\n" +
        "shelfmark: a real warning\nEstimating resolution as 371\n",
    ),
    "shelfmark: a real warning\n",
  );
});
