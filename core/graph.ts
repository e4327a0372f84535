/**
 * The link graph: every stored link (the catalog's `links` table) resolved to a document
 * of the same library, a file on disk, a broken target, an external URL or a place inside
 * its own document (see {@link parseTarget}), with the documents as nodes.
 *
 * Resolution happens at query time: {@link LinkGraphs} builds the graph from the catalog
 * store (SQLite or PostgreSQL, `stores/roles.ts`) once and keeps it until the store's
 * documents change. Measured on the full corpus
 * (4,124 documents, 212,903 links; `bench/graph.ts`): a build takes 0.3-0.5 s and about
 * 20 MiB, then `links` and `connection` answer in under 1.5 ms at p95. Stored resolutions
 * would not save that pass: a document that appears or leaves changes what other
 * documents' links resolve to (a broken link comes alive, a wiki name becomes ambiguous),
 * so the index would redo it after each run, and the catalog format would change.
 * The store reads the rows (`CatalogStore.graphDocs`, `linkTargets` in pages, `links`,
 * `linkRows` in batches), the data folder's catalog gives its skipped files; the links
 * between documents, kept both ways, and the path search live in `link_adjacency.ts`.
 *
 * @module
 */
import type { Catalog, GraphDocRow, LinkTargets, PartialDoc } from "./catalog.ts";
import type { Link } from "./extractor.ts";
import { Adjacency, type Pair } from "./link_adjacency.ts";
import { type Resolved, TargetResolver } from "./link_target.ts";
import type { Library, Skipped } from "./types.ts";

/** What a link points at. */
export type LinkKind =
  /** An indexed document of the same library. */
  | "document"
  /** A file of the library that is not indexed. */
  | "file"
  /** Nothing: no document, no file. */
  | "broken"
  /** A URL. */
  | "external"
  /** A relative path climbing above the library root (not looked up). */
  | "outside"
  /** A place in the same document (`#fragment`, an EPUB's own chapters). */
  | "internal";

/** A link with what its target resolved to. */
export interface ResolvedLink {
  /** The target as written. */
  target: string;
  /** The link's text. */
  text: string;
  /** Line of the link's text in its document. */
  line: number;
  /** What the target is. */
  kind: LinkKind;
  /** The target document, when it is indexed. */
  doc_id: string | null;
  /** The target's display path (document or file; the path looked for when broken). */
  path: string | null;
  /** Whether the target exists: null for URLs and paths outside the library. */
  exists: boolean | null;
}

/** One document of the graph. */
export interface GraphDoc {
  /** Its id. */
  doc_id: string;
  /** Its display path. */
  path: string;
  /** Its library. */
  library: string;
}

/** A document linking to (or linked from) another, with the number of links. */
export interface LinkCount extends GraphDoc {
  /** Links between the two. */
  links: number;
}

/** A link's place and text, as stored. */
export interface LinkRow {
  /** Line of the link's text in its document. */
  line: number;
  /** Its text. */
  text: string;
  /** Its target as written. */
  target: string;
}

/** Links of one document to a target that does not exist. */
export interface BrokenLink {
  /** The document the links stand in. */
  source: GraphDoc;
  /** The target as written. */
  target: string;
  /** The display path looked for. */
  path: string;
  /** How many links of the source have this target. */
  count: number;
  /** The row of the first one (its line and text: {@link LinkGraph.linkRows}). */
  row: number;
}

/** One step of a chain: the link joining two documents, read in either direction. */
export interface Hop {
  /** The document the link stands in. */
  from: string;
  /** The document it points to. */
  to: string;
  /** Line of the link in `from`. */
  line: number;
  /** Its text. */
  text: string;
  /** Its target as written. */
  target: string;
}

const INTERNAL: Resolved = { kind: "internal" };

/** Links of a document to a local target that matched nothing known. */
type Missing = { node: number; target: string; count: number; first: number };

/** Order by path. */
const byPath = (a: { path: string }, b: { path: string }) =>
  a.path < b.path ? -1 : a.path > b.path ? 1 : 0;

/**
 * What the link graph reads of the catalog store (`CatalogStore` in `stores/roles.ts`
 * extends it; the SQLite catalog and PostgreSQL implement it): each read is one query or
 * one page, never one per link.
 */
