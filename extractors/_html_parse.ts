/**
 * node-html-markdown 2.0 parsing with node-html-parser 6.1 without its quadratic repair of
 * unclosed elements. After its parse, node-html-parser takes every element still open at
 * the end of the page and moves its children up to the element around it with
 * `appendChild`, which first removes each child from its old parent by filtering that
 * parent's whole child list: moving k children costs k² steps. A page with many unclosed
 * elements (SQLite's `opcode.html`, 137 KB, took 0.97 s of CPU) spent most of its time there
 * (`_loop_1` 42 % and `Node.remove` 20 % of the self time, `deno run --cpu-prof`).
 * {@link parseHtml} runs the library's own first pass (`base_parse`) and the same repair,
 * moving the children of an element in one pass; the tree is the library's, node for node.
 *
 * node-html-markdown reads `parseHTML` from its utilities module at each conversion, so the
 * replacement is set there, and only when node-html-parser's `parse` is the one this was
 * written against (its source text matches), so another version keeps its own.
 *
 * @module
 */
import * as utilities from "node-html-markdown/dist/utilities.js";
import * as parser from "node-html-parser/dist/nodes/html.js";

/** The part of a node-html-parser node the repair reads and writes. */
interface TreeNode {
  tagName?: string;
  parentNode: TreeNode | null;
  childNodes: TreeNode[];
  appendChild(node: TreeNode): TreeNode;
  removeChild(node: TreeNode): TreeNode;
}

/** node-html-parser's first pass: the root, then the elements left open, outermost first. */
const baseParse = parser.base_parse as unknown as (
  html: string,
  options: Record<string, unknown>,
) => TreeNode[];

/**
 * Move every child of `from` to the end of `to`, as the library's
 * `from.childNodes.forEach((c) => to.appendChild(c))` does, in one pass: a child whose parent
 * is `from` is pushed, another goes through `appendChild` (and, as there, stays listed in
 * `from` too).
 */
function moveChildren(from: TreeNode, to: TreeNode): void {
  const kids = from.childNodes;
  const kept: TreeNode[] = [];
  for (const child of kids) {
    if (child.parentNode === from) {
      to.childNodes.push(child);
      child.parentNode = to;
    } else {
      to.appendChild(child);
      kept.push(child);
    }
  }
  from.childNodes = kept;
}

/**
 * node-html-parser's `parse(html, options)`: the first pass, then the elements left open
 * are taken apart from the innermost, their children moved up (see the module
 * documentation).
 *
 * @param html the page
 * @param options node-html-parser's options
 * @returns the root of the tree
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const root = parseHtml("<div><span>a<b>b</b>c</div>", {}) as unknown as { toString(): string };
 * assert.equal(root.toString(), "<div>a<b>b</b>c</div>");
 * ```
 */
export function parseHtml(html: string, options: Record<string, unknown>): TreeNode {
  const stack = baseParse(html, options);
  const root = stack[0]!;
  const repair = options.parseNoneClosedTags !== true;
  while (stack.length > 1) {
    const last = stack.pop()!;
    const oneBefore = stack[stack.length - 1]!;
    if (!last.parentNode?.parentNode || !repair) continue;
    oneBefore.removeChild(last);
    if (last.parentNode === oneBefore && last.tagName === oneBefore.tagName) {
      // `<h3><h3>`: the second one's children go after the first
      moveChildren(last, oneBefore.parentNode!);
      stack.pop();
    } else moveChildren(last, oneBefore);
  }
  return root;
}

/** The source of node-html-parser's `parse` that {@link parseHtml} stands in for. */
const KNOWN_PARSE = `function parse(data, options) {
    if (options === void 0) { options = {}; }
    var stack = base_parse(data, options);
    var root = stack[0];
    var _loop_1 = function () {
        // Handle each error elements.
        var last = stack.pop();
        var oneBefore = (0, back_1.default)(stack);
        if (last.parentNode && last.parentNode.parentNode) {
            if (last.parentNode === oneBefore && last.tagName === oneBefore.tagName) {`;

/** node-html-markdown's utilities, with the parse function it calls. */
const nhm = (utilities as unknown as { default?: unknown }).default as {
  parseHTML: (html: string, options: { preferNativeParser?: boolean }) => unknown;
  nodeHtmlParserConfig: Record<string, unknown>;
};

/** Whether node-html-parser's `parse` is the one {@link parseHtml} was written against. */
export const parseMatchesLibrary: boolean = String(parser.parse).startsWith(KNOWN_PARSE);

if (parseMatchesLibrary) {
  const library = nhm.parseHTML;
  nhm.parseHTML = (html, options) =>
    options.preferNativeParser ? library(html, options) : parseHtml(html, nhm.nodeHtmlParserConfig);
}
