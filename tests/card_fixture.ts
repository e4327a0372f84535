/**
 * A minimal document card for tests that store documents in a real catalog: a one-line
 * brief Markdown note without an outline; any field can be overridden.
 *
 * ```ts
 * import { testCard } from "./card_fixture.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(testCard({ doc_id: "d1", path: "lib/d1.md" }).library, "lib");
 * ```
 *
 * @module
 */
import type { Card } from "../core/types.ts";

/** A card for `path` (`<library>/...`), its id made from the path unless given. */
export function testCard(fields: Partial<Card> & { path: string }): Card {
  return {
    doc_id: fields.path.replace(/\W/g, "_"),
    library: fields.path.slice(0, fields.path.indexOf("/")),
    doc_type: "markdown",
    title: fields.path,
    language: "en",
    word_count: 1,
    total_lines: 1,
    abstract: "",
    keywords: [],
    brief: true,
    outline_quality: "none",
    has_outline: false,
    modified_at: "2026-01-01T00:00:00.000Z",
    size: 1,
    ...fields,
  };
}
