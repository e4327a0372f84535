/**
 * Hostile requests, reduced for CI: 200 generated requests over every tool, through the
 * real stdio server and SDK client. Every answer is a result or a structured error with a
 * known code (never INTERNAL, never a stack trace), no request hangs (catastrophic regexes
 * included), answers stay under the size bound, and the server is alive and answering
 * afterwards.
 */
import { join } from "node:path";
import { smallCorpus } from "../corpus.ts";
import { assert, assertEquals } from "../assert.ts";
import { callTool, memoryOf, startStdio, waitReady } from "./_helpers.ts";
import { fuzz, MAX_RESPONSE_BYTES } from "./fuzz.ts";
import { fuzzLibrary, fuzzPools } from "./fuzz_setup.ts";

/** Calls and seed (`FUZZ_RUNS=2000 FUZZ_SEED=7 deno test -A tests/reliability/fuzz_test.ts` fuzzes longer). */
const RUNS = Number(Deno.env.get("FUZZ_RUNS") ?? 200);
const SEED = Number(Deno.env.get("FUZZ_SEED") ?? 424242);

Deno.test({
  name: `hostile requests: ${RUNS} generated calls, structured answers, server stays up`,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const work = await Deno.makeTempDir({ prefix: "shelfmark-fuzz-" });
    const lib = await fuzzLibrary(await smallCorpus(), work, ["markdown", "text"]);
    const s = await startStdio(join(work, "data"), [lib], { extra: ["--no-watch"] });
    try {
      await waitReady(s.client);
      const pools = await fuzzPools(s.client);
      assert(pools.docIds.length > 5, "no documents to fuzz against");
      const r = await fuzz(s.client, s.pid, pools, RUNS, SEED);
      assertEquals(r.failures, []);
      assertEquals(r.cases, RUNS);
      assert(r.ok > 20 && Object.keys(r.errors).length > 1, JSON.stringify(r));
      assert(r.maxBytes <= MAX_RESPONSE_BYTES);
      assert(memoryOf(s.pid) !== undefined, "server process is gone");
      const st = await callTool(s.client, "status", {});
      assert(!st.isError, "status after fuzzing failed");
    } finally {
      await s.close();
      await Deno.remove(work, { recursive: true }).catch(() => {});
    }
  },
});
