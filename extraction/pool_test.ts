import { join } from "node:path";
import { assert, assertEquals, assertRejects } from "../tests/assert.ts";
import { ExtractPool, type PoolOptions } from "./pool.ts";
import { ExtractError } from "../core/extractor.ts";

const enc = new TextEncoder();

Deno.test("ExtractPool extracts in workers and stops a file that runs past its time limit", async () => {
  const dir = await Deno.makeTempDir();
  const plugin = join(dir, "spin.ts");
  // A hostile extractor: never returns for `.spin` files.
  await Deno.writeTextFile(
    plugin,
    `export default { name: "spin", extensions: [".spin"], extract() { while (true) {} } };`,
  );
  const pool = new ExtractPool({ workers: 2, timeoutMs: 500, wallMs: 500, plugins: [plugin] });
  // The files that should succeed get 40x the limits (20 s): the first file of a format in a
  // fresh worker loads its extractor's modules, which on a loaded machine can pass 500 ms.
  const roomy = 40;
  try {
    const md = await pool.extract({
      path: "l/a.md",
      extension: ".md",
      bytes: enc.encode("# Hi\n\nText.\n"),
      allowance: roomy,
    });
    assertEquals(md?.extractor, "markdown");
    assertEquals(md?.extracted.headings?.[0]?.title, "Hi");

    const err = await assertRejects(() =>
      pool.extract({ path: "l/x.spin", extension: ".spin", bytes: enc.encode("x") })
    );
    assert(err instanceof ExtractError);
    assertEquals((err as ExtractError).reason, "timeout");
    assertEquals(err.message, "extraction ran longer than 500 ms");
    // A file given twice the time is stopped at twice the wall limit.
    const err2 = await assertRejects(() =>
      pool.extract({ path: "l/x.spin", extension: ".spin", bytes: enc.encode("x"), allowance: 2 })
    );
    assertEquals(err2.message, "extraction ran longer than 1000 ms");

    // The pool replaced the worker and goes on.
    const txt = await pool.extract({
      path: "l/b.txt",
      extension: ".txt",
      bytes: enc.encode("plain words\n"),
      allowance: roomy,
    });
    assertEquals(txt?.extracted.lines, ["plain words"]);

    const none = await pool.extract({
      path: "l/c.xyz",
      extension: ".xyz",
      bytes: new Uint8Array([0, 1, 2]),
      allowance: roomy,
    });
    assertEquals(none, undefined);
  } finally {
    pool.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("ExtractPool reports an extractor's own refusal with its reason", async () => {
  const pool = new ExtractPool({ workers: 1 });
  try {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
    const err = await assertRejects(() =>
      pool.extract({ path: "l/fake.txt", extension: ".txt", bytes: png })
    );
    assertEquals((err as ExtractError).reason, "binary");
  } finally {
    pool.close();
  }
});

Deno.test("ExtractPool bounds a worker's memory: typed arrays and JS heap, then goes on", async () => {
  const dir = await Deno.makeTempDir();
  const plugin = join(dir, "hog.ts");
  // Hostile extractors: `.buf` fills typed arrays (outside the JS heap), `.heap` fills the heap.
  await Deno.writeTextFile(
    plugin,
    `export default { name: "hog", extensions: [".buf", ".heap"], async extract(input) {
      const keep = [];
      for (let i = 0; i < 40; i++) {
        if (input.extension === ".buf") keep.push(new Uint8Array(64 * 1024 * 1024).fill(1));
        else for (let j = 0; j < 1e6; j++) keep.push({ i, j, s: "x" + j });
        await new Promise((r) => setTimeout(r, 20));
      }
      return { lines: [String(keep.length)] };
    } };`,
  );
  // Only processes have a memory bound (threads have none): ask for them, so a machine
  // where they cannot run fails here with the reason instead of passing untested.
  const pool = new ExtractPool({
    workers: 1,
    timeoutMs: 60_000,
    memoryMb: 400,
    plugins: [plugin],
    isolation: "process",
  });
  try {
    assertEquals(pool.isolation, "process");
    for (const ext of [".buf", ".heap"]) {
      const err = await assertRejects(() =>
        pool.extract({ path: `l/x${ext}`, extension: ext, bytes: enc.encode("x") })
      );
      assert(err instanceof ExtractError, String(err));
      assertEquals((err as ExtractError).reason, "out_of_memory", (err as Error).message);
    }
    const md = await pool.extract({
      path: "l/a.md",
      extension: ".md",
      bytes: enc.encode("# Hi\n"),
    });
    assertEquals(md?.extracted.headings?.[0]?.title, "Hi");
  } finally {
    pool.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("ExtractPool in threads keeps its time limit", async () => {
  const pool = new ExtractPool({ workers: 1, isolation: "thread" });
  try {
    assertEquals(pool.isolation, "thread");
    const txt = await pool.extract({
      path: "l/b.txt",
      extension: ".txt",
      bytes: enc.encode("a\n"),
    });
    assertEquals(txt?.extracted.lines, ["a"]);
  } finally {
    pool.close();
  }
});

Deno.test("ExtractPool gives up after three workers die before they are ready", async () => {
  const dir = await Deno.makeTempDir();
  const plugin = join(dir, "die.ts");
  // Kills its worker (process, or thread) while the worker loads its extractors.
  await Deno.writeTextFile(plugin, `Deno.exit(3);\nexport default {};`);
  const pool = new ExtractPool({ workers: 1, plugins: [plugin] });
  try {
    const err = await assertRejects(() =>
      pool.extract({ path: "l/a.txt", extension: ".txt", bytes: enc.encode("a\n") })
    );
    assertEquals((err as ExtractError).reason, "crashed");
    const again = await assertRejects(() =>
      pool.extract({ path: "l/b.txt", extension: ".txt", bytes: enc.encode("b\n") })
    );
    assert(/fail to start/.test((again as Error).message), (again as Error).message);
  } finally {
    pool.close();
    await Deno.remove(dir, { recursive: true });
  }
});

/** Whether a process is running (not gone, not a zombie waiting to be reaped). */
function running(pid: number): boolean {
  try {
    return !/^State:\s+Z/m.test(Deno.readTextFileSync(`/proc/${pid}/status`));
  } catch {
    return false;
  }
}

/** Wait (at most ~30 s, polling) until `done` holds; returns whether it did. */
async function eventually(done: () => boolean): Promise<boolean> {
  for (let i = 0; i < 300 && !done(); i++) await new Promise((r) => setTimeout(r, 100));
  return done();
}

Deno.test({
  name: "ExtractPool processes run without Turbofan, exit when the queue is empty and come back",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    const pool = new ExtractPool({ workers: 2, isolation: "process", idleMs: 200 });
    try {
      const files = ["a", "b", "c"].map((n) => ({
        path: `l/${n}.md`,
        extension: ".md",
        bytes: enc.encode(`# ${n}\n\nText ${n}.\n`),
      }));
      const first = await Promise.all(files.map((f) => pool.extract(f)));
      assertEquals(first.map((r) => r?.extracted.headings?.[0]?.title), ["a", "b", "c"]);
      const pids = pool.pids;
      assert(pids.length >= 1 && pids.length <= 2, `${pids}`);
      assert(pids.every(running));
      // Their JavaScript tiers up to Maglev, not Turbofan (`CHILD_V8` of `proc_channel.ts`).
      for (const pid of pids) {
        const args = Deno.readTextFileSync(`/proc/${pid}/cmdline`).split("\0");
        assert(args.some((a) => a.startsWith("--v8-flags=") && a.includes("--no-turbofan")));
      }
      // Nothing left to do: every process leaves, and is reaped.
      assert(await eventually(() => pool.workers === 0 && pool.pids.length === 0), "still running");
      assert(await eventually(() => !pids.some(running)), `${pids} still running`);
      // New work starts a new process.
      const again = await pool.extract(files[0]!);
      assertEquals(again?.extracted.headings?.[0]?.title, "a");
      assertEquals(pool.pids.length, 1);
      assert(!pids.includes(pool.pids[0]!));
    } finally {
      pool.close();
    }
  },
});

Deno.test({
  name: "ExtractPool replaces a process that grew past recycleMb after its file",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    const dir = await Deno.makeTempDir();
    const plugin = join(dir, "grow.ts");
    // Holds on to 200 MiB after its file, as a large PDF's caches would.
    await Deno.writeTextFile(
      plugin,
      `const keep = [];
      export default { name: "grow", extensions: [".grow"], extract() {
        keep.push(new Uint8Array(200 * 1024 * 1024).fill(1));
        return { lines: ["grown"] };
      } };`,
    );
    const pool = new ExtractPool({
      workers: 1,
      isolation: "process",
      plugins: [plugin],
      recycleMb: 150,
      memoryMb: 1024,
    });
    try {
      const small = { path: "l/a.txt", extension: ".txt", bytes: enc.encode("a\n") };
      await pool.extract(small);
      const [before] = pool.pids;
      await pool.extract(small);
      assertEquals(pool.pids, [before], "a small process is kept");
      const r = await pool.extract({
        path: "l/x.grow",
        extension: ".grow",
        bytes: enc.encode("x"),
      });
      assertEquals(r?.extracted.lines, ["grown"]);
      assert(await eventually(() => !running(before!)), "the grown process is still running");
      await pool.extract(small);
      assertEquals(pool.pids.length, 1);
      assert(pool.pids[0] !== before);
    } finally {
      pool.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "ExtractPool.makeRoom has an idle process full of garbage collect it, and stops none",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    const dir = await Deno.makeTempDir();
    const plugin = join(dir, "litter.ts");
    // `.litter` leaves 200 MiB of garbage (buffers outside the JS heap, so the process's own
    // trim after a file, which looks at the heap, leaves them), `.keep` keeps 200 MiB.
    await Deno.writeTextFile(
      plugin,
      `const kept = [];
      export default { name: "litter", extensions: [".litter", ".keep"], extract(input) {
        const bufs = [];
        for (let i = 0; i < 20; i++) bufs.push(new Uint8Array(10 * 1024 * 1024).fill(1));
        if (input.extension === ".keep") kept.push(bufs);
        return { lines: ["done"] };
      } };`,
    );
    const file = (ext: string) => ({ path: `l/x${ext}`, extension: ext, bytes: enc.encode("x") });
    const own = (pid: number) =>
      Number(/RssAnon:\s+(\d+)/.exec(Deno.readTextFileSync(`/proc/${pid}/status`))![1]) * 1024;
    const opts: PoolOptions = { isolation: "process", plugins: [plugin], recycleMb: 0 };
    const pool = new ExtractPool({ ...opts, workers: 1 });
    try {
      await pool.extract(file(".litter"));
      const [pid] = pool.pids;
      assert(own(pid!) > 180 * 2 ** 20, "the garbage is still held");
      assertEquals(pool.makeRoom(1_000_000), 0, "under the budget nothing is asked");
      assertEquals(pool.makeRoom(0), 1, "the idle process is asked");
      assert(await eventually(() => own(pid!) < 150 * 2 ** 20), "the garbage was given back");
      assertEquals(pool.pids, [pid], "the process was not stopped");

      await pool.extract(file(".keep"));
      assertEquals(pool.makeRoom(0), 1);
      await new Promise((r) => setTimeout(r, 500));
      assert(own(pid!) > 180 * 2 ** 20, "what is kept stays: collecting frees only garbage");
      assertEquals(pool.makeRoom(0), 0, "not asked again before it has read another file");
      const r = await pool.extract(file(".litter"));
      assertEquals(r?.extracted.lines, ["done"], "the process goes on after collecting");
      assertEquals(pool.makeRoom(0), 1, "asked again once it holds the garbage of a file");
    } finally {
      pool.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

for (const isolation of ["process", "thread"] as const) {
  Deno.test(`ExtractPool (${isolation}) cuts a file at its CPU time limit, not while it waits`, async () => {
    const dir = await Deno.makeTempDir();
    const plugin = join(dir, "pieces.ts");
    // Twenty pieces, each checking the soft deadline first: `.busy` spins 100 ms of this
    // thread's CPU time a piece (CPU, not wall time, so a loaded machine changes nothing),
    // `.idle` waits 25 ms a piece (no CPU, as a file does on a machine busy with others).
    await Deno.writeTextFile(
      plugin,
      `import process from "node:process";
      const cpu = () => { const u = process.threadCpuUsage(); return (u.user + u.system) / 1000; };
      export default { name: "pieces", extensions: [".busy", ".idle"], async extract(input) {
        const lines = [], warnings = [];
        for (let i = 1; i <= 20; i++) {
          if (input.signal?.aborted) { warnings.push("stopped at piece " + i + " of 20"); break; }
          if (input.extension === ".busy") { const t = cpu(); while (cpu() - t < 100) {} }
          else await new Promise((r) => setTimeout(r, 25));
          lines.push("piece " + i);
        }
        return { lines, warnings };
      } };`,
    );
    // Soft limit: 800 ms of CPU (far more than the process's own background work while a file
    // waits); the wall limit (and its soft 80 %) is far away.
    const pool = new ExtractPool({
      workers: 1,
      timeoutMs: 1000,
      wallMs: 600_000,
      plugins: [plugin],
      isolation,
    });
    try {
      // A first file, so the start's own work (compiling, warming up) is done before the test.
      await pool.extract({ path: "l/w.idle", extension: ".idle", bytes: enc.encode("x") });
      const idle = await pool.extract({
        path: "l/a.idle",
        extension: ".idle",
        bytes: enc.encode("x"),
      });
      assertEquals(idle?.extracted.lines.length, 20);
      assertEquals(idle?.partial, undefined);
      const busy = await pool.extract({
        path: "l/a.busy",
        extension: ".busy",
        bytes: enc.encode("x"),
      });
      const kept = busy?.extracted.lines.length ?? 0;
      assert(kept >= 1 && kept < 20, `kept ${kept} of 20 pieces`);
      assertEquals(busy?.partial, "time limit");
      assertEquals(busy?.extracted.warnings, [`stopped at piece ${kept + 1} of 20`]);
      // Past the cut the file comes back at once, unmeasured (the index process measures it).
      assertEquals(busy?.measured, undefined);
      assert(idle?.measured?.outline, "a whole file comes back measured");
      // Eight times the allowance (6,400 ms of CPU before the cut) is time enough for all 20
      // pieces (2,000 ms).
      const more = await pool.extract({
        path: "l/a.busy",
        extension: ".busy",
        bytes: enc.encode("x"),
        allowance: 8,
      });
      assertEquals([more?.extracted.lines.length, more?.partial], [20, undefined]);
    } finally {
      pool.close();
      await Deno.remove(dir, { recursive: true });
    }
  });
}
