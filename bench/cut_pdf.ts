/**
 * How much of a large file the extraction pool keeps within its time limit, and the CPU and
 * memory the extraction process spent on it: run it beside a CPU burner (`yes > /dev/null`)
 * to see what a busy machine does to the limit, or alone to see what a large PDF takes.
 *
 * `deno run -A bench/cut_pdf.ts FILE [TIMEOUT_S] [ALLOWANCE]` prints pages kept of pages, the
 * warnings, wall time, the child's CPU (from /proc/<pid>/stat, read just before the
 * answer) and its resident size and PSS before the file and at their peak while it ran
 * (sampled every 20 ms); ALLOWANCE (default 1) multiplies the limit, as a retry of a cut file
 * gets.
 *
 * @module
 */
import { extname } from "node:path";
import { ExtractPool } from "../extraction/pool.ts";
import { pssOf, rssOf } from "./footprint.ts";

const file = Deno.args[0];
if (!file) {
  console.error("usage: deno run -A bench/cut_pdf.ts FILE [TIMEOUT_S] [ALLOWANCE]");
  Deno.exit(2);
}
const timeoutMs = Number(Deno.args[1] ?? 60) * 1000;
const allowance = Number(Deno.args[2] ?? 1);
const pool = new ExtractPool({ workers: 1, timeoutMs, isolation: "process", idleMs: 600_000 });
const bytes = await Deno.readFile(file);
// A first small request starts the process, so its start-up CPU is not counted.
await pool.extract({ path: "x.txt", extension: ".txt", bytes: new TextEncoder().encode("x") });
const pid = pool.pids[0]!;
const ticks = () => {
  const f = Deno.readTextFileSync(`/proc/${pid}/stat`).split(") ")[1]!.split(" ");
  return (Number(f[11]) + Number(f[12])) * 10; // utime + stime, in ms (100 Hz)
};
const mib = (b: number | undefined) => Math.round((b ?? 0) / 2 ** 20);
const before = { rss: mib(rssOf(pid)), pss: mib(pssOf(pid)) };
const peak = { ...before };
const cpu0 = ticks();
const t0 = performance.now();
let cpu = 0;
let samples = 0;
const watch = setInterval(() => {
  if (++samples % 5 === 0) cpu = ticks() - cpu0;
  peak.rss = Math.max(peak.rss, mib(rssOf(pid)));
  peak.pss = Math.max(peak.pss, mib(pssOf(pid)));
}, 20);
try {
  const extension = extname(file).toLowerCase();
  const r = await pool.extract({ path: file, extension, bytes, allowance });
  clearInterval(watch);
  const pages = r?.extracted.pages?.length;
  console.log(JSON.stringify({
    file,
    timeout_s: timeoutMs / 1000,
    allowance,
    pages,
    warnings: r?.extracted.warnings,
    wall_s: +((performance.now() - t0) / 1000).toFixed(1),
    child_cpu_s: +((ticks() - cpu0) / 1000).toFixed(1),
    rss_mib: { before: before.rss, peak: peak.rss },
    pss_mib: { before: before.pss, peak: peak.pss },
  }));
} catch (e) {
  clearInterval(watch);
  console.log(JSON.stringify({
    file,
    error: String(e),
    wall_s: +((performance.now() - t0) / 1000).toFixed(1),
    child_cpu_s_at_least: +(cpu / 1000).toFixed(1),
  }));
} finally {
  pool.close();
}
