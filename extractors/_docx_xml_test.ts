import { readdirSync } from "node:fs";
import { join } from "node:path";
import { assert, assertEquals } from "../tests/assert.ts";
import { smallCorpus } from "../tests/corpus.ts";
import { docx } from "./docx.ts";
import { readXmlTree } from "./_docx_xml.ts";
import { readZip } from "./_zip.ts";

/** mammoth's namespace names for a Word document (a share of `office-xml-reader.js`'s map). */
const NAMESPACES = {
  "http://schemas.openxmlformats.org/wordprocessingml/2006/main": "w",
  "http://schemas.openxmlformats.org/officeDocument/2006/relationships": "r",
  "http://schemas.openxmlformats.org/package/2006/relationships": "relationships",
  "http://schemas.openxmlformats.org/package/2006/content-types": "content-types",
  "http://schemas.openxmlformats.org/markup-compatibility/2006": "mc",
};

interface MammothNodes {
  Element: new (name: string, attributes: Record<string, string>, children: unknown[]) => unknown;
  text(value: string): unknown;
}

/** The Word files of the small corpus. */
async function wordFiles(): Promise<string[]> {
  const dir = join(await smallCorpus(), "word");
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((p) => p.endsWith(".docx")).sort().map((p) => join(dir, p));
}

/**
 * mammoth's own reader (xmldom) and node constructors. mammoth is loaded by the DOCX
 * extractor first (it needs the `__proto__` shim while its modules are evaluated); its
 * `xml/reader.js` module keeps the library's `readString`.
 */
async function mammothReader() {
  const path = (await wordFiles())[0]!;
  await docx().extract({ path, extension: ".docx", bytes: await Deno.readFile(path) });
  const reader = (await import("mammoth/lib/xml/reader.js")).default as unknown as {
    readString(xml: string, map: Record<string, string>): Promise<unknown>;
  };
  const nodes = (await import("mammoth/lib/xml/nodes.js")).default as unknown as MammothNodes;
  return {
    library: (xml: string, map: Record<string, string>) => reader.readString(xml, map),
    nodes: {
      element: (n: string, a: Record<string, string>, c: unknown[]) => new nodes.Element(n, a, c),
      text: nodes.text,
    },
  };
}

Deno.test("readXmlTree() gives mammoth's tree for every XML part of the corpus's Word files", async () => {
  const { library, nodes } = await mammothReader();
  let parts = 0;
  for (const p of await wordFiles()) {
    const zip = readZip(await Deno.readFile(p), (z) => /\.(?:xml|rels)$/.test(z.name));
    for (const [name, data] of zip.files) {
      const xml = new TextDecoder().decode(data).replace(/^\uFEFF/, "");
      const tree = readXmlTree(xml, NAMESPACES, nodes);
      assert(tree !== undefined, `${p}: ${name} read`);
      assertEquals(tree, await library(xml, NAMESPACES), `${p}: ${name}`);
      parts++;
    }
  }
  assert(parts > 20, `${parts} parts compared`);
});

Deno.test("readXmlTree() reads texts, entities, line ends and namespaces as xmldom does", async () => {
  const { library, nodes } = await mammothReader();
  const w = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"`;
  const cases = [
    `<w:p ${w}><w:t xml:space="preserve"> a &amp; b </w:t><w:t>&#x41;&#66;&lt;&gt;&quot;&apos;</w:t></w:p>`,
    `<w:p ${w}>\r\n<w:t>one\rtwo\u2028three\u0085four</w:t>\r\n</w:p>`,
    `<w:p ${w} w:a="tab\there&#9;kept\r\nline"><w:t>a<![CDATA[b]]>c<!-- d -->e<?pi f?>g</w:t></w:p>`,
    `<doc xmlns="urn:plain"><x:a xmlns:x="urn:other" x:b="1" c="2"/><inner xmlns="">t</inner></doc>`,
    `<?xml version="1.0"?>\n<!-- before --><w:document ${w}><w:body/></w:document>\n`,
  ];
  for (const xml of cases) {
    const tree = readXmlTree(xml, NAMESPACES, nodes);
    assert(tree !== undefined, xml);
    assertEquals(tree, await library(xml, NAMESPACES), xml);
  }
});

Deno.test("readXmlTree() gives undefined for XML that is not well-formed", () => {
  const nodes = { element: () => ({}), text: () => ({}) };
  for (const xml of ["<a><b></a>", "<a>&nbsp;</a>", "<x:a/>", "", "<a>", "<a/><b/>"]) {
    assertEquals(readXmlTree(xml, {}, nodes), undefined, xml);
  }
});

Deno.test("readXmlTree() leaves out an element its join hook took into the sibling before", () => {
  type Node = { name: string; children: (Node | string)[] } | string;
  const nodes = {
    element: (name: string, _a: Record<string, string>, children: Node[]) => ({ name, children }),
    text: (value: string) => value,
    // Joins a `<t>` to a `<t>` before it, never anything else.
    join: (previous: Node, node: Node) => {
      if (typeof previous === "string" || typeof node === "string") return false;
      if (previous.name !== "t" || node.name !== "t") return false;
      previous.children.push(...node.children);
      return true;
    },
  };
  const xml = "<p><t>The</t><t> </t><t>tea</t>text<t>cup</t><b/><t>pot</t></p>";
  assertEquals(readXmlTree(xml, {}, nodes), {
    name: "p",
    children: [
      { name: "t", children: ["The", " ", "tea"] },
      "text",
      { name: "t", children: ["cup"] },
      { name: "b", children: [] },
      { name: "t", children: ["pot"] },
    ],
  });
});
