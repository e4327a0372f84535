import v8 from "node:v8";
import { assert, assertEquals } from "../tests/assert.ts";
import { fullCollection, HeapTrimmer } from "./heap.ts";

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
