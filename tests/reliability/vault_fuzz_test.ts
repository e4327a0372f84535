/**
 * The write tools fuzzed from their schemas with writing enabled (`serve --write lib`):
 * every answer is a result or a structured error with a known code, the server stays up,
 * and nothing outside the writable library changes — not through `..`, absolute or encoded
 * paths, a symlink to a folder outside, or the read-only library beside it.
 */
import { join } from "node:path";
import { smallCorpus } from "../corpus.ts";
import { assert, assertEquals } from "../assert.ts";
import fc from "fast-check";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  callTool,
  diffSnapshots,
  ERROR_CODES,
  errorOf,
  memoryOf,
  snapshot,
  startStdio,
  waitReady,
} from "./_helpers.ts";
import { fuzz, MAX_RESPONSE_BYTES } from "./fuzz.ts";
import { fuzzLibrary, fuzzPools } from "./fuzz_setup.ts";

/** Schema-valid write calls on files drawn from `paths`; counts successes and bad answers. */
async function plausibleCalls(client: Client, paths: string[], runs: number) {
  const path = fc.constantFrom(...paths.filter((p) => p.includes("/")), "lib/new/a.md");
  const text = fc.string({ maxLength: 200, unit: "grapheme" });
  const call = fc.oneof(
    fc.record({ path, text }).map((a) => ["write", a] as const),
    fc.record({
      path,
      old_text: fc.constantFrom("the", "a", "Evil", " ", "\u201cthe\u201d", "# "),
      new_text: text,
    }).map((a) => ["edit", a] as const),
    fc.record({
      path,
      start_line: fc.integer({ min: 1, max: 30 }),
      end_line: fc.integer({ min: 1, max: 40 }),
      new_text: text,
    }).map((a) => ["edit", a] as const),
    fc.record({ from: path, to: path }).map((a) => ["move", a] as const),
    fc.record({ path }).map((a) => ["delete", a] as const),
  );
  let ok = 0;
  const failures: string[] = [];
  for (const [tool, args] of fc.sample(call, { numRuns: runs, seed: SEED })) {
    const r = await callTool(client, tool, args);
    if (!r.isError) ok++;
    else if (!ERROR_CODES.has(errorOf(r).code)) {
      failures.push(`${tool} ${JSON.stringify(args)}: ${r.content[0]?.text}`);
    }
  }
  return { ok, failures };
}

const RUNS = Number(Deno.env.get("FUZZ_RUNS") ?? 150);
const SEED = Number(Deno.env.get("FUZZ_SEED") ?? 31);

Deno.test({
  name: `write tools: ${RUNS} generated calls with writing on, nothing changes outside the library`,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const work = await Deno.realPath(await Deno.makeTempDir({ prefix: "shelfmark-vfuzz-" }));
    try {
      const lib = await fuzzLibrary(await smallCorpus(), work, ["markdown"]);
      const outside = join(work, "outside");
      const ro = join(work, "ro");
      await Deno.mkdir(outside);
      await Deno.mkdir(ro);
      await Deno.writeTextFile(join(outside, "secret.md"), "# Secret\n\nthe secret.\n");
      await Deno.writeTextFile(join(ro, "kept.md"), "# Kept\n\nthe kept note.\n");
      await Deno.symlink(outside, join(lib, "escape"));
      await Deno.symlink(join(outside, "secret.md"), join(lib, "secret-link.md"));
      const before = await snapshot(outside);
      const roBefore = await snapshot(ro);
      const s = await startStdio(join(work, "data"), [lib, ro], {
        extra: ["--no-watch", "--write", "lib"],
      });
      try {
        await waitReady(s.client);
        const pools = await fuzzPools(s.client);
        pools.paths = [
          "lib/escape/x.md",
          "lib/escape/secret.md",
          "lib/secret-link.md",
          "lib/evil.txt",
          "lib/new/note.md",
          "lib/.git/config",
          "ro/kept.md",
          "ro/new.md",
          `${outside}/secret.md`,
          `${lib}/abs.md`,
          "lib/" + "n".repeat(300) + ".md",
        ];
        const tools = ["write", "edit", "move", "delete", "read", "search"] as const;
        const r = await fuzz(s.client, s.pid, pools, RUNS, SEED, tools);
        assertEquals(r.failures, []);
        assertEquals(r.cases, RUNS);
        assert(Object.keys(r.errors).length > 2, JSON.stringify(r));
        assert(r.maxBytes <= MAX_RESPONSE_BYTES);
        // Schema-valid calls on plausible files (most of the generated ones above fail
        // validation): they succeed or fail with a known code, and stay inside.
        const done = await plausibleCalls(s.client, [...pools.paths, ...pools.docIds], RUNS);
        assertEquals(done.failures, []);
        assert(done.ok > 10, JSON.stringify(done));
        assert(memoryOf(s.pid) !== undefined, "server process is gone");
        const st = await callTool(s.client, "status", {});
        assert(!st.isError, "status after fuzzing failed");
      } finally {
        await s.close();
      }
      assertEquals(diffSnapshots(before, await snapshot(outside)), []);
      assertEquals(diffSnapshots(roBefore, await snapshot(ro)), []);
    } finally {
      await Deno.remove(work, { recursive: true }).catch(() => {});
    }
  },
});
