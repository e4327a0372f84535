/**
 * Every machine's catalog in a shared PostgreSQL store, as one `CatalogStore`: the data
 * folder's own machine (its schema, which it alone writes) and, read only, each other
 * machine claimed in `public.shelfmark_machines` (a schema each; see docs/postgres.md,
 * "Several machines"). A server on any machine so lists and reads every library.
 *
 * Names: the own machine's documents keep theirs; another machine's are qualified by its
 * name, as its libraries are known in the store: library `laptop:Papers`, path
 * `laptop:Papers/a.md`, id `laptop:123456789012345`. The machine is in every name, so two
 * machines' libraries or files of the same name (the same ids in their schemas) never
 * collide, and a call is routed to the machine's schema by the name alone (no table of
 * ids to keep). Writes go to the own machine only: an indexer never writes another
 * machine's rows.
 *
 * @module
 */
// @ts-types="@types/pg"
import type pg from "pg";
import type { FileState, GraphDocRow, LinkTargets, PartialDoc } from "../core/catalog.ts";
import type { FieldValueCount } from "../core/fields.ts";
import type { DocHead, DocSections, StoredDoc } from "../core/catalog_docs.ts";
import type { StoredPassages } from "../core/catalog_sql.ts";
import type { Link } from "../core/extractor.ts";
import type { Fingerprint } from "../core/fingerprint.ts";
import type { LinkRow } from "../core/graph.ts";
import { type DocEntry, type DocTable, KeptTable } from "../core/listing.ts";
import type { Card, SearchFilters, Skipped } from "../core/types.ts";
import { PgCatalogStore } from "./catalog_postgres.ts";
import { guarded, MACHINES_KEPT_MS, openPool, QUALIFIED } from "./postgres_pool.ts";
import type { CatalogStore, LibraryClaim } from "./roles.ts";

/** Connections at most of each other machine's reader. */
const OTHER_CONNECTIONS = 4;

/** Options of {@link MachinesCatalogStore}. */
export interface MachinesOptions {
  /** The own machine's name (its documents keep their names). */
  machine: string;
  /** A read-only streaming replica the reads go to (`"store_read"`). */
  readUrl?: string;
}

/** A machine's store and the name of its documents in this one. */
interface Route {
  /** The machine's store (the own one, or a reader of another's schema). */
  store: CatalogStore;
  /** The machine's name, undefined for the own machine. */
  machine?: string;
}

/**
 * The catalogs of every machine of a shared store.
 *
 * ```ts ignore
 * const own = new PgCatalogStore(url, { machine: { name: "nas", owner } });
 * const store = new MachinesCatalogStore(own, url, { machine: "nas" });
 * await store.list(); // the NAS's documents, and `laptop:Papers/...` of the laptop
 * ```
 */
export class MachinesCatalogStore implements CatalogStore {
  /** Backend name. */
  readonly name = "postgres";
  readonly #own: CatalogStore;
  readonly #url: string;
  readonly #options: MachinesOptions;
  /** Readers of the other machines' schemas, by machine (made when first seen). */
  readonly #others = new Map<string, PgCatalogStore>();
  /** The other machines of the store as last read, by name. */
  #known: string[] = [];
  /** Other machines in the order first seen: their link rows' numbers ({@link linkRow}). */
  readonly #ordinals: string[] = [];
  /** When {@link #known} was read (`Date.now()`; 0: never). */
  #readAt = 0;
  /** A connection or two to read which machines the store holds. */
  readonly #pool: pg.Pool;
  /** The listing, kept until the change token moves ({@link table}). */
  readonly #listing = new KeptTable(() => this.changeToken(), () => this.list());

  /**
   * @param own the own machine's catalog (its writes, and its reads)
   * @param url the store's URL (the primary)
   * @param options the own machine's name, and the replica reads go to
   */
  constructor(own: CatalogStore, url: string, options: MachinesOptions) {
    this.#own = own;
    this.#url = url;
    this.#options = options;
    this.#pool = openPool(options.readUrl ?? url, 2);
  }

