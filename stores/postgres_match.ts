/**
 * An FTS5 MATCH expression (as `toFtsMatch` in `fts5_match.ts` writes it: quoted phrases,
 * `AND`, `OR`, `NOT`, parentheses) read back into a tree, so the PostgreSQL keyword index
 * matches and ranks exactly what the FTS5 index would: the same phrases, the same
 * boolean structure, the same phrase list for BM25.
 *
 * @module
 */

/** A node of a MATCH expression: a phrase (by its index in the phrase list) or an operator. */
export type MatchNode =
  | { op: "phrase"; index: number }
  | { op: "and" | "or"; children: MatchNode[] }
  | { op: "not"; left: MatchNode; right: MatchNode };

/** A parsed MATCH expression: its tree and its phrases in order of appearance. */
export interface ParsedMatch {
  /** The tree. */
  root: MatchNode;
  /** The phrases' texts, in order (a phrase repeated in the expression is listed again). */
  phrases: string[];
}

/**
 * Parse a MATCH expression. FTS5's precedence: `NOT` binds tightest, then `AND`, then `OR`.
 *
 * @param match the expression
 * @returns its tree and phrases
 * @throws {SyntaxError} on an expression `toFtsMatch` does not write
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseMatch } from "./postgres_match.ts";
 * const m = parseMatch('("docker" OR "swarm ""x""") NOT "k8s"');
 * assert.deepEqual(m.phrases, ["docker", 'swarm "x"', "k8s"]);
 * assert.equal(m.root.op, "not");
 * ```
 */
export function parseMatch(match: string): ParsedMatch {
  const tokens = match.match(/"(?:[^"]|"")*"|\(|\)|AND|OR|NOT|\S+/g) ?? [];
  const phrases: string[] = [];
  let i = 0;
  const fail = (what: string): never => {
    throw new SyntaxError(`MATCH expression: ${what} at token ${i} of "${match}"`);
  };
  const primary = (): MatchNode => {
    const t = tokens[i++];
    if (t === "(") {
      const inner = or();
      if (tokens[i++] !== ")") fail("missing )");
      return inner;
    }
    if (t?.startsWith('"')) {
      phrases.push(t.slice(1, -1).replaceAll('""', '"'));
      return { op: "phrase", index: phrases.length - 1 };
    }
    return fail(`unexpected ${t ?? "end"}`);
  };
  const not = (): MatchNode => {
    let left = primary();
    while (tokens[i] === "NOT") {
      i++;
      left = { op: "not", left, right: primary() };
    }
    return left;
  };
  const chain = (op: "and" | "or", next: () => MatchNode): MatchNode => {
    const children = [next()];
    while (tokens[i] === op.toUpperCase()) {
      i++;
      children.push(next());
    }
    return children.length === 1 ? children[0]! : { op, children };
  };
  const and = () => chain("and", not);
  const or = () => chain("or", and);
  const root = or();
  if (i < tokens.length) fail(`unexpected ${tokens[i]}`);
  return { root, phrases };
}

/**
 * Whether a document matches, given which phrases it holds.
 *
 * @param node the expression's tree
 * @param has whether the document holds a phrase (by index)
 */
export function matches(node: MatchNode, has: (index: number) => boolean): boolean {
  switch (node.op) {
    case "phrase":
      return has(node.index);
    case "and":
      return node.children.every((c) => matches(c, has));
    case "or":
      return node.children.some((c) => matches(c, has));
    case "not":
      return matches(node.left, has) && !matches(node.right, has);
  }
}
