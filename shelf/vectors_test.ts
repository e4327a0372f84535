import { assert, assertEquals } from "../tests/assert.ts";
import type { Card, OutlineNode } from "../core/types.ts";
import { embedText } from "./vectors.ts";

const node = (
  id: string,
  title: string,
  level: number,
  children: OutlineNode[] = [],
  summary?: string,
): OutlineNode => ({
  id,
  title,
  level,
  start_line: 1,
  end_line: 2,
  line_count: 2,
  summary,
  children,
});

const card = {
  title: "Atomic Commit In SQLite",
  author: "D. Richard Hipp",
  keywords: ["journal", "rollback", "fsync"],
  abstract: "An important feature of transactional databases like SQLite is atomic commit.",
} as Card;

Deno.test("embedText() puts the card and top-level sections first, deeper headings last", () => {
  const outline = [
    node(
      "1",
      "Introduction",
      1,
      [node("1.1", "Hardware Assumptions", 2)],
      "Why commits must be atomic.",
    ),
    node("2", "Single File Commit", 1),
  ];
  const t = embedText(card, outline, 10_000);
  const at = (s: string) => t.indexOf(s);
  assert(at("Atomic Commit In SQLite") === 0);
  assert(at("by D. Richard Hipp") > 0);
  assert(at("journal, rollback, fsync") > at("by D. Richard Hipp"));
  assert(at("Introduction: Why commits must be atomic.") > at("fsync"));
  assert(at("Single File Commit") > at("Introduction"));
  assert(at("An important feature") > at("Single File Commit"));
  assert(at("Hardware Assumptions") > at("An important feature"));
});

Deno.test("embedText() trims to the model's limit at a word boundary", () => {
  const long = { ...card, abstract: "word ".repeat(2000) };
  const t = embedText(long, [], 300);
  assert(t.length <= 300);
  assertEquals(t.startsWith("Atomic Commit In SQLite"), true);
  assert(!t.endsWith("wor"));
});
