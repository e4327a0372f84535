/**
 * The DOCX extractor: mammoth turns the document into HTML (Heading 1–9 styles become
 * h1–h6, the `Title` paragraph stays a paragraph, tables stay tables, images are dropped),
 * then the HTML extractor turns that into Markdown lines, headings and links (hyperlinks
 * keep their text in the lines, their targets go to `links`). Metadata comes from
 * `docProps/core.xml`.
 *
 * The archive is read with fflate, never with mammoth's JSZip: the declared sizes of the
 * XML parts are checked before anything is inflated (a zip bomb is refused with
 * `too_large`), and mammoth reads the already-inflated parts through its `file` input.
 *
 * **The `__proto__` shim.** mammoth 1.13 builds its promise class with
 * `ExternalPromise.__proto__ = Promise` when its module is evaluated. Deno replaces the
 * `Object.prototype.__proto__` accessor with a stub that does not change prototypes
 * (unless run with `--unsafe-proto`), so `convertToHtml` fails with
 * "ExternalPromise.resolve is not a function". {@link loadMammoth} installs a working
 * accessor (get/set via `Object.getPrototypeOf`/`setPrototypeOf`) only while mammoth's
 * module is evaluated, then puts Deno's stub back, so the rest of the process keeps
 * Deno's protection against prototype pollution. Later assignments to `__proto__` in
 * mammoth (one per call, to add a legacy `.done()` method to returned promises) then just
 * create an own property, which is harmless: the promise still resolves normally.
 *
 * @module
 */
import type { DocMeta, Extracted, ExtractInput, Extractor, Heading } from "../core/extractor.ts";
import { ExtractError } from "../core/extractor.ts";
import { html } from "./html.ts";
import { decodeEntities, textOf, xmlValue } from "./_xml.ts";
import { entryText, readZip, type ZipEntry } from "./_zip.ts";
import { splitDocumentXml } from "./_docx_split.ts";
import { readXmlTree } from "./_docx_xml.ts";
import { HeapTrimmer, PIECE_TRIM } from "../core/heap.ts";

/** The part of mammoth's API used here. */
interface Mammoth {
  convertToHtml(
    input: { file: MammothZip },
    options: Record<string, unknown>,
  ): Promise<{ value: string; messages: unknown[] }>;
}

/** The zip interface mammoth reads documents through (its `openArrayBuffer` result). */
interface MammothZip {
  exists(name: string): boolean;
  read(name: string, encoding?: string): Promise<Uint8Array | string>;
  write(name: string, contents: unknown): void;
  toArrayBuffer(): Promise<ArrayBuffer>;
}

let mammothModule: Promise<Mammoth> | undefined;

/**
 * Import mammoth once, with a working `Object.prototype.__proto__` accessor installed
 * while its modules are evaluated (see the module documentation).
 *
 * @returns the mammoth module
 */
function loadMammoth(): Promise<Mammoth> {
  mammothModule ??= (async () => {
    const original = Object.getOwnPropertyDescriptor(Object.prototype, "__proto__");
    const probe = {} as { __proto__?: unknown };
    const works = original?.get?.call(probe) === Object.prototype;
    if (!works) {
      Object.defineProperty(Object.prototype, "__proto__", {
        configurable: true,
        enumerable: false,
        get(this: unknown) {
          return Object.getPrototypeOf(this);
        },
        set(this: unknown, proto: unknown) {
          const isObject = (typeof this === "object" && this !== null) ||
            typeof this === "function";
          if (isObject && (typeof proto === "object" || typeof proto === "function")) {
            Object.setPrototypeOf(this, proto as object | null);
          }
        },
      });
    }
    try {
      await parseStylesOnce();
      const mod = await import("mammoth");
      await readXmlWithSaxes();
      return (mod.default ?? mod) as unknown as Mammoth;
    } finally {
      if (!works) {
        if (original) Object.defineProperty(Object.prototype, "__proto__", original);
        else delete (Object.prototype as { __proto__?: unknown }).__proto__;
      }
    }
  })();
  mammothModule.catch(() => mammothModule = undefined);
  return mammothModule;
}

/** mammoth's style-map reader (`mammoth/lib/style-reader.js`), the part of it wrapped here. */
interface MammothStyleReader {
  readStyle(mapping: string): unknown;
}

/**
 * Make mammoth parse each style mapping once per process, not once per document: every
 * `convertToHtml` parses its whole style map (ours, then mammoth's default map) with a
 * parser-combinator, which was 5 % of the DOCX extraction's CPU on the corpus. mammoth's
 * `index.js` takes `readStyle` from this module when it is evaluated, so the wrapper is set
 * before mammoth is imported. A parsed mapping (`{ from, to }` in a result) is only read by
 * the conversion, so documents can share it; mappings other than ours and mammoth's default
 * ones (a style map embedded in a document) are parsed every time, as before.
 */
