import { join } from "node:path";
import { assert, assertEquals } from "../tests/assert.ts";
import { smallCorpus } from "../tests/corpus.ts";
import { splitDocumentXml } from "./_docx_split.ts";
import { readZip } from "./_zip.ts";
import { docx } from "./docx.ts";

const HEAD = '<?xml version="1.0"?><w:document xmlns:w="x"><w:body>';
const TAIL = "</w:body></w:document>";
const para = (text: string, style?: string) =>
  `<w:p>${
    style ? `<w:pPr><w:pStyle w:val="${style}" /></w:pPr>` : ""
  }<w:r><w:t>${text}</w:t></w:r></w:p>`;
const item = (text: string) =>
  `<w:p><w:pPr><w:pStyle w:val="Heading2" /><w:numPr><w:numId w:val="1" /></w:numPr></w:pPr><w:r><w:t>${text}</w:t></w:r></w:p>`;

Deno.test("splitDocumentXml cuts only before headings (with their bookmarks) and keeps every element once", () => {
  const body = [
    para("A", "Heading1"),
    para("a".repeat(300)),
    '<w:bookmarkStart w:id="1" w:name="b" />',
    para("B", "Heading2"),
    para("b".repeat(300)),
    item("numbered heading, not a cut"),
    para("c".repeat(300)),
    para("C", "Heading2"),
    para("d".repeat(50)),
    '<w:sectPr><w:pgSz w:w="1" /></w:sectPr>',
  ].join("");
  const xml = HEAD + body + TAIL;
  const parts = splitDocumentXml(xml, 200)!;
  assertEquals(parts.length, 3);
  for (const p of parts) assert(p.startsWith(HEAD) && p.endsWith(TAIL));
  assertEquals(parts.map((p) => p.slice(HEAD.length, -TAIL.length)).join(""), body);
  assert(
    parts[1]!.slice(HEAD.length).startsWith("<w:bookmarkStart"),
    "bookmark goes with its heading",
  );
  assert(parts[1]!.includes("numbered heading"), "no cut before a numbered heading");
});

Deno.test("splitDocumentXml leaves small documents and documents with notes or fields whole", () => {
  const big = para("H", "Heading1") + para("x".repeat(500)) + para("H2", "Heading1") + para("y");
  assertEquals(splitDocumentXml(HEAD + big + TAIL, 10_000), undefined);
  assert(splitDocumentXml(HEAD + big + TAIL, 100));
  const note = big.replace("<w:t>y", '<w:footnoteReference w:id="1" /><w:t>y');
  assertEquals(splitDocumentXml(HEAD + note + TAIL, 100), undefined);
  const field = big.replace("<w:t>y", '<w:fldChar w:fldCharType="begin" /><w:t>y');
  assertEquals(splitDocumentXml(HEAD + field + TAIL, 100), undefined);
});

async function docxFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(dir)) {
    const p = join(dir, e.name);
    if (e.isDirectory) out.push(...await docxFiles(p));
    else if (e.isFile && e.name.endsWith(".docx")) out.push(p);
  }
  return out;
}

Deno.test("docx() converts a large body in pieces to exactly what it gets whole", async () => {
  const dir = await smallCorpus();
  const whole = docx({ splitChars: Infinity });
  const pieces = docx({ splitChars: 20_000 });
  let split = 0;
  let files = 0;
  for (const path of await docxFiles(join(dir, "word"))) {
    const bytes = await Deno.readFile(path);
    const body = readZip(bytes, (z) => z.name === "word/document.xml").files.get(
      "word/document.xml",
    );
    if (body && splitDocumentXml(new TextDecoder().decode(body), 20_000)) split++;
    const input = { path, extension: ".docx" };
    const a = await whole.extract({ ...input, bytes: bytes.slice() }).catch((e) => String(e));
    const b = await pieces.extract({ ...input, bytes: bytes.slice() }).catch((e) => String(e));
    assertEquals(b, a, path);
    files++;
  }
  assert(files >= 10, `only ${files} DOCX files`);
  assert(split >= 3, `only ${split} of ${files} DOCX files were cut`);
});
