/**
 * `deno task stress`: the full reliability runs, with a table at the end.
 *
 * - hostile files: bad-inputs.sh into a temp dir, indexed next to ordinary documents
 * - crash safety: SIGKILL at ~6 points of a full index of a larger corpus, then resume
 * - hostile requests: thousands of generated tool calls over MCP stdio
 * - load: 32 HTTP clients for 60 s while files change and the server re-indexes
 *
 * Options: `--fuzz N` (3000), `--clients N` (32), `--seconds N` (60), `--kills N` (6),
 * `--corpus DIR` (for the crash runs: `$SHELFMARK_CORPUS_FULL`, else `/work/corpus-full`,
 * else the small corpus), `--only hostile,crash,fuzz,load`.
 *
 * @module
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { smallCorpus } from "../tests/corpus.ts";
import { copyLibraries, startStdio, waitReady } from "../tests/reliability/_helpers.ts";
import { crashRun } from "../tests/reliability/crash.ts";
import { fuzz } from "../tests/reliability/fuzz.ts";
import { fuzzLibrary, fuzzPools } from "../tests/reliability/fuzz_setup.ts";
import { buildBadInputs, hostileRun, removeTree } from "../tests/reliability/hostile.ts";
import { loadRun } from "../tests/reliability/load.ts";

const { values: o } = parseArgs({
  args: Deno.args,
  options: {
    fuzz: { type: "string", default: "3000" },
    clients: { type: "string", default: "32" },
    seconds: { type: "string", default: "60" },
    kills: { type: "string", default: "6" },
    corpus: { type: "string" },
    only: { type: "string", default: "hostile,crash,fuzz,load" },
  },
});
const only = new Set(o.only!.split(","));
const rows: [string, string, string][] = [];
const mib = (b: number) => `${(b / 2 ** 20).toFixed(0)} MiB`;
const ms = (x: number) => `${x.toFixed(1)} ms`;
const log = (m: string) => console.error(`[stress] ${m}`);
let failures = 0;
const row = (what: string, result: string, ok: boolean) => {
  rows.push([what, result, ok ? "ok" : "FAIL"]);
  if (!ok) failures++;
};

const small = await smallCorpus();
const root = await Deno.makeTempDir({ prefix: "shelfmark-stress-" });
log(`working in ${root}`);

try {
  if (only.has("hostile")) {
    const work = join(root, "hostile");
    const bad = join(work, "bad");
    const why = await buildBadInputs(bad);
    if (why) row("hostile files", `skipped: ${why}`, true);
    else {
      const good = ["markdown", "html", "text", "word", "ebooks", "pdf-plain", "pdf-manuals"]
        .map((d) => join(small, d));
      const r = await hostileRun(work, bad, good);
      const handled = r.verdicts.filter((v) => v.ok).length;
      for (const v of r.verdicts.filter((x) => !x.ok)) log(`hostile: ${JSON.stringify(v)}`);
      for (const g of r.goodMissing) log(`hostile: ordinary document not indexed: ${g}`);
      for (const c of r.consistency) log(`hostile: ${c}`);
      row(
        "hostile files handled",
        `${handled}/${r.verdicts.length}`,
        handled === r.verdicts.length,
      );
      row(
        "ordinary documents beside them",
        r.goodMissing.length ? `${r.goodMissing.length} missing` : "all indexed",
        !r.goodMissing.length,
      );
      row(
        "hostile: peak memory, largest process / all processes",
        `${mib(r.peakBytes)} / ${mib(r.peakTreeBytes)}`,
        r.peakBytes < 1.5 * 2 ** 30 && r.peakTreeBytes < 1.5 * 2 ** 30,
      );
      row("hostile: extractor that never ends", r.timedOut, r.timedOut.startsWith("timeout:"));
      row("hostile: index wall time", `${(r.elapsedMs / 1000).toFixed(1)} s`, r.exitCode === 0);
      row(
        "hostile: catalog consistent, rerun redoes nothing",
        `${r.consistency.length} problems, ${r.rerun.indexed} redone`,
        !r.consistency.length && !r.rerun.indexed && r.nulTail,
      );
    }
    await removeTree(work);
  }

  if (only.has("crash")) {
    const work = join(root, "crash");
    await Deno.mkdir(join(work, "lib"), { recursive: true });
    const full = o.corpus ?? Deno.env.get("SHELFMARK_CORPUS_FULL") ?? "/work/corpus-full";
    const corpus = existsSync(join(full, "markdown")) ? full : small;
    await copyLibraries(corpus, ["markdown", "text", "word", "ebooks"], join(work, "lib"));
    const n = Number(o.kills);
    const points = Array.from({ length: n }, (_, i) => (i + 1) / (n + 1));
    const modes = points.map((_, i) => (i % 3 === 2 ? "serve" : "index") as "index" | "serve");
    const r = await crashRun({ libs: [join(work, "lib")], work, points, modes, log });
    const survived = r.points.filter((p) => p.killed && !p.problems.length).length;
    const killed = r.points.filter((p) => p.killed).length;
    for (const p of r.points) {
      for (const x of p.problems) log(`crash: after kill at ${p.atKill}: ${x}`);
    }
    for (const x of r.final) log(`crash: final: ${x}`);
    row(
      `kill points survived (${corpus === small ? "small" : "full"} corpus, ${r.reference} docs)`,
      `${survived}/${killed} (${n - killed} finished before the kill)`,
      survived === killed && killed > 0,
    );
    row(
      "crash: resumed run",
      `${r.resumed.unchanged} kept, ${r.resumed.indexed} indexed; ${r.final.length} problems`,
      !r.final.length,
    );
    await Deno.remove(work, { recursive: true }).catch(() => {});
  }

  if (only.has("fuzz")) {
    const work = join(root, "fuzz");
    const lib = await fuzzLibrary(small, work, ["markdown", "text", "html", "word"]);
    const s = await startStdio(join(work, "data"), [lib], { extra: ["--no-watch"] });
    try {
      await waitReady(s.client);
      const pools = await fuzzPools(s.client);
      const r = await fuzz(s.client, s.pid, pools, Number(o.fuzz), 20260508);
      for (const f of r.failures) log(`fuzz: ${f}`);
      const codes = Object.entries(r.errors).map(([k, v]) => `${k} ${v}`).join(", ");
      row(
        "fuzz cases, zero crashes",
        `${r.cases} run, ${r.failures.length} broken`,
        !r.failures.length,
      );
      row("fuzz answers", `${r.ok} results; errors: ${codes}`, true);
      row(
        "fuzz latency p50/p99, largest answer",
        `${ms(r.p50)} / ${ms(r.p99)}, ${(r.maxBytes / 1024).toFixed(0)} KiB`,
        true,
      );
      row("fuzz: peak memory (server)", mib(r.peakRss), r.peakRss < 1.5 * 2 ** 30);
    } finally {
      await s.close();
    }
    await Deno.remove(work, { recursive: true }).catch(() => {});
  }

  if (only.has("load")) {
    const work = join(root, "load");
    const lib = join(work, "lib");
    await Deno.mkdir(lib, { recursive: true });
    await copyLibraries(small, ["markdown", "text", "html"], lib);
    await Deno.writeTextFile(join(lib, "top.md"), "# Top\n\nTouched during the load.\n");
    const r = await loadRun({
      lib,
      data: join(work, "data"),
      clients: Number(o.clients),
      seconds: Number(o.seconds),
      docs: 40,
    });
    for (const p of r.problems) log(`load: ${p}`);
    row(
      `load: ${o.clients} clients x ${o.seconds} s, requests served`,
      `${r.requests} (${
        (r.requests / Number(o.seconds)).toFixed(0)
      }/s), ${r.failed} failed, ${r.wrong} wrong`,
      !r.failed && !r.wrong,
    );
    row("load: latency p50 / p95 / p99", `${ms(r.p50)} / ${ms(r.p95)} / ${ms(r.p99)}`, true);
    row(
      "load: file changes, index runs during load",
      `${r.changes} bursts, ${r.reindexes} runs`,
      r.reindexes > 0,
    );
    row(
      "load: peak memory, server / with child processes",
      `${mib(r.peakRss)} / ${mib(r.peakTreeRss)}`,
      r.peakRss < 1.5 * 2 ** 30,
    );
    await Deno.remove(work, { recursive: true }).catch(() => {});
  }
} finally {
  await removeTree(root);
}

const w = [0, 1, 2].map((i) => Math.max(...rows.map((r) => r[i]!.length), 6));
const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(w[i]!)).join(" | ")} |`;
console.log(line(["check", "result", "status"]));
console.log(`|${w.map((n) => "-".repeat(n + 2)).join("|")}|`);
for (const r of rows) console.log(line(r));
Deno.exit(failures ? 1 : 0);