async function parseStylesOnce(): Promise<void> {
  const [readerModule, optionsModule] = await Promise.all([
    import("mammoth/lib/style-reader.js"),
    import("mammoth/lib/options-reader.js"),
  ]);
  const reader = (readerModule.default ?? readerModule) as unknown as MammothStyleReader;
  const defaults = ((optionsModule.default ?? optionsModule) as { _defaultStyleMap?: string[] })
    ._defaultStyleMap ?? [];
  const parse = reader.readStyle;
  const parsed = new Map<string, unknown>();
  for (const mapping of [...STYLE_MAP, ...defaults]) parsed.set(mapping, undefined);
  reader.readStyle = (mapping) => {
    if (!parsed.has(mapping)) return parse(mapping);
    let result = parsed.get(mapping);
    if (result === undefined) parsed.set(mapping, result = parse(mapping));
    return result;
  };
}

/** mammoth's XML module (`mammoth/lib/xml/index.js`), the part of it replaced here. */
interface MammothXml {
  readString(xml: string, namespaceMap?: Record<string, string>): Promise<unknown>;
  Element: new (name: string, attributes: Record<string, string>, children: unknown[]) => unknown;
  text(value: string): unknown;
}

/**
 * Make mammoth read the parts of a document with saxes (see `_docx_xml.ts`): its office
 * reader calls `xml.readString` of this module at each part, so the replacement is set on
 * the module's exports. A part saxes refuses goes to mammoth's own reader.
 */
async function readXmlWithSaxes(): Promise<void> {
  const mod = await import("mammoth/lib/xml/index.js");
  const xml = (mod.default ?? mod) as unknown as MammothXml;
  const library = xml.readString;
  const nodes = {
    element: (name: string, attributes: Record<string, string>, children: unknown[]) =>
      new xml.Element(name, attributes, children),
    text: xml.text,
  };
  xml.readString = (s, namespaceMap = {}) => {
    // Complex fields can make a run a hyperlink of its own: runs are joined only without them.
    const joining = s.includes("fldChar") ? nodes : { ...nodes, join: runJoiner() };
    const tree = readXmlTree(s, namespaceMap, joining);
    return tree === undefined ? library(s, namespaceMap) : Promise.resolve(tree);
  };
}

/** A node of mammoth's XML tree (`mammoth/lib/xml/nodes.js`). */
type XmlNode =
  | { type: "element"; name: string; attributes: Record<string, string>; children: XmlNode[] }
  | { type: "text"; value: string };

/**
 * The key of a run of texts (`<w:r>` of `<w:rPr>`, if any, then `<w:t>`s): its `<w:rPr>`
 * serialised, or "" without one; null for any other node.
 */
function textRunKey(node: XmlNode): string | null {
  if (node.type !== "element" || node.name !== "w:r") return null;
  const first = node.children[0];
  const props = first?.type === "element" && first.name === "w:rPr" ? first : undefined;
  for (let i = props ? 1 : 0; i < node.children.length; i++) {
    const c = node.children[i]!;
    if (c.type !== "element" || c.name !== "w:t") return null;
  }
  return props ? serialised(props) : "";
}

/**
 * A node as a string that tells nodes apart: each name, attribute name, value and text
 * follows a NUL and a mark of what it is (saxes refuses NUL in XML, so none holds one).
 */
function serialised(node: XmlNode): string {
  if (node.type === "text") return `\0"${node.value}`;
  let key = `\0<${node.name}`;
  for (const k in node.attributes) key += `\0@${k}\0=${node.attributes[k]}`;
  for (const c of node.children) key += serialised(c);
  return `${key}\0>`;
}

/**
 * The join step of one part (`TreeNodes.join`): a run of texts is joined to the run of
 * texts before it when both have the same properties (`<w:r><w:t>The</w:t></w:r><w:r><w:t>
 * </w:t></w:r>` becomes one run of two texts). mammoth writes such runs as the same HTML
 * (adjacent texts, or adjacent `<strong>`s it collapses into one), but reads and converts
 * each run apart: pandoc writes a run per word and space, and on the corpus's DOCX files
 * the joined runs are a third fewer. The key of the last run seen is kept, so a run that
 * others are joined to is not read again.
 */