export interface LinkStore {
  /**
   * A token that changes whenever a write to the store commits (any machine's): views read
   * from the store (the listing, the link graph) are read again only when it changed.
   */
  changeToken(): Promise<string>;
  /**
   * Every document with what the link graph needs of it (id, path, library, type, when it
   * was stored), by path in byte order: one read.
   */
  graphDocs(): Promise<GraphDocRow[]>;
  /**
   * The stored links of every document that has some, a page of documents at a time (by
   * id): each one's targets and rows in document order, `#fragment` targets (inside the
   * document) left out. Each page is one read; nothing is held open between pages.
   */
  linkTargets(): AsyncGenerator<LinkTargets[]>;
  /** The links of a document, in document order. */
  links(docId: string): Promise<Link[]>;
  /**
   * Stored links by their rows (as {@link linkTargets} gives them), in one read; unknown
   * rows left out.
   */
  linkRows(rows: number[]): Promise<Map<number, LinkRow>>;
  /**
   * The other machines' skipped files and documents extracted in part, as their last
   * index runs left them, by their names in the store (`laptop:Papers/a.pdf`): a link to
   * such a file is to a file, as on its machine. A store of one data folder (whose catalog
   * holds them) has no such method.
   */
  otherRunFiles?(): Promise<{ skipped: Skipped[]; partial: PartialDoc[] }>;
}

/** A link row that is gone (the store changed since the graph was built): empty fields. */
const NO_ROW: LinkRow = { line: 0, text: "", target: "" };

/** The resolved links of a store's documents. Build one with {@link LinkGraph.build}. */
export class LinkGraph {
  readonly #store: LinkStore;
  readonly #docs: GraphDoc[];
  readonly #types: string[];
  readonly #byId = new Map<string, number>();
  readonly #targets: TargetResolver;
  #adj: Adjacency;
  /** Local targets that matched no document or known file, once per source document. */
  readonly #missing: Missing[] = [];
  readonly #broken = new Map<string, BrokenLink[]>();

  private constructor(
    store: LinkStore,
    docs: (GraphDoc & { doc_type: string })[],
    skipped: string[],
    libraries: Library[],
  ) {
    this.#store = store;
    this.#docs = docs.map(({ doc_id, path, library }) => ({ doc_id, path, library }));
    this.#types = docs.map((d) => d.doc_type);
    docs.forEach((d, i) => this.#byId.set(d.doc_id, i));
    this.#targets = new TargetResolver(docs.map((d) => d.path), skipped, libraries);
    this.#adj = new Adjacency(0, new Map());
  }

  /**
   * Resolve every link of the store's documents (use {@link LinkGraphs}, which keeps the
   * result): the links are read a page of documents at a time.
   *
   * @param store the store (its links)
   * @param docs every document, with its type
   * @param skipped display paths of files the data folder's catalog skipped (on disk, not
   *   indexed)
   * @param libraries the configured libraries (their roots, for files on disk)
   * @returns the graph
   */
  static async build(
    store: LinkStore,
    docs: (GraphDoc & { doc_type: string })[],
    skipped: string[],
    libraries: Library[],
  ): Promise<LinkGraph> {
    const g = new LinkGraph(store, docs, skipped, libraries);
    const pairs = new Map<number, Pair>();
    for await (const page of store.linkTargets()) {
      for (const r of page) g.#add(r, pairs);
    }
    g.#adj = new Adjacency(docs.length, pairs);
    return g;
  }

  /** Resolve one document's stored links: count its links to documents and its missing targets. */
  #add(r: LinkTargets, pairs: Map<number, Pair>): void {
    const src = this.#byId.get(r.doc_id);
    if (src === undefined) return;
    const n = this.#docs.length;
    const memo = this.#targets.memo(this.#docs[src]!.path, this.#types[src]!);
    const missing = new Map<string, Missing>();
    r.targets.forEach((target, k) => {
      const res = this.#resolve(src, target, memo);
      const row = r.rows[k]!;
      if (res.kind === "document") {
        const key = src * n + res.node;
        const p = pairs.get(key);
        if (!p) pairs.set(key, { count: 1, first: row });
        else [p.count, p.first] = [p.count + 1, Math.min(p.first, row)];
      } else if (res.kind === "missing") {
        const m = missing.get(target);
        if (!m) {
          const entry = { node: src, target, count: 1, first: row };
          missing.set(target, entry);
          this.#missing.push(entry);
        } else [m.count, m.first] = [m.count + 1, Math.min(m.first, row)];
      }
    });
  }

