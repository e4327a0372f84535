/**
 * Embedding runs at a lower CPU priority than the rest of the process: the built-in
 * embedder's worker thread (the real Universal Sentence Encoder) shows niceness 10 in
 * `/proc`, the main thread keeps its own. Linux only (per-thread niceness, `/proc`).
 */
import os from "node:os";
import { assert, assertEquals } from "../tests/assert.ts";
import { UseEmbedder } from "./use.ts";
import { EMBED_NICE } from "./priority.ts";

/** Niceness of every thread of this process, from `/proc/self/task/<tid>/stat`. */
function threadNiceness(): number[] {
  const out: number[] = [];
  for (const t of Deno.readDirSync("/proc/self/task")) {
    const stat = Deno.readTextFileSync(`/proc/self/task/${t.name}/stat`);
    // Fields after the command name: state is field 3, nice is field 19.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    out.push(Number(fields[16]));
  }
  return out;
}

Deno.test({
  name: "the built-in embedder computes vectors in a thread at lower priority",
  // Linux only; a test run already at niceness 10 or more has nothing to lower.
  ignore: Deno.build.os !== "linux" || os.getPriority(0) >= EMBED_NICE,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const before = os.getPriority(0);
    assert(!threadNiceness().includes(EMBED_NICE), "no lowered thread before");
    const e = new UseEmbedder();
    try {
      const [v] = await e.embed(["a sentence to embed"], "document");
      assertEquals(v?.length, 512);
      assert(threadNiceness().includes(EMBED_NICE), `threads: ${threadNiceness()}`);
      assertEquals(os.getPriority(0), before, "the main thread keeps its priority");
    } finally {
      e.close();
    }
  },
});
