/**
 * Whether letting pdf.js drop what it parsed (`dropEvery` of the PDF extractor, see
 * `extractors/pdf.ts`) changes any extraction: every PDF of a corpus extracted twice in this
 * process, never dropping and dropping every N pages, the two results compared as JSON
 * (lines, pages, headings, outline quality, metadata, warnings). Largest files first; one
 * line per file (`SAME` or `DIFFER`), then the counts.
 *
 * ```sh
 * deno run -A bench/pdf_drop.ts [N] [CORPUS_DIR]
 * ```
 *
 * N defaults to 10 (more drops than the extractor's default), CORPUS_DIR to
 * `~/.cache/shelfmark/corpus-full`.
 *
 * @module
 */
import { join } from "node:path";
import { pdf } from "../extractors/pdf.ts";

const every = Number(Deno.args[0] ?? 10);
const root = Deno.args[1] ?? join(Deno.env.get("HOME") ?? "", ".cache/shelfmark/corpus-full");

/** Every `.pdf` under `dir` with its size. */
function pdfs(dir: string, out: { path: string; size: number }[] = []) {
  for (const e of Deno.readDirSync(dir)) {
    const p = join(dir, e.name);
    if (e.isDirectory) pdfs(p, out);
    else if (e.isFile && /\.pdf$/i.test(e.name)) out.push({ path: p, size: Deno.statSync(p).size });
  }
  return out;
}

/** The extraction as JSON, or the error. */
async function run(ex: ReturnType<typeof pdf>, path: string, bytes: Uint8Array) {
  try {
    return JSON.stringify(await ex.extract({ path, extension: ".pdf", bytes }));
  } catch (e) {
    return `error: ${e instanceof Error ? e.message : String(e)}`;
  }
}

const keeping = pdf({ dropEvery: 0 });
const dropping = pdf({ dropEvery: every });
const counts = { files: 0, same: 0, differ: 0, every };
for (const { path } of pdfs(root).sort((a, b) => b.size - a.size)) {
  const bytes = await Deno.readFile(path);
  const same = (await run(keeping, path, bytes)) === (await run(dropping, path, bytes));
  counts.files++;
  if (same) counts.same++;
  else counts.differ++;
  console.log(same ? "SAME" : "DIFFER", path);
}
console.log(JSON.stringify(counts));
