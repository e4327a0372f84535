/**
 * A per-second log of an index run's scheduling, for measuring why cores idle: when the
 * environment variable `SHELFMARK_SCHED_LOG` names a file, each second appends one line of
 * JSON with the files in flight, of them the large ones (see `Room`), whether a smaller
 * file was in flight at any time in the second, how long the run waited for room and why
 * (see `Room.why`), and the CPU seconds of this process and of each of its child processes
 * (Linux `/proc`). Off (and free) otherwise.
 *
 * @module
 */

/** CPU seconds (user + system) of a process from `/proc/<pid>/stat`, or undefined. */
function cpuOf(pid: number | "self"): number | undefined {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return undefined;
  }
}

/** Own (anonymous) and file-backed resident MiB and PSS MiB of a process, or undefined. */
function memOf(pid: number | "self"): string | undefined {
  try {
    const st = Deno.readTextFileSync(`/proc/${pid}/status`);
    const pss = /\nPss:\s+(\d+)/.exec(Deno.readTextFileSync(`/proc/${pid}/smaps_rollup`));
    const kb = (re: RegExp) => Math.round(Number(re.exec(st)?.[1] ?? 0) / 1024);
    return `${kb(/RssAnon:\s+(\d+)/)}/${kb(/RssFile:\s+(\d+)/)}/${
      Math.round(Number(pss?.[1] ?? 0) / 1024)
    }`;
  } catch {
    return undefined;
  }
}

/** Child process ids of this process (all its threads'). */
function children(): number[] {
  try {
    const out: number[] = [];
    for (const t of Deno.readDirSync("/proc/self/task")) {
      const s = Deno.readTextFileSync(`/proc/self/task/${t.name}/children`).trim();
      if (s) out.push(...s.split(" ").map(Number));
    }
    return out;
  } catch {
    return [];
  }
}

/** The scheduling log of one run (see the module doc). */
export class SchedLog {
  readonly #path: string;
  readonly #timer: number;
  readonly #start = performance.now();
  #waits: Record<string, number> = {};
  #cpu = new Map<number | "self", number>();
  #started = 0;
  #done = 0;
  /** Large files in flight (see `Room`), and the others. */
  #large = 0;
  #small = 0;
  /** A smaller file was in flight in this second. */
  #smallRan = false;

  /** A log appended to `path` each second; {@link SchedLog.close} stops it. */
  constructor(path: string, inflight: () => number) {
    this.#path = path;
    this.#timer = setInterval(() => this.#line(inflight()), 1000) as unknown as number;
    Deno.unrefTimer(this.#timer);
  }

  /** The log the environment asks for, or undefined. */
  static fromEnv(inflight: () => number): SchedLog | undefined {
    let path: string | undefined;
    try {
      path = Deno.env.get("SHELFMARK_SCHED_LOG");
    } catch {
      return undefined;
    }
    return path ? new SchedLog(path, inflight) : undefined;
  }

  /** The run waited `ms` for room, for this reason. */
  waited(reason: string, ms: number): void {
    this.#waits[reason] = (this.#waits[reason] ?? 0) + ms;
  }

  /** A file started (a large one, see `Room`). */
  started(large = false): void {
    this.#started++;
    if (large) this.#large++;
    else {
      this.#small++;
      this.#smallRan = true;
    }
  }

  /** A file finished (a large one). */
  finished(large = false): void {
    this.#done++;
    if (large) this.#large--;
    else this.#small--;
  }

  #line(inflight: number): void {
    const cpu: Record<string, number> = {};
    const mem: Record<string, string | undefined> = {};
    for (const pid of ["self" as const, ...children()]) {
      mem[String(pid)] = memOf(pid);
      const now = cpuOf(pid);
      if (now === undefined) continue;
      cpu[String(pid)] = Math.round((now - (this.#cpu.get(pid) ?? now)) * 100) / 100;
      this.#cpu.set(pid, now);
    }
    const line = {
      t: Math.round((performance.now() - this.#start) / 1000),
      inflight,
      large: this.#large,
      small: this.#smallRan || this.#small > 0 ? 1 : 0,
      started: this.#started,
      done: this.#done,
      waits: Object.fromEntries(Object.entries(this.#waits).map(([k, v]) => [k, Math.round(v)])),
      cpu,
      mem,
    };
    this.#waits = {};
    this.#started = this.#done = 0;
    this.#smallRan = false;
    Deno.writeTextFileSync(this.#path, JSON.stringify(line) + "\n", { append: true });
  }

  /** Stop logging. */
  close(): void {
    clearInterval(this.#timer);
  }
}
