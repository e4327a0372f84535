import assert from "node:assert/strict";
import { fastClone } from "./_pdf_port.ts";

Deno.test("fastClone: a text chunk copies like structuredClone, sharing no object", () => {
  const styles = Object.assign(Object.create(null), {
    f1: { fontFamily: "serif", ascent: 0.8, vertical: false },
  });
  const transform = [12, 0, 0, 12, 72, 700];
  const pair = [1, "a"];
  const items = [
    { str: "Steep", dir: "ltr", width: 30.5, height: 12, transform },
    { str: "", hasEOL: true, nothing: null, missing: undefined, nested: [pair, { b: 2 }] },
  ];
  const msg = { chunk: { items, styles }, streamId: 3, bytes: new Uint8Array([1, 2, 3]) };
  const copy = fastClone(msg) as typeof msg;
  assert.deepEqual(copy, structuredClone(msg));
  const [first, second] = copy.chunk.items as unknown as [
    { transform: number[] },
    { nested: unknown[] },
  ];
  assert.notEqual(copy.chunk.items, items);
  assert.notEqual(first.transform, transform);
  assert.notEqual(second.nested[0], pair);
  assert.notEqual(copy.bytes, msg.bytes);
  transform[4] = 0;
  assert.equal(first.transform[4], 72);
});
