import { assertEquals } from "../../tests/assert.ts";
import { afterHeading, resultsMd, type SearchResult, where, WITH_SNIPPETS } from "./_results.ts";

const passage = {
  start_line: 1,
  end_line: 49,
  node_id: "1",
  title: "shelve — Python object persistence",
  snippet: "",
};

Deno.test("compact hit: a passage is named by its lines, page and section id, not its title", () => {
  assertEquals(
    where({ ...passage, node_id: "2.1", title: "Restrictions", page: 7 }, "Shelve", false),
    "L1-49 p.7 §2.1",
  );
  assertEquals(where({ ...passage, node_id: undefined, title: "Page 3" }, "X", false), "L1-49");
});

Deno.test("verbose hit: a section titled like its document is named by its id alone", () => {
  assertEquals(
    where(passage, "shelve — Python object persistence — Python 3.11.2 documentation"),
    "L1-49 §1",
  );
  assertEquals(
    where({ ...passage, node_id: "2.1", title: "Restrictions", page: 7 }, "Shelve"),
    "L1-49 p.7 §2.1 Restrictions",
  );
  // The heading's own number is not repeated beside the id an agent reads by.
  assertEquals(
    where({ ...passage, node_id: "3.3.3", title: "4.3.3 Ways of Improving" }, "Beamer"),
    "L1-49 §3.3.3 Ways of Improving",
  );
  assertEquals(where({ ...passage, node_id: "3", title: "3.1. Test" }, "X"), "L1-49 §3 Test");
  assertEquals(
    where({ ...passage, node_id: "2", title: "2024 plans" }, "X"),
    "L1-49 §2 2024 plans",
  );
});

Deno.test("compact hit: the snippet does not repeat the section's heading", () => {
  assertEquals(
    afterHeading(
      "**shelve** — Python object persistence Source code: Lib/**shelve**.py --- A shelf is persistent.",
      "shelve — Python object persistence",
    ),
    "Source code: Lib/**shelve**.py --- A shelf is persistent.",
  );
  const other = "The data in serial or identity columns backed by sequences is replicated.";
  assertEquals(afterHeading(other, "31.6. Restrictions"), other);
});

/** The i-th hit of a list, a Markdown document with an outline. */
function card(i: number, more: Partial<SearchResult>): SearchResult {
  return {
    doc_id: `${i}`.padStart(15, "0"),
    title: `Doc ${i}`,
    path: `lib/doc${i}.md`,
    library: "lib",
    doc_type: "markdown",
    word_count: 100,
    total_lines: 40,
    has_outline: true,
    outline_quality: "high",
    brief: false,
    modified_at: "2026-01-01T00:00:00Z",
    keywords: [],
    relevance: 0.5,
    snippet: "",
    ...more,
  };
}

Deno.test("compact list: snippets for the first five hits, one line with the place after", () => {
  const hit = (i: number): SearchResult =>
    card(i, {
      snippet: "the matching sentence",
      passages: [{
        node_id: "2",
        title: "Setup",
        start_line: 10,
        end_line: 20,
        snippet: "the **matching** sentence",
      }],
    });
  const lines = resultsMd(Array.from({ length: 7 }, (_, i) => hit(i + 1)));
  // Five hits of two lines, then two of one.
  assertEquals(lines.length, 5 * 2 + 2);
  assertEquals(lines[1], "   L10-20 §2: the matching sentence");
  assertEquals(lines[10], "6. Doc 6 [000000000000006] lib/doc6.md · L10-20 §2");
  assertEquals(lines.filter((l) => l.includes("matching")).length, WITH_SNIPPETS);
});

Deno.test("compact list: an answer another hit already gave is named, not repeated", () => {
  const hit = (i: number, text: string): SearchResult =>
    card(i, { answer: { text, line: 7, start_line: 6, end_line: 9 } });
  const lines = resultsMd([
    hit(1, "The pool's default number of workers is min(32, os.cpu_count() + 4)."),
    hit(2, "Backups run every night at two."),
    hit(3, ".. versionchanged:: the default number of workers is min(32, os.cpu_count() + 4)."),
  ]);
  assertEquals(lines.filter((l) => l.startsWith("   ")), [
    "   L6-9: The pool's default number of workers is min(32, os.cpu_count() + 4).",
    "   L6-9: Backups run every night at two.",
    "   L6-9: (as in 1.)",
  ]);
});
