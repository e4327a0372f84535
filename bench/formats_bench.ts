/**
 * Format measurements for `deno task bench`: PDF pages/second next to `pdftotext` on the
 * same files (in this process, one after another), and DOCX/EPUB documents/second.
 */
import { join } from "node:path";
import { docx } from "../extractors/docx.ts";
import { epub } from "../extractors/epub.ts";
import { pdf } from "../extractors/pdf.ts";
import type { Extractor } from "../core/types.ts";

function files(dir: string, ext: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of Deno.readDirSync(d)) {
      const p = join(d, e.name);
      if (e.isDirectory) walk(p);
      else if (e.name.toLowerCase().endsWith(ext)) out.push(p);
    }
  };
  walk(dir);
  return out.sort();
}

/** Every `step`-th file, up to `n`. */
function spread(list: string[], n: number): string[] {
  const step = Math.max(1, Math.floor(list.length / n));
  return list.filter((_, i) => i % step === 0).slice(0, n);
}

/** PDF extraction pages/second, and pdftotext's on the same files. */
export async function pdfSpeed(corpus: string, n = 30) {
  const list = spread(files(join(corpus, "pdf-manuals"), ".pdf"), n);
  const ex = pdf();
  let pages = 0;
  let ours = 0;
  let theirs = 0;
  for (const f of list) {
    const bytes = await Deno.readFile(f);
    let t = performance.now();
    const doc = await ex.extract({ path: f, extension: ".pdf", bytes });
    ours += performance.now() - t;
    pages += doc.pages?.length ?? 0;
    t = performance.now();
    await new Deno.Command("pdftotext", { args: [f, "-"], stdout: "null", stderr: "null" }).output()
      .catch(() => undefined);
    theirs += performance.now() - t;
  }
  return {
    files: list.length,
    pages,
    ours: pages / (ours / 1000),
    pdftotext: pages / (theirs / 1000),
  };
}

async function docsPerSecond(ex: Extractor, list: string[], ext: string) {
  const t = performance.now();
  for (const f of list) {
    await ex.extract({ path: f, extension: ext, bytes: await Deno.readFile(f) }).catch(() =>
      undefined
    );
  }
  return list.length / ((performance.now() - t) / 1000);
}

/** DOCX and EPUB documents/second (all of `word/` and `ebooks/`). */
export async function officeSpeed(corpus: string) {
  return {
    docx: await docsPerSecond(docx(), files(join(corpus, "word"), ".docx"), ".docx"),
    epub: await docsPerSecond(epub(), files(join(corpus, "ebooks"), ".epub"), ".epub"),
  };
}
