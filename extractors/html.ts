/**
 * The HTML extractor: keeps the page's main content when it marks one (`<main>`,
 * `role=main`), removes navigation chrome (`<nav>`, `role=navigation|search`, sidebars,
 * headers/footers of documentation generators), scripts, styles and permalink anchors in
 * one linear pass over the tags, unwraps layout tables (`_html_layout.ts`), converts the
 * rest to Markdown with node-html-markdown (a long page piece by piece, see
 * `_html_split.ts`), and takes headings from the Markdown.
 *
 * Links and images keep only their text in the lines (`[shelve](#module-shelve "…")`
 * becomes `shelve`, an image its alt text): their targets are returned apart as
 * `links`, with the line of their text (see `_links.ts`). EPUB and DOCX are converted
 * through this extractor, so the same holds for them.
 *
 * @module
 */
import {
  NodeHtmlMarkdown,
  type TranslatorConfigFactory,
  type TranslatorConfigObject,
} from "node-html-markdown";
import type { DocMeta, Extracted, ExtractInput, Extractor } from "../core/extractor.ts";
import { ExtractError } from "../core/extractor.ts";
import { HeapTrimmer, PIECE_TRIM } from "../core/heap.ts";
import { decodeText } from "../core/sniff.ts";
import { markdownHeadings } from "./_headings_markdown.ts";
import { LinkSink } from "./_links.ts";
import { REOPENED_LINE, splitBlocks } from "./_html_split.ts";
import { unwrapLayoutTables } from "./_html_layout.ts";
import { attr, deadlineCheck, DeadlinePassed, nextTag, RAW_TEXT, tags, textOf } from "./_xml.ts";
// node-html-markdown without its quadratic append (same Markdown).
import "./_markdown_append.ts";
// node-html-parser without its quadratic repair of unclosed elements (same tree).
import "./_html_parse.ts";

/** Between the pieces of a long page (see {@link splitBlocks}). */
const heap = new HeapTrimmer(PIECE_TRIM);

/** Classes that mark navigation chrome (the corpus's definition of "outside navigation"). */
const NAV_CLASSES = new Set([
  "mobile-nav",
  "sphinxsidebar",
  "related",
  "footer",
  "navheader",
  "navfooter",
  "toplang",
  "bottomlang",
  "menu",
  "navigation",
]);
/** Classes of permalink anchors (`¶`) that would otherwise end up in heading titles. */
const ANCHOR_CLASSES = new Set(["headerlink", "permalink"]);
/** Elements removed with their content. */
const DROP_TAGS = new Set(["script", "style", "noscript", "head", "template", "nav", "svg"]);
const VOID = new Set([
  "area",
  "base",
  "br",
  "col",
  "embed",
  "hr",
  "img",
  "input",
  "link",
  "meta",
  "source",
  "track",
  "wbr",
]);

function isChrome(name: string, attrs: string): boolean {
  if (DROP_TAGS.has(name)) return true;
  if (!attrs) return false;
  const role = attr(attrs, "role")?.toLowerCase();
  if (role === "navigation" || role === "search") return true;
  const cls = attr(attrs, "class");
  if (!cls) return false;
  for (const c of cls.split(/\s+/)) {
    if (NAV_CLASSES.has(c) || (name === "a" && ANCHOR_CLASSES.has(c))) return true;
  }
  return false;
}

/**
 * Find the end of the element `name` opened before `from` by counting nested tags of
 * the same name; -1 when it is never closed.
 */
function elementEnd(html: string, name: string, from: number, check?: () => void): number {
  let depth = 1;
  for (const t of tags(html, from)) {
    check?.();
    if (t.name !== name) continue;
    if (t.kind === "close") depth--;
    else if (!t.attrs.endsWith("/")) depth++;
    if (depth === 0) return t.end;
  }
  return -1;
}

/**
 * Remove navigation chrome, scripts, styles, `<head>` and permalink anchors from HTML.
 * Linear in the size of the page; an element that is never closed keeps its content.
 *
 * @param html the page
 * @param check called at each tag (see `deadlineCheck`)
 * @returns the page without chrome
 */
