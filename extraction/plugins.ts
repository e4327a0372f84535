/**
 * Extractor plugins: the built-in extractors plus user modules that default-export an
 * `Extractor` (or a factory returning one). A plugin that fails to load is skipped with a
 * warning; a plugin registered after a built-in wins ties, so it overrides it.
 *
 * @module
 */
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Extractor } from "../core/extractor.ts";

function isExtractor(x: unknown): x is Extractor {
  const e = x as Extractor;
  return typeof e === "object" && e !== null && typeof e.name === "string" &&
    Array.isArray(e.extensions) && typeof e.extract === "function";
}

/** Load one plugin module (a path or URL). Throws with a message naming the module. */
export async function loadExtractor(spec: string): Promise<Extractor> {
  const url = /^[a-z][a-z0-9+.-]*:/i.test(spec) ? spec : pathToFileURL(resolve(spec)).href;
  const mod = await import(url);
  let ex: unknown = mod.default;
  if (typeof ex === "function") ex = await (ex as () => unknown)();
  if (!isExtractor(ex)) {
    throw new Error(`${spec}: the default export is not an extractor (name, extensions, extract)`);
  }
  return ex;
}

/** Built-in extractors followed by the plugins that loaded. */
export async function extractorsFrom(
  specs: string[],
  warn: (msg: string) => void,
): Promise<Extractor[]> {
  // Loaded here, not with this module: the built-in extractors' libraries (pdf.js, OCR)
  // weigh tens of MB, and a process that extracts in workers never needs them.
  const { builtinExtractors } = await import("../extractors/mod.ts");
  const out = builtinExtractors();
  for (const spec of specs) {
    try {
      out.push(await loadExtractor(spec));
    } catch (e) {
      warn(`shelfmark: extractor plugin skipped: ${(e as Error)?.message ?? e}`);
    }
  }
  return out;
}
