import assert from "node:assert/strict";
import { fastClone, fastPorts } from "./_pdf_port.ts";

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

Deno.test("FastPort hands text content chunks over uncopied, other streams copied", async () => {
  const [main, worker] = fastPorts();
  const got: { stream?: number; chunk?: { items: unknown[]; styles: unknown } }[] = [];
  main.addEventListener("message", (e) => got.push(e.data as (typeof got)[number]));
  worker.addEventListener("message", () => {});
  const ask = (action: string, streamId: number) =>
    main.postMessage({ sourceName: "d1", targetName: "d1_worker", action, streamId, data: {} });
  const send = (streamId: number, stream: number, chunk?: unknown) =>
    worker.postMessage({ sourceName: "d1_worker", targetName: "d1", stream, streamId, chunk });
  ask("GetTextContent", 0);
  ask("GetOperatorList", 1);
  const text = { items: [{ str: "Steep", transform: [1, 0, 0, 1, 2, 3] }], styles: {} };
  const ops = { items: [[1, 2]], styles: {} };
  const sent = text.items;
  send(0, 4, text);
  send(1, 4, ops);
  // pdf.js swaps the chunk's fields after sending it: the receiver keeps what was sent.
  text.items = [];
  send(0, 3);
  send(0, 4, { items: text.items, styles: {} });
  await Promise.resolve();
  await new Promise((r) => setTimeout(r, 0));
  assert.equal(got.length, 4);
  const [first, second, , after] = got;
  assert.equal(first!.chunk!.items, sent, "the text chunk's items are handed over");
  assert.equal(first!.chunk!.items.length, 1);
  assert.notEqual(second!.chunk!.items, ops.items, "another stream's chunk is copied");
  assert.deepEqual(second!.chunk, ops);
  assert.notEqual(after!.chunk!.items, text.items, "after CLOSE the stream is copied again");
});
