/**
 * `grep`: regular-expression matches inside one document, with context, on a worker
 * thread with a time limit (a runaway pattern fails with `PATTERN_TIMEOUT`).
 *
 * @module
 */
import { z } from "zod";
import { ToolError } from "../../core/types.ts";
import { GrepRunner } from "../grep.ts";
import type { GrepMatch } from "../grep_worker.ts";
import {
  defineTool,
  docIdArg,
  escapeControl,
  intFlag,
  needArgs,
  resolveDoc,
  shownPath,
} from "../tool.ts";

const USAGE =
  `shelfmark grep PATTERN ID [-C 3] [-B N] [-A N] [-i] [--count] [--limit 20] [--offset 0] [--json]`;

let grepRunner: GrepRunner | undefined;

/** Stop the grep worker (the CLI calls this before exiting). */
export function closeGrep(): void {
  grepRunner?.close();
  grepRunner = undefined;
}

/** The pattern's flags: with `u` when the pattern is valid that way, else without. */
function regexFlags(pattern: string, caseInsensitive: boolean): string {
  const flags = caseInsensitive ? "i" : "";
  try {
    new RegExp(pattern, flags + "u");
    return flags + "u";
  } catch {
    try {
      new RegExp(pattern, flags);
      return flags;
    } catch (e) {
      throw new ToolError(
        "INVALID_PATTERN",
        `Invalid regular expression ${JSON.stringify(pattern)}: ${(e as Error).message}`,
        "Patterns are JavaScript regular expressions; escape special characters with \\.",
      );
    }
  }
}

/** The `grep` tool. */
export const grep = defineTool({
  name: "grep",
  title: "Grep a document",
  description:
    "Regular-expression search inside one document, with line numbers and context, or a count.",
  input: {
    pattern: z.string().min(1).max(1000).describe("JavaScript regular expression"),
    doc_id: docIdArg,
    context: z.number().int().min(0).max(50).default(3).describe("Lines of context"),
    before: z.number().int().min(0).max(50).optional().describe("Lines before (overrides context)"),
    after: z.number().int().min(0).max(50).optional().describe("Lines after (overrides context)"),
    case_insensitive: z.boolean().default(false),
    output_mode: z.enum(["content", "count"]).default("content"),
    limit: z.number().int().min(1).max(100).default(20).describe("Matches to return (max 100)"),
    offset: z.number().int().min(0).default(0).describe("Matches to skip"),
  },
  async run(shelf, a) {
    const id = resolveDoc(shelf, a.doc_id);
    const flags = regexFlags(a.pattern, a.case_insensitive);
    grepRunner ??= new GrepRunner();
    const text = shelf.catalog.text(id) ?? "";
    const r = await grepRunner.run({
      source: a.pattern,
      flags,
      text,
      before: a.before ?? a.context,
      after: a.after ?? a.context,
      offset: a.offset,
      limit: a.limit,
      countOnly: a.output_mode === "count",
    });
    const card = shelf.catalog.cards([id]).get(id)!;
    const matches: GrepMatch[] = r.matches;
    return {
      doc_id: id,
      title: card.title,
      path: shownPath(shelf, card.path),
      pattern: a.pattern,
      total_matches: r.total,
      offset: a.offset,
      matches: a.output_mode === "count" ? undefined : matches,
      next_offset: a.output_mode === "count" || a.offset + matches.length >= r.total
        ? null
        : a.offset + matches.length,
    };
  },
  markdown(r) {
    const head = `${r.total_matches} matches for /${escapeControl(r.pattern)}/ in ${
      escapeControl(r.title)
    } [${r.doc_id}]`;
    if (!r.matches) return head;
    const out = [head];
    for (const m of r.matches) {
      out.push("--");
      m.before.forEach((t, i) => out.push(`${m.line - m.before.length + i}- ${t}`));
      out.push(`${m.line}: ${m.text}`);
      m.after.forEach((t, i) => out.push(`${m.line + 1 + i}- ${t}`));
    }
    if (r.next_offset !== null) {
      out.push("");
      out.push(
        `Showing ${r.matches.length} from match ${r.offset + 1}. Next: offset=${r.next_offset}.`,
      );
    }
    return out.join("\n");
  },
  cli: {
    summary: "grep PATTERN ID                 regex matches inside a document",
    usage: USAGE,
    flags: {
      context: { type: "string", short: "C" },
      "before-context": { type: "string", short: "B" },
      "after-context": { type: "string", short: "A" },
      "ignore-case": { type: "boolean", short: "i" },
      count: { type: "boolean" },
      limit: { type: "string", short: "n" },
      offset: { type: "string" },
    },
    args(pos, f) {
      needArgs(pos, 2, "PATTERN and ID", USAGE);
      return {
        pattern: pos[0],
        doc_id: pos[1],
        context: intFlag(f.context, "context"),
        before: intFlag(f["before-context"], "before-context"),
        after: intFlag(f["after-context"], "after-context"),
        case_insensitive: f["ignore-case"] ?? false,
        output_mode: f.count ? "count" : "content",
        limit: intFlag(f.limit, "limit"),
        offset: intFlag(f.offset, "offset"),
      };
    },
  },
});
