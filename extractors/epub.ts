/**
 * The EPUB extractor: `META-INF/container.xml` -> OPF (metadata, manifest, spine) ->
 * every spine item's XHTML converted by the HTML extractor and concatenated in spine
 * order, with its links (targets as written in the chapter, relative to its file). The outline is the book's table of contents (the NCX `navMap`, else the EPUB 3
 * nav document), each entry mapped to the line of its target; without a table of
 * contents, the headings the HTML extractor found.
 *
 * The archive is read with fflate through `_zip.ts` (sizes checked before inflating);
 * `mimetype` need not be the first entry.
 *
 * @module
 */
import type {
  DocMeta,
  Extracted,
  ExtractInput,
  Extractor,
  Heading,
  Link,
} from "../core/extractor.ts";
import { ExtractError } from "../core/extractor.ts";
import { html } from "./html.ts";
import { attr, elements, tags, textOf, xmlValue } from "./_xml.ts";
import { entryText, readZip, resolveHref } from "./_zip.ts";

/** A table-of-contents entry: label, nesting depth (1 = top), target entry and fragment. */
interface TocEntry {
  title: string;
  level: number;
  file: string;
  fragment?: string;
}

/** A converted spine item. */
interface Chapter {
  /** Entry name in the archive. */
  file: string;
  /** Raw XHTML. */
  source: string;
  /** 1-based line of the chapter's first line in the book. */
  start: number;
  /** Number of lines of the chapter. */
  count: number;
  /** Headings, with book line numbers. */
  headings: Heading[];
  /** Where each `id` is first given in `source`, once a table-of-contents entry asked. */
  ids?: Map<string, number>;
}

