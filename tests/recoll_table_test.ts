/**
 * The Recoll comparison's table (`bench/recoll.ts`): with several runs of each engine, each
 * figure is the median of its runs and the ratio the ratio of the medians, and each run's
 * wall and CPU time is listed; one run prints the table as before. Footprints are made up
 * here (no engine runs): this tests the arithmetic and the layout, not the measuring.
 */
import { assert, assertEquals } from "./assert.ts";
import { comparisonTable, type EngineRun, type IndexRun } from "../bench/recoll.ts";
import { type CommandFootprint, emptyFootprint } from "../bench/footprint.ts";

const MiB = 2 ** 20;

/** An index run with these wall and CPU seconds, a PSS peak in MiB, and busy seconds. */
function indexRun(seconds: number, cpu: number, pssMiB: number, perSecond: number[]): IndexRun {
  const run: CommandFootprint = {
    ...emptyFootprint(),
    code: 0,
    seconds,
    cpuSeconds: cpu,
    reapedCpuSeconds: cpu,
    orphans: 0,
    stdout: "",
    stderr: "",
    peakTree: (pssMiB + 100) * MiB,
    peakTreePss: pssMiB * MiB,
    peakByName: { "deno@1": pssMiB * MiB, "deno@2": 5 * MiB },
    sampledCpu: cpu,
    cpuPerSecond: perSecond,
  };
  return { run, bytes: pssMiB * MiB / 2 };
}

function engine(runs: IndexRun[], recall5: number): EngineRun {
  return { runs, questions: 40, recall5, mrr: recall5 - 0.1 };
}

/** The table's row named `name`, as its cells. */
function cells(table: string, name: string): string[] {
  const line = table.split("\n").find((l) => l.startsWith(`| ${name} |`));
  assert(line, `no row ${name} in\n${table}`);
  return line.split("|").slice(2, -1).map((x) => x.trim());
}

Deno.test("recoll table: three runs give the median of each figure and the ratio of the medians", () => {
  const table = comparisonTable({
    version: "Recoll 1.34.3",
    // CPU 300, 230, 260 s: the median is 260 (not the mean, 263.3); wall 140, 120, 150 s: the
    // median is the first run's. Each figure's median is taken on its own.
    recoll: engine([
      indexRun(140, 300, 900, [2, 2, 1]),
      indexRun(120, 230, 920, [2, 1, 1]),
      indexRun(150, 260, 910, [0, 0, 2]),
    ], 0.65),
    shelfmark: engine([
      indexRun(280, 420, 570, [2, 2, 2, 0]),
      indexRun(270, 416, 565, [2, 2, 1, 1]),
      indexRun(290, 430, 580, [2, 0, 0, 0]),
    ], 0.9),
  });
  assert(table.startsWith("| Recoll 1.34.3 vs shelfmark (keyword index), median of 3 runs |"));
  assertEquals(cells(table, "index time (wall)"), ["140.0 s", "280.0 s", "2.00"]);
  assertEquals(cells(table, "CPU time, user + system, process tree"), [
    "260.0 s",
    "420.0 s",
    (420 / 260).toFixed(2),
  ]);
  assertEquals(cells(table, "peak memory, process tree (PSS)"), [
    "910.0 MiB",
    "570.0 MiB",
    (570 / 910).toFixed(2),
  ]);
  assertEquals(cells(table, "index on disk")[0], "455.0 MiB");
  assertEquals(cells(table, "largest process (RSS)"), ["910.0 MiB", "570.0 MiB", "0.63"]);
  // Both cores busy: Recoll 2/3, 1/3, 1/3 of the seconds (median 33 %); shelfmark 3/4, 2/4, 1/4.
  assertEquals(cells(table, "seconds with both cores busy (>= 1.5)"), ["33 %", "50 %", "1.50"]);
  // Recall is measured once, not per run.
  assertEquals(cells(table, "Recall@5 (40 dev questions)"), ["0.65", "0.90", "1.38"]);
  const lines = table.split("\n");
  assertEquals(lines.slice(-2), [
    "Recoll runs, wall / CPU: 140.0 / 300.0 s, 120.0 / 230.0 s, 150.0 / 260.0 s",
    "shelfmark runs, wall / CPU: 280.0 / 420.0 s, 270.0 / 416.0 s, 290.0 / 430.0 s",
  ]);
});

Deno.test("recoll table: two runs take the mean of the middle two", () => {
  const table = comparisonTable({
    version: "Recoll 1.34.3",
    recoll: engine([indexRun(100, 200, 900, [1]), indexRun(120, 300, 900, [1])], 0.6),
    shelfmark: engine([indexRun(200, 400, 500, [1]), indexRun(220, 420, 500, [1])], 0.9),
  });
  assertEquals(cells(table, "CPU time, user + system, process tree"), [
    "250.0 s",
    "410.0 s",
    "1.64",
  ]);
  assert(table.includes(", median of 2 runs |"));
});

Deno.test("recoll table: one run prints the table alone, its figures as they are", () => {
  const table = comparisonTable({
    version: "Recoll 1.34.3",
    recoll: engine([indexRun(130.6, 237.4, 915, [2, 1])], 0.65),
    shelfmark: engine([indexRun(273.1, 422.2, 568, [2, 2])], 0.9),
  });
  const lines = table.split("\n");
  assertEquals(
    lines[0],
    "| Recoll 1.34.3 vs shelfmark (keyword index) | Recoll | shelfmark | shelfmark / Recoll |",
  );
  assertEquals(lines.length, 12, "header, rule, ten rows, no run lines");
  assertEquals(cells(table, "index time (wall)"), ["130.6 s", "273.1 s", "2.09"]);
  assertEquals(cells(table, "CPU time, user + system, process tree"), [
    "237.4 s",
    "422.2 s",
    "1.78",
  ]);
  assert(!table.includes("runs, wall / CPU"));
});

Deno.test("recoll table: a skipped comparison says why", () => {
  assertEquals(
    comparisonTable({ skipped: "recollindex is not installed" }),
    "Recoll comparison skipped: recollindex is not installed",
  );
});
