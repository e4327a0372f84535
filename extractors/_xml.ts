/**
 * Markup helpers shared by the HTML, DOCX and EPUB extractors (and Markdown headings): one
 * tag scanner, attribute values, character references and the text of markup. Forgiving
 * rather than strict: they read what real pages and books contain, valid or not.
 *
 * @module
 */
import { decodeHTMLStrict } from "entities";

/**
 * Decode HTML character references: numeric ones and every named one of HTML5
 * (`&eacute;`, `&euro;`, `&frac12;`, ...; `&nbsp;` becomes a plain space and `&shy;`
 * nothing, so words stay searchable). A reference needs its `;` (as in XML and CommonMark;
 * a URL's `?a=1&copy=2` stays as it is); unknown names, `&#0;` and code points beyond
 * Unicode are left as written.
 *
 * @param s text with `&amp;`, `&#8212;`, `&eacute;`, ...
 * @returns the decoded text
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(decodeEntities("a &amp; b &#8212; Caf&eacute;"), "a & b — Café");
 * ```
 */
export function decodeEntities(s: string): string {
  if (!s.includes("&")) return s;
  return s.replace(
    /&(?:#[xX]([0-9a-fA-F]{1,6})|#(\d{1,7})|[A-Za-z][A-Za-z0-9]{1,31});/g,
    (m, hex?: string, dec?: string) => {
      if (hex === undefined && dec === undefined) {
        return decodeHTMLStrict(m).replace("\u00a0", " ").replace("\u00ad", "");
      }
      const code = hex === undefined ? parseInt(dec!) : parseInt(hex, 16);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : m;
    },
  );
}

/**
 * The value of attribute `name` (any case) in the attribute text of a tag, entities
 * decoded; quoted with `"` or `'`, or unquoted.
 *
 * @param attrs the tag's text after its name, e.g. ` class="a b" id=x`
 * @param name the attribute, e.g. `class`, `epub:type`
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(attr(' href="a.html#s1" class=toc', "class"), "toc");
 * ```
 */
export function attr(attrs: string, name: string): string | undefined {
  let re = ATTRS.get(name);
  if (!re) {
    re = new RegExp(`(?:^|\\s)${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s"'>]+))`, "i");
    ATTRS.set(name, re);
  }
  const m = re.exec(attrs);
  return m ? decodeEntities(m[1] ?? m[2] ?? m[3] ?? "") : undefined;
}

/** The pattern of each attribute name {@link attr} was asked for (a few names in all). */
const ATTRS = new Map<string, RegExp>();

/**
 * The text of markup: tags replaced by `sep`, entities decoded, whitespace collapsed.
 *
 * @param s markup
 * @param sep what a tag becomes (`""` joins the text around it, `" "` separates it)
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(textOf("<b>Intro</b>duction &amp; <i>use</i>"), "Introduction & use");
 * ```
 */
export function textOf(s: string, sep = ""): string {
  return decodeEntities(s.replace(/<[^>]*>/g, sep)).replace(/\s+/g, " ").trim();
}

/**
 * The text of the first element `tag` of an XML document (`tag` with its namespace prefix,
 * e.g. `dc:title`), or undefined when it is missing or empty.
 *
 * @param xml the document
 * @param tag the element's qualified name
 * @param sep what a tag inside the element becomes (see {@link textOf})
 */
export function xmlValue(xml: string, tag: string, sep = ""): string | undefined {
  const m = new RegExp(`<${tag}(?:\\s[^>]*)?>([\\s\\S]*?)</${tag}>`).exec(xml);
  return (m && textOf(m[1]!, sep)) || undefined;
}

/** Elements whose content is raw text (no tags inside): the scanner passes over it. */
export const RAW_TEXT: ReadonlySet<string> = new Set(["script", "style", "textarea", "title"]);

/** One piece of markup found by {@link nextTag}. */
export interface Tag {
  /** `open` or `close` tag, `comment`, or `decl` (`<!DOCTYPE …>`, `<?xml …?>`). */
  kind: "open" | "close" | "comment" | "decl";
  /** The element's name, lower-cased (`dc:title`); empty for comments and declarations. */
  name: string;
  /** The text of an open tag after its name, up to `>` (` class="x" /`); else empty. */
  attrs: string;
  /** Index of the `<`. */
  start: number;
  /** Index just past the markup's end (`>`, `-->`; the end of the text when unclosed). */
  end: number;
  /**
   * Where scanning goes on: `end`, or for the open tag of a raw-text element (`script`,
   * `style`, `textarea`, `title`) just past its closing tag.
   */
  next: number;
}

const TAG = /<(\/?)([a-zA-Z][a-zA-Z0-9:-]*)([^>]*)>/y;

/** Index just past the closing tag of raw-text element `name`, searching from `from`. */
function rawEnd(html: string, name: string, from: number): number {
  const re = new RegExp(`</${name}\\s*>`, "gi");
  re.lastIndex = from;
  const m = re.exec(html);
  return m ? m.index + m[0].length : html.length;
}

/**
 * The first piece of markup at or after `pos`: a comment, a declaration, an open or a
 * close tag; a `<` that starts none of them is text. Undefined when there is none.
 *
 * @param html the page or XML document
 * @param pos where to look from
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const page = "<p>a<br>b</p>";
 * const seen: string[] = [];
 * for (let t = nextTag(page, 0); t; t = nextTag(page, t.next)) seen.push(`${t.kind} ${t.name}`);
 * assert.deepEqual(seen, ["open p", "open br", "close p"]);
 * ```
 */
export function nextTag(html: string, pos: number): Tag | undefined {
  while (pos < html.length) {
    const start = html.indexOf("<", pos);
    if (start < 0) return undefined;
    if (html.startsWith("<!--", start)) {
      const close = html.indexOf("-->", start + 4);
      const end = close < 0 ? html.length : close + 3;
      return { kind: "comment", name: "", attrs: "", start, end, next: end };
    }
    const c = html[start + 1];
    if (c === "!" || c === "?") {
      // <!DOCTYPE>, <?xml?>, <![CDATA[: declarations, not content
      const gt = html.indexOf(">", start);
      const end = gt < 0 ? html.length : gt + 1;
      return { kind: "decl", name: "", attrs: "", start, end, next: end };
    }
    TAG.lastIndex = start;
    const m = TAG.exec(html);
    if (!m) {
      pos = start + 1;
      continue;
    }
    const end = TAG.lastIndex;
    const name = m[2]!.toLowerCase();
    if (m[1]) return { kind: "close", name, attrs: "", start, end, next: end };
    const next = RAW_TEXT.has(name) ? rawEnd(html, name, end) : end;
    return { kind: "open", name, attrs: m[3]!, start, end, next };
  }
  return undefined;
}

/**
 * Thrown by a pass over a page's tags once the extraction's soft deadline has passed (see
 * {@link deadlineCheck}): the extractor returns what it has instead of finishing the pass.
 */
export class DeadlinePassed extends Error {
  constructor() {
    super("time limit reached");
    this.name = "DeadlinePassed";
  }
}

/**
 * A check to call once per tag of a pass over a long page: it reads `signal` (whose
 * `aborted` may read a CPU clock, see `extraction/host.ts`) every `every` calls and throws
 * {@link DeadlinePassed} once it is aborted, so that a whole-page pass over a 50 MB page
 * stops at the soft deadline too. Without a signal it does nothing.
 *
 * @param signal the extraction's soft deadline
 * @param every how many calls between two reads of the signal
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const check = deadlineCheck(AbortSignal.abort(), 2);
 * check();
 * assert.throws(() => check(), DeadlinePassed);
 * ```
 */
export function deadlineCheck(signal?: AbortSignal, every = 1024): () => void {
  if (!signal) return () => {};
  let n = 0;
  return () => {
    if (++n % every === 0 && signal.aborted) throw new DeadlinePassed();
  };
}

/**
 * Every piece of markup from `from` on, in order (see {@link nextTag}).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.deepEqual([...tags("<p>a<br/></p>")].map((t) => `${t.kind} ${t.name}`), ["open p", "open br", "close p"]);
 * ```
 */
export function* tags(html: string, from = 0): Generator<Tag> {
  for (let t = nextTag(html, from); t; t = nextTag(html, t.next)) yield t;
}

/**
 * The open tags named `local` of an XML document, with or without a namespace prefix
 * (`item` finds `<item>` and `<opf:item>`).
 */
export function* elements(xml: string, local: string): Generator<Tag> {
  const suffix = ":" + local;
  for (const t of tags(xml)) {
    if (t.kind === "open" && (t.name === local || t.name.endsWith(suffix))) yield t;
  }
}
