/**
 * Hostile requests to the git tools (`history`, `diff`, `sync`), generated from their
 * schemas, through the real stdio server, on a library that is a git clone of a local bare
 * repository: every answer is a result or a structured error with a known code, and the
 * repository is left as it was (clean work tree, no commit made, nothing written outside).
 */
import { join } from "node:path";
import { smallCorpus } from "../corpus.ts";
import { assert, assertEquals } from "../assert.ts";
import { callTool, startStdio, waitReady } from "./_helpers.ts";
import { fuzz } from "./fuzz.ts";
import { fuzzLibrary, fuzzPools } from "./fuzz_setup.ts";
import { git } from "../../shelf/git.ts";

const RUNS = Number(Deno.env.get("FUZZ_RUNS") ?? 120);
const SEED = Number(Deno.env.get("FUZZ_SEED") ?? 31);

Deno.test({
  name: `git tools: ${RUNS} generated calls, structured answers, repository unharmed`,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const work = await Deno.makeTempDir({ prefix: "shelfmark-gitfuzz-" });
    const lib = await fuzzLibrary(await smallCorpus(), work, ["markdown"]);
    const remote = join(work, "remote.git");
    await git(work, ["init", "-q", "--bare", "-b", "main", remote]);
    await git(lib, ["init", "-q", "-b", "main"]);
    await git(lib, ["config", "user.name", "Fuzz"]);
    await git(lib, ["config", "user.email", "fuzz@example.org"]);
    await git(lib, ["add", "-A"]);
    await git(lib, ["commit", "-q", "-m", "corpus"]);
    await git(lib, ["remote", "add", "origin", remote]);
    await git(lib, ["push", "-q", "-u", "origin", "main"]);
    const head = (await git(lib, ["rev-parse", "HEAD"])).trim();
    // Writing on, so that sync (a write) runs for real against the bare remote.
    await Deno.mkdir(join(work, "data"));
    await Deno.writeTextFile(
      join(work, "data", "shelfmark.json"),
      JSON.stringify({ libraries: [{ name: "lib", path: lib, write: true }] }),
    );
    const s = await startStdio(join(work, "data"), [lib], { extra: ["--no-watch"] });
    try {
      await waitReady(s.client);
      const pools = await fuzzPools(s.client);
      const r = await fuzz(s.client, s.pid, pools, RUNS, SEED, ["history", "diff", "sync"]);
      assertEquals(r.failures, []);
      assert(r.ok > 10 && Object.keys(r.errors).length > 1, JSON.stringify(r));
      const synced = await callTool(s.client, "sync", { output_format: "json" });
      assertEquals(synced.structuredContent?.action, "up_to_date");
      assertEquals((await git(lib, ["rev-parse", "HEAD"])).trim(), head);
      assertEquals((await git(lib, ["status", "--porcelain"])).trim(), "");
      const st = await callTool(s.client, "history", { limit: 1 });
      assert(!st.isError, "history after fuzzing failed");
    } finally {
      await s.close();
      await Deno.remove(work, { recursive: true }).catch(() => {});
    }
  },
});
