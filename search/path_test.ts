import { deepStrictEqual as assertEquals, throws as assertThrows } from "node:assert/strict";
import { Catalog } from "../core/catalog.ts";
import { escapeLike } from "../core/catalog_sql.ts";
import { ToolError } from "../core/types.ts";
import { aggregatePaths, findPaths } from "./path.ts";

const PATHS = [
  "Notes/Notion Export/2024/a.md",
  "Notes/Notion Export/2024/b.md",
  "Notes/Notion Export/c.md",
  "Notes/archive/notion-old/d.md",
  "Notes/archive/notion.md",
  "Notes/misc/e.md",
  "Work/notion/f.md",
  "Work/100%_done/g.md",
  "Work/100x done/h.md",
];

/** A catalog with the catalog's own schema; rows hold what path matching reads. */
function setup(): Catalog {
  const db = new Catalog(":memory:");
  const ins = db.db.prepare(
    `INSERT INTO documents (doc_id, library, path, doc_type, modified_at, size, mtime_ms, hash,
       word_count, card, outline, terms, indexed_at) VALUES (?, ?, ?, ?, ?, 0, 0, '', 0, '{}', '[]', '{}', '')`,
  );
  PATHS.forEach((p, i) => {
    const type = p.endsWith(".md") ? "markdown" : "text";
    ins.run(`id${i}`, p.split("/")[0]!, p, type, `2026-01-0${1 + (i % 9)}T00:00:00.000Z`);
  });
  return db;
}

Deno.test("aggregatePaths() buckets each match at the shallowest matching folder", () => {
  assertEquals(aggregatePaths(PATHS, ["notion"], 10), {
    total_files: 5,
    truncated: false,
    directories: [
      { path: "Notes/Notion Export", file_count: 3 },
      { path: "Notes/archive/notion-old", file_count: 1 },
      { path: "Work/notion", file_count: 1 },
    ],
  });
});

Deno.test("aggregatePaths() drops matches only in the file name", () => {
  assertEquals(aggregatePaths(["Notes/archive/notion.md", "notion.md"], ["notion"], 10), {
    total_files: 0,
    truncated: false,
    directories: [],
  });
});

Deno.test("aggregatePaths() ORs patterns, matches the library segment and truncates", () => {
  const out = aggregatePaths(PATHS, ["2024", "WORK"], 1);
  assertEquals(out.total_files, 5);
  assertEquals(out.truncated, true);
  assertEquals(out.directories, [{ path: "Work", file_count: 3 }]);
  assertEquals(aggregatePaths(PATHS, ["archive/notion"], 10).directories, [
    { path: "Notes/archive/notion-old", file_count: 1 },
  ]);
  assertEquals(aggregatePaths(PATHS, ["  ", ""], 10).total_files, 0);
});

Deno.test("escapeLike() escapes LIKE wildcards", () => {
  assertEquals(escapeLike("100%_do\\ne"), "100\\%\\_do\\\\ne");
});

Deno.test("findPaths() matches case-insensitively with literal wildcards", () => {
  const db = setup();
  assertEquals(findPaths(db, { patterns: ["NOTION"], limit: 2 }), {
    total_files: 5,
    truncated: true,
    directories: [
      { path: "Notes/Notion Export", file_count: 3 },
      { path: "Notes/archive/notion-old", file_count: 1 },
    ],
  });
  assertEquals(findPaths(db, { patterns: ["notion"], library: "Work", limit: 10 }).directories, [
    { path: "Work/notion", file_count: 1 },
  ]);
  assertEquals(findPaths(db, { patterns: ["100%_"], limit: 10 }).directories, [
    { path: "Work/100%_done", file_count: 1 },
  ]);
  assertThrows(
    () => findPaths(db, { patterns: [" "], limit: 10 }),
    (e: unknown) => e instanceof ToolError && e.code === "INVALID_ARGUMENT",
  );
  db.close();
});
