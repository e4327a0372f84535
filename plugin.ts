/**
 * What an extractor plugin needs, without the server: the extractor contract and
 * `ExtractError`. Import this (`@shelfmark/shelfmark/plugin`) rather than the main module,
 * so loading a plugin in an extraction worker stays light.
 *
 * A plugin is a module that default-exports an {@linkcode Extractor} (or a function
 * returning one); load it with `--extractor ./notes.ts` or list it under `"extractors"` in
 * `shelfmark.json`.
 *
 * @example An extractor for `.notes` files
 * ```ts
 * import { ExtractError, type Extractor } from "@shelfmark/shelfmark/plugin";
 * import assert from "node:assert/strict";
 *
 * const notes: Extractor = {
 *   name: "notes",
 *   extensions: [".notes"],
 *   priority: 0,
 *   extract: ({ bytes }) => {
 *     if (bytes.length === 0) throw new ExtractError("empty", "no content");
 *     const lines = new TextDecoder().decode(bytes).split("\n");
 *     return Promise.resolve({ lines, headings: [{ level: 1, title: lines[0]!, line: 1 }] });
 *   },
 * };
 *
 * const bytes = new TextEncoder().encode("Shopping\nmilk\nbread");
 * const out = await notes.extract({ path: "home/list.notes", extension: ".notes", bytes });
 * assert.deepEqual(out.lines, ["Shopping", "milk", "bread"]);
 * assert.equal(out.headings?.[0]?.title, "Shopping");
 * assert.throws(
 *   () => notes.extract({ path: "home/empty.notes", extension: ".notes", bytes: new Uint8Array() }),
 *   ExtractError,
 * );
 * ```
 *
 * @module
 */
export * from "./core/extractor.ts";
