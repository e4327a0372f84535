/**
 * The link graph: every stored link (the catalog's `links` table) resolved to a document
 * of the same library, a file on disk, a broken target, an external URL or a place inside
 * its own document (see {@link parseTarget}), with the documents as nodes.
 *
 * Resolution happens at query time: {@link linkGraph} builds the graph from the catalog
 * once and keeps it until the catalog's documents change. Measured on the full corpus
 * (4,124 documents, 212,903 links; `bench/graph.ts`): a build takes 0.3-0.5 s and about
 * 20 MiB, then `links` and `connection` answer in under 1.5 ms at p95. Stored resolutions
 * would not save that pass: a document that appears or leaves changes what other
 * documents' links resolve to (a broken link comes alive, a wiki name becomes ambiguous),
 * so the index would redo it after each run, and the catalog format would change.
 * The catalog reads the rows (`Catalog.graphDocs`, `linkTargets`, `links`, `linkAt`) and
 * keeps the graph; the links between documents, kept both ways, and the path search live in
 * `link_adjacency.ts`.
 *
 * @module
 */
import { type Catalog, CatalogCache, type GraphDocRow } from "./catalog.ts";
import { Adjacency, type Pair } from "./link_adjacency.ts";
import { type Resolved, TargetResolver } from "./link_target.ts";
import type { Library } from "./types.ts";

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
  /** The row of the first one (its line and text: {@link LinkGraph.linkAt}). */
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

/** What the graph reads of the catalog. */
export type LinkSource = Pick<Catalog, "linkTargets" | "links" | "linkAt">;

/** The resolved links of a catalog's documents. Build one with {@link linkGraph}. */
export class LinkGraph {
  readonly #catalog: LinkSource;
  readonly #docs: GraphDoc[];
  readonly #types: string[];
  readonly #byId = new Map<string, number>();
  readonly #targets: TargetResolver;
  readonly #adj: Adjacency;
  /** Local targets that matched no document or known file, once per source document. */
  readonly #missing: Missing[] = [];
  readonly #broken = new Map<string, BrokenLink[]>();

  /**
   * Resolve every link of the catalog (use {@link linkGraph}, which keeps the result).
   *
   * @param catalog the catalog (its links)
   * @param docs every document, with its type
   * @param skipped display paths of files the catalog skipped (on disk, not indexed)
   * @param libraries the configured libraries (their roots, for files on disk)
   */
  constructor(
    catalog: LinkSource,
    docs: (GraphDoc & { doc_type: string })[],
    skipped: string[],
    libraries: Library[],
  ) {
    this.#catalog = catalog;
    this.#docs = docs.map(({ doc_id, path, library }) => ({ doc_id, path, library }));
    this.#types = docs.map((d) => d.doc_type);
    docs.forEach((d, i) => this.#byId.set(d.doc_id, i));
    this.#targets = new TargetResolver(docs.map((d) => d.path), skipped, libraries);
    const n = docs.length;
    const pairs = new Map<number, Pair>();
    // Fragments (`#x`) are internal: the catalog leaves them out.
    for (const r of catalog.linkTargets()) {
      const src = this.#byId.get(r.doc_id);
      if (src === undefined) continue;
      const rowids = r.rows;
      const memo = this.#targets.memo(this.#docs[src]!.path, this.#types[src]!);
      const missing = new Map<string, Missing>();
      r.targets.forEach((target, k) => {
        const res = this.#resolve(src, target, memo);
        const row = rowids[k]!;
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
    this.#adj = new Adjacency(n, pairs);
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

  #rows(node: number): { target: string; text: string; line: number }[] {
    return this.#catalog.links(this.#docs[node]!.doc_id);
  }

  /** A stored link by its row (as {@link BrokenLink.row} gives it). */
  linkAt(rowid: number): LinkRow {
    return this.#catalog.linkAt(rowid);
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

  /** Every link of a document, in document order, resolved. */
  outgoing(docId: string): ResolvedLink[] {
    const src = this.#byId.get(docId);
    return src === undefined ? [] : this.#rows(src).map((l) => this.#link(src, l));
  }

  /** The documents linking to a document, with their link counts, by path. */
  incoming(docId: string): LinkCount[] {
    const dst = this.#byId.get(docId);
    if (dst === undefined) return [];
    return this.#adj.sources(dst).map((s) => ({ ...this.#docs[s.node]!, links: s.links }))
      .sort(byPath);
  }

  /** The first link of `from` that points at `to`, or undefined when there is none. */
  linkBetween(from: string, to: string): LinkRow | undefined {
    const a = this.#byId.get(from);
    const b = this.#byId.get(to);
    if (a === undefined || b === undefined) return undefined;
    const row = this.#adj.firstRow(a, b);
    return row === undefined ? undefined : this.linkAt(row);
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
   * (breadth first), with the link used at each step; undefined when there is none within
   * `maxDepth` steps.
   */
  chain(from: string, to: string, maxDepth: number): { docs: GraphDoc[]; hops: Hop[] } | undefined {
    const a = this.#byId.get(from);
    const b = this.#byId.get(to);
    if (a === undefined || b === undefined) return undefined;
    const path = this.#adj.path(a, b, maxDepth);
    if (!path) return undefined;
    const docs = path.map((i) => this.#docs[i]!);
    const hops: Hop[] = [];
    for (let k = 1; k < docs.length; k++) {
      const [x, y] = [docs[k - 1]!.doc_id, docs[k]!.doc_id];
      const fwd = this.linkBetween(x, y);
      const l = fwd ?? this.linkBetween(y, x)!;
      hops.push({
        from: fwd ? x : y,
        to: fwd ? y : x,
        line: l.line,
        text: l.text,
        target: l.target,
      });
    }
    return { docs, hops };
  }
}

/** The graph of a catalog and what it was built from. */
interface Built {
  version: string;
  docs: string;
  libraries: string;
  graph: LinkGraph;
}

/** Each catalog's graph (one slot: the graph last built). */
const GRAPH = new CatalogCache("link graph", () => ({ built: undefined as Built | undefined }));

/**
 * The link graph of a catalog, built on first use and kept by the catalog until the
 * documents change: the catalog's change token tells when anything was written; the
 * documents' ids, paths, types and times of indexing (a document stored again has its
 * links written again), and the skipped files, tell whether the graph must be rebuilt.
 *
 * @param catalog the catalog
 * @param libraries the configured libraries
 * @returns the graph
 * @example
 * ```ts
 * import { Catalog } from "./catalog.ts";
 * import { linkGraph } from "./graph.ts";
 * import assert from "node:assert/strict";
 * const catalog = new Catalog(":memory:");
 * assert.equal(linkGraph(catalog, []).size, 0);
 * ```
 */
export function linkGraph(catalog: Catalog, libraries: Library[]): LinkGraph {
  const slot = catalog.cache(GRAPH);
  const hit = slot.built;
  const version = catalog.changeToken();
  const libs = JSON.stringify(libraries.map((l) => [l.name, l.root]));
  if (hit && hit.version === version && hit.libraries === libs) return hit.graph;
  const rows: GraphDocRow[] = catalog.graphDocs();
  const skipped = catalog.skipped().map((s) => s.path);
  const docs = rows.map((r) => `${r.doc_id} ${r.indexed_at} ${r.doc_type} ${r.path}`).join("\n") +
    `\n\n${skipped.join("\n")}`;
  if (hit && hit.docs === docs && hit.libraries === libs) {
    hit.version = version;
    return hit.graph;
  }
  const graph = new LinkGraph(catalog, rows, skipped, libraries);
  slot.built = { version, docs, libraries: libs, graph };
  return graph;
}
