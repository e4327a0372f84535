/** The indexer's backpressure, on a real catalog and real files. */
import { join } from "node:path";
import { Catalog } from "../core/catalog.ts";
import type { ExtractFn } from "../core/types.ts";
import { assert, assertEquals } from "../tests/assert.ts";
import { Indexer, type IndexProgress } from "./indexer.ts";
import { expectedGrowthMb, expectedLoad } from "./load.ts";

const MB = 1024 * 1024;

Deno.test("Indexer keeps the bytes of the files in flight within its budget; a larger file runs alone", async () => {
  const base = await Deno.makeTempDir({ prefix: "shelfmark-inflight-" });
  try {
    const root = join(base, "Lib");
    await Deno.mkdir(root);
    // 1 MB and 3 MB text files, interleaved, and a few small ones
    const sizes = [MB, 3 * MB, MB, MB, MB, 3 * MB, MB, 1000, 1000, MB, 2000];
    for (const [i, size] of sizes.entries()) {
      const line = `file${i} words about quokkas and narwhals\n`;
      await Deno.writeTextFile(join(root, `f${i}.txt`), line.repeat(Math.ceil(size / line.length)));
    }
    let bytes = 0;
    let files = 0;
    let most = 0;
    const over: string[] = [];
    const extract: ExtractFn = async (input) => {
      bytes += input.bytes.length;
      files++;
      most = Math.max(most, files);
      if (files > 1 && bytes > 2.5 * MB) over.push(`${files} files, ${bytes} bytes`);
      await new Promise((r) => setTimeout(r, 5));
      const text = new TextDecoder().decode(input.bytes);
      files--;
      bytes -= input.bytes.length;
      return { extractor: "text", extracted: { lines: text.split("\n").slice(0, 50) } };
    };
    const catalog = new Catalog(join(base, "catalog.db"));
    try {
      const indexer = new Indexer(catalog, extract, {}, {
        concurrency: 3,
        maxBytesInFlight: 2.5 * MB,
      });
      const p = await indexer.run([{ name: "Lib", root }]);
      assertEquals([p.indexed, p.skipped], [sizes.length, 0]);
      assertEquals(over, [], "files in flight together over the budget");
      assert(most >= 2, "small files still run side by side");
    } finally {
      catalog.close();
    }
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("Indexer starts a file beside others only when admit() says so; images weigh as text", async () => {
  const base = await Deno.makeTempDir({ prefix: "shelfmark-admit-" });
  try {
    const root = join(base, "Lib");
    await Deno.mkdir(root);
    for (let i = 0; i < 8; i++) {
      await Deno.writeTextFile(join(root, `t${i}.txt`), `text ${i} about quokkas\n`.repeat(100));
    }
    // 300 kB images: the text pass reads their header only (OCR comes later), so they weigh
    // as text and need not run alone.
    for (let i = 0; i < 3; i++) {
      await Deno.writeFile(join(root, `p${i}.png`), new Uint8Array(300_000));
    }
    let files = 0;
    let most = 0;
    let room = true;
    const extract: ExtractFn = async (input) => {
      files++;
      most = Math.max(most, files);
      await new Promise((r) => setTimeout(r, 5));
      files--;
      return { extractor: "text", extracted: { lines: [`file ${input.path} about quokkas`] } };
    };
    const catalog = new Catalog(join(base, "catalog.db"));
    try {
      let asked = 0;
      const indexer = new Indexer(catalog, extract, {}, {
        concurrency: 3,
        admit: () => (asked++, room),
      });
      let p = await indexer.run([{ name: "Lib", root }]);
      assertEquals([p.indexed, p.skipped], [11, 0]);
      assert(most >= 2, "text files run side by side while admitted");
      assert(asked > 0, "admit() was asked");
      assert(expectedLoad(join(root, "p0.png"), 300_000) < 4 * 2 ** 20, "an image is not large");
      // Over the budget: one file at a time, all the same indexed.
      room = false;
      most = 0;
      p = await indexer.run([{ name: "Lib", root }], { full: new Set(["Lib"]) });
      assertEquals([p.indexed, p.skipped], [11, 0]);
      assertEquals(most, 1);
    } finally {
      catalog.close();
    }
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("Indexer runs a large file beside small ones while memory has room, within the limit, losing none", async () => {
  const base = await Deno.makeTempDir({ prefix: "shelfmark-large-" });
  try {
    const root = join(base, "Lib");
    await Deno.mkdir(root);
    for (let i = 0; i < 20; i++) {
      await Deno.writeTextFile(join(root, `t${i}.txt`), `text ${i} about quokkas\n`.repeat(50));
    }
    // Two "PDFs" of 1 MiB: 8 MiB weighted each, over the 4 MiB budget, so both are large.
    for (let i = 0; i < 2; i++) {
      await Deno.writeTextFile(join(root, `big${i}.pdf`), `big ${i} narwhals\n`.repeat(65_536));
    }
    // The memory of the process tree is a stand-in here (the extraction is too): each file in
    // flight holds what admission expects of it, the way the real pool's processes grow.
    const LIMIT_MB = 120;
    const holds = (path: string, size: number) =>
      path.endsWith(".pdf") ? expectedGrowthMb(expectedLoad(path, size)) : 10;
    let used = 0;
    let peak = 0;
    let large = 0;
    let bothLarge = false;
    const besideLarge = new Set<string>();
    let smallStarted!: () => void;
    const smallStart = new Promise<void>((r) => smallStarted = r);
    const extract: ExtractFn = async (input) => {
      const mb = holds(input.path, input.bytes.length);
      used += mb;
      peak = Math.max(peak, used);
      const big = input.path.endsWith(".pdf");
      if (big && ++large > 1) bothLarge = true;
      if (!big && large > 0) besideLarge.add(input.path);
      if (!big) smallStarted();
      // A large file is still being read when a small one starts (or gives up waiting, and
      // the test says so below).
      if (big) await Promise.race([smallStart, new Promise((r) => setTimeout(r, 2000))]);
      await new Promise((r) => setTimeout(r, big ? 20 : 1));
      used -= mb;
      if (big) large--;
      return { extractor: "text", extracted: { lines: [`file ${input.path} about quokkas`] } };
    };
    const catalog = new Catalog(join(base, "catalog.db"));
    try {
      const indexer = new Indexer(catalog, extract, {}, {
        concurrency: 3,
        admit: (load, isLarge) => used + (isLarge ? expectedGrowthMb(load) : 10) <= LIMIT_MB,
      });
      const p = await indexer.run([{ name: "Lib", root }]);
      assertEquals([p.indexed, p.skipped], [22, 0], "every file indexed");
      assertEquals(catalog.count(), 22);
      assert(peak <= LIMIT_MB, `memory in flight ${peak} MiB over the limit of ${LIMIT_MB}`);
      assertEquals(bothLarge, false, "two large files ran together");
      assert(besideLarge.size > 0, "small files ran beside a large one");
    } finally {
      catalog.close();
    }
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("Indexer keeps smaller files from starting while the next large file waits for memory; it runs before they are all done", () =>
  withCatalog("shelfmark-wait-large-", async (base, catalog) => {
    const root = join(base, "Lib");
    await Deno.mkdir(root);
    // Walked in path order: a small file, two large "PDFs", then the others.
    await Deno.writeTextFile(join(root, "0-small.txt"), "small\n");
    for (let i = 0; i < 2; i++) {
      await Deno.writeTextFile(join(root, `a${i}-big.pdf`), `big ${i} narwhals\n`.repeat(80_000));
    }
    for (let i = 0; i < 12; i++) {
      await Deno.writeTextFile(join(root, `t${i}.txt`), `text ${i} about quokkas\n`.repeat(50));
    }
    // Files in the order they start (reading comes before extraction), and in flight from
    // their start to their end.
    const started: string[] = [];
    let files = 0;
    let bigBeside = false;
    class Watched extends Indexer {
      override indexFile(...args: Parameters<Indexer["indexFile"]>) {
        const path = args[1].path;
        started.push(path);
        if (path.endsWith(".pdf") && files > 0) bigBeside = true;
        files++;
        return super.indexFile(...args).finally(() => files--);
      }
    }
    const { seen, extract, assertRun } = heldExtraction(Infinity);
    // The measured memory (a stand-in here) never has room for a large file beside others:
    // it starts with nothing in flight, and smaller files do not start while it waits.
    const indexer = new Watched(catalog, extract, {}, {
      concurrency: 2,
      admit: (_load, large) => !large,
    });
    assertRun(await indexer.run([{ name: "Lib", root }]), catalog, 15);
    assertEquals(bigBeside, false, "a large file started beside another one");
    assertEquals(started[0], "Lib/a0-big.pdf", "a large file starts first, when none runs");
    assertEquals(seen.besideEach.size, 2);
    const lastSmall = Math.max(...started.map((s, i) => s.endsWith(".txt") ? i : -1));
    assert(
      started.indexOf("Lib/a1-big.pdf") < lastSmall,
      `the second large file waited for the small files to run out: ${started.join(" ")}`,
    );
  }));

Deno.test("Indexer calls beforeLarge with a large file's weighted load before the file starts", async () => {
  const base = await Deno.makeTempDir({ prefix: "shelfmark-before-large-" });
  try {
    const root = join(base, "Lib");
    await Deno.mkdir(root);
    await Deno.writeTextFile(join(root, "a.txt"), "small quokkas\n");
    const big = "big narwhals\n".repeat(60_000);
    await Deno.writeTextFile(join(root, "b-big.pdf"), big);
    await Deno.writeTextFile(join(root, "c.txt"), "more quokkas\n");
    const events: string[] = [];
    const extract: ExtractFn = (input) => {
      events.push(`extract ${input.path}`);
      return Promise.resolve({
        extractor: "text",
        extracted: { lines: [`file ${input.path} about quokkas`] },
      });
    };
    const catalog = new Catalog(join(base, "catalog.db"));
    try {
      const indexer = new Indexer(catalog, extract, {}, {
        concurrency: 2,
        admit: () => true,
        beforeLarge: (load) => events.push(`beforeLarge ${load}`),
      });
      const p = await indexer.run([{ name: "Lib", root }]);
      assertEquals([p.indexed, p.skipped], [3, 0]);
      const load = expectedLoad("b-big.pdf", big.length);
      assert(load > 4 * MB, "the PDF is large");
      assertEquals(events.filter((e) => e.startsWith("beforeLarge")), [`beforeLarge ${load}`]);
      const at = events.indexOf(`beforeLarge ${load}`);
      assert(at < events.indexOf("extract Lib/b-big.pdf"), events.join(", "));
    } finally {
      catalog.close();
    }
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("Indexer holds its extraction for the whole run and lets go when the run ends, even failed", async () => {
  const base = await Deno.makeTempDir({ prefix: "shelfmark-hold-" });
  try {
    const root = join(base, "Lib");
    await Deno.mkdir(root);
    await Deno.writeTextFile(join(root, "a.txt"), "small quokkas\n");
    await Deno.writeTextFile(join(root, "b.txt"), "more quokkas\n");
    const events: string[] = [];
    let fail = false;
    const extract: ExtractFn = (input) => {
      events.push(`extract ${input.path}`);
      // A full disk is the machine's failure, not the file's: it fails the run.
      if (fail) return Promise.reject(Object.assign(new Error("disk full"), { code: "ENOSPC" }));
      return Promise.resolve({
        extractor: "text",
        extracted: { lines: [`${input.path} quokkas`] },
      });
    };
    const catalog = new Catalog(join(base, "catalog.db"));
    try {
      const indexer = new Indexer(catalog, extract, {}, {
        hold: () => (events.push("hold"), () => events.push("release")),
      });
      const p = await indexer.run([{ name: "Lib", root }]);
      assertEquals(p.indexed, 2);
      assertEquals(events, ["hold", "extract Lib/a.txt", "extract Lib/b.txt", "release"]);
      events.length = 0;
      fail = true;
      await Deno.writeTextFile(join(root, "c.txt"), "new quokkas\n");
      let failed = false;
      await indexer.run([{ name: "Lib", root }]).catch(() => failed = true);
      assert(failed, "the run failed");
      assertEquals(events, ["hold", "extract Lib/c.txt", "release"]);
    } finally {
      catalog.close();
    }
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("expectedLoad weighs a file by its type", () => {
  assertEquals(expectedLoad("a/b.txt", 1000), 1000);
  assertEquals(expectedLoad("a/b.PNG", 1000), 1000, "OCR is not in the text pass");
  assertEquals(expectedLoad("a/b.docx", 1000), 12_000);
  assertEquals(expectedLoad("a/b.pdf", 1000), 8000);
});

Deno.test("Indexer starts the next library's files while the last large file of one is still read", async () => {
  const base = await Deno.makeTempDir({ prefix: "shelfmark-libs-" });
  try {
    const a = join(base, "A");
    const b = join(base, "B");
    await Deno.mkdir(a);
    await Deno.mkdir(b);
    await Deno.writeTextFile(join(a, "gone.txt"), "a file deleted before the second run\n");
    // 1 MiB "PDF": 8 MiB weighted, over the 4 MiB budget, so it is a large file.
    await Deno.writeTextFile(join(a, "zz-big.pdf"), "big narwhals\n".repeat(80_000));
    for (let i = 0; i < 5; i++) await Deno.writeTextFile(join(b, `t${i}.txt`), `text ${i}\n`);
    // In flight from its start (reading it comes before its extraction) to its end.
    let bigInFlight = false;
    class Watched extends Indexer {
      override indexFile(...args: Parameters<Indexer["indexFile"]>) {
        const big = args[1].path.endsWith(".pdf");
        if (big) bigInFlight = true;
        return super.indexFile(...args).finally(() => big && (bigInFlight = false));
      }
    }
    const beside = new Set<string>();
    let besideStarted!: () => void;
    const besideStart = new Promise<void>((r) => besideStarted = r);
    const extract: ExtractFn = async (input) => {
      const ofB = /(^|\/)t\d\.txt$/.test(input.path);
      if (ofB && bigInFlight) {
        beside.add(input.path);
        besideStarted();
      }
      if (input.path.endsWith(".pdf")) {
        // Held until a file of library B starts beside it (or a fallback, and the test
        // fails below).
        let fallback: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([besideStart, new Promise((r) => fallback = setTimeout(r, 3000))]);
        clearTimeout(fallback);
        await new Promise((r) => setTimeout(r, 20));
      }
      return { extractor: "text", extracted: { lines: [`file ${input.path} about quokkas`] } };
    };
    const catalog = new Catalog(join(base, "catalog.db"));
    try {
      const indexer = new Watched(catalog, extract, {}, {
        concurrency: 2,
        admit: () => true,
      });
      const libs = [{ name: "A", root: a }, { name: "B", root: b }];
      const p = await indexer.run(libs);
      assertEquals([p.indexed, p.skipped, p.removed], [7, 0, 0], "every file indexed");
      assert(beside.size > 0, "no file of library B ran beside library A's large file");
      // A library's removals still happen once its files are done.
      await Deno.remove(join(a, "gone.txt"));
      const again = await indexer.run(libs);
      assertEquals([again.indexed, again.unchanged, again.removed], [0, 6, 1]);
      assertEquals(catalog.count(), 6);
    } finally {
      catalog.close();
    }
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

/** Runs `fn` with a temporary folder and a real catalog in it, both gone afterwards. */
async function withCatalog(
  prefix: string,
  fn: (base: string, catalog: Catalog) => Promise<void>,
): Promise<void> {
  const base = await Deno.makeTempDir({ prefix });
  const catalog = new Catalog(join(base, "catalog.db"));
  try {
    await fn(base, catalog);
  } finally {
    catalog.close();
    await Deno.remove(base, { recursive: true });
  }
}

/**
 * A stand-in extraction, and memory, for the scheduling tests (the real pool cannot be made
 * to hold a file until another starts): each file in flight holds what admission expects of
 * it (a "PDF" its expected growth, another file 10 MiB), and a "PDF" is read until a smaller
 * file starts beside it (or a fallback of 2 s, and `besideEach` says it ran alone).
 */
function heldExtraction(limitMb: number) {
  const seen = {
    used: 0,
    peak: 0,
    bothLarge: false,
    extracted: [] as string[],
    /** Smaller files started while each large one was read. */
    besideEach: new Map<string, number>(),
  };
  let large = 0;
  let current: string | undefined;
  const smallStart: (() => void)[] = [];
  const extract: ExtractFn = async (input) => {
    seen.extracted.push(input.path);
    const big = input.path.endsWith(".pdf");
    const mb = big ? expectedGrowthMb(expectedLoad(input.path, input.bytes.length)) : 10;
    seen.used += mb;
    seen.peak = Math.max(seen.peak, seen.used);
    if (big) {
      if (++large > 1) seen.bothLarge = true;
      current = input.path;
      seen.besideEach.set(input.path, 0);
      let fallback: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        new Promise<void>((r) => smallStart.push(r)),
        new Promise((r) => fallback = setTimeout(r, 2000)),
      ]);
      clearTimeout(fallback);
      current = undefined;
      large--;
    } else {
      if (current) seen.besideEach.set(current, seen.besideEach.get(current)! + 1);
      smallStart.splice(0).forEach((r) => r());
      await new Promise((r) => setTimeout(r, 1));
    }
    seen.used -= mb;
    return { extractor: "text", extracted: { lines: [`file ${input.path} about quokkas`] } };
  };
  const admit = (load: number, isLarge: boolean) =>
    seen.used + (isLarge ? expectedGrowthMb(load) : 10) <= limitMb;
  /** Every file of the run indexed and extracted once, within the memory, never two large. */
  const assertRun = (p: IndexProgress, catalog: Catalog, files: number) => {
    assertEquals([p.indexed, p.skipped], [files, 0], "every file indexed");
    assertEquals(catalog.count(), files);
    assertEquals(seen.extracted.length, files, "each file extracted once");
    assertEquals(new Set(seen.extracted).size, files);
    assert(seen.peak <= limitMb, `memory in flight ${seen.peak} MiB over ${limitMb}`);
    assertEquals(seen.bothLarge, false, "two large files ran together");
    for (const [path, n] of seen.besideEach) assert(n > 0, `${path} ran alone`);
  };
  return { seen, extract, admit, assertRun };
}

Deno.test("Indexer runs small files of a later library beside each of a run of large files, one large at a time, losing none", () =>
  withCatalog("shelfmark-large-run-", async (base, catalog) => {
    const a = join(base, "A");
    const b = join(base, "B");
    await Deno.mkdir(a);
    await Deno.mkdir(b);
    // Three 1 MiB "PDFs" (8 MiB weighted each: large) walked before 30 small files.
    for (let i = 0; i < 3; i++) {
      await Deno.writeTextFile(join(a, `big${i}.pdf`), `big ${i} narwhals\n`.repeat(65_536));
    }
    for (let i = 0; i < 30; i++) {
      await Deno.writeTextFile(join(b, `t${i}.txt`), `text ${i} about quokkas\n`.repeat(20));
    }
    const { seen, extract, admit, assertRun } = heldExtraction(120);
    const indexer = new Indexer(catalog, extract, {}, { concurrency: 3, admit });
    assertRun(await indexer.run([{ name: "A", root: a }, { name: "B", root: b }]), catalog, 33);
    assertEquals(seen.besideEach.size, 3);
  }));

Deno.test("Indexer starts the large files of a library walked last before the first library's small files are done, largest first, one at a time", () =>
  withCatalog("shelfmark-large-first-", async (base, catalog) => {
    const a = join(base, "A");
    const b = join(base, "B");
    await Deno.mkdir(a);
    await Deno.mkdir(b);
    await Deno.writeTextFile(join(a, "gone.txt"), "a file deleted before the second run\n");
    for (let i = 0; i < 30; i++) {
      await Deno.writeTextFile(join(a, `t${i}.txt`), `text ${i} about quokkas\n`.repeat(20));
    }
    // "PDFs" of 1, 2 and 1.5 MiB (8, 16, 12 MiB weighted: large), in a library walked last.
    const mib = [1, 2, 1.5];
    for (const [i, n] of mib.entries()) {
      await Deno.writeTextFile(join(b, `big${i}.pdf`), "narwhals\n".repeat(n * MB / 9));
    }
    await Deno.writeTextFile(join(b, "z.txt"), "a small file of the last library\n");
    // Files in the order they start (reading comes before extraction).
    const started: string[] = [];
    class Watched extends Indexer {
      override indexFile(...args: Parameters<Indexer["indexFile"]>) {
        started.push(args[1].path);
        return super.indexFile(...args);
      }
    }
    const { seen, extract, admit, assertRun } = heldExtraction(150);
    const indexer = new Watched(catalog, extract, {}, { concurrency: 3, admit });
    const libs = [{ name: "A", root: a }, { name: "B", root: b }];
    assertRun(await indexer.run(libs), catalog, 35);
    assertEquals(seen.besideEach.size, 3);
    const order = started.filter((s) => s.endsWith(".pdf"));
    assertEquals(order, ["B/big1.pdf", "B/big2.pdf", "B/big0.pdf"], "largest first");
    assertEquals(started[0], "B/big1.pdf", "the largest file starts first");
    const lastOfA = Math.max(...started.map((s, i) => s.startsWith("A/") ? i : -1));
    for (const big of order) {
      assert(started.indexOf(big) < lastOfA, `${big} waited for A's files: ${started.join(" ")}`);
    }
    // A library's removals still happen once its files are done; unchanged files are not
    // large (nothing extracts them).
    await Deno.remove(join(a, "gone.txt"));
    started.length = 0;
    const again = await indexer.run(libs);
    assertEquals([again.indexed, again.unchanged, again.removed], [0, 34, 1]);
    assertEquals(catalog.count(), 34);
    assertEquals(started[0], "A/t0.txt", "unchanged files go in walk order");
  }));

Deno.test("Indexer asks makeRoom for memory while a file waits for it, then runs the file", () =>
  withCatalog("shelfmark-make-room-", async (base, catalog) => {
    const root = join(base, "Lib");
    await Deno.mkdir(root);
    for (let i = 0; i < 6; i++) await Deno.writeTextFile(join(root, `t${i}.txt`), `text ${i}\n`);
    // Memory (a stand-in) holds garbage that leaves no room beside a file until makeRoom
    // collects it.
    let garbage = true;
    let files = 0;
    let besideOthers = 0;
    const asked: number[] = [];
    // A file waits in its extraction until another one runs beside it (or a second has
    // passed, so a run that never lets them together still ends): however slow the machine,
    // the files in flight overlap once there is room.
    let together!: () => void;
    const beside = new Promise<void>((r) => together = r);
    const extract: ExtractFn = async (input) => {
      if (++files > 1) {
        besideOthers++;
        together();
      }
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([beside, new Promise((r) => timer = setTimeout(r, 1000))]);
      clearTimeout(timer);
      files--;
      return { extractor: "text", extracted: { lines: [`file ${input.path} about quokkas`] } };
    };
    const indexer = new Indexer(catalog, extract, {}, {
      concurrency: 2,
      admit: () => !garbage,
      makeRoom: (load) => {
        asked.push(load);
        garbage = false;
      },
    });
    const p = await indexer.run([{ name: "Lib", root }]);
    assertEquals([p.indexed, p.skipped], [6, 0], "every file indexed");
    assertEquals(asked.length, 1, "asked once: the room it made was used");
    assertEquals(asked[0], expectedLoad("t1.txt", "text 1\n".length));
    assert(besideOthers > 0, "files ran together once there was room");
  }));

Deno.test("Indexer stopped with large files queued resumes without extracting a finished file again", () =>
  withCatalog("shelfmark-resume-queued-", async (base, catalog) => {
    const a = join(base, "A");
    const b = join(base, "B");
    await Deno.mkdir(a);
    await Deno.mkdir(b);
    for (let i = 0; i < 10; i++) await Deno.writeTextFile(join(a, `t${i}.txt`), `text ${i}\n`);
    // The large files are in the library walked last: queued from the start of the run.
    for (let i = 0; i < 3; i++) {
      await Deno.writeTextFile(join(b, `big${i}.pdf`), `big ${i} narwhals\n`.repeat(65_536));
    }
    const stop = new AbortController();
    const runs: string[][] = [[], []];
    let run = 0;
    const extract: ExtractFn = async (input) => {
      runs[run]!.push(input.path);
      // The first run is stopped while its first large file is read: the others are queued.
      if (run === 0 && input.path.endsWith(".pdf")) stop.abort();
      await new Promise((r) => setTimeout(r, 2));
      return { extractor: "text", extracted: { lines: [`file ${input.path} about quokkas`] } };
    };
    const indexer = new Indexer(catalog, extract, {}, { concurrency: 3, admit: () => true });
    const libs = [{ name: "A", root: a }, { name: "B", root: b }];
    const first = await indexer.run(libs, { signal: stop.signal });
    assert(first.indexed < 13, `the first run stopped early: ${first.indexed}`);
    assertEquals(runs[0]!.filter((path) => path.endsWith(".pdf")).length, 1, "one large read");
    assertEquals(catalog.count(), first.indexed, "what the first run finished is kept");
    run = 1;
    const second = await indexer.run(libs);
    assertEquals(catalog.count(), 13, "every file indexed in the end");
    assertEquals(second.unchanged, first.indexed);
    const again = runs[1]!.filter((path) => runs[0]!.includes(path));
    assertEquals(again, [], "no finished file extracted again");
    assertEquals(runs[0]!.length + runs[1]!.length, 13);
  }));

Deno.test("Indexer with measured memory runs small files beside each other whatever their weighted bytes, until the measure says no", () =>
  withCatalog("shelfmark-measured-", async (base, catalog) => {
    const root = join(base, "Lib");
    await Deno.mkdir(root);
    // HTML pages of 400 kB: 3.2 MB weighted each, under the 4 MiB over which a file is
    // large, but any two of them over it: the budget alone would run them one at a time.
    for (let i = 0; i < 12; i++) {
      await Deno.writeTextFile(
        join(root, `p${i}.html`),
        `<p>page ${i} quokkas</p>\n`.repeat(16_000),
      );
    }
    const load = expectedLoad("p0.html", 400_000);
    assert(load < 4 * MB && 2 * load > 4 * MB, "small, two of them over the budget");
    // Memory is a stand-in (the extraction is too): each file holds 30 MiB from the moment
    // it starts to the moment it is done, and the measure sees it at once.
    let limitMb = Infinity;
    let used = 0;
    let most = 0;
    let overLimit = 0;
    class Measured extends Indexer {
      override indexFile(...args: Parameters<Indexer["indexFile"]>) {
        if (used > 0 && used + 30 > limitMb) overLimit++;
        used += 30;
        most = Math.max(most, used / 30);
        return super.indexFile(...args).finally(() => used -= 30);
      }
    }
    const extract: ExtractFn = async (input) => {
      await new Promise((r) => setTimeout(r, 5));
      return { extractor: "text", extracted: { lines: [`file ${input.path} about quokkas`] } };
    };
    const indexer = new Measured(catalog, extract, {}, {
      concurrency: 3,
      admit: () => used + 30 <= limitMb,
    });
    const lib = [{ name: "Lib", root }];
    let p = await indexer.run(lib);
    assertEquals([p.indexed, p.skipped], [12, 0], "every file indexed");
    assertEquals(most, 3, "three small files at once while memory allows");
    // The measure has room for two files: the third waits, the concurrency is not reached.
    limitMb = 60;
    most = 0;
    p = await indexer.run(lib, { full: new Set(["Lib"]) });
    assertEquals([p.indexed, p.skipped], [12, 0], "every file indexed again");
    assertEquals(most, 2, "files ran beside each other up to what memory allows");
    assertEquals(overLimit, 0, "a file started beside others while the measure said no");
    // Without a measure, the weighted budget runs them one at a time.
    most = 0;
    const blind = new Measured(catalog, extract, {}, { concurrency: 3 });
    p = await blind.run(lib, { full: new Set(["Lib"]) });
    assertEquals([p.indexed, most], [12, 1]);
  }));

Deno.test("Indexer starts a file waiting for memory once memory comes back, while the file in flight is still read", () =>
  withCatalog("shelfmark-memory-back-", async (base, catalog) => {
    const root = join(base, "Lib");
    await Deno.mkdir(root);
    await Deno.writeTextFile(join(root, "a-long.txt"), "a long file about narwhals\n");
    await Deno.writeTextFile(join(root, "b.txt"), "a small file about quokkas\n");
    // Memory (a stand-in) holds garbage that an idle process gives back a moment after
    // makeRoom asks (as `ExtractPool.makeRoom`'s processes do), not when a file is done.
    let garbage = true;
    let longRead = false;
    let beside = false;
    let bStarted!: () => void;
    const bStart = new Promise<void>((r) => bStarted = r);
    const extract: ExtractFn = async (input) => {
      if (input.path.endsWith("a-long.txt")) {
        longRead = true;
        // Read until b.txt starts beside it (or a fallback, and the test fails below).
        let fallback: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([bStart, new Promise((r) => fallback = setTimeout(r, 3000))]);
        clearTimeout(fallback);
        longRead = false;
      } else {
        beside = longRead;
        bStarted();
      }
      return { extractor: "text", extracted: { lines: [`file ${input.path} about quokkas`] } };
    };
    let collect: ReturnType<typeof setTimeout> | undefined;
    const indexer = new Indexer(catalog, extract, {}, {
      concurrency: 2,
      admit: () => !garbage,
      makeRoom: () => collect ??= setTimeout(() => garbage = false, 20),
    });
    const p = await indexer.run([{ name: "Lib", root }]);
    assertEquals([p.indexed, p.skipped], [2, 0], "every file indexed");
    assert(beside, "b.txt waited for a.txt to be done, not for memory");
  }));
