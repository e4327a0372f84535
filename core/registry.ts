/**
 * The extractor registry: picks the extractor for a file by extension, else by the
 * sniffed MIME type; lower priority wins and the most recent registration wins ties,
 * so a user's plugin overrides a built-in one.
 *
 * @module
 */
import type { ExtractInput, Extractor } from "./types.ts";
import { sniff } from "./sniff.ts";

/**
 * Holds the extractors and selects one per file.
 *
 * @example
 * ```ts
 * import { ExtractorRegistry } from "./registry.ts";
 *
 * const reg = new ExtractorRegistry();
 * reg.register({
 *   name: "notes",
 *   extensions: [".md"],
 *   extract: ({ bytes }) => Promise.resolve({ lines: new TextDecoder().decode(bytes).split("\n") }),
 * });
 * const bytes = new TextEncoder().encode("# Notes\n\nText.\n");
 * reg.select({ path: "lib/a.md", extension: ".md", bytes })?.name; // "notes"
 * ```
 */
export class ExtractorRegistry {
  #extractors: Extractor[] = [];

  /**
   * Add an extractor; a later registration wins ties over earlier ones.
   *
   * @param ex the extractor
   * @throws {TypeError} when the extractor has no name or an extension lacks its dot
   */
  register(ex: Extractor): void {
    if (!ex || typeof ex.name !== "string" || !ex.name) {
      throw new TypeError("Invalid extractor: it must have a non-empty name");
    }
    if (!Array.isArray(ex.extensions)) {
      throw new TypeError(`Invalid extractor "${ex.name}": extensions must be an array`);
    }
    if (typeof ex.extract !== "function") {
      throw new TypeError(`Invalid extractor "${ex.name}": extract must be a function`);
    }
    for (const ext of ex.extensions) {
      if (typeof ext !== "string" || !ext.startsWith(".") || ext.length < 2) {
        throw new TypeError(`Invalid file extension: "${ext}". It must start with '.'`);
      }
    }
    this.#extractors.push(ex);
  }

  /**
   * The extractor for a file: candidates by extension (case-insensitive), else by the
   * sniffed MIME type; the lowest priority wins, then the latest registration.
   * `accepts()` is consulted when present.
   *
   * @param input the file
   * @returns the chosen extractor, or `undefined` when none accepts the file
   */
  select(input: ExtractInput): Extractor | undefined {
    const ext = input.extension.toLowerCase();
    if (ext) {
      const byExt = this.#best(input, (ex) => ex.extensions.some((e) => e.toLowerCase() === ext));
      if (byExt) return byExt;
    }
    const mime = input.mimeType ?? sniff(input.bytes).mimeType;
    return this.#best({ ...input, mimeType: mime }, (ex) => ex.mimeTypes?.includes(mime) ?? false);
  }

  /** All registered extensions, lower case, sorted, without duplicates. */
  extensions(): string[] {
    const all = new Set<string>();
    for (const ex of this.#extractors) for (const e of ex.extensions) all.add(e.toLowerCase());
    return [...all].sort();
  }

  /** The registered extractors, in registration order. */
  list(): Extractor[] {
    return [...this.#extractors];
  }

  #best(input: ExtractInput, match: (ex: Extractor) => boolean): Extractor | undefined {
    const candidates = this.#extractors
      .map((ex, order) => ({ ex, order }))
      .filter(({ ex }) => match(ex))
      .sort((a, b) => (a.ex.priority ?? 0) - (b.ex.priority ?? 0) || b.order - a.order);
    for (const { ex } of candidates) {
      if (!ex.accepts) return ex;
      try {
        if (ex.accepts(input)) return ex;
      } catch {
        // an accepts() that throws declines the file
      }
    }
    return undefined;
  }
}
