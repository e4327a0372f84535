/**
 * mammoth's XML reader on saxes. mammoth 1.13 parses every part of a Word document
 * (`word/document.xml`, styles, numbering, relationships, notes) into an xmldom DOM, then
 * copies that DOM into its own light tree of elements and texts; on the 152 DOCX files of
 * the corpus that parse and copy were 29 % of the extraction's CPU and the DOM most of its
 * garbage collection (`deno run --cpu-prof bench/extract_cpu.ts --ext .docx`).
 * {@link readXmlTree} builds mammoth's tree directly from saxes events, with the names,
 * attributes and texts xmldom 0.8 gives:
 *
 * - line ends `\r\n`, `\r\u0085`, `\r`, `\u0085` and `\u2028` become `\n` first (xmldom's
 *   `normalizeLineEndings`), then saxes normalises attribute whitespace and decodes the
 *   five XML entities and character references, as xmldom does;
 * - a name in a namespace that mammoth maps is `prefix:local`, in another namespace
 *   `{uri}local`, in none `local`; `xmlns` declarations are attributes in the XMLNS
 *   namespace, as in xmldom;
 * - texts are kept, whitespace too; CDATA sections, comments and processing instructions
 *   are dropped (mammoth reads neither), and text on either side of them stays two texts.
 *
 * A part that is not well-formed XML (saxes is strict: an unclosed element, an unknown
 * entity, an unbound prefix) gives `undefined`, and the caller reads it with mammoth's own
 * reader, which then tolerates or refuses it exactly as before.
 *
 * @module
 */
import { SaxesParser } from "saxes";

/** How mammoth builds the nodes of its tree (`mammoth/lib/xml/nodes.js`). */
export interface TreeNodes<Node> {
  /** An element: its name, attributes (a prototype-less object) and children. */
  element(name: string, attributes: Record<string, string>, children: Node[]): Node;
  /** A text. */
  text(value: string): Node;
  /**
   * Called when an element closes right after a sibling (an element or a text): true when
   * `node` was taken into `previous`, and is then left out of the tree.
   */
  join?(previous: Node, node: Node): boolean;
}

/** xmldom 0.8's `normalizeLineEndings`. */
function normalizeLineEndings(xml: string): string {
  return xml.replace(/\r[\n\u0085]/g, "\n").replace(/[\r\u0085\u2028]/g, "\n");
}

/**
 * The root element of an XML document as mammoth's tree, or undefined when the XML is not
 * well-formed (read it with mammoth's reader then).
 *
 * @param xml the document
 * @param namespaceMap namespace URI to the prefix mammoth names it with
 * @param nodes mammoth's node constructors
 * @returns the root element, or undefined
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const nodes = {
 *   element: (name: string, attributes: Record<string, string>, children: unknown[]) =>
 *     ({ name, attributes: { ...attributes }, children }),
 *   text: (value: string) => value,
 * };
 * const xml = `<w:p xmlns:w="urn:w" a="1&amp;2"><w:t>Tea &lt;3</w:t><x:y xmlns:x="urn:x"/></w:p>`;
 * assert.deepEqual(readXmlTree(xml, { "urn:w": "w" }, nodes), {
 *   name: "w:p",
 *   attributes: { "{http://www.w3.org/2000/xmlns/}w": "urn:w", a: "1&2" },
 *   children: [
 *     { name: "w:t", attributes: {}, children: ["Tea <3"] },
 *     { name: "{urn:x}y", attributes: { "{http://www.w3.org/2000/xmlns/}x": "urn:x" }, children: [] },
 *   ],
 * });
 * assert.equal(readXmlTree("<w:p><w:t>open</w:p>", {}, nodes), undefined);
 * ```
 */
export function readXmlTree<Node>(
  xml: string,
  namespaceMap: Record<string, string>,
  nodes: TreeNodes<Node>,
): Node | undefined {
  const name = (uri: string, local: string): string => {
    if (!uri) return local;
    const prefix = namespaceMap[uri];
    return prefix ? `${prefix}:${local}` : `{${uri}}${local}`;
  };
  const parser = new SaxesParser({ xmlns: true, position: false });
  /** The children of the open elements, innermost last. */
  const stack: Node[][] = [];
  let root: Node | undefined;
  /** The text of the current run, until the next tag, section, comment or instruction. */
  let text = "";
  const flush = () => {
    if (text && stack.length) stack[stack.length - 1]!.push(nodes.text(text));
    text = "";
  };
  parser.on("text", (t) => {
    text += t;
  });
  parser.on("opentag", (tag) => {
    flush();
    const attributes: Record<string, string> = Object.create(null);
    for (const key in tag.attributes) {
      const a = tag.attributes[key]!;
      attributes[name(a.uri, a.local)] = a.value;
    }
    const children: Node[] = [];
    const element = nodes.element(name(tag.uri, tag.local), attributes, children);
    if (stack.length) stack[stack.length - 1]!.push(element);
    else root = element;
    stack.push(children);
  });
  // A closed element may join the sibling before it (`nodes.join`).
  parser.on("closetag", () => {
    flush();
    stack.pop();
    const siblings = stack[stack.length - 1];
    const n = siblings?.length ?? 0;
    if (nodes.join && n > 1 && nodes.join(siblings![n - 2]!, siblings![n - 1]!)) siblings!.pop();
  });
  // Sections, comments and instructions end a text run and are not read.
  parser.on("cdata", flush);
  parser.on("comment", flush);
  parser.on("processinginstruction", flush);
  try {
    parser.write(normalizeLineEndings(xml)).close();
  } catch {
    return undefined; // saxes throws at the first well-formedness error
  }
  return root;
}
