/**
 * The extractor registry: picks the extractor for a file by extension, else by the
 * sniffed MIME type; lower priority wins and the most recent registration wins ties,
 * so a user's plugin overrides a built-in one.
 *
 * @module
 */
import { type Extracted, ExtractError, type ExtractInput, type Extractor } from "./extractor.ts";
import { sniff } from "./sniff.ts";

/**
 * An extractor for a container holding one document, such as a compressed file: `open`
 * returns the document inside as a file of its own (the same display path, the inner name's
 * extension, its bytes, no MIME type so that it is sniffed), which
 * {@link ExtractorRegistry.extract} reads with the extractor chosen for it, so the
 * document's type is that extractor's name. Its own `extract` serves callers that use
 * `select` directly.
 */
export interface ContainerExtractor extends Extractor {
  /** The document inside the container. Throw `ExtractError` when it cannot be opened. */
  open(input: ExtractInput): Promise<ExtractInput>;
}

/** Whether an extractor is a container (has `open`). */
export function isContainer(ex: Extractor): ex is ContainerExtractor {
  return typeof (ex as Partial<ContainerExtractor>).open === "function";
}

/**
 * Holds the extractors and selects one per file.
 *
 * @example
 * ```ts
 * import { ExtractorRegistry } from "./registry.ts";
 * import assert from "node:assert/strict";
 *
 * const reg = new ExtractorRegistry();
 * reg.register({
 *   name: "notes",
 *   extensions: [".md"],
 *   extract: ({ bytes }) => Promise.resolve({ lines: new TextDecoder().decode(bytes).split("\n") }),
 * });
 * const bytes = new TextEncoder().encode("# Notes\n\nText.\n");
 * assert.equal(reg.select({ path: "lib/a.md", extension: ".md", bytes })?.name, "notes");
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

  /**
   * Extract a file with the extractor chosen for it. A container (a compressed file) is
   * opened and the document inside is extracted with the extractor chosen for that one, whose
   * name is then the answer's `extractor` (the document's type); one level only.
   *
   * @param input the file
   * @returns the name of the extractor that read the document and its result, or
   *   `undefined` when no extractor takes the file
   * @throws ExtractError from the extractors, or `unsupported` when nothing but another
   *   container takes the document inside a container
   */
  async extract(
    input: ExtractInput,
  ): Promise<{ extractor: string; extracted: Extracted } | undefined> {
    const ex = this.select(input);
    if (!ex) return undefined;
    if (isContainer(ex)) return await this.#extractInside(ex, input);
    return { extractor: ex.name, extracted: await ex.extract(input) };
  }

  async #extractInside(
    container: ContainerExtractor,
    input: ExtractInput,
  ): Promise<{ extractor: string; extracted: Extracted }> {
    const doc = await container.open(input);
    const ex = this.select(doc);
    if (!ex || isContainer(ex)) {
      const s = sniff(doc.bytes);
      const what = ex
        ? `a ${ex.name} file`
        : s.text
        ? `a file with no extractor for "${doc.extension}"`
        : `a binary file (${s.mimeType})`;
      throw new ExtractError("unsupported", `${container.name} file holding ${what}`);
    }
    return { extractor: ex.name, extracted: await ex.extract(doc) };
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