  #resolve(src: number, target: string, memo?: Map<string, Resolved>): Resolved {
    const r = this.#targets.resolve(this.#docs[src]!.path, this.#types[src]!, target, memo);
    return r.kind === "document" && r.node === src ? INTERNAL : r;
  }

  #link(src: number, l: { target: string; text: string; line: number }): ResolvedLink {
    const r = this.#resolve(src, l.target);
    const base = { target: l.target, text: l.text, line: l.line };
    switch (r.kind) {
      case "document": {
        const d = this.#docs[r.node]!;
        return { ...base, kind: "document", doc_id: d.doc_id, path: d.path, exists: true };
      }
      case "file":
        return { ...base, kind: "file", doc_id: null, path: r.path, exists: true };
      case "missing": {
        const found = r.paths.find((p) => this.#targets.onDisk(p));
        return found
          ? { ...base, kind: "file", doc_id: null, path: found, exists: true }
          : { ...base, kind: "broken", doc_id: null, path: r.paths[0]!, exists: false };
      }
      default:
        return { ...base, kind: r.kind, doc_id: null, path: null, exists: null };
    }
  }

  /**
   * Stored links by their rows (as {@link BrokenLink.row} gives them), in the order asked,
   * read in one batch; a row that is gone has empty fields.
   */
  async linkRows(rows: number[]): Promise<LinkRow[]> {
    if (!rows.length) return [];
    const found = await this.#store.linkRows([...new Set(rows)]);
    return rows.map((r) => found.get(r) ?? NO_ROW);
  }

  /** Documents in the graph. */
  get size(): number {
    return this.#docs.length;
  }

  /** Links between documents (each pair of documents counted once). */
  get edges(): number {
    return this.#adj.edges;
  }

  /** A document by id, or undefined. */
  doc(docId: string): GraphDoc | undefined {
    const i = this.#byId.get(docId);
    return i === undefined ? undefined : this.#docs[i];
  }

  /** Every link of a document, in document order, resolved (one read of its links). */
  async outgoing(docId: string): Promise<ResolvedLink[]> {
    const src = this.#byId.get(docId);
    if (src === undefined) return [];
    return (await this.#store.links(docId)).map((l) => this.#link(src, l));
  }

  /** The documents linking to a document, with their link counts, by path. */
  incoming(docId: string): LinkCount[] {
    const dst = this.#byId.get(docId);
    if (dst === undefined) return [];
    return this.#adj.sources(dst).map((s) => ({ ...this.#docs[s.node]!, links: s.links }))
      .sort(byPath);
  }

  /**
   * The first link of each `[from, to]` pair (undefined where `from` does not link to `to`),
   * read in one batch.
   */
  async firstLinks(pairs: [string, string][]): Promise<(LinkRow | undefined)[]> {
    const rows = pairs.map(([from, to]) => {
      const a = this.#byId.get(from);
      const b = this.#byId.get(to);
      return a === undefined || b === undefined ? undefined : this.#adj.firstRow(a, b);
    });
    const read = await this.linkRows(rows.filter((r) => r !== undefined));
    let k = 0;
    return rows.map((r) => r === undefined ? undefined : read[k++]);
  }

  /** Links whose target does not exist, in a library or all, by source path. */
  broken(library?: string): BrokenLink[] {
    const key = library ?? "";
    let out = this.#broken.get(key);
    if (out) return out;
    out = [];
    for (const m of this.#missing) {
      const source = this.#docs[m.node]!;
      if (library !== undefined && source.library !== library) continue;
      const l = this.#link(m.node, { target: m.target, text: "", line: 0 });
      if (l.kind !== "broken") continue;
      out.push({ source, target: m.target, path: l.path!, count: m.count, row: m.first });
    }
    out.sort((a, b) => byPath(a.source, b.source));
    this.#broken.set(key, out);
    return out;
  }

  /** Documents no other document links to, in a library or all, by path. */
  orphans(library?: string): GraphDoc[] {
    return this.#docs.filter((d, i) =>
      (library === undefined || d.library === library) &&
      this.#adj.inDegree(i) === 0
    );
  }

  /** Documents by the number of documents linking to them (then links, then path). */
  mostLinked(library?: string): (GraphDoc & { sources: number; links: number })[] {
    const out: (GraphDoc & { sources: number; links: number })[] = [];
    this.#docs.forEach((d, i) => {
      if (library !== undefined && d.library !== library) return;
      const sources = this.#adj.inDegree(i);
      if (sources) out.push({ ...d, sources, links: this.#adj.linksIn(i) });
    });
    return out.sort((x, y) => y.sources - x.sources || y.links - x.links || byPath(x, y));
  }

  /**
   * The shortest chain of links from one document to another, following links either way
   * (breadth first), with the link used at each step (read in one batch); undefined when
   * there is none within `maxDepth` steps.
   */
  async chain(
    from: string,
    to: string,
    maxDepth: number,
  ): Promise<{ docs: GraphDoc[]; hops: Hop[] } | undefined> {
    const a = this.#byId.get(from);
    const b = this.#byId.get(to);
    if (a === undefined || b === undefined) return undefined;
    const path = this.#adj.path(a, b, maxDepth);
    if (!path) return undefined;
    const docs = path.map((i) => this.#docs[i]!);
    // each step's link: forward when the earlier document links to the later, else back
    const steps = docs.slice(1).map((d, k) => {
      const [x, y] = [docs[k]!.doc_id, d.doc_id];
      const fwd = this.#adj.firstRow(path[k]!, path[k + 1]!) !== undefined;
      return fwd ? [x, y] as [string, string] : [y, x] as [string, string];
    });
    const rows = await this.firstLinks(steps);
    const hops = steps.map(([x, y], k): Hop => {
      const l = rows[k] ?? NO_ROW;
      return { from: x, to: y, line: l.line, text: l.text, target: l.target };
    });
    return { docs, hops };
  }
}