  /**
   * The other machines whose catalog tables the store holds, read again (a machine that
   * joined since is seen at the next listing, count or unknown name).
   */
  async #machines(): Promise<string[]> {
    const rows = await guarded("the catalog", async () => {
      try {
        return (await this.#pool.query(
          `SELECT name FROM public.shelfmark_machines
           WHERE name <> $1 AND to_regclass(format('%I.documents', name)) IS NOT NULL
           ORDER BY name COLLATE "C"`,
          [this.#options.machine],
        )).rows;
      } catch (e) {
        // no machine has claimed a name yet
        if ((e as { code?: string }).code === "42P01") return [];
        throw e;
      }
    });
    this.#known = rows.map((r) => r.name as string);
    this.#readAt = Date.now();
    return this.#known;
  }

  /** The reader of another machine's schema. */
  #other(machine: string): PgCatalogStore {
    let store = this.#others.get(machine);
    if (!store) {
      store = new PgCatalogStore(this.#url, {
        reads: machine,
        readUrl: this.#options.readUrl,
        connections: OTHER_CONNECTIONS,
      });
      this.#others.set(machine, store);
    }
    return store;
  }

  /** Every machine's route: the own first. */
  async #all(): Promise<Route[]> {
    const others = await this.#machines();
    return [{ store: this.#own }, ...others.map((m) => ({ store: this.#other(m), machine: m }))];
  }

  /**
   * Every machine's route as {@link #all}, the machines read at most
   * {@link MACHINES_KEPT_MS} ago reused (for each search: a machine that joins is counted
   * from the next second on).
   */
  async #recent(): Promise<Route[]> {
    if (Date.now() - this.#readAt >= MACHINES_KEPT_MS) return await this.#all();
    return [
      { store: this.#own },
      ...this.#known.map((m) => ({ store: this.#other(m), machine: m })),
    ];
  }

  /**
   * The machine a qualified name (id, library or path) is of, and the name in its schema;
   * a name without a known machine's prefix is the own machine's.
   */
  async #route(name: string): Promise<{ route: Route; local: string }> {
    const m = QUALIFIED.exec(name);
    if (m) {
      if (!this.#known.includes(m[1]!)) await this.#machines();
      if (this.#known.includes(m[1]!)) {
        return { route: { store: this.#other(m[1]!), machine: m[1] }, local: m[2]! };
      }
    }
    return { route: { store: this.#own }, local: name };
  }

  /** Ids grouped by machine, each with its local ids (in the order asked). */
  async #byMachine(ids: string[]): Promise<{ route: Route; ids: Map<string, string> }[]> {
    const groups = new Map<string | undefined, { route: Route; ids: Map<string, string> }>();
    for (const id of ids) {
      const { route, local } = await this.#route(id);
      let g = groups.get(route.machine);
      if (!g) groups.set(route.machine, g = { route, ids: new Map() });
      g.ids.set(local, id);
    }
    return [...groups.values()];
  }

  /**
   * A map by local id read from each machine (given its local ids, each with the name
   * asked), keyed by the names asked.
   */
  async #each<T>(
    ids: string[],
    read: (store: CatalogStore, asked: Map<string, string>) => Promise<Map<string, T>>,
    shown: (value: T, machine?: string) => T = (v) => v,
  ): Promise<Map<string, T>> {
    const got = new Map<string, T>();
    await Promise.all((await this.#byMachine(ids)).map(async ({ route, ids: asked }) => {
      for (const [local, value] of await read(route.store, asked)) {
        got.set(asked.get(local)!, shown(value, route.machine));
      }
    }));
    // in the order asked
    const out = new Map<string, T>();
    for (const id of ids) if (got.has(id)) out.set(id, got.get(id)!);
    return out;
  }

  put(doc: StoredDoc, text: string, links?: Link[]): Promise<void> {
    return this.#own.put(doc, text, links);
  }

  touch(docId: string, mtimeMs: number, modifiedAt: string): Promise<void> {
    return this.#own.touch(docId, mtimeMs, modifiedAt);
  }

  /** Removes the own machine's documents; another machine's ids are left to it. */
  remove(ids: string[]): Promise<void> {
    return this.#own.remove(ids.filter((id) => !QUALIFIED.test(id)));
  }

  claimLibrary(library: string): Promise<LibraryClaim> {
    return this.#own.claimLibrary!(library);
  }

  fileStates(library: string): Promise<Map<string, FileState>> {
    return this.#own.fileStates(library);
  }

  async get(docId: string): Promise<StoredDoc | undefined> {
    const { route, local } = await this.#route(docId);
    const doc = await route.store.get(local);
    return doc && { ...doc, card: qualifiedNames(doc.card, route.machine) };
  }

  async head(docId: string): Promise<DocHead | undefined> {
    const { route, local } = await this.#route(docId);
    const head = await route.store.head(local);
    return head && { ...head, card: qualifiedNames(head.card, route.machine) };
  }

  async sections(docId: string): Promise<DocSections | undefined> {
    const { route, local } = await this.#route(docId);
    return await route.store.sections(local);
  }

  cards(ids: string[]): Promise<Map<string, Card>> {
    return this.#each(ids, (s, asked) => s.cards([...asked.keys()]), qualifiedNames);
  }

  async text(docId: string): Promise<string | undefined> {
    const { route, local } = await this.#route(docId);
    return await route.store.text(local);
  }

  texts(ids: string[]): Promise<Map<string, string>> {
    return this.#each(ids, (s, asked) => s.texts([...asked.keys()]));
  }

  async lines(docId: string, from: number, to: number): Promise<string[] | undefined> {
    const { route, local } = await this.#route(docId);
    return await route.store.lines(local, from, to);
  }

  async passages(docId: string, seqs: number[]): Promise<StoredPassages | undefined> {
    const { route, local } = await this.#route(docId);
    return await route.store.passages(local, seqs);
  }

  passagesOf(wanted: Map<string, number[]>): Promise<Map<string, StoredPassages>> {
    return this.#each(
      [...wanted.keys()],
      (s, asked) =>
        s.passagesOf(new Map([...asked].map(([local, id]) => [local, wanted.get(id)!]))),
    );
  }

  fingerprints(ids: string[]): Promise<Map<string, Fingerprint>> {
    return this.#each(ids, (s, asked) => s.fingerprints([...asked.keys()]));
  }

  async idsMatching(filters: SearchFilters): Promise<string[] | undefined> {
    // filters that allow every document of the own machine allow every machine's (a
    // search without filters reads no list of machines)
    const own = filtersFor(filters);
    const mine = own && await this.#own.idsMatching(own);
    if (own && mine === undefined) return undefined;
    const lists = await Promise.all((await this.#machines()).map(async (machine) => {
      const f = filtersFor(filters, machine);
      if (!f) return [];
      const ids = await this.#other(machine).idsMatching(f);
      return ids?.map((id) => qualified(id, machine));
    }));
    return lists.some((l) => l === undefined)
      ? undefined
      : [mine ?? [], ...lists].flat() as string[];
  }

  async sameText(
    keys: string[],
    filters: SearchFilters,
  ): Promise<Map<string, { doc_id: string; path: string }[]>> {
    const out = new Map<string, { doc_id: string; path: string }[]>();
    for (const route of await this.#all()) {
      const f = filtersFor(filters, route.machine);
      if (!f) continue;
      for (const [key, docs] of await route.store.sameText(keys, f)) {
        const list = out.get(key) ?? [];
        for (const d of docs) {
          list.push({
            doc_id: qualified(d.doc_id, route.machine),
            path: qualified(d.path, route.machine),
          });
        }
        out.set(key, list);
      }
    }
    for (const list of out.values()) list.sort((a, b) => byPath(a.path, b.path));
    return out;
  }

  async links(docId: string): Promise<Link[]> {
    const { route, local } = await this.#route(docId);
    return await route.store.links(local);
  }

  /**
   * Every machine's documents for the link graph, by path in byte order, another machine's
   * under its qualified names: a link resolves within its library (`laptop:Papers/…`), so
   * each machine's links resolve as on that machine, and a link between two machines'
   * libraries has no target.
   */
  graphDocs(): Promise<GraphDocRow[]> {
    return this.#merged(this.#all(), (store) => store.graphDocs());
  }

  /** Rows read from each machine of `routes`, names qualified, in one list by path. */
  async #merged<T extends Named>(
    routes: Promise<Route[]>,
    read: (store: CatalogStore) => Promise<T[]>,
  ): Promise<T[]> {
    const each = await Promise.all(
      (await routes).map(async (route) =>
        (await read(route.store)).map((r) => qualifiedNames(r, route.machine))
      ),
    );
    return each.flat().sort((a, b) => byPath(a.path, b.path));
  }

  /**
   * Every machine's links, a page at a time (each machine's pages in turn), another
   * machine's documents qualified and its rows numbered apart ({@link linkRow}).
   */
  async *linkTargets(): AsyncGenerator<LinkTargets[]> {
    for (const route of await this.#all()) {
      const ordinal = this.#ordinal(route.machine);
      for await (const page of route.store.linkTargets()) {
        yield route.machine === undefined ? page : page.map((r) => ({
          doc_id: qualified(r.doc_id, route.machine),
          targets: r.targets,
          rows: r.rows.map((row) => linkRow(ordinal, row)),
        }));
      }
    }
  }

  /** The number of a machine in this process (0: the own one), for its link rows. */
  #ordinal(machine?: string): number {
    if (machine === undefined) return 0;
    let i = this.#ordinals.indexOf(machine);
    if (i < 0) i = this.#ordinals.push(machine) - 1;
    return i + 1;
  }

  /**
   * Every machine's word counts, summed: a search ranks every machine's documents as one
   * index (common words told by the counts of all of them).
   */
  async df(terms: string[]): Promise<Map<string, number>> {
    const counts = await Promise.all((await this.#recent()).map((r) => r.store.df(terms)));
    return new Map(terms.map((t) => [t, counts.reduce((s, c) => s + (c.get(t) ?? 0), 0)]));
  }

  /** Link rows of every machine, as {@link linkTargets} numbers them (one read per machine). */
  async linkRows(rows: number[]): Promise<Map<number, LinkRow>> {
    const groups = new Map<number, number[]>();
    for (const row of rows) {
      const ordinal = Math.floor(row / ROWS_APART);
      if (ordinal > this.#ordinals.length) continue;
      const local = groups.get(ordinal);
      if (local) local.push(row % ROWS_APART);
      else groups.set(ordinal, [row % ROWS_APART]);
    }
    const out = new Map<number, LinkRow>();
    await Promise.all([...groups].map(async ([ordinal, local]) => {
      const store = ordinal === 0 ? this.#own : this.#other(this.#ordinals[ordinal - 1]!);
      for (const [row, link] of await store.linkRows(local)) {
        out.set(linkRow(ordinal, row), link);
      }
    }));
    return out;
  }

  async fields(docId: string): Promise<Record<string, string[]>> {
    const { route, local } = await this.#route(docId);
    return await route.store.fields(local);
  }

  async idByPath(path: string): Promise<string | undefined> {
    const { route, local } = await this.#route(path);
    const id = await route.store.idByPath(local);
    return id && qualified(id, route.machine);
  }

  async list(library?: string): Promise<DocEntry[]> {
    if (library === undefined) return await this.#merged(this.#all(), (store) => store.list());
    const { route, local } = await this.#route(library);
    return await this.#merged(Promise.resolve([route]), (store) => store.list(local));
  }

  async changeToken(): Promise<string> {
    const routes = await this.#all();
    const tokens = await Promise.all(routes.map((r) => r.store.changeToken()));
    return routes.map((r, i) => `${r.machine ?? ""}=${tokens[i]}`).join(" ");
  }

  table(): Promise<DocTable> {
    return this.#listing.get();
  }

  async count(library?: string): Promise<number> {
    if (library !== undefined) {
      const { route, local } = await this.#route(library);
      return await route.store.count(local);
    }
    const counts = await Promise.all((await this.#all()).map((r) => r.store.count()));
    return counts.reduce((s, n) => s + n, 0);
  }

  /** The other machines' libraries, by their names in the store (`laptop:Papers`). */
  async otherLibraries(): Promise<string[]> {
    const others = await this.#machines();
    const names = await Promise.all(
      others.map(async (m) => (await this.#other(m).libraries()).map((l) => qualified(l, m))),
    );
    return names.flat();
  }

  /**
   * The fields each other machine's library has values of, by its name in the store
   * (`laptop:Papers`): what `search` filters of it may name (see {@link PgCatalogStore.fieldNames}).
   */
  async otherLibraryFields(): Promise<Map<string, string[]>> {
    const others = await this.#machines();
    const each = await Promise.all(
      others.map(async (m) =>
        [...await this.#other(m).fieldNames()].map(([l, f]) => [qualified(l, m), f] as const)
      ),
    );
    return new Map(each.flat());
  }

  /**
   * The values of a field in the other machines' libraries, or in one of them by its name
   * in the store (`laptop:Papers`; none for the own machine's), each machine's counted
   * apart: `list_tags` adds them to the own catalog's.
   */
  async otherFieldValues(field: string, library?: string): Promise<FieldValueCount[]> {
    if (library !== undefined) {
      const { route, local } = await this.#route(library);
      if (route.machine === undefined) return [];
      return await this.#other(route.machine).fieldValueCounts(field, local);
    }
    const each = await Promise.all(
      (await this.#machines()).map((m) => this.#other(m).fieldValueCounts(field)),
    );
    return each.flat();
  }

  saveRunFiles(library: string, skipped: Skipped[], partial: PartialDoc[]): Promise<void> {
    return this.#own.saveRunFiles!(library, skipped, partial);
  }

  /**
   * The other machines' skipped files and documents extracted in part, as their last index
   * runs left them, under qualified paths (each machine's by path, the machines by name).
   */
  async otherRunFiles(): Promise<{ skipped: Skipped[]; partial: PartialDoc[] }> {
    const each = await Promise.all((await this.#machines()).map(async (m) => {
      const { skipped, partial } = await this.#other(m).runFiles();
      return {
        skipped: skipped.map((s) => ({ ...s, path: qualified(s.path, m) })),
        partial: partial.map((p) => ({ ...p, path: qualified(p.path, m) })),
      };
    }));
    return {
      skipped: each.flatMap((e) => e.skipped),
      partial: each.flatMap((e) => e.partial),
    };
  }

  async close(): Promise<void> {
    await this.#own.close();
    for (const store of this.#others.values()) await store.close();
    await this.#pool.end();
  }
}

/**
 * Link rows of one machine apart from the next: a machine's rows (ids of its `links`)
 * stay below it, and 8,191 machines fit below 2^53.
 */
const ROWS_APART = 2 ** 40;

/** A machine's link row as the graph knows it (the own machine's, ordinal 0, as it is). */
function linkRow(ordinal: number, row: number): number {
  return ordinal * ROWS_APART + row;
}

/** A name in a machine's schema as this store shows it (the own machine's as it is). */
function qualified(name: string, machine?: string): string {
  return machine === undefined ? name : `${machine}:${name}`;
}

/** What names a document: its id, library and path. */
type Named = { doc_id: string; library: string; path: string };

/** A row with its id, library and path as this store shows them (keys in their order). */
function qualifiedNames<T extends Named>(row: T, machine?: string): T {
  if (machine === undefined) return row;
  return {
    ...row,
    doc_id: qualified(row.doc_id, machine),
    library: qualified(row.library, machine),
    path: qualified(row.path, machine),
  };
}

/** Paths in binary order (as JavaScript compares strings). */
function byPath(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Search filters as a machine's schema sees them (its names without the machine), or
 * undefined when none of its documents can pass: a library of another machine, a path
 * glob that starts with a literal name of another machine. A glob starting with `*` holds
 * for every machine; one starting with `?` or `[` is matched against the names in the
 * schema, without the machine (not yet the qualified path).
 *
 * @param filters the filters, with qualified names
 * @param machine the machine (undefined: the own one)
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { filtersFor } from "./catalog_machines.ts";
 * const f = { library: "laptop:Papers", path_glob: "laptop:Papers/*.md" };
 * assert.deepEqual(filtersFor(f, "laptop"), { library: "Papers", path_glob: "Papers/*.md" });
 * assert.equal(filtersFor(f, "nas"), undefined);
 * assert.equal(filtersFor(f), undefined); // not the own machine's
 * assert.deepEqual(filtersFor({ path_glob: "*.md" }, "nas"), { path_glob: "*.md" });
 * ```
 */
export function filtersFor(
  filters: SearchFilters,
  machine?: string,
): SearchFilters | undefined {
  const out = { ...filters };
  if (filters.library !== undefined) {
    const m = QUALIFIED.exec(filters.library);
    const own = machine === undefined;
    if (own ? m !== null : m?.[1] !== machine) return undefined;
    if (!own) out.library = m![2];
  }
  const glob = filters.path_glob;
  if (glob && machine !== undefined && !/^[*?[]/.test(glob)) {
    if (!glob.startsWith(`${machine}:`)) return undefined;
    out.path_glob = glob.slice(machine.length + 1);
  }
  return out;
}
