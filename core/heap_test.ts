import v8 from "node:v8";
import { assert, assertEquals } from "../tests/assert.ts";
import { collectIfOver, fullCollection, HeapTrimmer } from "./heap.ts";

/** About `mb` MB of small strings, held until the caller drops them. */
function hold(mb: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < mb * 10_000; i++) out.push(`${i} some text to hold on to`.repeat(2));
  return out;
}

Deno.test("fullCollection gives V8's gc()", () => {
  const gc = fullCollection();
  assert(gc, "gc() is reachable");
  gc();
  assertEquals(fullCollection(), gc);
});

Deno.test("HeapTrimmer collects once the heap grew past its threshold, and only then", () => {
  const trimmer = new HeapTrimmer({ growthMb: 16, floorMb: 0 });
  assertEquals(new HeapTrimmer({ growthMb: 1 << 20 }).trim(), false, "far from its threshold");
  trimmer.trim(); // the live size after a collection
  let held: string[] | undefined = hold(60);
  const grown = v8.getHeapStatistics().total_heap_size;
  assert(held.length > 0);
  held = undefined; // now garbage
  assertEquals(trimmer.trim(), true, "grew by more than 16 MB");
  assert(v8.getHeapStatistics().total_heap_size < grown - 16 * 2 ** 20, "the heap shrank");
  assertEquals(trimmer.trim(), false, "nothing grew since");
});

Deno.test("collectIfOver gives a large heap's garbage back, and leaves a small heap alone", () => {
  collectIfOver(0); // whatever earlier tests left
  const small = v8.getHeapStatistics().total_heap_size;
  let held: string[] | undefined = hold(60);
  const grown = v8.getHeapStatistics().total_heap_size;
  assert(held.length > 0 && grown > small + 32 * 2 ** 20, "the heap grew");
  held = undefined; // now garbage
  assertEquals(collectIfOver(grown / 2 ** 20 + 64), false, "under its threshold");
  assert(v8.getHeapStatistics().total_heap_size >= grown - 2 ** 20, "nothing collected");
  assertEquals(collectIfOver(small / 2 ** 20), true, "over its threshold");
  assert(v8.getHeapStatistics().total_heap_size < grown - 32 * 2 ** 20, "the heap shrank");
});