export function stripChrome(html: string, check?: () => void): string {
  const out: string[] = [];
  const unclosed = new Set<string>();
  let pos = 0;
  let copied = 0;
  for (let t = nextTag(html, 0); t; t = nextTag(html, pos)) {
    check?.();
    pos = t.next;
    if (t.kind === "close") continue;
    const { name, attrs } = t;
    if (t.kind !== "open" || (name === "img" && !attr(attrs, "alt")?.trim())) {
      // comments, declarations and decorative images without alt text: nothing to read
      out.push(html.slice(copied, t.start));
      copied = t.end;
      continue;
    }
    if (VOID.has(name) || !isChrome(name, attrs)) continue;
    let end: number;
    if (RAW_TEXT.has(name)) end = t.next;
    else if (attrs.endsWith("/") || unclosed.has(name)) end = -1;
    else end = elementEnd(html, name, t.end, check);
    if (end < 0) {
      unclosed.add(name);
      continue;
    }
    out.push(html.slice(copied, t.start), " ");
    pos = copied = end;
  }
  out.push(html.slice(copied));
  return out.join("");
}

/**
 * The page's main content when it marks one (`<main>`, `role="main"`: Node.js and Sphinx
 * pages), so that the site's header, menus and pickers around it are not read as the
 * document (Node.js pages open with the site's `<h1>` and a table of contents of every
 * module); the whole page otherwise. Every main element is kept, in order.
 *
 * @param html the page
 * @param check called at each tag (see `deadlineCheck`)
 * @returns the main elements, or the page
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const page = '<header><h1>Site</h1></header><div role="main"><h2>Topic</h2></div><p>foot</p>';
 * assert.equal(mainContent(page), '<div role="main"><h2>Topic</h2></div>');
 * assert.equal(mainContent("<h1>Page</h1>"), "<h1>Page</h1>");
 * ```
 */
export function mainContent(html: string, check?: () => void): string {
  // Most pages have none: a `<main` or a tag holding `main` before its `>` (all that
  // `isMain` accepts, and more) is looked for before the tags are read one by one.
  if (!MAIN_TAG.test(html)) return html;
  const parts: string[] = [];
  let pos = 0;
  for (let t = nextTag(html, pos); t; t = nextTag(html, pos)) {
    check?.();
    pos = t.next;
    if (t.kind !== "open" || !isMain(t.name, t.attrs)) continue;
    const end = t.attrs.endsWith("/") ? -1 : elementEnd(html, t.name, t.end, check);
    if (end < 0) break;
    parts.push(html.slice(t.start, end));
    pos = end;
  }
  return parts.length ? parts.join("\n") : html;
}

/** Where a main element may open: a tag named `main`, or one whose attributes hold `main`. */
const MAIN_TAG = /<(?:main|[a-zA-Z][^>]*main)/i;

/** `<main>`, or an element with `role="main"`. */
function isMain(name: string, attrs: string): boolean {
  return name === "main" || (attrs.includes("main") && attr(attrs, "role") === "main");
}

/** Metadata from the page head: `<title>`, `<meta name=author|keywords|date>`, `<html lang>`. */
function headMeta(html: string): DocMeta {
  const head = html.slice(0, 200_000);
  const meta: DocMeta = {};
  const title = /<title[^>]*>([\s\S]*?)<\/title\s*>/i.exec(head);
  if (title) {
    const t = textOf(title[1]!);
    if (t) meta.title = t;
  }
  const lang = /<html\b([^>]*)>/i.exec(head);
  const language = lang ? (attr(lang[1]!, "lang") ?? attr(lang[1]!, "xml:lang")) : undefined;
  if (language?.trim()) meta.language = language.trim();
  for (const m of head.matchAll(/<meta\b([^>]*)>/gi)) {
    const name = attr(m[1]!, "name")?.toLowerCase();
    const content = attr(m[1]!, "content")?.trim();
    if (!name || !content) continue;
    if (name === "author" && !meta.author) meta.author = content;
    else if (name === "keywords" && !meta.tags) {
      meta.tags = content.split(",").map((t) => t.trim()).filter(Boolean);
    } else if ((name === "date" || name === "dcterms.created") && !meta.created) {
      meta.created = content;
    }
  }
  return meta;
}

