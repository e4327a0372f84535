/**
 * What an extractor plugin needs, without the server: the types of the extractor contract
 * and `ExtractError`. Import this (`@shelfmark/shelfmark/plugin`) rather than the main
 * module, so loading a plugin in an extraction worker stays light.
 *
 * @example
 * ```ts
 * import { ExtractError, type Extractor } from "./plugin.ts";
 * const txt: Extractor = {
 *   name: "notes",
 *   extensions: [".notes"],
 *   priority: 0,
 *   extract: ({ bytes }) => {
 *     if (bytes.length === 0) throw new ExtractError("empty", "no content");
 *     return Promise.resolve({ lines: new TextDecoder().decode(bytes).split("\n") });
 *   },
 * };
 * ```
 *
 * @module
 */
export * from "./core/types.ts";
