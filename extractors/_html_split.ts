/**
 * Cutting a long HTML page into pieces for the HTML extractor ({@link splitBlocks}):
 * node-html-markdown slows down quadratically with the length of its output, so long
 * pages are converted piece by piece, long lists and tables cut between their items.
 *
 * @module
 */
import { tags } from "./_xml.ts";

/** Elements whose Markdown depends on their ancestors: never split a page inside them. */
const KEEP_WHOLE = new Set(["ul", "ol", "dl", "table", "blockquote", "pre", "a", "details"]);
/** The items a long container may be cut between. */
const ITEM_OF: Record<string, string[]> = { li: ["ul", "ol"], dt: ["dl"], tr: ["table"] };
const SPLIT_BEFORE = /^(?:h[1-6]|p|div|section|article|pre|table|ul|ol|dl|blockquote|hr)$/;
const LIST_PARTS = new Set(["ul", "ol", "li"]);
/** The text of a list item reopened in the next piece of a page (see {@link splitBlocks}). */
export const REOPENED = "ShelfmarkReopenedItem";
/** The Markdown line of a reopened item, dropped. */
export const REOPENED_LINE = new RegExp(`^\\s*(?:[*+-]|\\d+[.)])\\s+${REOPENED}\\s*$`);

/**
 * Cut a page into pieces of about `size` characters before block-level tags outside
 * lists, tables, quotes and code. node-html-markdown slows down quadratically with the
 * length of its output, so long pages are converted piece by piece.
 *
 * @param html the page, chrome already removed
 * @param size target size of a piece
 * @param check called at each tag (see `deadlineCheck`)
 * A single list, definition list or table longer than `2 * size` is cut between its items
 * (`li`, `dt`, `tr`): the piece closes the container and the next one opens it again. Nested
 * lists (a table of contents) are cut between items at any depth: the piece closes every open
 * list and item, the next one opens them again, each reopened item holding only
 * {@link REOPENED} (a line the extractor drops), so the items keep their indentation.
 *
 * @returns the pieces, in order; without those reopened containers, their concatenation is `html`
 */
export function splitBlocks(html: string, size = 64_000, check?: () => void): string[] {
  if (html.length <= size) return [html];
  const pieces: string[] = [];
  let depth = 0;
  let start = 0;
  let container: { name: string; open: string } | undefined;
  let prefix = "";
  // The open containers and list items, outermost first (for nested lists).
  const open: { name: string; tag: string }[] = [];
  for (const t of tags(html)) {
    check?.();
    const { name, start: lt } = t;
    if (t.kind === "comment" || t.kind === "decl") continue;
    if (t.kind === "close") {
      if (KEEP_WHOLE.has(name) && depth > 0) depth--;
      if (depth === 0) container = undefined;
      const at = open.findLastIndex((e) => e.name === name);
      if (at >= 0) open.length = at;
      continue;
    }
    // an item closes the one before it when that was left open
    if (name === "li" && open.at(-1)?.name === "li") open.pop();
    // split here when outside context-sensitive elements (or the piece is far too big)
    const due = lt - start >= size && (depth === 0 || lt - start >= size * 32);
    if (due && SPLIT_BEFORE.test(name)) {
      pieces.push(prefix + html.slice(start, lt));
      start = lt;
      prefix = "";
      if (depth > 0) depth = 0;
      container = undefined;
      open.length = 0;
    } else if (
      depth === 1 && container && lt - start >= size * 2 && ITEM_OF[name]?.includes(container.name)
    ) {
      // one long list or table: close it here and open it again in the next piece
      pieces.push(prefix + html.slice(start, lt) + `</${container.name}>`);
      start = lt;
      prefix = container.open;
    } else if (
      depth > 1 && name === "li" && lt - start >= size * 2 && open.length > 1 &&
      open.every((e) => LIST_PARTS.has(e.name)) && open.at(-1)!.name !== "li"
    ) {
      // nested lists: close every list and item, open them again (items only marked)
      const close = open.map((e) => `</${e.name}>`).reverse().join("");
      pieces.push(prefix + html.slice(start, lt) + close);
      start = lt;
      prefix = open.map((e) => e.name === "li" ? `${e.tag}${REOPENED}` : e.tag).join("");
    }
    const selfClosing = t.attrs.endsWith("/");
    if (KEEP_WHOLE.has(name) && !selfClosing) {
      if (depth++ === 0) container = { name, open: html.slice(lt, t.end) };
    }
    if ((KEEP_WHOLE.has(name) || name === "li") && !selfClosing) {
      open.push({ name, tag: html.slice(lt, t.end) });
    }
  }
  pieces.push(prefix + html.slice(start));
  return pieces;
}
