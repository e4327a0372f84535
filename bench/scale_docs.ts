/**
 * The documents of the scale benchmarks (`bench/scale.ts` writes them as files,
 * `bench/catalog_scale.ts` stores them in a catalog without files): each a title and 2-7
 * real sections, with their headings, drawn from the shared corpus's Markdown files, so
 * word statistics stay those of real documents. Seeded: the same documents every run.
 *
 * @module
 */
import { join } from "node:path";

/**
 * A seeded generator (mulberry32): the same sequence every run.
 *
 * @example
 * ```ts
 * import { random } from "./scale_docs.ts";
 * import assert from "node:assert/strict";
 * const rnd = random(1);
 * assert.equal(rnd(), random(1)());
 * ```
 */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A section of a real document: its heading and up to 60 lines of its body. */
export interface Section {
  /** The heading's text. */
  heading: string;
  /** The lines under it. */
  body: string[];
}

/** The default shared corpus (`~/.cache/shelfmark/corpus-full`). */
export function defaultCorpus(): string {
  return join(Deno.env.get("HOME") ?? "/root", ".cache/shelfmark/corpus-full");
}

/** The sections of the corpus's Markdown files (headings `#`..`###`, 3 lines or more). */
export async function sectionsOf(corpus: string): Promise<Section[]> {
  const out: Section[] = [];
  const walk = async (dir: string) => {
    for await (const e of Deno.readDir(dir)) {
      const p = join(dir, e.name);
      if (e.isDirectory) await walk(p);
      else if (/\.(md|markdown)$/i.test(e.name)) {
        let cur: Section | undefined;
        for (const line of (await Deno.readTextFile(p)).split("\n")) {
          const m = /^#{1,3}\s+(.+)$/.exec(line);
          if (m) {
            if (cur && cur.body.filter((l) => l.trim()).length >= 3) out.push(cur);
            cur = { heading: m[1]!.trim(), body: [] };
          } else if (cur && cur.body.length < 60) cur.body.push(line);
        }
        if (cur && cur.body.filter((l) => l.trim()).length >= 3) out.push(cur);
      }
    }
  };
  await walk(join(corpus, "markdown"));
  return out;
}

/** One generated document. */
export interface LibraryDoc {
  /** Its folder inside the library (`part-000`, 1,000 documents each). */
  folder: string;
  /** Its file name (`<slug of the title>-<number>.md`). */
  name: string;
  /** Its Markdown text. */
  text: string;
}

/**
 * The `n` documents of the library, in order: a `#` title and 2-7 `##` sections each.
 *
 * @param n documents
 * @param sections the corpus's sections (see {@link sectionsOf})
 */
export function* libraryDocs(n: number, sections: Section[]): Generator<LibraryDoc> {
  const rnd = random(1);
  const pick = () => sections[Math.floor(rnd() * sections.length)]!;
  for (let i = 0; i < n; i++) {
    const folder = `part-${String(Math.floor(i / 1000)).padStart(3, "0")}`;
    const title = pick().heading;
    const parts = [`# ${title}`, ""];
    const k = 2 + Math.floor(rnd() * 6);
    for (let j = 0; j < k; j++) {
      const s = pick();
      parts.push(`## ${s.heading}`, ...s.body, "");
    }
    const slug = title.toLowerCase().replace(/[^a-z0-9]+/g, "-").slice(0, 40) || "doc";
    yield { folder, name: `${slug}-${i}.md`, text: parts.join("\n") };
  }
}