/** What a graph is built from besides the store. */
export interface GraphInputs {
  /**
   * The data folder's catalog: its skipped files (on disk, not indexed: link targets that
   * exist) and its change token (a file skipped or no longer skipped).
   */
  catalog: Pick<Catalog, "changeToken" | "skipped">;
  /** The configured libraries (their roots, for files on disk). */
  libraries: Library[];
}

/** A graph and what it was built from. */
interface Built {
  docs: string;
  graph: LinkGraph;
}

/**
 * The link graph of a store, built on first use and kept until the documents change: the
 * store's change token (and the data folder's catalog's) tells when anything was written;
 * the documents' ids, paths, types and times of indexing (a document stored again has its
 * links written again), and the skipped files, tell whether the graph must be rebuilt.
 * Calls while a graph is built wait for that build.
 *
 * @example
 * ```ts
 * import { Catalog } from "./catalog.ts";
 * import { LinkGraphs } from "./graph.ts";
 * import { SqliteCatalogStore } from "../stores/catalog_sqlite.ts";
 * import assert from "node:assert/strict";
 * const catalog = new Catalog(":memory:");
 * const graphs = new LinkGraphs(new SqliteCatalogStore(catalog));
 * const graph = await graphs.graph({ catalog, libraries: [] });
 * assert.equal(graph.size, 0);
 * assert.equal(await graphs.graph({ catalog, libraries: [] }), graph);
 * ```
 */
export class LinkGraphs {
  readonly #store: LinkStore;
  #slot?: { version: string; libraries: string; built: Promise<Built> };

  /** @param store the store the graphs are read from */
  constructor(store: LinkStore) {
    this.#store = store;
  }

  /**
   * The graph of the store's documents now.
   *
   * @param inputs the data folder's catalog (skipped files) and the libraries
   * @returns the graph, kept or built again
   */
  async graph(inputs: GraphInputs): Promise<LinkGraph> {
    const { catalog, libraries } = inputs;
    const version = `${await this.#store.changeToken()} ${catalog.changeToken()}`;
    const libs = JSON.stringify(libraries.map((l) => [l.name, l.root]));
    const slot = this.#slot;
    if (slot && slot.version === version && slot.libraries === libs) {
      return (await slot.built).graph;
    }
    const before = slot?.libraries === libs ? slot.built : undefined;
    const built = (async (): Promise<Built> => {
      const rows = await this.#store.graphDocs();
      const others = (await this.#store.otherRunFiles?.())?.skipped ?? [];
      const skipped = [...catalog.skipped(), ...others].map((s) => s.path);
      const docs = rows.map((r) => `${r.doc_id} ${r.indexed_at} ${r.doc_type} ${r.path}`)
        .join("\n") + `\n\n${skipped.join("\n")}`;
      const old = await before?.catch(() => undefined);
      if (old?.docs === docs) return old;
      return { docs, graph: await LinkGraph.build(this.#store, rows, skipped, libraries) };
    })();
    const mine = { version, libraries: libs, built };
    this.#slot = mine;
    try {
      return (await built).graph;
    } catch (e) {
      if (this.#slot === mine) this.#slot = undefined;
      throw e;
    }
  }

  /** Drop the graph kept (an idle server gives its memory back); the next call builds it. */
  release(): void {
    this.#slot = undefined;
  }
}
