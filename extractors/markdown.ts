/**
 * The Markdown extractor: the file's lines unchanged, ATX/Setext headings, metadata
 * from YAML front matter, and the links (inline, reference, autolinks, wiki links and
 * embeds), which stay in the text as the author wrote them.
 *
 * @module
 */
import { parse } from "yaml";
import type { DocMeta, Extracted, ExtractInput, Extractor } from "../core/extractor.ts";
import { ExtractError } from "../core/extractor.ts";
import { decodeText, splitLines } from "../core/sniff.ts";
import { frontMatterLength, markdownHeadings } from "./_headings_markdown.ts";
import { markdownLinks } from "./_links.ts";

/** A front-matter value as a trimmed string, or undefined. */
function str(v: unknown): string | undefined {
  if (typeof v === "string") return v.trim() || undefined;
  if (typeof v === "number") return String(v);
  if (v instanceof Date && !isNaN(v.getTime())) {
    return v.toISOString().replace(/T00:00:00\.000Z$/, "");
  }
  return undefined;
}

/** Names from a string, a list of strings, or objects with a `name`. */
function names(v: unknown): string | undefined {
  if (Array.isArray(v)) {
    const all = v.map(names).filter((x): x is string => !!x);
    return all.length ? all.join(", ") : undefined;
  }
  if (v && typeof v === "object" && !(v instanceof Date)) {
    return str((v as Record<string, unknown>).name);
  }
  return str(v);
}

/** Tags from a list or a comma/space separated string. */
function tagList(v: unknown): string[] | undefined {
  const raw = Array.isArray(v)
    ? v.map(str)
    : typeof v === "string"
    ? v.split(v.includes(",") ? "," : /\s+/).map((t) => t.trim())
    : [];
  const tags = raw.filter((t): t is string => !!t);
  return tags.length ? tags : undefined;
}

/** Front-matter keys read as another (Obsidian's singular forms). */
const SAME_AS: Record<string, string> = { tag: "tags", alias: "aliases" };
/** Front-matter keys kept in `fields`, at most. */
const MAX_FIELDS = 64;

/**
 * Every front-matter key with its values as strings (key lower-cased; a scalar is a
 * one-element list; `tags` written as a string split like {@link tagList}; objects give
 * their `name`, other nested values are left out).
 */
function fieldsOf(fm: Record<string, unknown>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [key, v] of Object.entries(fm)) {
    const k = key.trim().toLowerCase();
    const field = SAME_AS[k] ?? k;
    if (!field || (!(field in out) && Object.keys(out).length >= MAX_FIELDS)) continue;
    const items = Array.isArray(v) ? v : [v];
    const values = field === "tags" && typeof v === "string"
      ? tagList(v) ?? []
      : items.filter((x) => !Array.isArray(x))
        .map((x) => typeof x === "boolean" ? String(x) : names(x))
        .filter((x): x is string => !!x);
    if (values.length) out[field] = [...(out[field] ?? []), ...values];
  }
  return out;
}

/**
 * Metadata from YAML front matter lines (without the `---` fences).
 *
 * @param yaml the front matter body
 * @param warnings receives a warning when the YAML cannot be parsed
 * @returns title, author, created, language and tags when present, and every key's
 *   values as `fields`
 */
export function frontMatterMeta(yaml: string, warnings: string[]): DocMeta {
  let data: unknown;
  try {
    data = parse(yaml, { prettyErrors: false });
  } catch (e) {
    const msg = e instanceof Error ? e.message.split("\n")[0] : String(e);
    warnings.push(`front matter is not valid YAML: ${msg}`);
    return {};
  }
  if (!data || typeof data !== "object" || Array.isArray(data)) return {};
  const fm = data as Record<string, unknown>;
  const meta: DocMeta = {};
  const title = str(fm.title);
  const author = names(fm.author ?? fm.authors);
  const created = str(fm.date ?? fm.created);
  const language = str(fm.lang ?? fm.language);
  const tags = tagList(fm.tags ?? fm.keywords);
  if (title) meta.title = title;
  if (author) meta.author = author;
  if (created) meta.created = created;
  if (language) meta.language = language;
  if (tags) meta.tags = tags;
  const fields = fieldsOf(fm);
  if (Object.keys(fields).length) meta.fields = fields;
  return meta;
}

/**
 * The Markdown extractor (`.md`, `.mdx`, `.markdown`).
 *
 * @returns an extractor whose lines are the file's lines, headings from `#` and Setext,
 *   and the links
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const bytes = new TextEncoder().encode("# Title\n\nText.\n");
 * const doc = await markdown().extract({ path: "lib/a.md", extension: ".md", bytes });
 * assert.deepEqual(doc.lines, ["# Title", "", "Text."]);
 * assert.deepEqual(doc.headings, [{ level: 1, title: "Title", line: 1 }]);
 * ```
 */
export function markdown(): Extractor {
  return {
    name: "markdown",
    extensions: [".md", ".mdx", ".markdown", ".mkd", ".mdown"],
    mimeTypes: ["text/markdown"],
    priority: 0,
    extract(input: ExtractInput): Promise<Extracted> {
      if (input.bytes.length === 0) {
        return Promise.reject(new ExtractError("empty", "file is empty"));
      }
      const { text, warnings } = decodeText(input.bytes);
      const lines = splitLines(text);
      const headings = markdownHeadings(lines);
      const fmLen = frontMatterLength(lines);
      const meta = fmLen && lines[0]!.trim() === "---"
        ? frontMatterMeta(lines.slice(1, fmLen - 1).join("\n"), warnings)
        : {};
      return Promise.resolve({
        lines,
        headings,
        outlineQuality: headings.length ? "high" : "none",
        meta,
        warnings,
        links: markdownLinks(lines),
      });
    },
  };
}
