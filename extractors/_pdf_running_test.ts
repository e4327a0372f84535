import { assertEquals } from "../tests/assert.ts";
import type { PageLine } from "./_pdf_layout.ts";
import { dropRunning } from "./_pdf_running.ts";

const line = (text: string, y: number, size = 10): PageLine => ({
  text,
  y,
  size,
  bold: false,
  gapBefore: false,
  font: "f1",
  mono: false,
  lead: text,
  leadFont: "f1",
  x: 50,
  right: 300,
  cells: 1,
});

/** A page of body text from y 700 down, 12 units apart. */
const body = (p: number, n = 20) =>
  Array.from(
    { length: n },
    (_, i) => line(`Body line ${i} of page ${p} with words.`, 700 - i * 12),
  );

Deno.test("dropRunning() drops a chapter's running head that carries the page number", () => {
  const pages = [7, 8].map((n) => [line(`Chapter 3: Basic Shell Features ${n}`, 750), ...body(n)]);
  const kept = dropRunning(pages);
  assertEquals(kept.map((p) => p.length), [20, 20]);
  assertEquals(kept[0]![0]!.text, "Body line 0 of page 7 with words.");
});

Deno.test("dropRunning() keeps edge lines that repeat on too few pages or sit in the body", () => {
  const pages = [1, 2, 3, 4, 5, 6, 7, 8].map((p) => body(p));
  // The same line atop two pages, without a page number: kept.
  pages[0]!.unshift(line("Notes", 750));
  pages[1]!.unshift(line("Notes", 750));
  // Chapter openings: a "CHAPTER" label lower than the body begins on other pages, then the
  // body lower still: kept.
  for (const [i, p] of pages.entries()) {
    if (i < 4) continue;
    for (const l of p) l.y -= 60;
    p.unshift(line("CHAPTER", 690));
  }
  // The last body line of most pages is the same, but it is not set apart by a gap: kept.
  for (const p of pages) p.push(line("done", p.at(-1)!.y - 12));
  const kept = dropRunning(pages);
  assertEquals(kept.map((p) => p.length), pages.map((p) => p.length));
});

Deno.test("dropRunning() drops bare page numbers and a repeated footer, keeps a larger title", () => {
  const pages = [1, 2, 3, 4].map((p) => [
    line("A Title In Large Type", 760, 18),
    ...body(p),
    line("ACME Annual Report", 60),
    line(`- ${p} -`, 40),
  ]);
  const kept = dropRunning(pages);
  assertEquals(kept.map((p) => p.length), [21, 21, 21, 21]);
  assertEquals(kept[3]!.at(-1)!.text, "Body line 19 of page 4 with words.");
  // One page: nothing to compare with, nothing dropped.
  assertEquals(dropRunning([pages[0]!])[0]!.length, 23);
});