/** Normalise a title for matching: case, whitespace, section numbers, trailing punctuation. */
function norm(t: string): string {
  return t.toLowerCase().replace(/[¶#*`_]/g, "").replace(/\s+/g, " ").trim()
    .replace(/[.:]$/, "");
}

/** Metadata from the OPF `<metadata>` block. */
function opfMeta(opf: string): DocMeta {
  const block = /<(?:\w+:)?metadata\b[\s\S]*?<\/(?:\w+:)?metadata>/.exec(opf)?.[0] ?? "";
  const meta: DocMeta = {};
  const fields: [keyof DocMeta, string][] = [
    ["title", "dc:title"],
    ["author", "dc:creator"],
    ["language", "dc:language"],
    ["created", "dc:date"],
  ];
  for (const [key, tag] of fields) {
    const v = xmlValue(block, tag, " ");
    if (v) (meta as Record<string, string>)[key] = v;
  }
  // Subjects are the book's keywords: its `tags` field, as DOCX and PDF keywords are.
  const subjects = [...block.matchAll(/<dc:subject\b[^>]*>([\s\S]*?)<\/dc:subject>/g)]
    .map((m) => textOf(m[1]!)).filter(Boolean);
  if (subjects.length) meta.fields = { tags: [...new Set(subjects)] };
  return meta;
}

/** The NCX `navMap` as a flat list in document order, depth from nesting. */
function ncxToc(ncx: string, base: string): TocEntry[] {
  const out: TocEntry[] = [];
  let depth = 0;
  const pending: { title?: string; level: number }[] = [];
  let label = false;
  for (const { kind, name, attrs, end: after } of tags(ncx)) {
    const close = kind === "close";
    if (name === "navpoint") {
      if (close) {
        depth--;
        pending.pop();
      } else {
        depth++;
        pending.push({ level: depth });
      }
    } else if (name === "navlabel") label = !close;
    else if (name === "text" && !close && label && pending.length) {
      const end = ncx.indexOf("</text>", after);
      const top = pending[pending.length - 1]!;
      if (end > 0 && top.title === undefined) top.title = textOf(ncx.slice(after, end), " ");
    } else if (name === "content" && pending.length) {
      const src = attr(attrs, "src");
      const top = pending[pending.length - 1]!;
      if (src && top.title) {
        const hash = src.indexOf("#");
        out.push({
          title: top.title,
          level: top.level,
          file: resolveHref(base, src),
          fragment: hash >= 0 ? decodeURIComponent(src.slice(hash + 1)) : undefined,
        });
      }
    }
  }
  return out;
}

/** The EPUB 3 nav document's `<nav epub:type="toc">` as a flat list, depth from `<ol>` nesting. */
function navToc(nav: string, base: string): TocEntry[] {
  const start = /<nav\b[^>]*epub:type\s*=\s*["'][^"']*\btoc\b[^"']*["'][^>]*>/i.exec(nav);
  if (!start) return [];
  const end = nav.indexOf("</nav>", start.index);
  const body = nav.slice(start.index, end < 0 ? nav.length : end);
  const out: TocEntry[] = [];
  let depth = 0;
  for (const { kind, name, attrs, end } of tags(body)) {
    if (name === "ol") {
      depth += kind === "close" ? -1 : 1;
      continue;
    }
    if (name !== "a" || kind !== "open") continue;
    const href = attr(attrs, "href");
    const stop = body.indexOf("</a>", end);
    const title = textOf(body.slice(end, stop < 0 ? undefined : stop), " ");
    if (!href || !title) continue;
    const hash = href.indexOf("#");
    out.push({
      title,
      level: Math.max(1, depth),
      file: resolveHref(base, href),
      fragment: hash >= 0 ? decodeURIComponent(href.slice(hash + 1)) : undefined,
    });
  }
  return out;
}

/** An `id` attribute (what follows the space before it): its value in double or single quotes. */
const ID_ATTRIBUTE = /(?=\sid\s*=\s*(?:"([^"]*)"|'([^']*)'))/g;

/**
 * Where each `id` is first given in a chapter's XHTML (the space before `id`): one pass
 * over the chapter, where a pass per table-of-contents entry made a book with many
 * entries per chapter quadratic.
 */
function idOffsets(source: string): Map<string, number> {
  const at = new Map<string, number>();
  ID_ATTRIBUTE.lastIndex = 0;
  for (let m = ID_ATTRIBUTE.exec(source); m; m = ID_ATTRIBUTE.exec(source)) {
    const id = m[1] ?? m[2]!;
    if (!at.has(id)) at.set(id, m.index);
    ID_ATTRIBUTE.lastIndex = m.index + 1; // the pattern is a lookahead: matches may overlap
  }
  return at;
}

/** Text of the first heading element at or after the element with `id` in the XHTML. */
function headingAfterId(ch: Chapter, id: string): string | undefined {
  const source = ch.source;
  const at = (ch.ids ??= idOffsets(ch.source)).get(id);
  if (at === undefined) return undefined;
  const open = source.lastIndexOf("<", at);
  const h = /<h([1-6])\b[^>]*>([\s\S]*?)<\/h\1\s*>/gi;
  h.lastIndex = open < 0 ? at : open;
  const m = h.exec(source);
  if (!m || m.index - at > 4000) return undefined;
  return textOf(m[2]!.replace(/<a\b[^>]*class=["'][^"']*headerlink[\s\S]*?<\/a>/gi, ""), " ");
}

/** Whether heading title `h` is the TOC label `label`, perhaps with a section number before it. */
function sameTitle(h: string, label: string): boolean {
  const a = norm(h);
  const b = norm(label);
  if (!b) return false;
  return a === b ||
    (a.endsWith(" " + b) &&
      /^[\p{N}\p{Lu}ivxlc]{0,4}[\d.]*\.?$/iu.test(a.slice(0, -b.length - 1).trim()));
}

/**
 * Map TOC entries to book lines: an entry without `#fragment` to its file's first line;
 * otherwise the heading the fragment's element leads to, else a heading with the entry's
 * title, else the last line mapped in that file. Lines never go backwards within a file.
 */
function mapToc(toc: TocEntry[], chapters: Map<string, Chapter>): Heading[] {
  const out: Heading[] = [];
  /** Per file: the last heading line an entry was mapped to. */
  const cursor = new Map<string, number>();
  /** Headings the TOC points to, by line: their HTML level and TOC level. */
  const used = new Map<number, { html: number; toc: number }>();
  for (const entry of toc) {
    const ch = chapters.get(entry.file);
    if (!ch) continue;
    const from = cursor.get(entry.file) ?? 0;
    const candidates = ch.headings.filter((h) => h.line > from);
    if (!entry.fragment) {
      out.push({ level: entry.level, title: entry.title, line: ch.start });
      continue;
    }
    const target = headingAfterId(ch, entry.fragment);
    let hit = target ? candidates.find((h) => norm(h.title) === norm(target)) : undefined;
    hit ??= candidates.find((h) => sameTitle(h.title, entry.title));
    let line = Math.max(from, ch.start);
    if (hit) {
      line = hit.line;
      cursor.set(entry.file, line);
    }
    out.push({ level: entry.level, title: entry.title, line });
    if (hit) used.set(line, { html: hit.level, toc: entry.level });
  }
  return withDeeperHeadings(out, used, chapters);
}

/**
 * Tables of contents are often cut at a depth (pandoc's `--toc-depth=3`, Sphinx's
 * `epub_tocdepth`): add the text's headings that are deeper than every heading the TOC
 * points to, under the TOC entry before them, keeping their relative depth.
 */
function withDeeperHeadings(
  toc: Heading[],
  used: Map<number, { html: number; toc: number }>,
  chapters: Map<string, Chapter>,
): Heading[] {
  if (!used.size) return toc;
  const deepest = Math.max(...[...used.values()].map((u) => u.html));
  const extra: Heading[] = [];
  for (const ch of chapters.values()) {
    let parent: { html: number; toc: number } | undefined;
    for (const h of ch.headings) {
      const u = used.get(h.line);
      if (u) parent = u;
      else if (h.level > deepest && parent) {
        extra.push({ ...h, level: parent.toc + Math.max(1, h.level - parent.html) });
      }
    }
  }
  if (!extra.length) return toc;
  const merged: Heading[] = [];
  let i = 0;
  for (const h of toc) {
    while (i < extra.length && extra[i]!.line < h.line) merged.push(extra[i++]!);
    merged.push(h);
  }
  while (i < extra.length) merged.push(extra[i++]!);
  return merged;
}

/**
 * Files that are title pages (nav landmarks, OPF guide, or `epub:type="titlepage"` in the
 * body): their TOC entries repeat the book title and are not sections.
 */
function titlePageFiles(
  opfPath: string,
  opf: string,
  navPath: string | undefined,
  nav: string | undefined,
  chapters: Map<string, Chapter>,
): Set<string> {
  const out = new Set<string>();
  for (const { attrs } of elements(opf, "reference")) {
    const type = attr(attrs, "type")?.toLowerCase();
    const href = attr(attrs, "href");
    if (href && (type === "title-page" || type === "titlepage")) {
      out.add(resolveHref(opfPath, href));
    }
  }
  if (nav && navPath) {
    for (const { attrs } of elements(nav, "a")) {
      const type = attr(attrs, "epub:type");
      const href = attr(attrs, "href");
      if (href && type && /\btitlepage\b/.test(type)) out.add(resolveHref(navPath, href));
    }
  }
  for (const ch of chapters.values()) {
    if (
      /<body\b[^>]*epub:type\s*=\s*["'][^"']*\bfrontmatter\b[\s\S]{0,400}epub:type\s*=\s*["']titlepage["']/
        .test(ch.source)
    ) {
      out.add(ch.file);
    }
  }
  return out;
}

/**
 * The EPUB extractor (`.epub`).
 *
 * @returns an extractor producing the chapters' Markdown lines in spine order, the table
 *   of contents as headings (`outlineQuality: "high"`) and OPF metadata
 * @example
 * ```ts
 * import { epub } from "./epub.ts";
 * import { strToU8, zipSync } from "fflate";
 * import assert from "node:assert/strict";
 *
 * const bytes = zipSync({
 *   "mimetype": strToU8("application/epub+zip"),
 *   "META-INF/container.xml": strToU8(`<container><rootfiles><rootfile full-path="book.opf"/></rootfiles></container>`),
 *   "book.opf": strToU8(
 *     `<package><metadata><dc:title xmlns:dc="http://purl.org/dc/elements/1.1/">Tea</dc:title></metadata>` +
 *       `<manifest><item id="c1" href="c1.xhtml" media-type="application/xhtml+xml"/></manifest>` +
 *       `<spine><itemref idref="c1"/></spine></package>`,
 *   ),
 *   "c1.xhtml": strToU8("<html><body><h1>Brewing</h1><p>Steep it.</p></body></html>"),
 * });
 * const book = await epub().extract({ path: "lib/b.epub", extension: ".epub", bytes });
 * assert.deepEqual(book.lines, ["# Brewing", "", "Steep it."]);
 * assert.equal(book.meta?.title, "Tea");
 * ```
 */
export function epub(): Extractor {
  const toMarkdown = html();
  return {
    name: "epub",
    extensions: [".epub"],
    mimeTypes: ["application/epub+zip"],
    priority: 0,
    async extract(input: ExtractInput): Promise<Extracted> {
      const zip = readZip(
        input.bytes,
        (e) => /\.(?:xml|opf|ncx|xhtml|html?|xht)$/i.test(e.name),
      );
      const text = (name: string) => {
        const data = zip.files.get(name);
        return data ? entryText(data) : undefined;
      };
      const container = text("META-INF/container.xml");
      const rootfile = container ? elements(container, "rootfile").next().value : undefined;
      let opfPath = rootfile && attr(rootfile.attrs, "full-path");
      if (!opfPath || !zip.files.has(opfPath)) {
        opfPath = [...zip.files.keys()].find((n) => n.toLowerCase().endsWith(".opf"));
      }
      const opf = opfPath ? text(opfPath) : undefined;
      if (!opfPath || !opf) {
        throw new ExtractError("corrupt", "no OPF package document in the EPUB");
      }
      const meta = opfMeta(opf);
      const manifest = new Map<string, { href: string; type: string; props: string }>();
      for (const { attrs } of elements(opf, "item")) {
        const id = attr(attrs, "id");
        const href = attr(attrs, "href");
        if (!id || !href) continue;
        manifest.set(id, {
          href: resolveHref(opfPath, href),
          type: attr(attrs, "media-type") ?? "",
          props: attr(attrs, "properties") ?? "",
        });
      }
      const spine: string[] = [];
      for (const { attrs } of elements(opf, "itemref")) {
        const item = manifest.get(attr(attrs, "idref") ?? "");
        if (item && /html|xml/i.test(item.type) && !spine.includes(item.href)) {
          spine.push(item.href);
        }
      }
      const warnings: string[] = [];
      const lines: string[] = [];
      const links: Link[] = [];
      const chapters = new Map<string, Chapter>();
      for (const file of spine) {
        if (input.signal?.aborted) {
          warnings.push(
            `time limit reached: converted ${chapters.size} of ${spine.length} chapters`,
          );
          break;
        }
        const data = zip.files.get(file);
        if (!data) {
          warnings.push(`spine item missing from the archive: ${file}`);
          continue;
        }
        let doc: Extracted;
        try {
          doc = await toMarkdown.extract({ path: input.path, extension: ".html", bytes: data });
        } catch {
          continue; // an empty chapter
        }
        let skipped = 0;
        while (skipped < doc.lines.length && !doc.lines[skipped]!.trim()) skipped++;
        const own = doc.lines.slice(skipped);
        if (lines.length && own.length) lines.push("");
        const start = lines.length + 1;
        const shift = start - 1 - skipped;
        lines.push(...own);
        for (const l of doc.links ?? []) links.push({ ...l, line: l.line + shift });
        chapters.set(file, {
          file,
          source: entryText(data),
          start,
          count: own.length,
          headings: (doc.headings ?? []).map((h) => ({ ...h, line: h.line + shift })),
        });
        if (doc.warnings?.length) warnings.push(...doc.warnings);
      }
      // Cut at the soft deadline before its first chapter, it is a partial book, not an empty one.
      if (!lines.some((l) => l.trim()) && !input.signal?.aborted) {
        throw new ExtractError("empty", "the EPUB has no text");
      }
      const ncxItem = [...manifest.values()].find((i) => /dtbncx/i.test(i.type));
      const navItem = [...manifest.values()].find((i) => /\bnav\b/.test(i.props));
      let toc: TocEntry[] = [];
      const ncx = ncxItem ? text(ncxItem.href) : undefined;
      if (ncx) toc = ncxToc(ncx, ncxItem!.href);
      const nav = navItem ? text(navItem.href) : undefined;
      if (!toc.length && nav) toc = navToc(nav, navItem!.href);
      const titlePages = titlePageFiles(opfPath, opf, navItem?.href, nav, chapters);
      toc = toc.filter((e) => e.fragment || !titlePages.has(e.file));
      let headings = mapToc(toc, chapters);
      if (!headings.length) headings = [...chapters.values()].flatMap((c) => c.headings);
      return {
        lines,
        headings,
        outlineQuality: headings.length ? "high" : "none",
        meta,
        warnings: warnings.length ? warnings : undefined,
        links,
      };
    },
  };
}
