/**
 * Documents cut short by the time limit, made without depending on the machine's speed:
 * a plugin of 20 "pages" whose page costs 2 ms of CPU (spun on the thread's clock) under a
 * CPU limit of 2 ms (the soft cut at 80 % of it, 1 ms), so the check before page 2 always
 * finds it passed; given twice the time or more (`input.allowance`) it hangs at page 2
 * before that check (using no CPU), and only the hard limit stops it. The extraction meant
 * to be cut runs where no hard limit is within reach.
 *
 * @module
 */
import { join } from "node:path";
import { Catalog } from "../core/catalog.ts";
import type { ExtractFn } from "../core/types.ts";
import { ExtractPool } from "../extraction/pool.ts";
import { Indexer, type KeptIndexes } from "../shelf/indexer.ts";

/** Write the `.pages` plugin (see the module doc) into `dir`; resolves to its path. */
export async function pagesPlugin(dir: string): Promise<string> {
  const plugin = join(dir, "pages.ts");
  await Deno.writeTextFile(
    plugin,
    `import process from "node:process";
    const cpu = () => { const u = process.threadCpuUsage(); return (u.user + u.system) / 1000; };
    export default { name: "pages", extensions: [".pages"], async extract(input) {
      const lines = [];
      for (let i = 1; i <= 20; i++) {
        if (i === 2 && input.allowance >= 2) await new Promise(() => {});
        if (i > 1 && input.signal?.aborted) {
          return { lines, warnings: ["stopped at page " + i + " of 20"] };
        }
        const t = cpu();
        while (cpu() - t < 2) {}
        lines.push("page " + i + " about quokkas");
      }
      return { lines };
    } };`,
  );
  return plugin;
}

/**
 * Two pools of one worker running `plugin`, with the CPU limit `timeoutMs` (the soft cut at
 * 80 % of it): `tight` stops a file at `wallMs` of wall time times its allowance, `roomy` at
 * ten minutes, out of reach of an extraction meant to fit however busy the machine (at load
 * 20 on two cores, a fresh worker's first file of 2 ms of CPU once took over 2 s).
 */
export function pools(plugin: string, timeoutMs: number, wallMs: number): {
  tight: ExtractPool;
  roomy: ExtractPool;
  close: () => void;
} {
  const pool = (wall: number) =>
    new ExtractPool({ workers: 1, timeoutMs, wallMs: wall, plugins: [plugin] });
  const [tight, roomy] = [pool(wallMs), pool(600_000)];
  return { tight, roomy, close: () => [tight, roomy].forEach((p) => p.close()) };
}

/** The hard limit (ms of wall time at 1x) of the retries {@linkcode pagesIndexer} stops. */
export const PAGES_WALL_MS = 300;

/**
 * An indexer over `catalog` whose extraction runs the `.pages` plugin written into `dir`:
 * cut short at page 2 at 1x the time, stopped by the hard limit ({@link PAGES_WALL_MS}
 * times the allowance) at 2x and more.
 */
export async function pagesIndexer(
  dir: string,
  catalog: Catalog,
  indexes: KeptIndexes = {},
): Promise<{ indexer: Indexer; close: () => void }> {
  const { tight, roomy, close } = pools(await pagesPlugin(dir), 2, PAGES_WALL_MS);
  const extract: ExtractFn = (input) => (input.allowance === 1 ? roomy : tight).extract(input);
  return { indexer: new Indexer(catalog, extract, indexes), close };
}

/**
 * A data folder `base/data` whose catalog holds two partial documents of the `.pages`
 * plugin: `Cut/b.pages`, cut short once (tried again by the next run), and
 * `Stopped/a.pages`, cut short once and then stopped by the hard limit on its retry.
 * Resolves to the data folder and the two library folders. `indexes`: the indexes its runs
 * write beside the catalog (a shared store's catalog, say).
 */
export async function partialData(
  base: string,
  indexes: KeptIndexes = {},
): Promise<{ data: string; folders: string[] }> {
  const data = join(base, "data");
  const cut = { name: "Cut", root: join(base, "Cut") };
  const stopped = { name: "Stopped", root: join(base, "Stopped") };
  for (const d of [data, cut.root, stopped.root]) await Deno.mkdir(d, { recursive: true });
  await Deno.writeTextFile(join(cut.root, "b.pages"), "x");
  await Deno.writeTextFile(join(stopped.root, "a.pages"), "x");
  const catalog = new Catalog(join(data, "catalog.db"));
  const { indexer, close } = await pagesIndexer(base, catalog, indexes);
  try {
    await indexer.run([cut, stopped]);
    await indexer.run([stopped]);
  } finally {
    close();
    catalog.close();
  }
  return { data, folders: [cut.root, stopped.root] };
}
