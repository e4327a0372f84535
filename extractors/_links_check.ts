/**
 * Test support: what the extractor and indexer tests check about converted documents'
 * links (no link syntax left in their prose, every link's text on its line).
 *
 * @module
 */
import { extname, join } from "node:path";
import type { Extracted, Extractor, Link } from "../core/extractor.ts";
import { assert } from "../tests/assert.ts";
import { groundTruth, smallCorpus } from "../tests/corpus.ts";

/** Lines outside fenced code, their code spans removed: where link syntax must not be. */
function prose(lines: string[]): { n: number; text: string }[] {
  const out: { n: number; text: string }[] = [];
  let fence = "";
  lines.forEach((l, i) => {
    const f = /^\s*(`{3,}|~{3,})/.exec(l)?.[1];
    if (f && (!fence || (f[0] === fence[0] && f.length >= fence.length))) {
      fence = fence ? "" : f;
      return;
    }
    if (!fence) out.push({ n: i + 1, text: l.replace(/(`+)[\s\S]*?\1/g, "") });
  });
  return out;
}

/** A line as a reader sees it: Markdown escapes and emphasis marks removed. */
const seen = (line: string) => line.replace(/\\(.)/g, "$1").replace(/[*_]{1,2}/g, "");

/**
 * Assert that converted lines hold no link targets outside code (`](`, `![`, `<http…>`)
 * and that each link's text starts on the line it names.
 *
 * @param doc the lines and links an extractor returned
 * @param label what to name in a failure
 * @returns the number of links checked
 */
export function assertLinksApart(doc: { lines: string[]; links?: Link[] }, label: string): number {
  for (const { n, text } of prose(doc.lines)) {
    assert(!/(?<!\\)\]\(|!\[|<https?:/.test(text), `${label}:${n} keeps link syntax: ${text}`);
  }
  const links = doc.links ?? [];
  for (const l of links) {
    const line = doc.lines[l.line - 1] ?? "";
    const first = seen(l.text).split(" ")[0]!.replace(/[*_]/g, "");
    assert(
      seen(line).includes(first),
      `${label}:${l.line} lacks the text of ${JSON.stringify(l)}: ${line}`,
    );
  }
  return links.length;
}

/**
 * Extract every document of the small corpus that `keep` selects and check its links.
 *
 * @param ex the extractor
 * @param keep which corpus paths to extract
 * @param check the check of one document, returning its number of links
 * @returns the number of links of all of them
 */
export async function corpusLinks(
  ex: Extractor,
  keep: (path: string) => boolean,
  check: (doc: Extracted, label: string) => number = assertLinksApart,
): Promise<number> {
  const dir = await smallCorpus();
  let links = 0;
  for (const [path] of await groundTruth(dir)) {
    if (!keep(path)) continue;
    const bytes = await Deno.readFile(join(dir, path));
    links += check(await ex.extract({ path, extension: extname(path), bytes }), path);
  }
  return links;
}
