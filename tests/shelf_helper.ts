/**
 * A shelf for tests: a temporary data folder, no embedder (keyword search only, no model
 * to load) and extraction in the test's own thread, unless a test asks otherwise.
 *
 * ```ts
 * import { openTestShelf } from "./shelf_helper.ts";
 * import assert from "node:assert/strict";
 *
 * const lib = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${lib}/note.md`, "# Note\n\nText.\n");
 * await using t = await openTestShelf({ folders: [lib] });
 * assert.equal((await t.shelf.index()).indexed, 1);
 * ```
 *
 * @module
 */
import { join } from "node:path";
import { Shelf, type ShelfOptions } from "../shelf/shelf.ts";

/** Options of {@linkcode openTestShelf}: those of `Shelf.open`, all optional. */
export interface TestShelfOptions extends Partial<ShelfOptions> {
  /**
   * A temporary folder the test made (libraries in it, say); removed on close with the
   * data folder. Default: a new one.
   */
  base?: string;
}

/** An open test shelf; closing it also removes its temporary folder. */
export class TestShelf implements AsyncDisposable {
  #closed = false;

  constructor(
    /** The shelf (replaced by {@linkcode TestShelf.reopen}). */
    public shelf: Shelf,
    /** The temporary folder, removed on close. */
    readonly base: string,
    /** The data folder (`base/data` unless given). */
    readonly data: string,
    readonly defaults: Partial<ShelfOptions>,
  ) {}

  /** Close the shelf and open it again on the same data folder (options as at first). */
  async reopen(opts: Partial<ShelfOptions> = {}): Promise<Shelf> {
    await this.shelf.close();
    this.shelf = await Shelf.open({
      ...this.defaults,
      folders: undefined,
      ...opts,
      data: this.data,
    });
    return this.shelf;
  }

  /** Close the shelf and remove the temporary folder (once; later calls do nothing). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    try {
      await this.shelf.close();
    } finally {
      await Deno.remove(this.base, { recursive: true }).catch(() => {});
    }
  }

  /** For `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

/**
 * Time grep's worker gets to load in a test shelf: no test waits on it, and at load 20-25
 * on two cores a worker took longer than the shelf's default 30 s.
 */
const GREP_START_MS = 600_000;

/**
 * Open a shelf in a temporary folder with `embedder: "none"`, `workers: 0`, a silent log
 * and grep's worker given {@link GREP_START_MS} to load; every option can be overridden.
 */
export async function openTestShelf(opts: TestShelfOptions = {}): Promise<TestShelf> {
  const { base: given, ...rest } = opts;
  const base = given ?? await Deno.makeTempDir({ prefix: "shelfmark-test-" });
  const defaults: Partial<ShelfOptions> = {
    log: () => {},
    workers: 0,
    embedder: "none",
    grepStartMs: GREP_START_MS,
    ...rest,
  };
  const data = rest.data ?? join(base, "data");
  try {
    return new TestShelf(await Shelf.open({ ...defaults, data }), base, data, defaults);
  } catch (e) {
    await Deno.remove(base, { recursive: true }).catch(() => {});
    throw e;
  }
}

/**
 * Open a test shelf of a machine of a shared store: its data folder `base/data-NAME`, its
 * `shelfmark.json` naming the machine (none: the host's name), its temporary folder
 * `base/NAME` (where its libraries may be).
 *
 * @param base the test's folder
 * @param name the data folder's name
 * @param opts its libraries, the store and the machine
 */
export async function openMachineShelf(
  base: string,
  name: string,
  opts: { folders: string[]; store?: string; machine?: string },
): Promise<TestShelf> {
  const data = join(base, `data-${name}`);
  await Deno.mkdir(data);
  await Deno.writeTextFile(
    join(data, "shelfmark.json"),
    JSON.stringify({ machine: opts.machine }),
  );
  return await openTestShelf({
    base: join(base, name),
    data,
    store: opts.store,
    folders: opts.folders,
  });
}
