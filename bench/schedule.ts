/**
 * Sums up the per-second scheduling log of an index run (`SHELFMARK_SCHED_LOG`, see
 * `shelf/sched_log.ts`): the seconds with 1, 2, 3 files in flight and with a large file in
 * flight, the tail (the seconds at the end with no smaller file in flight: large files run
 * one after another with nothing beside them), what the run waited for
 * (seconds by reason: `files`, `memory`, `large`, `bytes`, `alone`), the CPU seconds of the
 * index process and of the extraction processes, and the seconds in which 0, 1 or 2+ of
 * the processes used at least half a core.
 *
 * ```
 * SHELFMARK_SCHED_LOG=/tmp/s.log deno run -A server/cli.ts index LIBS --data D -q
 * deno run -A bench/schedule.ts /tmp/s.log
 * ```
 *
 * Not a test: numbers, not assertions.
 *
 * @module
 */

/** One second of the log. */
interface Second {
  inflight: number;
  /** Large files in flight (logs from before it was kept lack it). */
  large?: number;
  /** 1 when a smaller file was in flight at any time in the second. */
  small?: number;
  waits: Record<string, number>;
  cpu: Record<string, number>;
}

/** The summary of a log's seconds, as text lines. */
export function summary(seconds: Second[]): string[] {
  const inflight = new Map<number, number>();
  const waits: Record<string, number> = {};
  const busy = [0, 0, 0];
  let own = 0;
  let children = 0;
  for (const s of seconds) {
    inflight.set(s.inflight, (inflight.get(s.inflight) ?? 0) + 1);
    for (const [k, v] of Object.entries(s.waits)) waits[k] = (waits[k] ?? 0) + v / 1000;
    let n = 0;
    for (const [pid, c] of Object.entries(s.cpu)) {
      if (pid === "self") own += c;
      else children += c;
      if (c >= 0.5) n++;
    }
    busy[Math.min(2, n)]!++;
  }
  const pct = (n: number) => `${Math.round((100 * n) / Math.max(1, seconds.length))} %`;
  const kept = seconds.some((s) => s.small !== undefined);
  let tail = 0;
  while (tail < seconds.length && seconds[seconds.length - 1 - tail]!.small === 0) tail++;
  const large = seconds.filter((s) => (s.large ?? 0) > 0).length;
  return [
    `seconds: ${seconds.length}`,
    `files in flight (share of seconds): ${
      [...inflight].sort(([a], [b]) => a - b).map(([k, v]) => `${k}: ${pct(v)}`).join(", ")
    }`,
    kept
      ? `large file in flight: ${pct(large)} of seconds; tail with no smaller file: ${tail} s`
      : "large files: not in this log",
    `waited for (s): ${
      Object.entries(waits).map(([k, v]) => `${k} ${v.toFixed(1)}`).join(", ") || "nothing"
    }`,
    `CPU (s): index process ${own.toFixed(1)}, extraction processes ${children.toFixed(1)}`,
    `seconds with 0 / 1 / 2+ processes at >= 0.5 core: ${busy.map(pct).join(" / ")}`,
  ];
}

if (import.meta.main) {
  const path = Deno.args[0];
  if (!path) {
    console.error("usage: deno run -A bench/schedule.ts SCHED_LOG");
    Deno.exit(2);
  }
  const seconds = Deno.readTextFileSync(path).split("\n").filter(Boolean)
    .map((l) => JSON.parse(l) as Second);
  for (const line of summary(seconds)) console.log(line);
}