function runJoiner(): (previous: unknown, node: unknown) => boolean {
  let last: unknown;
  let lastKey: string | null = null;
  return (previous, node) => {
    const key = textRunKey(node as XmlNode);
    if (key === null) return false;
    const joins = key === (previous === last ? lastKey : textRunKey(previous as XmlNode));
    if (joins) {
      const into = (previous as { children: XmlNode[] }).children;
      const from = (node as { children: XmlNode[] }).children;
      for (let i = key ? 1 : 0; i < from.length; i++) into.push(from[i]!); // past its <w:rPr>
    }
    [last, lastKey] = [joins ? previous : node, key];
    return joins;
  };
}

/** Style map: headings 1–9 (h6 for 7–9), Title as a marked paragraph, code as code. */
const STYLE_MAP = [
  ...[1, 2, 3, 4, 5, 6, 7, 8, 9].flatMap((n) => {
    const h = `h${Math.min(n, 6)}:fresh`;
    return [
      `p.Heading${n} => ${h}`,
      `p[style-name='Heading ${n}'] => ${h}`,
      `p[style-name='heading ${n}'] => ${h}`,
    ];
  }),
  "p[style-name='Title'] => p.docx-title:fresh",
  "p[style-name='Subtitle'] => p:fresh",
  "p[style-name='Source Code'] => pre:separator('\\n')",
  "r[style-name='Verbatim Char'] => code",
];

/** The main part of a Word document. */
const DOCUMENT = "word/document.xml";
/** A `word/document.xml` over this many characters is converted in pieces of about this size. */
const SPLIT_CHARS = 1 << 20;

/** Between the pieces of a large body. */
const heap = new HeapTrimmer(PIECE_TRIM);

/** Options of the DOCX extractor. */
export interface DocxOptions {
  /**
   * A document body over this many characters of XML is converted in pieces of about this
   * size (default 1 Mi): mammoth holds about fifty times the XML it converts.
   */
  splitChars?: number;
}

/** Images are dropped: no base64 data in the text. */
const NO_IMAGES = () => Promise.resolve([]);

/** The text of mammoth's HTML, a line break read as a space. */
function htmlText(s: string): string {
  return textOf(s.replace(/<br\s*\/?>/gi, " "));
}

/** Metadata from `docProps/core.xml`. */
function coreMeta(xml: string | undefined): DocMeta {
  const meta: DocMeta = {};
  if (!xml) return meta;
  const title = xmlValue(xml, "dc:title");
  const author = xmlValue(xml, "dc:creator");
  const created = xmlValue(xml, "dcterms:created");
  const language = xmlValue(xml, "dc:language");
  // Keywords (the `tags` front-matter field of a DOCX), separated by commas or semicolons.
  const tags = xmlValue(xml, "cp:keywords")?.split(/[,;]/).map((t) => t.trim()).filter(Boolean);
  if (tags?.length) meta.fields = { tags };
  if (title) meta.title = title;
  if (author) meta.author = author;
  if (created) meta.created = created;
  if (language) meta.language = language;
  return meta;
}

/** A paragraph of mammoth's output (mammoth never nests paragraphs). */
const PARAGRAPH = /<p>([\s\S]*?)<\/p>/g;

/**
 * Turn short paragraphs whose whole text is bold into `<h2>` headings (for documents
 * without heading styles). Returns the new HTML and how many were promoted.
 */
function promoteBoldParagraphs(body: string): { html: string; count: number } {
  let count = 0;
  const out = body.replace(PARAGRAPH, (m, inner: string) => {
    if (!inner.includes("<strong>") || /<br\b/.test(inner)) return m;
    const rest = inner.replace(/<strong>[\s\S]*?<\/strong>/g, "").replace(/<[^>]*>/g, "");
    if (decodeEntities(rest).trim()) return m;
    const t = htmlText(inner);
    if (!t || t.length > 120 || /[.!?,;]$/.test(t) || !/\p{L}/u.test(t)) return m;
    count++;
    return `<h2>${inner.replace(/<\/?strong>/g, "")}</h2>`;
  });
  return { html: out, count };
}

/** Whether an entry is an XML part mammoth or the metadata reader may need. */
function isXmlPart(e: ZipEntry): boolean {
  return /\.(?:xml|rels)$/i.test(e.name);
}

