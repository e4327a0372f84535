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

Deno.test("withoutOcrChatter: tesseract's page messages are left out, other lines kept", () => {
  assertEquals(
    withoutOcrChatter(
      "Image too small to scale!! (2x36 vs min width of 3)\nLine cannot be recognized!!\n" +
        "shelfmark: a real warning\nEstimating resolution as 371\n",
    ),
    "shelfmark: a real warning\n",
  );
});