/** Decode the page, honouring a declared `<meta charset>` when the bytes are not UTF-8. */
function decodeHtml(bytes: Uint8Array): { text: string; warnings: string[] } {
  const bom = bytes[0] === 0xef || bytes[0] === 0xff || bytes[0] === 0xfe;
  if (!bom) {
    try {
      return { text: new TextDecoder("utf-8", { fatal: true }).decode(bytes), warnings: [] };
    } catch {
      const head = new TextDecoder("latin1").decode(bytes.subarray(0, 4096));
      const cs = /<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)/i.exec(head)?.[1];
      if (cs && !/^utf-?8$/i.test(cs)) {
        try {
          return { text: new TextDecoder(cs).decode(bytes), warnings: [] };
        } catch {
          // unknown label: fall through to the generic decoder
        }
      }
    }
  }
  const { text, warnings } = decodeText(bytes);
  return { text, warnings };
}

/**
 * The text without its leading line breaks and trailing whitespace: what
 * `s.replace(/^\n+|\s+$/g, "")` gives, without trying `\s+$` at every whitespace of a long
 * text (5 % of the HTML extractor's CPU).
 */
function trimBlock(s: string): string {
  return s.replace(/^\n+/, "").trimEnd();
}

/** Wrap the content of a code block in a fence longer than any backtick run inside it. */
function fenced(content: string): string {
  const body = trimBlock(content);
  let fence = "```";
  for (const m of body.matchAll(/^ *(`{3,})/gm)) {
    if (m[1]!.length >= fence.length) fence = "`".repeat(m[1]!.length + 1);
  }
  return `${fence}\n${body}\n${fence}`;
}

/**
 * `<pre>` without a single `<code>` child (Sphinx, DocBook) becomes a fenced block too,
 * so its lines are not read as Markdown (a `===` in a code sample is not a heading).
 */
const TRANSLATORS: TranslatorConfigObject = {
  pre: ({ node, visitor }) => {
    const kids = node.childNodes;
    const only = kids.length === 1 ? kids[0] as { tagName?: string } : undefined;
    if (only?.tagName === "CODE") {
      return { noEscape: true, preserveWhitespace: true, surroundingNewlines: 2 };
    }
    return {
      noEscape: true,
      preserveWhitespace: true,
      surroundingNewlines: 2,
      childTranslators: visitor.instance.codeBlockTranslators,
      postprocess: ({ content }) => fenced(content),
    };
  },
};

/** The text of a permalink anchor: `#`, `¶`, `§`, a link symbol. */
const PERMALINK_TEXT = /^\s*[#¶§🔗]\s*$/u;

/** A node of the tree node-html-markdown converts (node-html-parser's element). */
type HtmlNode = Parameters<TranslatorConfigFactory>[0]["node"];

/**
 * A permalink anchor inside a heading (`<h2>Topic<a href="#topic">#</a></h2>`, Node.js,
 * MkDocs, many static site generators): a link within the page whose text is only a
 * permalink sign, which would otherwise end the heading's title.
 */
function isPermalink(node: HtmlNode, href: string): boolean {
  if (!href.trim().startsWith("#") || !PERMALINK_TEXT.test(node.textContent)) return false;
  for (let p = node.parentNode; p; p = p.parentNode) {
    if (/^H[1-6]$/.test((p as { tagName?: string }).tagName ?? "")) return true;
  }
  return false;
}

/** Blocks inside a table cell (nested tables too), written on one line, apart. */
const CELL_BLOCKS =
  "p,div,li,dt,dd,ul,ol,dl,h1,h2,h3,h4,h5,h6,blockquote,pre,section,center,table,caption,tr,td,th";

/**
 * A converter whose links and images write their text only, each target going to `sink`
 * (in table cells and inside links too, where node-html-markdown has its own translators).
 * Links inside code blocks keep their text and nothing else, as before.
 */
function converter(sink: LinkSink): NodeHtmlMarkdown {
  const a: TranslatorConfigFactory = ({ node, visitor }) => {
    const href = node.getAttribute("href");
    if (!href?.trim() || /^\s*javascript:/i.test(href)) return {};
    if (isPermalink(node, href)) return { ignore: true };
    return {
      childTranslators: visitor.instance.aTagTranslators,
      postprocess: ({ content }) => sink.mark(href, content.replace(/(?:\r?\n)+/g, " ")),
    };
  };
  const img: TranslatorConfigFactory = ({ node }) => {
    const alt = (node.getAttribute("alt") ?? "").replace(/\s+/g, " ").trim();
    if (!alt) return { ignore: true };
    const src = node.getAttribute("src") ?? "";
    return { content: /^data:/i.test(src) ? alt : sink.mark(src, alt), recurse: false };
  };
  // Text is escaped as Markdown here (link texts and headings are read as Markdown);
  // the finished lines lose those escapes ({@link unescapeText}).
  const nhm = new NodeHtmlMarkdown({ maxConsecutiveNewlines: 2 }, { ...TRANSLATORS, a, img });
  nhm.tableCellTranslators.set("a", a);
  nhm.tableCellTranslators.set("img", img);
  // Paragraphs, list items and line breaks in a cell are kept apart by a space (the cell
  // turns line breaks into spaces): `<li>one</li><li>two</li>` would read `onetwo`.
  nhm.tableCellTranslators.set(CELL_BLOCKS, { surroundingNewlines: 1 });
  nhm.tableCellTranslators.set("br", { content: "\n", recurse: false });
  nhm.aTagTranslators.set("img", img);
  return nhm;
}

/** The end of an inline element (or an image) followed by a line break. */
const INLINE_END =
  /(<\/(?:a|abbr|b|big|cite|code|del|dfn|em|font|i|ins|kbd|mark|q|s|samp|small|span|strong|sub|sup|time|tt|u|var)\s*>|<img\b[^>]*>)(?=[ \t]*\r?\n)/gi;

/**
 * An image (in its link or not) right before another link or image: a row of logos or
 * icons, whose alt texts would run together (`GNOME2 LogoW3C logo`) without a space.
 */
const IMAGE_BEFORE_NEXT = /(<img\b[^>]*>(?:\s*<\/a\s*>)?)(?=<(?:a|img)\b)/gi;

/**
 * node-html-markdown drops the space of a text that starts with a line break after an
 * inline element (`<a>shelve</a>\n  and` would read `shelveand`): a space before the break
 * keeps it. In `<pre>` that space ends a line and is trimmed with the others. Images side by
 * side are kept apart the same way ({@link IMAGE_BEFORE_NEXT}).
 */
function keepSpaceAfterInline(html: string): string {
  return html.replace(INLINE_END, "$1 ").replace(IMAGE_BEFORE_NEXT, "$1 ");
}

/**
 * The escapes node-html-markdown puts before the first characters of a text, at the start
 * of a line or after the marks of a heading, quote or list item (`## \- dash`).
 */
const LINE_START_ESCAPE =
  /^((?:\s*(?:#{1,6}[ \t]+|>[ \t]?|[-+*][ \t]+|\d{1,9}[.)][ \t]+))*\s*)\\([-+=>]|#{1,6}\s)/;
/**
 * The escapes it puts before \ ` * _ ~ [ ] anywhere in text, and before the dot after a
 * number followed by a space, anywhere too (`Python 3.12\. This`, `# 2\. Advantages`).
 */
const TEXT_ESCAPE = /\\([\\`*_~[\]])|(?<=\d)\\(\.)(?=\s|$)/g;

/** A line's text without Markdown escapes, inline code spans (`` `a\_b` ``) left as they are. */
function unescapeLine(line: string): string {
  if (!line.includes("\\")) return line;
  const parts = line.split(/(`+[^`]*`+)/);
  for (let i = 0; i < parts.length; i += 2) {
    parts[i] = parts[i]!.replace(TEXT_ESCAPE, (_m, c, dot) => c ?? dot);
  }
  return parts.join("").replace(LINE_START_ESCAPE, "$1$2");
}

/**
 * Once the headings are known, text lines lose the escapes that kept them from reading as
 * Markdown (`max\_connections` → `max_connections`, `\- not a list` → `- not a list`), so
 * grep and verbatim quotes work; code blocks and code spans keep theirs.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.deepEqual(unescapeText(["a\\_b \\[x\\]", "~~~", "\\- b", "~~~"]), ["a_b [x]", "~~~", "\\- b", "~~~"]);
 * ```
 */
export function unescapeText(lines: string[]): string[] {
  let fence: string | undefined;
  return lines.map((l) => {
    const f = /^\s*(`{3,}|~{3,})/.exec(l)?.[1];
    if (f && (!fence || f[0] === fence[0] && f.length >= fence.length)) {
      fence = fence ? undefined : f;
      return l;
    }
    if (fence) return l;
    return unescapeLine(l);
  });
}

/** Break very long prose lines at spaces so `read` stays usable; tables and code stay. */
function wrapLong(lines: string[], max = 1000): string[] {
  const out: string[] = [];
  let fence = false;
  for (const line of lines) {
    if (/^\s*(```|~~~)/.test(line)) fence = !fence;
    if (fence || line.length <= max || line.trimStart().startsWith("|")) {
      out.push(line);
      continue;
    }
    let rest = line;
    while (rest.length > max) {
      let cut = rest.lastIndexOf(" ", max);
      if (cut < max / 2) cut = max;
      out.push(rest.slice(0, cut).trimEnd());
      rest = rest.slice(cut).trimStart();
    }
    if (rest) out.push(rest);
  }
  return out;
}

/**
 * The page's main content without chrome, layout tables unwrapped, cut into the pieces
 * converted one by one ({@link splitBlocks}). Each pass over the page's tags calls `check`
 * at every tag, which throws once the soft deadline has passed: on a page of 50 MB these
 * passes take seconds before the first piece is converted.
 */
function pagePieces(text: string, check: () => void): string[] {
  const page = unwrapLayoutTables(stripChrome(mainContent(text, check), check), check);
  return splitBlocks(LinkSink.clean(keepSpaceAfterInline(page)), undefined, check);
}

/**
 * The HTML extractor (`.html`, `.htm`, `.xhtml`, sniffed `text/html`).
 *
 * @returns an extractor producing Markdown lines without link targets, h1–h6 headings
 *   outside navigation, and the links
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const bytes = new TextEncoder().encode("<h1>Title</h1><p>Text.</p>");
 * const doc = await html().extract({ path: "lib/a.html", extension: ".html", bytes });
 * assert.deepEqual(doc.lines, ["# Title", "", "Text."]);
 * assert.deepEqual(doc.headings, [{ level: 1, title: "Title", line: 1 }]);
 * ```
 */
export function html(): Extractor {
  return {
    name: "html",
    extensions: [".html", ".htm", ".xhtml", ".shtml"],
    mimeTypes: ["text/html", "application/xhtml+xml"],
    priority: 0,
    extract(input: ExtractInput): Promise<Extracted> {
      if (input.bytes.length === 0) {
        return Promise.reject(new ExtractError("empty", "file is empty"));
      }
      const { text, warnings } = decodeHtml(input.bytes);
      const meta = headMeta(text);
      const sink = new LinkSink();
      let pieces: string[];
      try {
        pieces = pagePieces(text, deadlineCheck(input.signal));
      } catch (e) {
        if (!(e instanceof DeadlinePassed)) throw e;
        warnings.push("time limit reached before the page was converted");
        return Promise.resolve({ lines: [], headings: [], outlineQuality: "none", meta, warnings });
      }
      const toMarkdown = converter(sink);
      const raw: string[] = [];
      for (let i = 0; i < pieces.length; i++) {
        if (input.signal?.aborted) {
          warnings.push(`time limit reached: converted ${i} of ${pieces.length} parts of the page`);
          break;
        }
        // The garbage of the pieces before is given back as it grows (V8 would keep it).
        if (i) heap.trim();
        const md = toMarkdown.translate(pieces[i]!);
        if (raw.length && md.trim()) raw.push("");
        for (const l of trimBlock(md.replace(/\r\n?/g, "\n")).split("\n")) {
          if (!REOPENED_LINE.test(l)) raw.push(l.trimEnd());
        }
      }
      while (raw.length && raw[raw.length - 1] === "") raw.pop();
      const { lines, links } = sink.take(wrapLong(raw));
      // every tag is converted: a `<dir>` left in the Markdown is text
      const headings = markdownHeadings(lines, { html: false });
      return Promise.resolve({
        lines: unescapeText(lines),
        headings,
        outlineQuality: headings.length ? "high" : "none",
        meta,
        warnings,
        links,
      });
    },
  };
}