/**
 * The DOCX extractor (`.docx`).
 *
 * @returns an extractor producing Markdown lines, headings from Heading 1–9 styles (or,
 *   when there are none, from short bold paragraphs, `outlineQuality: "medium"`) and
 *   metadata from `docProps/core.xml`
 * @example
 * ```ts
 * import { docx } from "./docx.ts";
 * import { strToU8, zipSync } from "fflate";
 * import assert from "node:assert/strict";
 *
 * const w = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"`;
 * const heading = `<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>Tea</w:t></w:r></w:p>`;
 * const bytes = zipSync({
 *   "[Content_Types].xml": strToU8("<Types/>"),
 *   "word/document.xml": strToU8(
 *     `<w:document ${w}><w:body>${heading}<w:p><w:r><w:t>Steep it.</w:t></w:r></w:p></w:body></w:document>`,
 *   ),
 * });
 * const doc = await docx().extract({ path: "lib/a.docx", extension: ".docx", bytes });
 * assert.deepEqual(doc.lines, ["# Tea", "", "Steep it."]);
 * assert.deepEqual(doc.headings, [{ level: 1, title: "Tea", line: 1 }]);
 * ```
 */
export function docx(opts: DocxOptions = {}): Extractor {
  const toMarkdown = html();
  const splitChars = opts.splitChars ?? SPLIT_CHARS;
  return {
    name: "docx",
    extensions: [".docx"],
    mimeTypes: ["application/vnd.openxmlformats-officedocument.wordprocessingml.document"],
    priority: 0,
    async extract(input: ExtractInput): Promise<Extracted> {
      const zip = readZip(input.bytes, isXmlPart);
      const files = zip.files;
      const names = new Set(zip.entries.map((e) => e.name));
      if (
        !files.has("[Content_Types].xml") || ![...files.keys()].some((n) => n.startsWith("word/"))
      ) {
        throw new ExtractError("corrupt", "zip archive is not a Word document");
      }
      // A large body is converted in pieces (see _docx_split.ts), each read as the document.
      const main = files.get(DOCUMENT);
      const pieces = main && main.length > splitChars
        ? splitDocumentXml(new TextDecoder().decode(main), splitChars)
        : undefined;
      let piece: string | undefined;
      const mammothZip: MammothZip = {
        exists: (name) => names.has(name),
        read(name, encoding) {
          if (piece !== undefined && name === DOCUMENT && encoding) return Promise.resolve(piece);
          const data = files.get(name);
          if (!data) return Promise.reject(new Error(`part not loaded: ${name}`));
          if (!encoding) return Promise.resolve(data);
          if (encoding === "base64") return Promise.reject(new Error("binary parts not read"));
          return Promise.resolve(new TextDecoder(encoding).decode(data));
        },
        write() {},
        toArrayBuffer: () => Promise.reject(new Error("read-only")),
      };
      const mammoth = await loadMammoth();
      let converted: string;
      try {
        const options = {
          styleMap: STYLE_MAP,
          includeDefaultStyleMap: true,
          convertImage: NO_IMAGES,
          ignoreEmptyParagraphs: true,
        };
        const html: string[] = [];
        for (piece of pieces ?? [undefined]) {
          // The garbage of the pieces before is given back as it grows (V8 would keep it).
          if (html.length) heap.trim();
          html.push((await mammoth.convertToHtml({ file: mammothZip }, options)).value);
        }
        piece = undefined;
        converted = html.join("");
      } catch (e) {
        const msg = e instanceof Error ? e.message : String(e);
        throw new ExtractError("corrupt", `cannot read the Word document: ${msg}`, { cause: e });
      }
      const core = files.get("docProps/core.xml");
      const meta = coreMeta(core ? entryText(core) : undefined);
      const titleMatch = /<p class="docx-title">([\s\S]*?)<\/p>/.exec(converted);
      if (!meta.title && titleMatch) {
        const t = htmlText(titleMatch[1]!);
        if (t) meta.title = t;
      }
      let quality: "high" | "medium" = "high";
      let body = converted.replace(/<p class="docx-title">/g, "<p>");
      if (!/<h[1-6][\s>]/.test(body)) {
        const promoted = promoteBoldParagraphs(body);
        if (promoted.count > 0) {
          body = promoted.html;
          quality = "medium";
        }
      }
      const page = `<!DOCTYPE html><html><body>${body}</body></html>`;
      const doc = await toMarkdown.extract({
        path: input.path,
        extension: ".html",
        bytes: new TextEncoder().encode(page),
        signal: input.signal,
      });
      // Cut at the soft deadline before its first piece, it is a partial document, not empty.
      if (!doc.lines.some((l) => l.trim()) && !input.signal?.aborted) {
        throw new ExtractError("empty", "the Word document has no text");
      }
      const headings: Heading[] = doc.headings ?? [];
      return {
        lines: doc.lines,
        headings,
        outlineQuality: headings.length ? quality : "none",
        meta,
        warnings: doc.warnings?.length ? doc.warnings : undefined,
        links: doc.links,
      };
    },
  };
}
